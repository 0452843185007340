#include "sim/app/cli_options.h"

#include <iostream>
#include <memory>

#include "sim/base/errors.h"

namespace efimsim::cli {

const ParamTable<PaperWorkloadConfig>& WorkloadParams() {
  using C = PaperWorkloadConfig;
  static const ParamTable<C> table = {
      {{"users", "users", "users (efim-paper: one document each; typing: typists)", 1}, &C::users},
      {{"rounds", "rounds", "efim-paper: requests per user (the paper's R)", 1}, &C::rounds},
      {{"seed", "", "seed of every random stream (documents, ...)", 0}, &C::seed},
      {{"doc-min-tokens", "tokens", "efim-paper documents are longer than this (exclusive)", 1},
       &C::doc_min_tokens},
      {{"doc-max-tokens", "tokens", "efim-paper documents are shorter than this (exclusive)", 3},
       &C::doc_max_tokens},
  };
  return table;
}

const ParamTable<ExperimentConfig>& RunParams() {
  using C = ExperimentConfig;
  static const ParamTable<C> table = {
      {{"max-tokens", "tokens", "output tokens per request: the cap of --output-length; with its "
        "default (fixed) every request generates exactly this many", 1},
       &C::max_output_tokens},
      {{"output-length", "tokens", "output-length model, capped by --max-tokens: fixed (= "
        "--max-tokens), fixed:N, trace:FILE (a trace's recorded output lengths), "
        "lognormal:median=M,p90=P, eos:p=P (end-of-sequence chance per token), "
        "eol[:multiline=F] (typing/trace sessions: stop at the end of the line, estimated from "
        "the line above; a share F multi-line, to the cap; default 0.2); parameters separate "
        "with ',' or ':'; then per-policy overrides, space-separated, e.g. "
        "'fixed:128 efim=eos:p=0.05'; the same request gets the same length under every "
        "policy with the same model; trace request records keep their recorded lengths"},
       &C::output_length},
      {{"think-time-ms", "ms", "pause between a response's end and the user's next request "
        "(efim-paper; with --think-time-dist exponential, its mean)", 0},
       &C::think_time_ms},
      {{"think-time-dist", "", "efim-paper pauses: fixed (every pause --think-time-ms; all users "
        "start at t = 0 and stay in step) or exponential (each pause, the first included, drawn "
        "with mean --think-time-ms per user and round, the same under every policy)"},
       &C::think_time_dist},
      {{"latency-model", "", "step latency model: auto (the built-in kernel profile of the GPU "
        "and model when one exists, else the roofline; outputs name which), profile (the same, "
        "saying 'roofline fallback' when none exists), or roofline"},
       &C::latency_model},
      {{"workload", "", "efim-paper (closed-loop multi-round), trace (--trace FILE, open loop), "
        "or typing (simulated users typing real files)"},
       &C::workload},
      {{"documents", "", "efim-paper documents: text (real code, Llama-3.1 tokenizer), "
        "synthetic (token ids), or auto (text when the tokenizer is present)"},
       &C::documents},
      {{"corpus-dir", "", "source files for text documents and typing; empty: the Python "
        "standard library"},
       &C::corpus_dir},
      {{"tokenizer", "", "Hugging Face tokenizer.json; empty: the one scripts/fetch-tokenizer "
        "caches"},
       &C::tokenizer_path},
      {{"trace", "", "trace file for --workload trace (efimsim JSONL, Azure CSV, Mooncake "
        "JSONL, TaskTracker CSV, HumanEval infilling JSONL(.gz))"},
       &C::trace_path},
      {{"trace-format", "", "auto, efimsim, azure-csv, mooncake-jsonl, tasktracker-csv, "
        "humaneval-infilling"},
       &C::trace_format},
      {{"max-line-bytes", "bytes", "trace: the longest line (or CSV record) read; a longer one "
        "is skipped and counted in summary.json (trace_lines_skipped), with the records that "
        "depended on it (trace_records_dropped)", 1},
       &C::max_line_bytes},
      {{"duration-s", "s", "trace, typing: send nothing after this simulated time; 0 = all", 0},
       &C::duration_s},
      {{"replicas", "replicas", "identical engine replicas behind the router (a cluster)", 1, 4096},
       &C::replicas},
      {{"router", "", "how requests reach replicas: round-robin, least-outstanding (fewest "
        "requests waiting or running), session-affinity (a user's rounds stay on one replica)"},
       &C::router},
      {{"timeline", "", "write a Chrome trace-event JSON of the run to this file (open in "
        "Perfetto): steps per replica, requests per session; empty: none"},
       &C::timeline_path},
      {{"wall-time", "", "record the host's wall-clock seconds in summary.json "
        "(simulator.wall_s); =false writes null, so that two runs' summary.json compare byte "
        "for byte"},
       &C::record_wall_time},
      {{"rate-scale", "x", "trace: open-loop load: arrival times (request records, session "
        "starts) divided by this, so 2 = twice the recorded rate; edits keep their offsets "
        "within a session", 1e-9},
       &C::rate_scale},
      {{"session-rate", "sessions/s", "typing: > 0 = an open population: --sessions editing "
        "sessions arriving as a Poisson process at this rate, each a user who types one file and "
        "leaves; 0 = closed (--users)", 0},
       &C::session_rate_per_s},
  };
  return table;
}

const ParamTable<CompletionClientConfig>& CompletionParams() {
  using C = CompletionClientConfig;
  static const ParamTable<C> table = {
      {{"trigger", "", "when an editing session sends a request: every-edit, debounce "
        "(Continue), adaptive-debounce (Tabby), single-in-flight (llama.vim)"},
       &C::trigger},
      {{"debounce-ms", "ms", "debounce: wait after the last edit", 0}, &C::debounce_ms},
      {{"adaptive-min-ms", "ms", "adaptive-debounce: shortest wait", 0}, &C::adaptive_min_ms},
      {{"adaptive-max-ms", "ms", "adaptive-debounce: longest wait", 0}, &C::adaptive_max_ms},
      {{"retry-ms", "ms", "single-in-flight: resend this long after a response if typed meanwhile",
        0},
       &C::retry_ms},
      {{"cancel-stale", "", "abort a session's in-flight request when sending a newer one"},
       &C::cancel_stale},
      {{"context-lines-before", "lines", "prefix window: lines above the cursor's; -1 = all", -1},
       &C::context_lines_before},
      {{"context-lines-after", "lines", "suffix window: lines below the cursor's; -1 = all", -1},
       &C::context_lines_after},
  };
  return table;
}

const ParamTable<TypingBehavior>& TypingParams() {
  using C = TypingBehavior;
  static const ParamTable<C> table = {
      {{"chars-per-second", "chars/s", "typing: mean typing speed", 0.01}, &C::chars_per_second},
      {{"pause-probability", "", "typing: chance of a pause per keystroke", 0, 1},
       &C::pause_probability},
      {{"pause-mean-s", "s", "typing: mean pause", 0}, &C::pause_mean_s},
      {{"typo-probability", "", "typing: chance of a typo (typed, then deleted) per keystroke", 0,
        1},
       &C::typo_probability},
      {{"jump-probability", "", "typing: chance of a cursor jump per keystroke", 0, 1},
       &C::jump_probability},
      {{"accept-probability", "", "typing: chance a completion is accepted at a line start", 0, 1},
       &C::accept_probability},
      {{"chars-per-session", "chars", "typing: characters each session types", 1},
       &C::chars_per_session},
  };
  return table;
}

const ParamTable<TypingWorkloadConfig>& TypingPopulationParams() {
  using C = TypingWorkloadConfig;
  static const ParamTable<C> table = {
      {{"sessions-per-user", "sessions", "typing: files each user types, one after another", 1},
       &C::sessions_per_user},
      {{"think-time-mean-s", "s", "typing: mean pause before each session (exponential)", 0},
       &C::think_time_mean_s},
      {{"sessions", "sessions", "typing with --session-rate: sessions in the run", 1},
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
  };
  return table;
}

std::vector<po::options_description> ExperimentOptionGroups() {
  const ExperimentConfig defaults;
  po::options_description workload("Workload");
  AddParamOptions(workload, WorkloadParams(), defaults.workload_paper);
  AddParamOptions(workload, RunParams(), defaults);
  po::options_description client("Completion client (trace and typing workloads)");
  AddParamOptions(client, CompletionParams(), defaults.completion);
  AddParamOptions(client, TypingParams(), defaults.typing.behavior);
  AddParamOptions(client, TypingPopulationParams(), defaults.typing);
  po::options_description engine("Engine (vLLM v1)");
  AddParamOptions(engine, EngineParams(), defaults.engine);
  po::options_description second_engine("Engine choice and SGLang engine (--engine sglang)");
  AddParamOptions(second_engine, SglangParams(), defaults.sglang);
  po::options_description latency("Latency model host overheads");
  AddParamOptions(latency, CpuOverheadParams(), defaults.cpu);
  po::options_description cpu_kv("CPU KV tier (vLLM offloading connector; vLLM engine only)");
  AddParamOptions(cpu_kv, CpuKvTierParams(), defaults.cpu_kv);
  return {workload, client, engine, second_engine, latency, cpu_kv};
}

ExperimentConfig ExperimentFromOptions(const po::variables_map& values) {
  ExperimentConfig config;
  ApplyParamOptions(values, WorkloadParams(), config.workload_paper);
  ApplyParamOptions(values, RunParams(), config);
  ApplyParamOptions(values, CompletionParams(), config.completion);
  ApplyParamOptions(values, TypingParams(), config.typing.behavior);
  ApplyParamOptions(values, TypingPopulationParams(), config.typing);
  ApplyParamOptions(values, EngineParams(), config.engine);
  ApplyParamOptions(values, SglangParams(), config.sglang);
  ApplyParamOptions(values, CpuOverheadParams(), config.cpu);
  ApplyParamOptions(values, CpuKvTierParams(), config.cpu_kv);
  // One tokenizer for every run made from these options (compare, sweep
  // and capacity run many), loaded by the first that needs text.
  config.shared_tokenizer = std::make_shared<const SharedTokenizer>(config.tokenizer_path);
  return config;
}

bool ParseCommandLine(const std::string& command, const std::string& synopsis,
                      const po::options_description& visible, int argc, const char* const* argv,
                      po::variables_map& values,
                      const po::positional_options_description* positional) {
  po::options_description all;
  all.add(visible);
  all.add_options()("help,h", "show this help");
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(all);
    if (positional != nullptr) parser.positional(*positional);
    po::store(parser.run(), values);
    // --help before notify: notify checks required options, which a user
    // asking for help has not given.
    if (values.count("help")) {
      std::cout << "usage: efimsim " << command << " [options]\n\n" << synopsis << "\n\n"
                << visible << "\n";
      return false;
    }
    po::notify(values);
  } catch (const po::error& error) {
    throw UsageError(std::string(error.what()) + " (see efimsim " + command + " --help)");
  }
  return true;
}

}  // namespace efimsim::cli
