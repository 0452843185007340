#!/usr/bin/env bash
# Bad command lines exit non-zero with a one-line message naming the option;
# --help explains every option with its default and unit.
# Usage: cli_errors_test.sh PATH/TO/efimsim
set -u
efimsim=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0

# expect_error EXPECTED_SUBSTRING ARGS...
expect_error() {
  local expected=$1
  shift
  local stderr status
  stderr=$("$efimsim" "$@" --out "$out/x" 2>&1 >/dev/null)
  status=$?
  if [[ $status -ne 0 && $stderr == *"$expected"* && $(printf '%s\n' "$stderr" | wc -l) -eq 1 ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: efimsim $* -> exit $status, stderr: $stderr (wanted '$expected')"
  fi
}

expect_error "--users" replay --users 0
expect_error "--users" replay --users abc
expect_error "--max-tokens" replay --max-tokens -5
expect_error "--output-length: unknown model 'poisson'" compare --output-length poisson:mean=3
expect_error "--output-length: 'eos:p=2'" replay --output-length eos:p=2
expect_error "--output-length: unknown policy 'lru'" compare --output-length "fixed lru=fixed:3"
expect_error "--rounds" compare --rounds 0
expect_error "unknown policy 'lru'" replay --policy lru
expect_error "unknown policy 'lru'" compare --policies fim,lru
expect_error "--policies" compare --policies fim,,efim
expect_error "unrecognised option '--bogus'" replay --bogus 1
expect_error "--gpu-memory-utilization" replay --gpu-memory-utilization 1.5
expect_error "unknown model 'gpt-9'" replay --model gpt-9
expect_error "--workload" replay --workload nope
expect_error "--engine: unknown engine 'tgi'" replay --engine tgi
expect_error "--engine: unknown engine 'tgi'" sweep --grid engine=sglang,tgi
expect_error "--schedule-policy" compare --engine sglang --schedule-policy dfs
expect_error "--page-size" replay --engine sglang --page-size 0
expect_error "unknown command 'frobnicate'" frobnicate
expect_error "leaves no KV cache memory" replay --gpu-memory-gib 10
expect_error "--users" sweep --grid users=0
expect_error "--slo: unknown metric 'bogus'" capacity --slo bogus=1
expect_error "--trigger: unknown trigger 'nope'" replay --workload typing --trigger nope
expect_error "/nonexistent" replay --workload trace --trace /nonexistent
expect_error "--rate-scale" replay --workload trace --trace /nonexistent --rate-scale 0
expect_error "--rate-scale: only for --workload trace" replay --rate-scale 2
expect_error "--session-rate: only for --workload typing" replay --session-rate 1
expect_error "--search: expected users, rate or auto" capacity --search bogus
expect_error "--target-rate" capacity --target-rate 0

# Commands without --out.
expect_error_plain() {
  local expected=$1
  shift
  local stderr status
  stderr=$("$efimsim" "$@" 2>&1 >/dev/null)
  status=$?
  if [[ $status -ne 0 && $stderr == *"$expected"* && $(printf '%s\n' "$stderr" | wc -l) -eq 1 ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: efimsim $* -> exit $status, stderr: $stderr (wanted '$expected')"
  fi
}
expect_error_plain "convert needs INPUT and OUTPUT" convert
expect_error_plain "/nonexistent: cannot open file" tokenize /nonexistent
expect_error_plain "merge: give the shard output directories" merge
expect_error_plain "--seq" predict --seq 12x
expect_error_plain "--timing: expected gpu or step" validate-latency --measured x.json --timing wall
expect_error_plain "profile: unknown subcommand 'export'" profile export
expect_error "--from: expected pytorch-reference, vidur or llmservingsim" profile import --from nope --model llama-3.1-8b \
  --gpu h100-sxm --measured-on x
expect_error "--run: give at least one ops JSON file" profile import --from pytorch-reference \
  --model llama-3.1-8b --gpu h100-sxm --measured-on x
expect_error "/nonexistent.csv: cannot open file" profile import --from vidur --mlp /nonexistent.csv \
  --model llama-3.1-8b --gpu a100-sxm-80g --measured-on x
# A Vidur CSV with a bad cell: the error names file, line and column; no profile is written.
printf ',num_tokens\n0,abc\n' > "$out/bad_mlp.csv"
stderr=$("$efimsim" profile import --from vidur --mlp "$out/bad_mlp.csv" --model llama-3.1-8b \
  --gpu a100-sxm-80g --measured-on x --out "$out/p.json" 2>&1 >/dev/null)
if [[ $? -eq 1 && $stderr == *"bad_mlp.csv:1"*"missing column"* && ! -e $out/p.json ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: bad Vidur CSV: $stderr"; fi
# Commands with required options still answer --help.
for command in predict validate-latency; do
  if "$efimsim" $command --help | grep -q -- "--latency-model arg (=auto)"; then
    passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $command --help"; fi
done
help=$("$efimsim" profile import --help)
if [[ $? -eq 0 && $help == *"--elementwise-rates-from"* && $help == *"--interpolation"*"(=auto)"* ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: profile import --help"; fi

# An unwritable output location is a clear error, not a crash.
touch "$out/file"
stderr=$("$efimsim" replay --users 1 --rounds 1 --out "$out/file/sub" 2>&1 >/dev/null)
if [[ $? -eq 1 && $stderr == *"--out"* ]]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL: unwritable --out: $stderr"; fi

# A full disk (simulated: an 8 KiB file size limit, SIGXFSZ ignored so that
# writes fail with EFBIG) leaves no output file, not a truncated one, and
# says so.
mkdir -p "$out/full"
stderr=$(trap '' XFSZ; ulimit -f 8; "$efimsim" replay --users 50 --rounds 3 --documents synthetic \
  --out "$out/full" 2>&1 >/dev/null)
status=$?
if [[ $status -eq 1 && $stderr == *"failed (disk full?); no file was written"* ]] &&
   [[ -z $(ls -A "$out/full") ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1));
  echo "FAIL: full disk: exit $status, $stderr, left: $(ls -A "$out/full")"; fi

# A trace line over --max-line-bytes is skipped and counted, not fatal;
# convert, which must be faithful, still refuses it.
{
  echo '{"type":"header","schema_version":1}'
  echo '{"type":"request","arrival_ns":0,"prompt_tokens":10,"output_tokens":2}'
  printf '{"type":"request","arrival_ns":5,"prompt_tokens":10,"output_tokens":2,"token_ids":[%s1]}\n' "$(printf '%0300d' 0 | tr 0 ' ')"
  echo '{"type":"request","arrival_ns":9,"prompt_tokens":10,"output_tokens":2}'
} > "$out/long.jsonl"
stdout=$("$efimsim" replay --workload trace --trace "$out/long.jsonl" --max-line-bytes 200 --out "$out/long" 2>/dev/null)
if [[ $? -eq 0 && $stdout == *"skipped trace lines: $out/long.jsonl:3: a request"* ]] &&
   grep -q '"trace_lines_skipped": 1' "$out/long/summary.json" &&
   grep -q '"requests_completed": 2' "$out/long/summary.json"; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: long trace line: $stdout"; fi
expect_error "--max-line-bytes" replay --workload trace --trace "$out/long.jsonl" --max-line-bytes 0
expect_error_plain "long.jsonl:3: line longer than the maximum of 200 bytes" \
  convert "$out/long.jsonl" "$out/long.out.jsonl" --max-line-bytes 200

# convert never writes over its input, and refuses a block size a Mooncake
# trace cannot be expanded into.
cp "$out/long.jsonl" "$out/same.jsonl"
expect_error_plain "is the INPUT file" convert "$out/same.jsonl" "$out/same.jsonl"
if cmp -s "$out/long.jsonl" "$out/same.jsonl"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL: convert changed its input"; fi
echo '{"timestamp": 0, "input_length": 600, "output_length": 2, "hash_ids": [1, 2]}' > "$out/mc.jsonl"
expect_error_plain "--block-tokens: a Mooncake trace's 512-token hash ids need a block size that divides 512" \
  convert "$out/mc.jsonl" "$out/mc.out.jsonl" --block-tokens 24

# validate-serving: bad runs exit 1 naming the file and field; missing GPU exits 2.
expect_error_plain "/nonexistent: field 'file': missing" validate-serving /nonexistent
run_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../serving/testdata/serving_run" && pwd)"
mkdir -p "$out/vs/vllm" && cp "$run_dir/workload.jsonl" "$out/vs/" && cp "$run_dir/vllm/"* "$out/vs/vllm/"
sed -i 's/"output_toks": 3/"output_toks": 4/' "$out/vs/workload.jsonl"
expect_error_plain "field 'sha256'" validate-serving "$out/vs"
expect_error_plain "the run does not name its GPU: give --gpu" validate-serving "$run_dir/vllm_bench_result.json"
stdout=$("$efimsim" validate-serving "$run_dir" 2>&1)
if [[ $? -eq 0 && $stdout == *"ttft"*"tpot"*"e2e"* && $stdout == *"not reproduced"* ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: validate-serving on the fixture: $stdout"; fi

# --help lists options with defaults and units, and exits 0.
help=$("$efimsim" replay --help)
if [[ $? -eq 0 && $help == *"--max-num-batched-tokens"*"(=2048)"*"[tokens]"* && $help == *"--think-time-ms"* ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: replay --help"; fi
help=$("$efimsim" --help)
if [[ $? -eq 0 && $help == *"compare"*"replay"*"models"* ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: efimsim --help"; fi

# A good run writes complete files and leaves no temporary files behind.
if "$efimsim" replay --users 2 --rounds 2 --out "$out/ok" >/dev/null 2>&1 &&
   [[ -s $out/ok/summary.json && -s $out/ok/requests.csv ]] &&
   [[ $(wc -l < "$out/ok/requests.csv") -eq 5 ]] &&
   ! ls "$out/ok" | grep -q tmp; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: replay output files"; fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
