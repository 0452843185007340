#!/usr/bin/env bash
# One lent-GPU session of calibration, sized to a deadline: build the kernels,
# calibrate the given models one process each, in the order given, starting a
# model only while enough time is left, then run the kernels' ctest (GPU
# checks at every spec's shapes) in the time that is left, and pack
# everything into $OUT as it goes so that a call cut off at its limit still
# returns every finished profile. (ctest ran first until 2026-11-27; it
# outran its 200 s on the H200 and cost the session three models.)
#
# Usage (from the repository root, on the GPU machine):
#   bash kernels/calibrate/gpu_session.sh --git-commit SHA [--deadline-s 560]
#        [--torch-models N] [--ctest-timeout-s 200] MODEL [MODEL ...]
# MODEL is a spec name of models/specs (without .json); with none, the
# session builds and runs ctest alone (the GPU test at every spec's shapes
# needs about 180 s by itself). The GPU (h100-sxm or
# h200) and its roofline bandwidth are read off nvidia-smi. The first N
# models (default 4) also run --compare-torch (the targets' ratios). ctest
# (with the GPU test at every spec's shapes) gets at most --ctest-timeout-s
# seconds of what the deadline leaves; 0 skips it.
#
# Output, all under $OUT (the device tool returns at most 8 files):
#   calibration.tar.gz  ctest.log, build.log, <gpu>/<model>.json profiles and
#                       <gpu>/calibrate-<model>.log, replaced after each model
#   summary.txt         what ran, how long each step took, every targets table
set -uo pipefail

sha=""
deadline_s=560
torch_models=4
ctest_timeout_s=200
models=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --git-commit) sha="$2"; shift 2 ;;
    --deadline-s) deadline_s="$2"; shift 2 ;;
    --torch-models) torch_models="$2"; shift 2 ;;
    --ctest-timeout-s) ctest_timeout_s="$2"; shift 2 ;;
    -*) echo "gpu_session.sh: unknown option $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
[[ -n "$sha" ]] || { echo "gpu_session.sh: --git-commit SHA is required" >&2; exit 2; }
(( ${#models[@]} > 0 || ctest_timeout_s > 0 )) ||
  { echo "gpu_session.sh: name at least one model, or give ctest time (--ctest-timeout-s)" >&2; exit 2; }
: "${OUT:?OUT must name the folder whose files come back}"

work=/tmp/calibration
rm -rf "$work"; mkdir -p "$work"
summary="$OUT/summary.txt"
say() { echo "[$(printf '%4d' "$SECONDS") s] $*" | tee -a "$summary"; }
pack() {  # replace the archive atomically: a call cut off mid-write keeps the last whole one
  tar -C "$work" -czf "$OUT/.calibration.tmp" . && mv "$OUT/.calibration.tmp" "$OUT/calibration.tar.gz"
}

gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu_name" in
  *H200*) gpu=h200; peak_tbps=4.3 ;;
  *H100*) gpu=h100-sxm; peak_tbps=3.0 ;;
  *) say "unexpected GPU '$gpu_name'; expected an H100 or H200"; exit 1 ;;
esac
mkdir -p "$work/$gpu"
say "GPU $gpu_name -> --gpu $gpu --peak-tbps $peak_tbps; commit $sha; deadline ${deadline_s} s"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.used --format=csv | tee -a "$summary"

if ! cmake -S kernels -B build-kernels -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      >"$work/build.log" 2>&1 || ! cmake --build build-kernels >>"$work/build.log" 2>&1; then
  say "build FAILED"; tail -40 "$work/build.log"; pack; exit 1
fi
say "built"
i=0
last_s=45
for model in "${models[@]}"; do
  left=$((deadline_s - SECONDS))
  if (( left < last_s + 10 )); then
    say "skipped $model and after: ${left} s left, the last model took ${last_s} s"
    break
  fi
  torch=()
  (( i < torch_models )) && torch=(--compare-torch)
  start=$SECONDS
  timeout "$left" build-kernels/efimsim-calibrate --check "${torch[@]}" --gpu "$gpu" --peak-tbps "$peak_tbps" \
    --git-commit "$sha" --model "models/specs/$model.json" --out-dir "$work/$gpu" \
    >"$work/$gpu/calibrate-$model.log" 2>&1
  rc=$?
  last_s=$((SECONDS - start))
  say "$model: exit $rc in ${last_s} s${torch:+ (with --compare-torch)}"
  sed -n '/^== targets/,$p' "$work/$gpu/calibrate-$model.log" >>"$summary"
  if (( rc != 0 )); then tail -5 "$work/$gpu/calibrate-$model.log" | tee -a "$summary"; fi
  i=$((i + 1))
  pack
done
left=$((deadline_s - SECONDS))
(( ctest_timeout_s < left )) && left=$ctest_timeout_s
if (( ctest_timeout_s > 0 && left >= 30 )); then
  timeout "$left" ctest --test-dir build-kernels --output-on-failure -V >"$work/ctest.log" 2>&1
  say "ctest exit $? in at most ${left} s ($(grep -E 'tests passed|passed, .* failed' "$work/ctest.log" | tr '\n' ' '))"
  pack
elif (( ctest_timeout_s > 0 )); then
  say "ctest skipped: ${left} s left"
fi
say "done"
cp "$summary" "$work/summary.txt"; pack
