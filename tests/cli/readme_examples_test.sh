#!/usr/bin/env bash
# Every `build/efimsim ...` example in README.md's fenced code blocks runs
# and exits 0 from a fresh clone: no ../shared, no network.
#
# Usage: readme_examples_test.sh REPO_ROOT PATH/TO/efimsim
#
# Each example runs, in README order (merge needs the shards before it),
# with its cwd a temporary directory that holds only what a clone has that
# the examples read: `traces` (traces/data, the shipped public traces) and
# `sim` (a source file to tokenize) as links to the repository's, and
# `build/efimsim` as a link to the binary under test. Relative --out paths
# and files therefore land in the temporary directory; an absolute --out is
# redirected into it. There is no ../shared beside it.
#
# Shortened (to keep the suite fast; same command, smaller sizes): OVERRIDES
# below replaces an option's value, or appends the option when the example
# does not give it. Skipped, each with its reason: SKIP below, and the
# tokenizer examples when scripts/fetch-tokenizer has not run.
set -u
repo=$(cd "$1" && pwd)
efimsim=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
readme=$repo/README.md

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build"
ln -s "$efimsim" "$work/build/efimsim"
ln -s "$repo/traces" "$work/traces"
ln -s "$repo/sim" "$work/sim"

tokenizer=${EFIMSIM_CACHE_DIR:-$HOME/.cache/efimsim}/llama3_1/tokenizer.json

# Substring of an example -> the reason it is not run here.
declare -A SKIP=(
  ["validate-latency"]="reads measured step times from ../shared/data/gpu (GPU measurements, not shipped)"
  ["profile import"]="reads Vidur profiling CSVs from ../shared/data/gpu (not shipped)"
)
# Substring of an example -> options that shorten it ("--opt value ...").
declare -A OVERRIDES=(
  ["compare --users 64 --rounds 8"]="--users 4 --rounds 2"
  ["compare --workload typing"]="--users 2 --sessions-per-user 1 --duration-s 30"
  ["compare --engine sglang"]="--users 4 --rounds 2 --documents synthetic"
  ["replay --policy efim --max-num-batched-tokens"]="--users 4 --rounds 2 --documents synthetic"
  ["trace traces/data/azure-llm-code-2023.csv --policy fim --timeline"]="--duration-s 20"
  ["sweep --grid users=1,2,4"]="--rounds 2 --grid users=1,2 --jobs 1"
  ["sweep --grid users=8,16,32,64 --policies fim,efim --shard"]="--documents synthetic --rounds 2 --grid users=2,4,6,8 --jobs 1"
  ["capacity --workload typing --search rate"]="--duration-s 20 --max-rate-steps 8 --jobs 1"
  ["capacity --slo"]="--documents synthetic --rounds 2 --max-users 16 --policies fim,efim --jobs 1"
  ["build/efimsim capacity"]="--documents synthetic --rounds 2 --max-users 16 --policies fim,efim --jobs 1"
)
# Examples that need the Llama-3.1 tokenizer (not only prefer it).
NEEDS_TOKENIZER=("--workload typing" "build/efimsim tokenize")

# apply_option CMD OPT VALUE: CMD with OPT's value replaced, or OPT appended.
apply_option() {
  local cmd=$1 opt=$2 value=$3
  if [[ " $cmd " == *" $opt "* ]]; then
    # Replace the first token after the option (values here have no spaces).
    printf '%s' "$cmd" | sed -E "s#( $opt )[^ ]+#\\1$value#"
  else
    printf '%s %s %s' "$cmd" "$opt" "$value"
  fi
}

# The examples: lines of fenced blocks that start with build/efimsim, with
# backslash continuations joined.
mapfile -t examples < <(awk '
  /^```/ { fenced = !fenced; next }
  !fenced { next }
  pending != "" { line = pending " " $0; pending = "" }
  pending == "" && line == "" { line = $0 }
  {
    if (line ~ /\\$/) { sub(/[ \t]*\\$/, "", line); pending = line; line = ""; next }
    if (line ~ /^build\/efimsim /) print line
    line = ""
  }' "$readme")

if [[ ${#examples[@]} -lt 10 ]]; then
  echo "FAIL: found only ${#examples[@]} build/efimsim examples in $readme"
  exit 1
fi

passed=0 failed=0 skipped=0
for example in "${examples[@]}"; do
  example=$(printf '%s' "$example" | sed -E 's/[[:space:]]+/ /g; s/ +$//')
  reason=""
  for key in "${!SKIP[@]}"; do
    [[ $example == *"$key"* ]] && reason=${SKIP[$key]}
  done
  if [[ -z $reason && ! -f $tokenizer ]]; then
    for key in "${NEEDS_TOKENIZER[@]}"; do
      [[ $example == *"$key"* ]] && reason="needs the tokenizer ($tokenizer; scripts/fetch-tokenizer)"
    done
  fi
  if [[ -n $reason ]]; then
    echo "SKIP: $example -- $reason"
    skipped=$((skipped + 1))
    continue
  fi
  cmd=$example
  # The longest matching key wins (e.g. "capacity --slo" over "build/efimsim capacity").
  best=""
  for key in "${!OVERRIDES[@]}"; do
    if [[ $cmd == *"$key"* && ${#key} -gt ${#best} ]]; then best=$key; fi
  done
  if [[ -n $best ]]; then
    read -r -a pairs <<<"${OVERRIDES[$best]}"
    for ((i = 0; i + 1 < ${#pairs[@]}; i += 2)); do
      if [[ ${pairs[i]} == --grid ]]; then
        # A grid axis replaces the example's axis of the same name.
        axis=${pairs[i + 1]%%=*}
        if [[ $cmd == *"--grid $axis="* ]]; then
          cmd=$(printf '%s' "$cmd" | sed -E "s#--grid $axis=[^ ]+#--grid ${pairs[i + 1]}#")
        else
          cmd="$cmd --grid ${pairs[i + 1]}"
        fi
      else
        cmd=$(apply_option "$cmd" "${pairs[i]}" "${pairs[i + 1]}")
      fi
    done
  fi
  # An absolute --out goes into the work directory too.
  cmd=$(printf '%s' "$cmd" | sed -E "s#--out /[^ ]*/([^ /]+)#--out $work/\\1#")
  log=$work/example-$((passed + failed)).log
  if (cd "$work" && eval "$cmd") >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "ok:   $cmd"
  else
    status=$?
    failed=$((failed + 1))
    echo "FAIL: $cmd -> exit $status"
    tail -n 5 "$log" | sed 's/^/      /'
  fi
done
echo "readme examples: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
