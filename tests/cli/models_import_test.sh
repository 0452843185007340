#!/usr/bin/env bash
# efimsim models import: a Hugging Face config.json becomes a spec that reads
# back (--model with the written spec prices a step exactly as --model with
# the config.json); --out is written whole; a refused config exits non-zero
# with one line naming the file and the field, and leaves no --out behind.
# Usage: models_import_test.sh REPO_ROOT EFIMSIM_BINARY
set -uo pipefail
repo=$1
efimsim=$2
hf=$repo/tests/models/testdata/hf
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0

# check $? DESCRIPTION: passes when the status (of the command before) is 0.
check() {
  local status=$1
  shift
  if [[ $status -eq 0 ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $*"
  fi
}

config=$hf/qwen3-30b-a3b/config.json
"$efimsim" models import "$config" >"$out/stdout.json" 2>"$out/stdout.err"
check $? "models import CONFIG exits 0 ($(cat "$out/stdout.err"))"
"$efimsim" models import "$config" --name my-moe --out "$out/my-moe.json" 2>"$out/out.err"
check $? "models import --out exits 0 ($(cat "$out/out.err"))"
grep -q "^wrote $out/my-moe.json, my-moe: 30.53B parameters, 3.35B active" "$out/out.err"
check $? "the summary names the file, the model and its parameters: $(cat "$out/out.err")"
diff <(sed 's/"name": "my-moe"/"name": "qwen3-30b-a3b"/' "$out/my-moe.json") "$out/stdout.json" >/dev/null
check $? "--out holds what stdout printed, --name aside"
[[ -z $(find "$out" -name '*.tmp-*') ]]
check $? "no temporary file left"

# Reads back: the written spec prices a step as the config.json itself does.
predict=(predict --gpu h100-sxm --seq 512:0 --latency-model roofline)
from_spec=$("$efimsim" "${predict[@]}" --model "$out/stdout.json" 2>&1)
check $? "predict --model WRITTEN_SPEC exits 0: $from_spec"
from_config=$("$efimsim" "${predict[@]}" --model "$config" 2>&1)
check $? "predict --model config.json exits 0: $from_config"
[[ -n $from_spec && $from_spec == "$from_config" ]]
check $? "the written spec and the config.json predict alike"

# expect_refusal FILE FIELD [ARGS...]: exit non-zero, one line naming FILE and FIELD.
expect_refusal() {
  local file=$1 field=$2
  shift 2
  local stderr status
  stderr=$("$efimsim" "$@" 2>&1 >/dev/null)
  status=$?
  [[ $status -ne 0 && $stderr == *"$file"* && $stderr == *"$field"* &&
     $(printf '%s\n' "$stderr" | wc -l) -eq 1 ]]
  check $? "efimsim $* -> exit $status, stderr: $stderr (wanted $file and $field)"
}
bad=$hf/refused/sliding-window.json
expect_refusal "$bad" sliding_window models import "$bad" --out "$out/bad.json"
[[ ! -e $out/bad.json ]]
check $? "a refused config writes no --out"
expect_refusal "$hf/refused/q-lora-rank.json" q_lora_rank models import "$hf/refused/q-lora-rank.json"
expect_refusal "$hf/refused/unknown-architecture.json" architectures \
  "${predict[@]}" --model "$hf/refused/unknown-architecture.json"
expect_refusal "$out/missing/config.json" "cannot open" models import "$out/missing/config.json"
expect_refusal "--out" "$out/no-such-dir" models import "$config" --out "$out/no-such-dir/spec.json"

echo "models import: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
