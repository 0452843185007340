#include "sim/run/run_params.h"

#include <algorithm>
#include <variant>

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/client/completion_trigger.h"
#include "models/latency/moe_backend.h"
#include "sim/engine/engines.h"
#include "sim/run/router.h"
#include "sim/run/workload.h"
#include "sim/run/workload_options.h"
#include "traces/trace_open.h"

namespace efimsim {
namespace {

std::vector<std::string> LatencyModelNameList() {
  std::vector<std::string> names;
  for (const LatencyModelInfo& info : LatencyModelNames()) names.push_back(info.name);
  return names;
}

// "auto", then every kernel source in the order auto tries them.
std::vector<std::string> KernelSourceChoices() {
  std::vector<std::string> choices = {"auto"};
  for (const std::string& source : KernelSourceNames()) choices.push_back(source);
  return choices;
}

std::vector<std::string> MoeBackendChoices() {
  std::vector<std::string> choices = {"auto"};
  for (const std::string& backend : MoeBackendNames()) choices.push_back(backend);
  return choices;
}

}  // namespace

const ParamTable<ExperimentConfig>& UserParams() {
  using C = ExperimentConfig;
  static const ParamTable<C> table = {
      {ScopedTo("workload", {"efim-paper", "typing"},
                {"users", "users", "users (efim-paper: one document each; typing: typists)", 1}),
       &C::users},
  };
  return table;
}

const ParamTable<PaperWorkloadConfig>& PaperRoundParams() {
  using C = PaperWorkloadConfig;
  static const ParamTable<C> table = {
      {ScopedTo("workload", {"efim-paper"},
                {"rounds", "rounds", "efim-paper: requests per user (the paper's R)", 1}),
       &C::rounds},
  };
  return table;
}

const ParamTable<ExperimentConfig>& SeedParams() {
  using C = ExperimentConfig;
  static const ParamTable<C> table = {
      {{"seed", "", "seed of every random stream (documents, ...)", 0}, &C::seed},
  };
  return table;
}

const ParamTable<PaperWorkloadConfig>& PaperDocumentParams() {
  using C = PaperWorkloadConfig;
  static const ParamTable<C> table = {
      {ScopedTo("workload", {"efim-paper"},
                {"doc-min-tokens", "tokens",
                 "efim-paper documents are longer than this (exclusive)", 1}),
       &C::doc_min_tokens},
      {ScopedTo("workload", {"efim-paper"},
                {"doc-max-tokens", "tokens",
                 "efim-paper documents are shorter than this (exclusive)", 3}),
       &C::doc_max_tokens},
  };
  return table;
}

const ParamTable<ExperimentConfig>& RunParams() {
  using C = ExperimentConfig;
  static const ParamTable<C> table = {
      {{"max-tokens", "tokens",
        "output tokens per request: the cap of --output-length; with its "
        "default (fixed) every request generates exactly this many",
        1},
       &C::max_output_tokens},
      {{"output-length", "tokens",
        "output-length model, capped by --max-tokens: fixed (= "
        "--max-tokens), fixed:N, trace:FILE (a trace's recorded output lengths), "
        "lognormal:median=M,p90=P, eos:p=P (end-of-sequence chance per token), "
        "eol[:multiline=F] (typing/trace sessions: stop at the end of the line, estimated from "
        "the line above; a share F multi-line, to the cap; default 0.2); parameters separate "
        "with ',' or ':'; then per-policy overrides, space-separated, e.g. "
        "'fixed:128 efim=eos:p=0.05'; the same request gets the same length under every "
        "policy with the same model; trace request records keep their recorded lengths"},
       &C::output_length},
      {ScopedTo("workload", {"efim-paper"},
                {"think-time-ms", "ms",
                 "pause between a response's end and the user's next request "
                 "(efim-paper; with --think-time-dist exponential, its mean)",
                 0}),
       &C::think_time_ms},
      {ScopedTo(
           "workload", {"efim-paper"},
           Choice("think-time-dist",
                  "efim-paper pauses: fixed (every pause --think-time-ms; all "
                  "users start at t = 0 and stay in step) or exponential (each pause, the first "
                  "included, drawn with mean --think-time-ms per user and round, the same under "
                  "every policy)",
                  {"fixed", "exponential"})),
       &C::think_time_dist},
      {Choice(
           "latency-model",
           "step latency model: auto (measured kernels of the GPU as "
           "--kernel-source chooses them, or --profile FILE; else the calibrated fallback; "
           "outputs name which), profile (the same), fallback (the calibrated fallback even where "
           "kernels were measured), or roofline (uncalibrated ceilings)",
           LatencyModelNameList()),
       &C::latency_model},
      {Choice("workload",
              "efim-paper (closed-loop multi-round), trace (--trace FILE, open "
              "loop), typing (simulated users typing real files), inference-perf "
              "(shared-prefix data, load stages), or vllm-bench (vLLM bench serve datasets)",
              WorkloadNames()),
       &C::workload},
      {ScopedTo("workload", {"efim-paper"},
                Choice("documents",
                       "efim-paper documents: text (real code, Llama-3.1 tokenizer), "
                       "synthetic (token ids), or auto (text when the tokenizer is present)",
                       {"auto", "synthetic", "text"})),
       &C::documents},
      {ScopedTo("workload", {"efim-paper", "typing"},
                {"corpus-dir", "",
                 "source files for text documents and typing; empty: the "
                 "pinned corpus cpython-3.11.2 built into efimsim (traces/data/README.md)"}),
       &C::corpus_dir},
      {{"tokenizer", "",
        "Hugging Face tokenizer.json; empty: the one scripts/fetch-tokenizer "
        "caches"},
       &C::tokenizer_path},
  };
  return table;
}

const ParamTable<ExperimentConfig>& TraceAndClusterParams() {
  using C = ExperimentConfig;
  static const ParamTable<C> table = {
      {ScopedTo("workload", {"trace"},
                {"trace", "",
                 "trace file for --workload trace (efimsim JSONL, Azure CSV, Mooncake "
                 "JSONL, TaskTracker CSV, HumanEval infilling JSONL(.gz), ShareGPT JSONL in "
                 "LLMServingSim's layout)"}),
       &C::trace_path},
      {ScopedTo(
           "workload", {"trace"},
           Choice("trace-format", "the trace file's format; auto detects it from the first line",
                  TraceFormatNames())),
       &C::trace_format},
      {ScopedTo(
           "workload", {"trace"},
           {"max-line-bytes", "bytes",
            "trace: the longest line (or CSV record) read; a longer one "
            "is skipped and counted in summary.json (trace_lines_skipped), with the records that "
            "depended on it (trace_records_dropped)",
            1}),
       &C::max_line_bytes},
      {ScopedTo("workload", {"trace", "typing", "inference-perf", "vllm-bench"},
                {"duration-s", "s",
                 "trace, typing: send nothing after this simulated time; 0 = all", 0}),
       &C::duration_s},
      {{"replicas", "replicas", "identical engine replicas behind the router (a cluster)", 1, 4096},
       &C::replicas},
      {Quiet({"prefill-replicas", "replicas",
        "disaggregated serving: > 0 = this many prefill replicas (each computes a request's "
        "prompt and first token) and --decode-replicas decode replicas (which pull that KV and "
        "generate), instead of --replicas; 0 = co-located (docs/disaggregation.md)",
        0, 4096}),
       &C::prefill_replicas},
      {Quiet({"decode-replicas", "replicas",
                 "disaggregated serving: the decode pool's replicas", 1, 4096}),
       &C::decode_replicas},
      {Quiet(Choice("decode-router",
                    "disaggregated serving: the decode pool's routing policy (as --router); "
                    "empty = --router's. session-affinity keeps a session's rounds on one decode "
                    "replica, whose prefix cache then holds its context, so later rounds pull "
                    "only what changed",
                    [] {
                      std::vector<std::string> names = RoutingPolicyNameList();
                      names.insert(names.begin(), "");
                      return names;
                    }())),
       &C::decode_router},
      {Quiet({"kv-link-gbps", "GB/s",
                 "disaggregated serving: KV pull rate per GPU (x TP per replica), GB/s = 1e9 B/s; "
                 "default 50 = one 400 Gb/s NDR InfiniBand or RoCE NIC per GPU (DGX H100), line "
                 "rate; 450 = NVLink 4 within a node (H100/H200, one direction); 1e12 = bytes free",
                 1e-9}),
       &C::kv_link_gbps},
      {Quiet({"decode-gpu", "",
                 "disaggregated serving: the decode pool's GPU (built-in name or spec JSON); "
                 "empty = --gpu's. Its KV cache, step times and link follow it; the engine "
                 "options are shared but for --decode-engine-args"}),
       &C::decode_gpu},
      {Quiet({"decode-engine-args", "",
                 "disaggregated serving: the decode pool's own engine options, as a P/D "
                 "deployment starts its decode servers with their own flags: `--option value` "
                 "pairs in one quoted argument, e.g. \"--max-num-seqs 512 "
                 "--gpu-memory-utilization 0.95\"; they override the run's for the decode pool "
                 "only (model, engine and block size stay shared; the GPU and TP have "
                 "--decode-gpu and --decode-tp). empty = the run's"}),
       &C::decode_engine_args},
      {Quiet({"decode-tp", "GPUs",
                 "disaggregated serving: the decode pool's tensor-parallel degree; 0 = --tp's. "
                 "capacity counts prefill replicas x --tp + decode replicas x this",
                 0, 8, {"0", "1", "2", "4", "8"}}),
       &C::decode_tp},
      {Quiet({"kv-link-latency-us", "us",
                 "disaggregated serving: fixed cost of one KV pull before its first byte "
                 "(estimate: connector handshake and RDMA setup; not measured)",
                 0}),
       &C::kv_link_latency_us},
      {Choice("router",
              "how requests reach replicas: round-robin, least-outstanding (fewest "
              "requests waiting or running), session-affinity (a user's rounds stay on one "
              "replica)",
              RoutingPolicyNameList()),
       &C::router},
      {{"timeline", "",
        "write a Chrome trace-event JSON of the run to this file (open in "
        "Perfetto): steps per replica, requests per session; empty: none"},
       &C::timeline_path},
      {{"wall-time", "",
        "record the host's wall-clock seconds in summary.json "
        "(simulator.wall_s); =false writes null, so that two runs' summary.json compare byte "
        "for byte"},
       &C::record_wall_time},
      {ScopedTo(
           "workload", {"trace", "inference-perf", "vllm-bench"},
           {"rate-scale", "x",
            "trace: open-loop load: arrival times (request records, session "
            "starts) divided by this, so 2 = twice the recorded rate; edits keep their offsets "
            "within a session",
            1e-9}),
       &C::rate_scale},
      {ScopedTo("workload", {"typing"},
                {"session-rate", "sessions/s",
                 "typing: > 0 = an open population: --sessions editing "
                 "sessions arriving as a Poisson process at this rate, each a user who types one "
                 "file and "
                 "leaves; 0 = closed (--users)",
                 0}),
       &C::session_rate_per_s},
      {{"client-overhead-ms",
        "ms",
        "per request: API server, tokenizer and network time outside the engine, added to every "
        "request's TTFT and E2E (first_token and finish in requests.csv are then what the client "
        "sees); the closed loop's next request is not delayed by it. 0 = none (engine times)",
        0,
        kParamNoLimit,
        {},
        /*quiet_default=*/true},
       &C::client_overhead_ms},
      {Quiet({"frontend", "",
        "the API server's time outside the engine (sim/metrics/frontend.h): none (engine times "
        "only), default (the engine's defaults: vLLM's fitted on vLLM 0.11 on an H100, "
        "docs/validation.md; SGLang carries vLLM's over), or PER_REQUEST_US,PER_PROMPT_TOKEN_US"
        "[,PER_OUTPUT_TOKEN_US]; not none: summary.json adds client_ttft_ms, client_tpot_ms and "
        "client_e2e_ms beside the engine's ttft_ms, tpot_ms and e2e_ms"}),
       &C::frontend},
  };
  return table;
}

const ParamTable<ExperimentConfig>& RunLimitParams() {
  using C = ExperimentConfig;
  static const ParamTable<C> table = {
      {{"max-memory-gib", "GiB", "memory a run may use; a run whose estimate (KV structures of "
        "every replica, prompts made up front) exceeds it is refused before it starts; 0: 80% of "
        "this machine's", 0, kParamNoLimit, {}, /*quiet_default=*/true},
       &C::max_memory_gib},
  };
  return table;
}

const ParamTable<CompletionClientConfig>& CompletionParams() {
  using C = CompletionClientConfig;
  static const ParamTable<C> table = {
      {ScopedTo("workload", {"trace", "typing"},
                Choice("trigger",
                       "when an editing session sends a request: every-edit, debounce "
                       "(Continue), adaptive-debounce (Tabby), single-in-flight (llama.vim)",
                       CompletionTriggerNames())),
       &C::trigger},
      {ScopedTo("workload", {"trace", "typing"},
                {"debounce-ms", "ms", "debounce: wait after the last edit", 0}),
       &C::debounce_ms},
      {ScopedTo("workload", {"trace", "typing"},
                {"adaptive-min-ms", "ms", "adaptive-debounce: shortest wait", 0}),
       &C::adaptive_min_ms},
      {ScopedTo("workload", {"trace", "typing"},
                {"adaptive-max-ms", "ms", "adaptive-debounce: longest wait", 0}),
       &C::adaptive_max_ms},
      {ScopedTo("workload", {"trace", "typing"},
                {"retry-ms", "ms",
                 "single-in-flight: resend this long after a response if typed meanwhile", 0}),
       &C::retry_ms},
      {ScopedTo(
           "workload", {"trace", "typing"},
           {"cancel-stale", "", "abort a session's in-flight request when sending a newer one"}),
       &C::cancel_stale},
      {ScopedTo("workload", {"trace", "typing"},
                {"context-lines-before", "lines",
                 "prefix window: lines above the cursor's; -1 = all", -1}),
       &C::context_lines_before},
      {ScopedTo("workload", {"trace", "typing"},
                {"context-lines-after", "lines",
                 "suffix window: lines below the cursor's; -1 = all", -1}),
       &C::context_lines_after},
  };
  return table;
}

const ParamTable<TypingBehavior>& TypingParams() {
  using C = TypingBehavior;
  static const ParamTable<C> table = {
      {ScopedTo("workload", {"typing"},
                {"chars-per-second", "chars/s", "typing: mean typing speed", 0.01}),
       &C::chars_per_second},
      {ScopedTo("workload", {"typing"},
                {"pause-probability", "", "typing: chance of a pause per keystroke", 0, 1}),
       &C::pause_probability},
      {ScopedTo("workload", {"typing"}, {"pause-mean-s", "s", "typing: mean pause", 0}),
       &C::pause_mean_s},
      {ScopedTo("workload", {"typing"},
                {"typo-probability", "",
                 "typing: chance of a typo (typed, then deleted) per keystroke", 0, 1}),
       &C::typo_probability},
      {ScopedTo("workload", {"typing"},
                {"jump-probability", "", "typing: chance of a cursor jump per keystroke", 0, 1}),
       &C::jump_probability},
      {ScopedTo("workload", {"typing"},
                {"accept-probability", "",
                 "typing: chance a completion is accepted at a line start", 0, 1}),
       &C::accept_probability},
      {ScopedTo("workload", {"typing"},
                {"chars-per-session", "chars", "typing: characters each session types", 1}),
       &C::chars_per_session},
  };
  return table;
}

const ParamTable<TypingWorkloadConfig>& TypingPopulationParams() {
  using C = TypingWorkloadConfig;
  static const ParamTable<C> table = {
      {ScopedTo("workload", {"typing"},
                {"sessions-per-user", "sessions",
                 "typing: files each user types, one after another", 1}),
       &C::sessions_per_user},
      {ScopedTo(
           "workload", {"typing"},
           {"think-time-mean-s", "s", "typing: mean pause before each session (exponential)", 0}),
       &C::think_time_mean_s},
      {ScopedTo("workload", {"typing"},
                {"sessions", "sessions", "typing with --session-rate: sessions in the run", 1}),
       &C::sessions},
  };
  return table;
}

const ParamTable<CpuOverheadConfig>& CpuOverheadParams() {
  using C = CpuOverheadConfig;
  static const ParamTable<C> table = {
      {{"cpu-step-overhead-us", "us", "host time per step: scheduling, inputs, sampling (estimate)",
        0},
       &C::step_us},
      {{"cpu-per-sequence-us", "us", "host time per scheduled sequence (estimate)", 0},
       &C::per_sequence_us},
      {{"eager-launch-per-layer-us", "us",
        "kernel-launch time of one layer in eager mode; hides behind GPU time (estimate)", 0},
       &C::eager_launch_per_layer_us},
      {{"graph-launch-us", "us", "one CUDA-graph replay, decode-only steps (estimate)", 0},
       &C::graph_launch_us},
      {{"host-overlap", "", "host/GPU overlap (vLLM V1 async scheduling): a step's host time adds "
        "only where it exceeds the step's GPU time; false: step and per-sequence time add in full "
        "(docs/validation.md)", -kParamNoLimit, kParamNoLimit, {}, /*quiet_default=*/true},
       &C::overlap_host},
  };
  return table;
}
const ParamTable<LatencyModelOptions>& LatencyParams() {
  using C = LatencyModelOptions;
  static const ParamTable<C> table = {
      {{"tp", "GPUs", "tensor-parallel GPUs per replica: each holds 1/TP of the weights and KV "
        "heads (its KV cache sized for them); the latency model prices one GPU's shard plus the "
        "all-reduces", 1, 8, {"1", "2", "4", "8"}, /*quiet_default=*/true},
       &C::tensor_parallel},
      {{"profile", "", "kernel profile JSON for --latency-model auto or profile (default: the "
        "built-in tables --kernel-source chooses)", -kParamNoLimit, kParamNoLimit, {},
        /*quiet_default=*/true},
       &C::profile_path},
      {{"kernel-source", "", "whose measured kernels price steps: auto (the serving engine's own "
        "kernels where the GPU has them: LLMServingSim's vLLM layers, AIConfigurator's vLLM or "
        "SGLang tables; then efimsim's own, the PyTorch reference, Vidur) or one source by name; "
        "`efimsim models` lists what each GPU has", -kParamNoLimit, kParamNoLimit,
        KernelSourceChoices(),
        /*quiet_default=*/true},
       &C::kernel_source},
      {{"moe-backend", "", "the fused-MoE kernel family the deployment runs (as vLLM logs \"Using X MoE "
        "backend\"; SGLang's --moe-runner-backend): a MoE model's experts are then priced from the "
        "tables of that backend only, a shape measured with another backend transferred instead; auto: "
        "the nearest measured shapes of any backend (docs/moe-fp8.md)", -kParamNoLimit, kParamNoLimit,
        MoeBackendChoices(), /*quiet_default=*/true},
       &C::moe_backend},
  };
  return table;
}

namespace {

// `table`, whose fields live in part(config), bound into the run's config.
template <class Part>
RunParamTable Table(std::string group, const ParamTable<Part>& table,
                    Part& (*part)(ExperimentConfig&)) {
  PartAccess<ExperimentConfig, Part> access{
      part, [part](const ExperimentConfig& c) -> const Part& {
        return part(const_cast<ExperimentConfig&>(c));  // a member access: reads only
      }};
  return BindParamTable(std::move(group), table, std::move(access));
}

// typing's behaviour, inside its settings (TypingWorkloadConfig::behavior)
// in the run's workload store.
PartAccess<ExperimentConfig, TypingBehavior> TypingBehaviorAccess() {
  return {[](ExperimentConfig& c) -> TypingBehavior& { return TypingSettings(c).behavior; },
          [](const ExperimentConfig& c) -> const TypingBehavior& {
            return TypingSettings(c).behavior;
          }};
}

// Which of an engine's table lists (EngineEntry) EngineOptionTables lifts.
enum class EngineTables { kLimits, kOwn, kParts };

// The engines' tables of one kind (EngineEntry::limit_option_tables,
// option_tables or part_option_tables), in registry order, lifted into
// ExperimentConfig::engine_options.
std::vector<RunParamTable> EngineOptionTables(EngineTables which) {
  const PartAccess<ExperimentConfig, OptionStore> store{
      [](ExperimentConfig& c) -> OptionStore& { return c.engine_options; },
      [](const ExperimentConfig& c) -> const OptionStore& { return c.engine_options; }};
  std::vector<RunParamTable> out;
  for (const std::string& name : Engines().Names()) {
    const EngineEntry& entry = Engines().Get(name);
    const auto tables = which == EngineTables::kLimits ? entry.limit_option_tables
                        : which == EngineTables::kOwn  ? entry.option_tables
                                                       : entry.part_option_tables;
    if (tables == nullptr) continue;
    for (const EngineOptionTable& table : tables()) out.push_back(LiftParamTable(table, store));
  }
  return out;
}

}  // namespace

const char* const kLatencyGroup =
    "Latency model: tensor parallelism, kernel profile, host overheads";

const std::vector<RunParamTable>& AllParamTables() {
  using X = ExperimentConfig;
  static const std::vector<RunParamTable> tables = [] {
    std::vector<RunParamTable> all = {
        // users, rounds, seed, doc sizes: sweep.csv's first columns, in this
        // order, though users and seed are the run's and the rest efim-paper's.
        Table("Workload", UserParams(), +[](X& c) -> auto& { return c; }),
        BindWorkloadOptions("efim-paper", "Workload", PaperRoundParams()),
        Table("Workload", SeedParams(), +[](X& c) -> auto& { return c; }),
        BindWorkloadOptions("efim-paper", "Workload", PaperDocumentParams()),
        Table("Workload", RunParams(), +[](X& c) -> auto& { return c; }),
        Table("Workload", TraceAndClusterParams(), +[](X& c) -> auto& { return c; }),
        Table("Workload", RunLimitParams(), +[](X& c) -> auto& { return c; }),
        Table("Completion client (trace and typing workloads)", CompletionParams(),
              +[](X& c) -> auto& { return c.completion; }),
        BindParamTable("Completion client (trace and typing workloads)", TypingParams(),
                       TypingBehaviorAccess(), ParamScope{"workload", {"typing"}}),
        BindWorkloadOptions("typing", "Completion client (trace and typing workloads)",
                            TypingPopulationParams()),
        Table("Engine (vLLM v1)", EngineTargetParams(), +[](X& c) -> auto& { return c.engine; })};
    for (RunParamTable& table : EngineOptionTables(EngineTables::kLimits)) {
      all.push_back(std::move(table));
    }
    all.push_back(Table("Engine (vLLM v1)", EngineParams(), +[](X& c) -> auto& { return c.engine; }));
    for (RunParamTable& table : EngineOptionTables(EngineTables::kOwn)) all.push_back(std::move(table));
    all.push_back(Table(kLatencyGroup, LatencyParams(), +[](X& c) -> auto& { return c.latency; }));
    all.push_back(Table(kLatencyGroup, CpuOverheadParams(), +[](X& c) -> auto& { return c.cpu; }));
    for (RunParamTable& table : EngineOptionTables(EngineTables::kParts)) all.push_back(std::move(table));
    for (RunParamTable& table : WorkloadOptionTables()) all.push_back(std::move(table));
    return all;
  }();
  return tables;
}

const RunParam* FindRunParam(const std::string& name) {
  for (const RunParamTable& table : AllParamTables()) {
    for (const RunParam& param : table.params) {
      if (param.info->name == name) return &param;
    }
  }
  return nullptr;
}

std::string SelectedPart(const ExperimentConfig& config, const std::string& selector) {
  if (selector == "engine") return config.engine.name;
  if (selector == "workload") return config.workload;
  throw InternalError("option scope: unknown selector '" + selector + "'");
}

namespace {

bool InScope(const RunParam& param, const ExperimentConfig& config) {
  if (param.scope.applies_to_every_run()) return true;
  const auto& parts = param.scope.parts;
  return std::find(parts.begin(), parts.end(), SelectedPart(config, param.scope.selector)) !=
         parts.end();
}

// UsageError when `param` is set away from its default in a run whose part
// does not read it.
void CheckScope(const RunParam& param, const ExperimentConfig& config) {
  static const ExperimentConfig defaults;
  if (InScope(param, config) || param.value(config) == param.value(defaults)) return;
  const std::string selected = SelectedPart(config, param.scope.selector);
  const auto& parts = param.scope.parts;
  std::string names;
  for (const std::string& part : parts) names += (names.empty() ? "" : " or ") + part;
  throw UsageError("--" + param.info->name + ": applies to --" + param.scope.selector + " " +
                   names + " only, but this run has --" + param.scope.selector + " " + selected +
                   " (it would be ignored); leave it out or change --" + param.scope.selector);
}

}  // namespace

bool OptionApplies(const ExperimentConfig& config, const std::string& name) {
  const RunParam* param = FindRunParam(name);
  EFIMSIM_CHECK(param != nullptr, "no run option --" + name);
  return InScope(*param, config);
}

void CheckRunParams(const ExperimentConfig& config) {
  for (const RunParamTable& table : AllParamTables()) {
    for (const RunParam& param : table.params) {
      param.check(config);
      CheckScope(param, config);
    }
  }
}

std::vector<Setting> NonDefaultQuietSettings(const ExperimentConfig& config,
                                             const std::string& group) {
  static const ExperimentConfig defaults;
  std::vector<Setting> out;
  for (const RunParamTable& table : AllParamTables()) {
    if (table.group != group) continue;
    for (const RunParam& param : table.params) {
      if (!param.info->quiet_default || param.value(config) == param.value(defaults)) continue;
      std::string key = param.info->name;
      std::replace(key.begin(), key.end(), '-', '_');
      out.push_back({key, param.setting(config)});
    }
  }
  return out;
}

}  // namespace efimsim
