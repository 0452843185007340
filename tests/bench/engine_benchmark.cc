// Hot paths of the engine (Google Benchmark). Targets and results are in docs/performance.md;
// ctest runs this once with a tiny min time as a smoke test only.
#include <benchmark/benchmark.h>

#include <numeric>

#include "models/formats/embedded_files.h"
#include "models/latency/latency_model_registry.h"
#include "models/formats/shape_profile.h"
#include "models/formats/shape_profile_binary.h"
#include "models/latency/shape_rule.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/heap_pages.h"
#include "sim/core/random.h"
#include "traces/paper_workload.h"
#include "traces/uniform_tokens.h"
#include "sim/engine/vllm/prefix_cache_manager.h"
#include "sim/engine/sglang/radix_cache.h"
#include "sim/core/event_queue.h"
#include "sim/core/random.h"
#include "sim/run/experiment.h"
#include "sim/run/run_params.h"
#include "sim/engine/vllm/vllm_v1_scheduler.h"

namespace efimsim {
namespace {

// Push+pop pairs with `range(0)` events pending (the classic "hold" model):
// each pop is followed by a push at the popped time plus a uniform increment
// in [1, 10^6] ns. The increments are drawn before timing (4,096 of them,
// reused in turn) so that the figure is the queue's cost, not the RNG's.
void BM_EventQueuePushPop(benchmark::State& state) {
  const int64_t pending = state.range(0);
  EventQueue queue;
  RandomStream rng = RandomStream::Derive(1, 0, "bench.event_queue");
  for (int64_t i = 0; i < pending; ++i) {
    Event e;
    e.time = TimePoint{Nanoseconds(rng.UniformInt(0, 1000000))};
    queue.Push(e);
  }
  std::vector<int64_t> increments_ns(4096);
  for (int64_t& increment : increments_ns) increment = rng.UniformInt(1, 1000000);
  size_t next_increment = 0;
  for (auto _ : state) {
    Event e = queue.Pop();
    e.time += Nanoseconds(increments_ns[next_increment]);
    next_increment = (next_increment + 1) & 4095;
    queue.Push(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueuePushPop)->Arg(1000)->Arg(100000);

// Longest-prefix lookups over a warm cache, in blocks per second.
void BM_PrefixLookup(benchmark::State& state) {
  constexpr int32_t kBlock = 16;
  PrefixCacheManager cache(100000, kBlock, true);
  TokenVector tokens(4096);
  std::iota(tokens.begin(), tokens.end(), 1000);
  std::vector<BlockKey> keys;
  AppendBlockKeys(tokens, kBlock, 0, keys);
  KvSequence seq;
  std::vector<BlockId> none, hits;
  cache.Allocate(seq, 0, 4096, none, keys);
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.FindLongestHit(keys, 4097, hits));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(keys.size()));
}
BENCHMARK(BM_PrefixLookup);

// Keys of every full block of a 3,072-token prompt (what a replica computes
// for each request with prefix caching on), in blocks per second.
void BM_PromptBlockKeys(benchmark::State& state) {
  constexpr int32_t kBlock = 16;
  TokenVector tokens(3072);
  RandomStream rng = RandomStream::Derive(1, 0, "bench.block_keys");
  for (TokenId& t : tokens) t = static_cast<TokenId>(rng.UniformInt(0, 128000));
  std::vector<BlockKey> keys;
  keys.reserve(tokens.size() / kBlock);
  for (auto _ : state) {
    keys.clear();
    AppendBlockKeys(tokens, kBlock, 0, keys);
    benchmark::DoNotOptimize(keys.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(tokens.size() / kBlock));
}
BENCHMARK(BM_PromptBlockKeys);

// The KV block pool under thrash, as in a large run without reuse: each
// iteration frees one request's 128 blocks (their keys stay cached) and
// allocates 128 blocks for a prompt of new keys, so every block taken
// evicts a key and registers another. Items are blocks. `range(0)` is the
// pool size: 4,096 blocks fit a core's L2 with their key index; 28,019 is
// Llama-3.1-8B on one H100.
void BM_PoolChurn(benchmark::State& state) {
  constexpr int32_t kBlocksPerRequest = 128;
  const int32_t blocks = static_cast<int32_t>(state.range(0));
  PrefixCacheManager cache(blocks, 16, true);
  std::vector<KvSequence> requests(static_cast<size_t>(blocks / kBlocksPerRequest / 2));
  const std::vector<BlockId> no_hits;
  std::vector<BlockKey> keys(kBlocksPerRequest);
  uint64_t next_key = 1;
  size_t next = 0;
  for (auto _ : state) {
    KvSequence& request = requests[next];
    next = (next + 1) % requests.size();
    if (!request.blocks.empty()) cache.Free(request);
    for (BlockKey& key : keys) key = Mix64(next_key++);
    cache.Allocate(request, 0, kBlocksPerRequest * 16, no_hits, keys);
  }
  state.SetItemsProcessed(state.iterations() * kBlocksPerRequest);
}
BENCHMARK(BM_PoolChurn)->Arg(4096)->Arg(28019)->Arg(56038);

// One scheduler step over `range(0)` decoding requests (each iteration runs
// kSteps decode steps on a freshly prefilled batch, so the pool never fills).
void BM_SchedulerDecodeStep(benchmark::State& state) {
  constexpr int32_t kBlock = 16;
  constexpr int64_t kPrompt = 1000;
  constexpr int64_t kSteps = 256;
  const int64_t running = state.range(0);
  for (auto _ : state) {
    state.PauseTiming();
    PrefixCacheManager cache(static_cast<int32_t>(running * ((kPrompt + kSteps) / kBlock + 2)),
                             kBlock, true);
    VllmV1Scheduler scheduler({1 << 20, 1024}, cache);
    std::vector<VllmRequest> requests(static_cast<size_t>(running));
    for (int64_t i = 0; i < running; ++i) {
      VllmRequest& r = requests[static_cast<size_t>(i)];
      r.id = static_cast<uint64_t>(i);
      r.prompt_tokens = r.num_tokens = kPrompt;
      r.max_output_tokens = 1 << 30;
      TokenVector tokens(kPrompt);
      std::iota(tokens.begin(), tokens.end(), static_cast<TokenId>(i * kPrompt + 100));
      AppendBlockKeys(tokens, kBlock, 0, r.block_keys);
      r.tail_tokens.assign(tokens.end() - kPrompt % kBlock, tokens.end());
      scheduler.AddWaiting(&r);
    }
    StepPlan plan;
    scheduler.Schedule(plan);  // admit everyone (prefill)
    state.ResumeTiming();
    for (int64_t step = 0; step < kSteps; ++step) {
      for (const ScheduledSequence& seq : plan.sequences) {
        auto& r = static_cast<VllmRequest&>(*seq.request);
        r.AppendTokenKey(static_cast<TokenId>(256 + step), kBlock);
        ++r.num_tokens;
      }
      scheduler.Schedule(plan);
      benchmark::DoNotOptimize(plan.total_tokens);
    }
  }
  state.SetItemsProcessed(state.iterations() * kSteps);
}
BENCHMARK(BM_SchedulerDecodeStep)->Arg(256);

// Synthetic document tokens (the paper workload makes a ~3,000-token
// document per request): tokens per second, by implementation
// (UniformTokensKernel: 0 scalar, 1 AVX2, 2 AVX-512; skipped where the CPU
// lacks it). FillUniformTokens uses the fastest available.
void BM_FillUniformTokens(benchmark::State& state) {
  const auto kernel = static_cast<UniformTokensKernel>(state.range(0));
  if (!UniformTokensKernelAvailable(kernel)) {
    state.SkipWithError("this CPU lacks the kernel");
    return;
  }
  std::vector<TokenId> tokens(3072);
  RandomStream stream = RandomStream::Derive(1, 2, "bench");
  for (auto _ : state) {
    FillUniformTokensWith(kernel, stream, 256, 31999, std::span<TokenId>(tokens));
    benchmark::DoNotOptimize(tokens.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(tokens.size()));
}
BENCHMARK(BM_FillUniformTokens)->ArgName("kernel")->Arg(0)->Arg(1)->Arg(2);

// The paper's workload end to end: simulated tokens (prompt + output) per
// second of wall time, with the default latency model (auto: the built-in
// H100 profile) or, in the Roofline variant, the roofline.
void PaperWorkloadEfim(benchmark::State& state, const char* latency_model,
                      const char* engine = "vllm_v1") {
  ExperimentConfig config;
  config.engine.name = engine;
  config.policy = "efim";
  config.latency_model = latency_model;
  config.users = state.range(0);
  config.documents = "synthetic";
  int64_t tokens = 0;
  int64_t requests = 0;
  for (auto _ : state) {
    const ExperimentResult r = RunExperiment(config);
    tokens += r.summary.prompt_tokens + r.summary.output_tokens;
    requests += r.summary.requests_completed;
  }
  state.counters["sim_tokens_per_s"] = benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsRate);
  state.counters["wall_us_per_request"] = benchmark::Counter(
      static_cast<double>(requests), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void BM_PaperWorkloadEfim(benchmark::State& state) { PaperWorkloadEfim(state, "auto"); }
void BM_PaperWorkloadEfimRoofline(benchmark::State& state) { PaperWorkloadEfim(state, "roofline"); }
BENCHMARK(BM_PaperWorkloadEfimRoofline)->Arg(2000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaperWorkloadEfim)->Arg(16)->Arg(256)->Arg(2000)->Unit(benchmark::kMillisecond);
// The same under --engine sglang (target: within 2x of the vLLM engine).
void BM_PaperWorkloadEfimSglang(benchmark::State& state) { PaperWorkloadEfim(state, "auto", "sglang"); }
BENCHMARK(BM_PaperWorkloadEfimSglang)->Arg(2000)->Unit(benchmark::kMillisecond);

// Whole runs of the other workloads, per engine: wall microseconds per
// simulated request, what every capacity probe and sweep point pays.
// Options as on the command line (their run rows). vllm-bench: 20,000
// random prompts (1024 in, 128 out) at 20 requests/s; trace: the Azure code
// trace shipped in traces/data (lengths only); inference-perf: its default
// shared-prefix stages. All under --policy fim.
void WorkloadRun(benchmark::State& state, const std::vector<std::pair<const char*, std::string>>& options) {
  ExperimentConfig config;
  config.policy = "fim";  // request-level records: fim and efim coincide
  for (const auto& [name, value] : options) {
    const RunParam* param = FindRunParam(name);
    if (param == nullptr) {
      state.SkipWithError((std::string("no option --") + name).c_str());
      return;
    }
    param->set(value, config);
  }
  int64_t requests = 0;
  for (auto _ : state) requests += RunExperiment(config).summary.requests_completed;
  state.counters["wall_us_per_request"] = benchmark::Counter(
      static_cast<double>(requests), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
const std::string kAzureTrace = std::string(EFIMSIM_SOURCE_DIR) + "/traces/data/azure-llm-code-2023.csv";
BENCHMARK_CAPTURE(WorkloadRun, vllm_bench_vllm, {{"workload", "vllm-bench"}, {"num-prompts", "20000"},
                  {"request-rate", "20"}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(WorkloadRun, vllm_bench_sglang, {{"workload", "vllm-bench"}, {"num-prompts", "20000"},
                  {"request-rate", "20"}, {"engine", "sglang"}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(WorkloadRun, azure_trace_vllm, {{"workload", "trace"}, {"trace", kAzureTrace}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(WorkloadRun, azure_trace_sglang,
                  {{"workload", "trace"}, {"trace", kAzureTrace}, {"engine", "sglang"}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(WorkloadRun, inference_perf_vllm, {{"workload", "inference-perf"}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(WorkloadRun, inference_perf_sglang,
                  {{"workload", "inference-perf"}, {"engine", "sglang"}})
    ->Unit(benchmark::kMillisecond);
// An MoE model's data-parallel group in lockstep against the same GPUs as
// TP: the paper workload, 256 users, synthetic documents.
BENCHMARK_CAPTURE(WorkloadRun, paper_moe_tp2, {{"model", "qwen3-coder-30b-a3b"}, {"tp", "2"}, {"users", "256"},
                  {"documents", "synthetic"}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(WorkloadRun, paper_moe_dp2, {{"model", "qwen3-coder-30b-a3b"}, {"data-parallel-size", "2"},
                  {"users", "256"}, {"documents", "synthetic"}})->Unit(benchmark::kMillisecond);

// SGLang's radix cache on paper-workload-shaped prompts: 16 users, a
// 3,072-token prompt each growing by 256 tokens a round for 5 rounds (EFIM:
// every prompt extends the last). Per prompt: match (copying the prefix's
// slots), lock, allocate the rest, insert, free duplicates, unlock.
// Items: prompt tokens matched or inserted. A fresh cache per iteration.
void BM_RadixMatchInsert(benchmark::State& state) {
  constexpr int kUsers = 16, kRounds = 5;
  constexpr int64_t kBase = 3072, kGrowth = 256;
  RandomStream random = RandomStream::Derive(1, 0, "radix-bench");
  std::vector<TokenVector> docs(kUsers);
  for (TokenVector& doc : docs) {
    for (int64_t i = 0; i < kBase + kRounds * kGrowth; ++i) {
      doc.push_back(static_cast<TokenId>(random.NextU64() % 128000));
    }
  }
  int64_t tokens = 0;
  for (auto _ : state) {
    state.PauseTiming();
    RadixCache cache(1 << 20, 1, true);
    state.ResumeTiming();
    for (int round = 0; round < kRounds; ++round) {
      for (const TokenVector& doc : docs) {
        const int64_t n = kBase + round * kGrowth;
        const TokenSpan prompt = TokenSpan(doc).first(static_cast<size_t>(n));
        const RadixMatch m = cache.Match(prompt, n - 1);
        cache.IncLock(m.last);
        cache.Allocate(n - m.length);
        const int64_t present = cache.Insert(prompt);
        cache.Free(present - m.length);
        cache.DecLock(m.last);
        tokens += n;
      }
    }
    benchmark::DoNotOptimize(cache.cached_tokens());
  }
  state.SetItemsProcessed(tokens);
}
BENCHMARK(BM_RadixMatchInsert);

}  // namespace
}  // namespace efimsim

// BENCHMARK_MAIN with the heap settings efimsim's own main makes
// (sim/base/heap_pages.h), so that the cases time what the CLI runs.
int main(int argc, char** argv) {
  efimsim::BackHeapWithHugePages();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Building a latency model from measured kernels (issue 23: "a run must not
// spend more than a few ms building its latency model"). Parse: one
// built-in shape profile's JSON (done once per process, then cached).
// Resolve: pricing llama-3.1-8b's shapes from it (once per GPU, engine,
// model and TP, then cached). Build: MakeLatencyModel as every run calls it,
// with both caches warm.
// The built-in H100 vLLM shape profile: parsing its committed JSON (what a
// --shape-profile FILE costs; what start-up cost before the compact form)
// and decoding the compact form the binary holds.
void BM_ShapeProfileParse(benchmark::State& state) {
  const std::string text = efimsim::ShapeProfileJson(
      *efimsim::FindBuiltinShapeProfile("h100-sxm", "aiconfigurator", "vllm_v1"));
  for (auto _ : state) benchmark::DoNotOptimize(efimsim::ParseShapeProfile(text, "bench"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ShapeProfileParse)->Unit(benchmark::kMillisecond);

void BM_ShapeProfileDecode(benchmark::State& state) {
  std::string_view bytes;
  for (const efimsim::EmbeddedFile& f : efimsim::EmbeddedShapeProfiles()) {
    if (f.name == "h100-sxm/aiconfigurator/vllm_v1") bytes = f.text;
  }
  for (auto _ : state) benchmark::DoNotOptimize(efimsim::DecodeShapeProfile(bytes, "bench"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
}
BENCHMARK(BM_ShapeProfileDecode)->Unit(benchmark::kMillisecond);

void BM_ShapeProfileResolve(benchmark::State& state) {
  const efimsim::ShapeProfile* shapes =
      efimsim::FindBuiltinShapeProfile("h100-sxm", "aiconfigurator", "vllm_v1");
  const efimsim::ModelSpec model = efimsim::LoadModelSpec("llama-3.1-8b");
  for (auto _ : state) benchmark::DoNotOptimize(efimsim::ResolveShapeProfile(*shapes, model, 1));
}
BENCHMARK(BM_ShapeProfileResolve)->Unit(benchmark::kMillisecond);

void BM_LatencyModelBuildCached(benchmark::State& state) {
  const efimsim::ModelSpec model = efimsim::LoadModelSpec("llama-3.1-8b");
  const efimsim::GpuSpec gpu = efimsim::LoadGpuSpec("h100-sxm");
  efimsim::MakeLatencyModel(efimsim::LatencyConfig{}, model, gpu);  // fills the caches
  for (auto _ : state) benchmark::DoNotOptimize(efimsim::MakeLatencyModel(efimsim::LatencyConfig{}, model, gpu));
}
BENCHMARK(BM_LatencyModelBuildCached)->Unit(benchmark::kMillisecond);
