#!/usr/bin/env bash
# scripts/ab-time: two binaries (the same one twice) for two rounds of a
# one-request replay give a CSV line each with two runs, min <= median;
# a failing run and bad options stop it with a non-zero status.
# Usage: ab_time_test.sh REPO_ROOT EFIMSIM
set -euo pipefail
root="$1"
efimsim="$2"
script="$root/scripts/ab-time"
fail() { echo "ab-time test: $*" >&2; exit 1; }

out=$("$script" --rounds 2 "$efimsim" "$efimsim" -- replay --users 1 --rounds 1 \
  --documents synthetic --wall-time=false --out '{out}' 2>/dev/null)
[[ "$(head -1 <<<"$out")" == "binary,runs,min_ms,median_ms,runs_ms" ]] || fail "header: $out"
[[ $(wc -l <<<"$out") -eq 3 ]] || fail "expected a line per binary: $out"
tail -n +2 <<<"$out" | awk -F, -v bin="$efimsim" '
  $1 != bin || $2 != 2 || !($3 > 0) || $3 > $4 || split($5, runs, " ") != 2 { bad = 1 }
  END { exit bad }' || fail "bad figures: $out"

if "$script" --rounds 1 "$efimsim" -- replay --users 0 --out '{out}' >/dev/null 2>&1; then
  fail "a failing run was not reported"
fi
if "$script" --rounds 0 "$efimsim" >/dev/null 2>&1; then fail "--rounds 0 accepted"; fi
if "$script" "$root/no-such-binary" >/dev/null 2>&1; then fail "a missing binary accepted"; fi
echo "ab-time test: passed"
