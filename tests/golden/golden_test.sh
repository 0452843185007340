#!/usr/bin/env bash
# Golden outputs: every case of cases.txt run with --wall-time=false must
# write exactly the committed files under expected/NAME/ (every output file,
# plus stdout with its wall-clock lines removed). Any byte change fails; a
# deliberate change is recorded with --update and explained in its commit.
#
# Usage: golden_test.sh EFIMSIM SHARED_DATA_DIR [--update]
# Cases that read the shared data folder use the public traces the
# repository ships (traces/data, the same bytes, as data/traces/) when it is
# absent, and are skipped only when a file they name is in neither.
set -u
efimsim=$(realpath "$1")
shared=$2
update=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -d $shared ]]; then
  ln -s "$(realpath "$shared")" "$work/data"
else
  mkdir "$work/data" && ln -s "$here/../../traces/data" "$work/data/traces"
fi
tokenizer="${EFIMSIM_CACHE_DIR:-$HOME/.cache/efimsim}/llama3_1/tokenizer.json"
passed=0 failed=0 skipped=0

while read -r name args; do
  [[ -z $name || $name == \#* ]] && continue
  missing=""
  for arg in $args; do
    [[ $arg == data/* && ! -e $work/$arg ]] && missing=$arg
  done
  if [[ -n $missing ]]; then
    skipped=$((skipped + 1)); echo "SKIP $name (no $missing in $shared or traces/data)"; continue
  fi
  if [[ $args == *"--workload typing"* && ! -f $tokenizer ]]; then
    skipped=$((skipped + 1)); echo "SKIP $name (no tokenizer at $tokenizer: scripts/fetch-tokenizer)"; continue
  fi
  rm -rf "$work/out" "$work/stdout.txt"
  # shellcheck disable=SC2086  # args are split on purpose
  (cd "$work" && "$efimsim" $args --wall-time=false --out out >stdout.txt 2>stderr.txt)
  status=$?
  if [[ $status -ne 0 ]]; then
    failed=$((failed + 1)); echo "FAIL $name: exit $status"; cat "$work/stderr.txt"; continue
  fi
  mkdir -p "$work/out"
  # Host time is the one thing allowed to vary: lines reporting it go, and
  # "(N runs, T s)" loses its T.
  grep -v -E ' s wall|wall_s|wall time' "$work/stdout.txt" |
    sed -E -e 's/, [0-9.]+ s\)$/, T s)/' -e 's/ in [0-9.]+ s$/ in T s/' > "$work/out/stdout.txt"
  if [[ $update == --update ]]; then
    rm -rf "$here/expected/$name"; mkdir -p "$here/expected"
    cp -r "$work/out" "$here/expected/$name"
    echo "UPDATED $name"; passed=$((passed + 1))
  elif diff -r "$here/expected/$name" "$work/out" > "$work/diff.txt"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAIL $name: output differs from expected/$name"; head -40 "$work/diff.txt"
  fi
done < "$here/cases.txt"
echo "golden: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
