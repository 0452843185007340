#!/usr/bin/env bash
# scripts/plot turns tiny compare, replay, sweep and capacity folders made by
# the built efimsim into non-empty PNG (and SVG) files, leaves no temporary
# file behind, and refuses bad input with exit 1 naming the file (never a
# traceback) and bad usage with exit 2.
#
# Usage: plot_test.sh REPO_ROOT PATH/TO/efimsim
#
# Skipped (exit 0, "plot test: skipped: <why>") without Python 3 or without
# matplotlib (scripts/plot exits 3); scripts/setup installs
# python3-matplotlib, so CI runs it.
set -u
repo=$(cd "$1" && pwd)
efimsim=$2
plot=$repo/scripts/plot

skip() { echo "plot test: skipped: $1"; exit 0; }
command -v python3 >/dev/null 2>&1 || [[ -x /usr/bin/python3 ]] || skip "no python3"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }

# Tiny outputs of each kind (seconds on one core).
"$efimsim" compare --documents synthetic --users 4 --rounds 2 --out "$work/compare" >/dev/null \
  || { echo "FAIL: efimsim compare"; exit 1; }
"$efimsim" sweep --documents synthetic --rounds 2 --grid users=2,4 --policies fim,efim \
  --jobs 1 --out "$work/sweep" >/dev/null || { echo "FAIL: efimsim sweep"; exit 1; }
"$efimsim" capacity --documents synthetic --rounds 2 --policies fim,efim --target-users 100 \
  --max-users 16 --jobs 1 --out "$work/capacity" >/dev/null \
  || { echo "FAIL: efimsim capacity"; exit 1; }

"$plot" "$work/compare" >"$work/first.log" 2>&1
status=$?
if [[ $status -eq 3 ]]; then
  skip "matplotlib missing ($(tail -n 1 "$work/first.log" | sed 's/^ *//'))"
fi

# expect_png FILE: FILE exists, is non-empty and starts with PNG's signature.
expect_png() {
  if [[ ! -s $1 ]]; then
    fail "$1 missing or empty"
  elif [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') != 89504e470d0a1a0a ]]; then
    fail "$1 is not a PNG"
  else
    echo "ok:   $1 ($(wc -c <"$1") bytes)"
  fi
}

# run_plot ARGS...: scripts/plot exits 0.
run_plot() {
  if ! "$plot" "$@" >"$work/plot.log" 2>&1; then
    fail "scripts/plot $* -> exit $?"
    sed 's/^/      /' "$work/plot.log"
  fi
}

[[ $status -eq 0 ]] || { fail "scripts/plot compare -> exit $status"; cat "$work/first.log"; }
expect_png "$work/compare/latency_cdf.png"
run_plot "$work/compare" --metric tpot --out "$work/figures/compare-tpot.png"
expect_png "$work/figures/compare-tpot.png"
run_plot "$work/compare/efim" --out "$work/figures"
expect_png "$work/figures/latency_hist.png"
run_plot "$work/sweep" --out "$work/figures/sweep.png"
expect_png "$work/figures/sweep.png"
run_plot "$work/capacity" --out "$work/figures/capacity.png"
expect_png "$work/figures/capacity.png"
run_plot "$work/sweep" --metric e2e --format svg --out "$work/figures"
grep -q "<svg" "$work/figures/latency_vs_throughput-e2e.svg" 2>/dev/null \
  || fail "no SVG at $work/figures/latency_vs_throughput-e2e.svg"
leftovers=$(find "$work/compare" "$work/figures" -name '.*' -type f)
[[ -z $leftovers ]] || fail "temporary files left: $leftovers"

# expect_error STATUS TEXT ARGS...: scripts/plot exits STATUS, its stderr
# holds TEXT and no traceback.
expect_error() {
  local want=$1 text=$2
  shift 2
  "$plot" "$@" >"$work/out.log" 2>"$work/err.log"
  local got=$?
  if [[ $got -ne $want ]]; then
    fail "scripts/plot $* -> exit $got, expected $want"
  elif ! grep -qF -- "$text" "$work/err.log"; then
    fail "scripts/plot $*: stderr does not name '$text'"
  elif grep -q Traceback "$work/err.log"; then
    fail "scripts/plot $*: traceback"
  else
    echo "ok:   exit $got: $(tail -n 1 "$work/err.log")"
    return
  fi
  sed 's/^/      /' "$work/err.log"
}

cp -r "$work/compare" "$work/corrupt"
sed -i '3s/.*/1,2,garbage/' "$work/corrupt/fim/requests.csv"
expect_error 1 "$work/corrupt/fim/requests.csv:3" "$work/corrupt"
cp -r "$work/compare" "$work/no-column"
sed -i '1s/ttft_ms/ttft/' "$work/no-column/efim/requests.csv"
expect_error 1 "$work/no-column/efim/requests.csv: missing column 'ttft_ms'" "$work/no-column"
cp -r "$work/sweep" "$work/sweep-no-column"
sed -i '1s/request_throughput_per_s/throughput/' "$work/sweep-no-column/sweep.csv"
expect_error 1 "sweep.csv: missing column 'request_throughput_per_s'" "$work/sweep-no-column"
expect_error 1 "not an efimsim output folder" "$work/figures"
expect_error 2 "--format" "$work/compare" --format pdf
expect_error 2 "--out" "$work/compare" --out "$work/x.svg" --format png

echo "plot test: $failed failed"
[[ $failed -eq 0 ]]
