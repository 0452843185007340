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
expect_error "--slo client_ttft_p99_ms: client-side times need a frontend, and --frontend none turns it off" capacity --frontend none --slo client_ttft_p99_ms=500
expect_error "--pd-splits: '0:1'" capacity --workload typing --pd-splits colocated,0:1
expect_error "--pd-splits: '1P1D': given twice" capacity --workload typing --pd-splits 1:1,1P1D
expect_error "--pd-splits: 'x'" capacity --workload typing --pd-splits x
expect_error "--pd-splits: with the users search only" capacity --workload typing --search rate --pd-splits 1:1
expect_error "--prefill-replicas: give the deployments" capacity --workload typing --prefill-replicas 1 --pd-splits 1:1
expect_error "--decode-engine-args: --block-tokens is not an engine option the decode pool may set on its own" replay --workload typing --prefill-replicas 1 --decode-engine-args "--block-tokens 32"
expect_error "--engine: unknown value 'tgi' (choose one of: vllm_v1, sglang)" replay --engine tgi
expect_error "--engine: unknown value 'tgi' (choose one of: vllm_v1, sglang)" sweep --grid engine=sglang,tgi
expect_error "--schedule-policy: unknown value 'dfs' (choose one of: lpm, fcfs)" compare --engine sglang --schedule-policy dfs
# Options with a fixed set of values name them (declared once, in the option tables).
expect_error "--documents: unknown value 'pdf' (choose one of: auto, synthetic, text)" replay --documents pdf
expect_error "--think-time-dist: unknown value 'gamma' (choose one of: fixed, exponential)" replay --think-time-dist gamma
expect_error "--router: unknown value 'random' (choose one of: round-robin, least-outstanding, session-affinity)" replay --router random
expect_error "--trace-format: unknown value 'parquet' (choose one of: auto, efimsim," replay --workload trace --trace x --trace-format parquet
expect_error "--latency-model: unknown value 'magic' (choose one of: roofline, fallback, profile, auto)" capacity --latency-model magic
expect_error "--tp: unknown value '3' (choose one of: 1, 2, 4, 8)" replay --tp 3
expect_error "--tp: unknown value '3' (choose one of: 1, 2, 4, 8)" sweep --grid tp=1,3
expect_error "--page-size" replay --engine sglang --page-size 0
expect_error "unknown command 'frobnicate'" frobnicate
expect_error "leaves no KV cache memory" replay --gpu-memory-gib 10
expect_error "--users" sweep --grid users=0
expect_error "--slo: unknown metric 'bogus'" capacity --slo bogus=1
expect_error "--trigger: unknown value 'nope' (choose one of: every-edit, debounce, adaptive-debounce, single-in-flight)" replay --workload typing --trigger nope
expect_error "/nonexistent" replay --workload trace --trace /nonexistent
expect_error "--rate-scale" replay --workload trace --trace /nonexistent --rate-scale 0
# Sizes that scale memory are estimated before anything is allocated (they
# died of bad_alloc, exit 3, or grew past 8 GB).
expect_error "--kv-blocks 500000000: the KV cache structures" replay --kv-blocks 500000000
expect_error "--num-gpu-blocks-override 2000000000: the KV cache structures" replay --num-gpu-blocks-override 2000000000
expect_error "--stages 10:1e12: the 1e+13 requests inference-perf's stages send" replay --workload inference-perf --stages 10:1e12
expect_error "--num-prompts 1000000000 x" replay --workload vllm-bench --num-prompts 1000000000
expect_error "(--random-prefix-len + --random-input-len) 1e+09" replay --workload vllm-bench --random-input-len 1000000000
expect_error "more than a run may use: --max-memory-gib 0.1" replay --kv-blocks 5000000 --max-memory-gib 0.1
# An option of a part the run does not use is refused, naming both (never ignored).
expect_error "--rate-scale: applies to --workload trace or inference-perf or vllm-bench only, but this run has --workload efim-paper" replay --rate-scale 2
expect_error "--session-rate: applies to --workload typing only, but this run has --workload efim-paper" replay --session-rate 1
expect_error "--trace: applies to --workload trace only, but this run has --workload efim-paper" replay --trace foo.jsonl
expect_error "--documents: applies to --workload efim-paper only, but this run has --workload typing" replay --workload typing --documents synthetic
expect_error "--max-num-seqs: applies to --engine vllm_v1 only, but this run has --engine sglang" replay --engine sglang --max-num-seqs 8
expect_error "--cpu-kv-gib: applies to --engine vllm_v1 only, but this run has --engine sglang" replay --engine sglang --cpu-kv-gib 1
expect_error "--page-size: applies to --engine sglang only, but this run has --engine vllm_v1" replay --page-size 16
expect_error "--stages: applies to --workload inference-perf only, but this run has --workload vllm-bench" replay --workload vllm-bench --stages 2:10
expect_error "--search: unknown value 'bogus' (choose one of: auto, users, rate)" capacity --search bogus
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
mkdir -p "$out/srcdir"
expect_error_plain "srcdir: is a directory; give its files" tokenize "$out/srcdir"
expect_error_plain "merge: give the shard output directories" merge
expect_error_plain "--seq" predict --seq 12x
expect_error_plain "--timing: unknown value 'wall' (choose one of: gpu, step)" validate-latency --measured x.json --timing wall
expect_error_plain "--mode: unknown value 'lazy' (choose one of: eager, graph)" predict --seq 1:1 --mode lazy
expect_error_plain "profile: unknown subcommand 'export'" profile export
expect_error "--from: expected pytorch-reference, vidur, llmservingsim, aiconfigurator or efimsim-kernels" profile import --from nope --model llama-3.1-8b \
  --gpu h100-sxm --measured-on x
