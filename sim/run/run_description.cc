#include "sim/run/run_description.h"

#include <variant>

#include "models/latency/operator_work.h"
#include "sim/engine/engine_config.h"
#include "sim/metrics/frontend.h"
#include "sim/run/run_params.h"

namespace efimsim {
namespace {

// The rows of a table of the settings every engine shares, as the engine
// section lists them: --engine is the section's "name" (from the engine's
// describe), and options added later stay out while at their defaults
// (same bytes as before they existed).
void DescribeSharedRows(const ParamTable<EngineConfig>& table, const EngineConfig& engine,
                        std::vector<Setting>& e) {
  static const EngineConfig defaults;
  for (const auto& param : table) {
    if (param.info.name == "engine") continue;
    if (param.info.quiet_default &&
        ParamValueText(param, engine) == ParamValueText(param, defaults)) {
      continue;
    }
    std::visit([&](auto member) { e.push_back({param.info.name, engine.*member}); },
               param.field);
  }
}

}  // namespace

void DescribeRun(const ExperimentConfig& config, const PolicySpec& policy,
                 const Workload& workload, const ModelSpec& model, const GpuSpec& gpu,
                 const LatencyModel& latency, const KvCapacity& capacity,
                 const EngineEntry& engine, const EngineContext& engine_context,
                 bool default_output_length, RunInfo& info) {
  auto& p = info.Section("policy").settings;
  p.push_back({"name", policy.name});
  p.push_back({"prompt_format", policy.prompt_format});
  p.push_back({"prefix_caching", policy.prefix_caching});

  auto& w = info.Section("workload").settings;
  workload.Describe(w);
  w.push_back({"max_output_tokens", config.max_output_tokens});
  if (default_output_length) {
    w.push_back({"output_length", std::string("always max_output_tokens (no early stop); trace "
                                              "requests use their recorded output length")});
  } else {
    w.push_back({"output_length", config.output_length});
  }
  w.push_back({"seed", config.seed});
  if (config.client_overhead_ms > 0) {
    w.push_back({"client_overhead_ms", config.client_overhead_ms});
    w.push_back({"client_overhead", std::string("added to every request's TTFT and E2E (API "
                                                "server, tokenizer, network; not simulated)")});
  }
  const FrontendCosts frontend = ParseFrontend(config.frontend, config.engine.name);
  if (frontend.enabled()) {
    w.push_back({"frontend", frontend.Describe()});
    w.push_back({"frontend_per_request_us", static_cast<double>(frontend.per_request_ns) * 1e-3});
    w.push_back({"frontend_per_prompt_token_us", static_cast<double>(frontend.per_prompt_token_ns) * 1e-3});
    w.push_back({"frontend_per_output_token_us", static_cast<double>(frontend.per_output_token_ns) * 1e-3});
  }

  auto& m = info.Section("model").settings;
  m.push_back({"name", model.name});
  m.push_back({"weights_gib", static_cast<double>(model.WeightBytes()) / (1 << 30)});
  m.push_back({"kv_bytes_per_token", model.KvBytesPerToken()});
  if (capacity.tensor_parallel > 1) {
    m.push_back({"weights_gib_per_gpu", capacity.weights_gib});
    m.push_back({"kv_bytes_per_token_per_gpu", capacity.kv_bytes_per_token});
  }

  auto& g = info.Section("gpu").settings;
  g.push_back({"name", gpu.name});
  g.push_back({"description", gpu.description});
  g.push_back({"memory_bytes", gpu.memory_bytes});

  auto& l = info.Section("latency_model").settings;
  l.push_back({"name", latency.Name()});
  l.push_back({"description", latency.Description()});
  l.push_back({"cpu_step_overhead_us", config.cpu.step_us});
  l.push_back({"cpu_per_sequence_overhead_us", config.cpu.per_sequence_us});
  l.push_back({"eager_launch_per_layer_us", config.cpu.eager_launch_per_layer_us});
  l.push_back({"graph_launch_us", config.cpu.graph_launch_us});
  for (Setting& s : NonDefaultQuietSettings(config, kLatencyGroup)) l.push_back(std::move(s));

  auto& e = info.Section("engine").settings;
  engine.describe(engine_context, e);
  DescribeSharedRows(EngineTargetParams(), config.engine, e);
  if (engine.limit_option_tables != nullptr) {
    for (const EngineOptionTable& table : engine.limit_option_tables()) {
      for (const auto& row : table.params) {
        e.push_back({row.info->name, row.setting(config.engine_options)});
      }
    }
  }
  DescribeSharedRows(EngineParams(), config.engine, e);
  e.push_back({"kv_blocks_effective", capacity.blocks});
  e.push_back({"kv_tokens_effective", capacity.tokens});
  if (!capacity.draft_model.empty()) {
    e.push_back({"kv_draft_model", capacity.draft_model});
    e.push_back({"kv_draft_bytes_per_token_per_gpu", capacity.draft_kv_bytes_per_token});
    e.push_back({"draft_weights_gib_per_gpu", capacity.draft_weights_gib});
  }
  if (capacity.draft_layers > 0) {
    e.push_back({"kv_draft_layers", capacity.draft_layers});
    e.push_back({"kv_draft_bytes_per_token_per_gpu", capacity.draft_kv_bytes_per_token});
    e.push_back({"draft_weights_gib_per_gpu", capacity.draft_weights_gib});
    e.push_back({"kv_draft_note",
                 std::string("the draft head's layers keep their KV in the same blocks and its "
                             "weights count as weights (each priced as the target's average "
                             "decoder layer; docs/speculative-decoding.md)")});
  }
  e.push_back({"kv_cache_gib", capacity.kv_gib});
}

void DescribeOutputLengths(const OutputLengthModel& model, const std::vector<int64_t>& tokens,
                           RunInfo& info) {
  auto& o = info.Section("output_length").settings;
  o.push_back({"spec", model.spec().text});
  o.push_back({"model", model.Description()});
  const Distribution d = Summarize(std::vector<double>(tokens.begin(), tokens.end()));
  o.push_back({"completed_requests", d.count});
  o.push_back({"output_tokens_mean", d.mean});
  o.push_back({"output_tokens_p50", d.p50});
  o.push_back({"output_tokens_p90", d.p90});
  o.push_back({"output_tokens_max", static_cast<int64_t>(d.max)});
}

namespace {

// One replica's lines of a cluster section, named replica_<index>_*.
void DescribeReplica(size_t index, const EngineCounters& r, int64_t routed,
                     std::vector<Setting>& c) {
  const std::string prefix = "replica_" + std::to_string(index) + "_";
  c.push_back({prefix + "requests", routed});
  c.push_back({prefix + "steps", r.steps});
  c.push_back({prefix + "prefix_cache_hit_rate",
               r.prefix_cache_query_tokens > 0
                   ? static_cast<double>(r.prefix_cache_hit_tokens) /
                         static_cast<double>(r.prefix_cache_query_tokens)
                   : 0.0});
  c.push_back({prefix + "peak_kv_usage",
               r.kv_blocks_total > 0 ? static_cast<double>(r.kv_blocks_peak_used) /
                                           static_cast<double>(r.kv_blocks_total)
                                     : 0.0});
}

}  // namespace

void DescribeCluster(const ExperimentConfig& config, const std::vector<EngineCounters>& replicas,
                     const std::vector<int64_t>& routed, const std::string& router_note,
                     RunInfo& info) {
  if (config.replicas > 1) {
    auto& c = info.Section("cluster").settings;
    c.push_back({"replicas", config.replicas});
    c.push_back({"router", config.router});
    if (!router_note.empty()) c.push_back({"router_note", router_note});
    c.push_back({"kv_figures", std::string("per replica: kv_blocks_total is one replica's pool, "
                                           "peak KV is the fullest replica's")});
    for (size_t i = 0; i < replicas.size(); ++i) DescribeReplica(i, replicas[i], routed[i], c);
  }
}

void DescribeDataParallel(const ExperimentConfig& config, const ModelSpec& model, DataParallelRouting routing,
                          int64_t dummy_steps, RunInfo& info) {
  auto& c = info.Section("data_parallel").settings;
  const int64_t ranks = config.engine.data_parallel_size;
  c.push_back({"ranks_per_replica", ranks});
  c.push_back({"gpus_per_replica", ranks * config.latency.tensor_parallel});
  if (config.prefill_replicas > 0) {
    c.push_back({"pools", std::string("prefill and decode replicas alike are groups of ranks; a prefill "
                                      "leg's KV is read from the rank that computed it")});
    c.push_back({"gpus_per_decode_replica", ranks * DecodeTp(config)});
  }
  if (routing == DataParallelRouting::kSglangRoundRobin) {
    c.push_back({"sglang_flags", "--tp " + std::to_string(ranks * config.latency.tensor_parallel) + " --dp-size " +
                                     std::to_string(ranks) + " --enable-dp-attention"});
    c.push_back({"routing", std::string("SGLang's data-parallel controller: round-robin over the ranks")});
  } else {
    c.push_back({"routing", std::string("vLLM's DP load balancer: the rank with the lowest 4 x waiting + "
                                        "running, from counts published at most every 100 ms (taken at the "
                                        "first request 100 ms after the last publication) plus one waiting "
                                        "request for each request sent to a rank since")});
  }
  if (model.moe.IsMoe()) {
    c.push_back({"stepping", std::string("lockstep: every rank steps while any has work (an idle rank "
                                         "runs a one-token dummy batch), each padded to the largest "
                                         "rank batch; a step ends when the slowest rank's does")});
    c.push_back({"moe_layers", std::string("over all ranks' rows, experts ") +
                                   (model.expert_parallel ? "whole, spread over " : "split over ") +
                                   std::to_string(ranks * config.latency.tensor_parallel) +
                                   " GPUs; dispatch and combine priced at the " +
                                   (GroupSpansNodes(ranks * config.latency.tensor_parallel)
                                        ? "network's bound (the group spans nodes of " +
                                              std::to_string(kGpusPerNode) + " GPUs: a ring over each GPU's NIC, "
                                              "network_gbps)"
                                        : std::string("interconnect's bound")) +
                                   " (all-gather + reduce-scatter), not measured"});
    c.push_back({"dummy_batch_steps", dummy_steps});
  } else {
    c.push_back({"stepping", std::string("independent: a dense model's ranks share no layer")});
  }
}

void DescribeDisaggregation(const ExperimentConfig& config,
                            const std::vector<EngineCounters>& replicas,
                            const std::vector<int64_t>& prefill_routed,
                            const std::vector<int64_t>& decode_routed,
                            const PrefillPoolStats& prefill, const KvLinkSpec& link,
                            Duration makespan, const LatencyModel* decode_latency,
                            RunInfo& info) {
  auto& c = info.Section("disaggregation").settings;
  c.push_back({"prefill_replicas", config.prefill_replicas});
  c.push_back({"decode_replicas", config.decode_replicas});
  if (decode_latency != nullptr) {
    c.push_back({"decode_gpu", DecodeGpu(config)});
    c.push_back({"decode_tp", DecodeTp(config)});
    if (!config.decode_engine_args.empty()) {
      c.push_back({"decode_engine_args", config.decode_engine_args});
    }
    c.push_back({"decode_latency_model", decode_latency->Description()});
  }
  c.push_back({"router", config.router});
  c.push_back({"decode_router", DecodeRouter(config)});
  c.push_back({"kv_link_gbps_per_gpu", config.kv_link_gbps});
  c.push_back({"kv_link_gbps_per_replica", link.bytes_per_s / 1e9});
  c.push_back({"kv_link_latency_us", config.kv_link_latency_us});
  c.push_back({"kv_bytes_per_token", link.bytes_per_token});
  if (config.engine.name == "sglang") {
    c.push_back({"semantics",
                 std::string("SGLang PD mode (disaggregation/prefill.py, decode.py): the prefill "
                             "replica runs the prompt with max_new_tokens 1 and holds its KV "
                             "until the decode replica has read it; the decode replica "
                             "pre-allocates the whole prompt (no prefix cache: ChunkCache) when "
                             "it fits beside 512 tokens reserved per running request, pulls the "
                             "KV and joins the running batch; the client sees the decode "
                             "replica's tokens (docs/disaggregation.md)")});
    c.push_back({"simplifications",
                 std::string("the decode side pre-allocates when the prefill leg has finished "
                             "(SGLang's bootstrap makes the prefill wait for it) and pulls the "
                             "whole prompt then (SGLang pushes each chunk as it is computed); "
                             "its first decode step computes the last prompt token and emits "
                             "the first token (SGLang streams the prefill's first token a step "
                             "earlier); pulls of one decode replica are serialized on its link; "
                             "held prefill KV whose decode leg is rejected or cancelled before "
                             "its pull is freed at once; no proxy or network time besides the "
                             "pull")});
  } else {
    c.push_back({"semantics",
                 std::string("vLLM P/D with a KV connector (NixlConnector): the prefill replica "
                             "runs the prompt with max_tokens 1 and holds its KV until the "
                             "decode replica has read it; the decode replica pulls the prompt's "
                             "KV past its own prefix-cache hit, recomputes the last prompt "
                             "token and generates; the client sees the decode replica's tokens "
                             "(docs/disaggregation.md)")});
    c.push_back({"simplifications",
                 std::string("pulls of one decode replica are serialized on its link; held "
                             "prefill KV whose decode leg is rejected or cancelled before its "
                             "pull is freed at once (vLLM: after a timeout); no proxy or network "
                             "time besides the pull")});
  }
  c.push_back({"prefill_handed_to_decode", prefill.handed_to_decode});
  c.push_back({"prefill_cancelled", prefill.cancelled});
  c.push_back({"prefill_rejected", prefill.rejected});
  c.push_back({"prefill_leg_mean_ms",
               prefill.handed_to_decode > 0
                   ? ToMilliseconds(prefill.leg_time) / static_cast<double>(prefill.handed_to_decode)
                   : 0.0});
  c.push_back({"prefill_kv_held_mean_ms",
               prefill.kv_releases > 0
                   ? ToMilliseconds(prefill.kv_hold_time) / static_cast<double>(prefill.kv_releases)
                   : 0.0});
  c.push_back({"kv_figures", std::string("replicas 0.." + std::to_string(config.prefill_replicas - 1) +
                                         " are the prefill pool, the rest the decode pool; "
                                         "peak KV is per replica")});
  const size_t prefill_count = prefill_routed.size();
  for (size_t i = 0; i < replicas.size(); ++i) {
    const int64_t routed = i < prefill_count ? prefill_routed[i] : decode_routed[i - prefill_count];
    DescribeReplica(i, replicas[i], routed, c);
    c.push_back({"replica_" + std::to_string(i) + "_busy_fraction",
                 makespan > Duration{0} ? ToSeconds(replicas[i].busy) / ToSeconds(makespan) : 0.0});
  }
}

void DescribeWarnings(const ExperimentConfig& config, const Workload& workload, int64_t rejected,
                      const std::string& first_rejection, RunSummary& summary, RunInfo& info) {
  if (const TraceReader* trace = workload.trace()) {
    const TraceReader::SkippedLines& skipped = trace->skipped_lines();
    summary.trace_lines_skipped = skipped.lines;
    summary.trace_records_dropped = skipped.dependent_records;
    if (skipped.lines > 0) {
      info.Section("warnings").settings.push_back(
          {"trace_lines_skipped",
           config.trace_path + ":" + std::to_string(skipped.first_line) + ": " +
               skipped.first_what + " on a line over --max-line-bytes " +
               std::to_string(config.max_line_bytes) + " (" + std::to_string(skipped.lines) +
               " line(s) skipped, " + std::to_string(skipped.dependent_records) +
               " dependent record(s) dropped)"});
    }
  }
  if (rejected > 0) {
    info.Section("warnings").settings.push_back(
        {"rejected_requests", first_rejection + " (and " +
                                  std::to_string(rejected - 1) + " more)"});
  }
}

}  // namespace efimsim