expect_error_plain "--kernel-source: unknown value 'nope'" replay --kernel-source nope
expect_error_plain "--kernel-source pytorch-reference: no built-in tables of it for GPU b200" predict --seq 1:1 \
  --gpu b200 --kernel-source pytorch-reference
expect_error "--from aiconfigurator takes --dir" profile import --from aiconfigurator --gpu h100-sxm \
  --model llama-3.1-8b --dir x
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
# Every simulation command takes the latency options; capacity takes its own from tables too.
for command in replay compare sweep capacity; do
  if "$efimsim" $command --help | grep -q -- "--tp arg (=1)"; then
    passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $command --help has no --tp"; fi
done
help=$("$efimsim" capacity --help | tr -s ' \n' ' ')  # lines joined: help text wraps
if [[ $? -eq 0 && $help == *"--target-users arg (=2000)"*"[users]"* && $help == *"--search arg (=auto)"*"(one of: auto, users, rate)"* && $help == *"--profile arg"* ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: capacity --help"; fi
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
run_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../run/testdata/serving_run" && pwd)"
mkdir -p "$out/vs/vllm" && cp "$run_dir/workload.jsonl" "$out/vs/" && cp "$run_dir/vllm/"* "$out/vs/vllm/"
sed -i 's/"output_toks": 3/"output_toks": 4/' "$out/vs/workload.jsonl"
expect_error_plain "field 'sha256'" validate-serving "$out/vs"
expect_error_plain "the run does not name its GPU: give --gpu" validate-serving "$run_dir/vllm_bench_result.json"
# A value in the run's meta.json that efimsim cannot take is the run's input
# error (file and field), not a command-line option error (it was "--tp: ...").
mkdir -p "$out/vs3/vllm" && cp "$run_dir/workload.jsonl" "$out/vs3/" && cp "$run_dir/vllm/"* "$out/vs3/vllm/"
sed -i 's/"tensor_parallel_size": 1/"tensor_parallel_size": 3/' "$out/vs3/vllm/meta.json"
expect_error_plain "vs3/vllm/meta.json: field 'tensor_parallel_size': unknown value '3'" validate-serving "$out/vs3"
# A request the simulated engine rejects cannot be compared: a usage error
# naming the option that caused it (it was an internal error, exit 3).
expect_error_plain "--max-model-len: 4 of the run's 4 requests were rejected" validate-serving "$run_dir" --max-model-len 10
# Renamed options: the old spellings name the new ones (exit 2), never "unknown option".
expect_error_plain "--json: validate-serving writes the comparison JSON with --out FILE" validate-serving "$run_dir" --json "$out/v.json"
expect_error_plain "--workload: the run's workload JSONL is --workload-file PATH" validate-serving --workload "$out/w.jsonl" "$run_dir"
stdout=$("$efimsim" validate-serving "$run_dir" 2>&1)
if [[ $? -eq 0 && $stdout == *"ttft"*"tpot"*"e2e"* && $stdout == *"not reproduced"* ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: validate-serving on the fixture: $stdout"; fi

# Issue 25: numbers out of range and stray arguments are usage errors, never
# exit 3 or silently ignored.
expect_error "replay: unexpected argument 'trace.csv'" replay trace.csv
expect_error "--cpu-step-overhead-us: expected a number >= 0 and <= 1e+14" replay --cpu-step-overhead-us 1e30
expect_error "--duration-s: expected a number >= 0 and <= 100000000" replay --duration-s 1e300
expect_error "--seed: expected an integer >= 0 and <= 9223372036854775807" replay --seed 18446744073709551615
expect_error "--gpu-memory-gib: " replay --gpu-memory-gib 1e9
expect_error_plain "is not an integer from 0 to 2147483647" predict --seq 1:9223372036854775807
expect_error_plain "--out: folder '$out/missing' of $out/missing/p.json does not exist" \
  profile import --from vidur --model llama-3.1-8b --gpu h100-sxm --dir "$out" --measured-on x \
  --out "$out/missing/p.json"

# A run with nothing to measure fails and leaves no output folder; a failed
# compare leaves the previous complete output as it was.
echo 'TIMESTAMP,ContextTokens,GeneratedTokens' > "$out/header-only.csv"
"$efimsim" replay --workload trace --trace "$out/header-only.csv" --out "$out/empty/a/b" >/dev/null 2>"$out/err.txt"
status=$?
if [[ $status -eq 1 && $(cat "$out/err.txt") == *"header-only.csv: no request completed"* && ! -e "$out/empty" ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1));
  echo "FAIL: header-only trace: exit $status, $(cat "$out/err.txt"), left: $(ls "$out")"; fi
"$efimsim" compare --users 2 --rounds 1 --documents synthetic --out "$out/cmp/" >"$out/cmp.txt" 2>/dev/null
before=$(cd "$out/cmp" && find . -type f | sort | xargs md5sum)
"$efimsim" compare --users 2 --rounds 1 --documents synthetic --workload trace \
  --trace "$out/header-only.csv" --out "$out/cmp" >/dev/null 2>&1
after=$(cd "$out/cmp" && find . -type f | sort | xargs md5sum)
if [[ -n $before && $before == "$after" && $(cat "$out/cmp.txt") != *"//"* ]] &&
   [[ -z $(ls -d "$out"/cmp.partial-* 2>/dev/null) ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: failed compare changed the previous output"; fi
"$efimsim" compare --users 2 --rounds 1 --documents synthetic --policies fim --out "$out/cmp" >/dev/null 2>&1
if [[ -d $out/cmp/fim && ! -e $out/cmp/efim && ! -e $out/cmp/baseline ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: old policy folders left: $(ls "$out/cmp")"; fi

# A sweep checks its whole grid before the first run and leaves nothing
# behind when a point cannot run; merge refuses shards of two sweeps.
"$efimsim" sweep --documents synthetic --rounds 1 --grid users=2 --grid engine=vllm_v1,sglang \
  --cpu-kv-gib 64 --out "$out/badgrid" >/dev/null 2>"$out/err.txt"
status=$?
if [[ $status -eq 2 && $(cat "$out/err.txt") == *"run-0001 (policy=baseline users=2 engine=sglang): --cpu-kv-gib"* &&
      ! -e "$out/badgrid" ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: bad grid: exit $status, $(cat "$out/err.txt")"; fi
"$efimsim" sweep --documents synthetic --rounds 1 --grid users=2,3 --policies fim --shard 0/2 --out "$out/s1" >/dev/null 2>&1
"$efimsim" sweep --documents synthetic --rounds 2 --grid users=2,3 --policies fim --shard 1/2 --out "$out/s2" >/dev/null 2>&1
expect_error_plain "s2/sweep.json: a shard of another sweep than $out/s1 (option rounds: 1 vs 2)" \
  merge "$out/s1" "$out/s2" --out "$out/merged"

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

# --tp 2: each GPU holds half the weights and KV heads (more KV tokens per
# replica), the run's header and summary.json name the TP, and a sweep takes
# tp as a grid axis with its own sweep.csv column.
"$efimsim" replay --users 2 --rounds 1 --documents synthetic --out "$out/tp1" >"$out/tp1.txt" 2>/dev/null
"$efimsim" replay --users 2 --rounds 1 --documents synthetic --tp 2 --out "$out/tp2" >"$out/tp2.txt" 2>/dev/null
tokens() { sed -n 's/.*KV cache \([0-9]*\) tokens.*/\1/p' "$1"; }
if [[ $(tokens "$out/tp2.txt") -gt $((2 * $(tokens "$out/tp1.txt"))) ]] &&
   grep -q "on 2 x .*(tensor parallel)" "$out/tp2.txt" && grep -q '"tp": 2' "$out/tp2/summary.json" &&
   ! grep -q '"tp"' "$out/tp1/summary.json"; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: replay --tp 2: $(cat "$out/tp2.txt")"; fi
if "$efimsim" sweep --grid tp=1,2 --policies efim --users 2 --rounds 1 --documents synthetic \
     --jobs 1 --out "$out/tpsweep" >/dev/null 2>&1 &&
   head -1 "$out/tpsweep/sweep.csv" | grep -q ",tp," &&
   [[ $(cut -d, -f1 "$out/tpsweep/sweep.csv" | wc -l) -eq 3 ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: sweep --grid tp=1,2"; fi

# Issue 33 item 3: the physics check passes every built-in profile, and a
# profile whose times were divided by 1000 fails it (exit 1), naming the
# file, the table group and its worst row.
if "$efimsim" profile check >"$out/check.txt" 2>&1 &&
   [[ $(tail -1 "$out/check.txt") == *"profiles"*": 0 errors in 0 profiles"* ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: profile check: $(tail -3 "$out/check.txt")"; fi
profiles="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../models/profiles" && pwd)"
sed -E 's/"time_us": ([0-9.]+)/"time_us": \1e-3/' "$profiles/rtx-4090/llmservingsim/llama-3.1-8b.json" \
  > "$out/fast.json"
stderr=$("$efimsim" profile check "$out/fast.json" 2>&1 >/dev/null)
if [[ $? -eq 1 && $stderr == *"fast.json: physics check failed"*"gemm: "*"rows above the datasheet ceilings"* ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: profile check of a too-fast profile: $stderr"; fi
# The import runs the same check: refused (nothing written) unless --physics flag.
sed -E 's/"time_us": ([0-9.]+)/"time_us": \1e-3/' "$profiles/h100-sxm/efimsim-kernels/llama-3.1-8b.json" \
  > "$out/fast-kernels.json"
import=(profile import --from efimsim-kernels --model llama-3.1-8b --gpu h100-sxm --file "$out/fast-kernels.json")
stderr=$("$efimsim" "${import[@]}" --out "$out/imported.json" 2>&1 >/dev/null)
if [[ $? -eq 1 && $stderr == *"fast-kernels.json: physics check failed (nothing written"* && ! -e $out/imported.json ]] &&
   "$efimsim" "${import[@]}" --out "$out/imported.json" --physics flag >/dev/null 2>&1 && [[ -s $out/imported.json ]]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: profile import's physics check: $stderr"; fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
