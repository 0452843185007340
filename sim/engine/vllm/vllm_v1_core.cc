#include "sim/engine/vllm/vllm_v1_core.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <variant>

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/engine/vllm/cpu_kv_tier_config.h"
#include "sim/engine/vllm/cpu_kv_tier_outputs.h"
#include "sim/engine/kv_transfer_outputs.h"
#include "sim/engine/vllm/speculation_outputs.h"
#include "sim/engine/vllm/vllm_v1_limits.h"

namespace efimsim {

VllmV1Core::VllmV1Core(VllmV1CoreConfig config)
    : config_(config), draw_(config.output_token_first, config.output_token_last),
      cache_(config.num_blocks, config.block_tokens, config.prefix_caching),
      scheduler_(config.limits, cache_),
      round_keys_(static_cast<size_t>(std::max<int64_t>(256, 4 * config.limits.max_num_seqs))) {
  if (config_.cpu_kv_blocks > 0 && config_.prefix_caching) {
    cpu_tier_ = std::make_unique<CpuKvTier>(config_.cpu_kv_blocks, config_.kv_bytes_per_block,
                                            config_.offload_bytes_per_s, config_.offload_latency);
    cache_.set_cpu_tier(cpu_tier_.get());
    scheduler_.set_cpu_tier(cpu_tier_.get());
  }
  if (config_.kv_link.enabled()) {
    kv_link_ = std::make_unique<KvLink>(config_.kv_link);
    scheduler_.set_kv_link(kv_link_.get());
  }
  if (config_.speculative.enabled()) {
    speculator_ = std::make_unique<Speculator>(config_.speculative, draw_, config_.target_layers);
  }
}

VllmV1Core::~VllmV1Core() = default;

std::string VllmV1Core::RejectReason(const ClientRequest& request) const {
  const int64_t longest = request.prompt_tokens() + request.max_tokens;
  const int64_t blocks_needed = (longest + config_.block_tokens - 1) / config_.block_tokens;
  if (!request.prompt_block_keys.empty() && request.block_key_tokens != config_.block_tokens) {
    return "block keys cover " + std::to_string(request.block_key_tokens) +
           " tokens each, the engine's blocks " + std::to_string(config_.block_tokens);
  }
  std::string reason = ContextRejectReason(longest, config_.max_context_tokens);
  if (reason.empty() && blocks_needed > config_.num_blocks) {
    reason = "needs " + std::to_string(blocks_needed) + " KV blocks, the cache has " +
             std::to_string(config_.num_blocks);
  }
  return reason;
}

int64_t VllmV1Core::UnreadPromptTokens(int64_t user, int64_t round, int64_t shared_tokens) const {
  if (!config_.prefix_caching || speculator_ != nullptr || kv_link_ != nullptr || round <= 0 ||
      shared_tokens <= 0) {
    return 0;
  }
  // The keys TakeSharedKeys will take.
  const size_t taken = std::min(static_cast<size_t>(shared_tokens / config_.block_tokens),
                                round_keys_.KeptKeys(user, round - 1));
  return FirstPromptTokenRead(taken);
}

std::unique_ptr<Request> VllmV1Core::Add(ClientRequest& client_request, TimePoint now) {
  auto request = std::make_unique<VllmRequest>();
  InitRequest(client_request, now, *request);
  const int64_t longest = request->prompt_tokens + client_request.max_tokens;
  const int64_t blocks_needed = (longest + config_.block_tokens - 1) / config_.block_tokens;
  request->tracks_block_keys = config_.prefix_caching;
  request->remote_tokens = kv_link_ != nullptr ? client_request.remote_prefill_tokens : 0;
  request->hold_kv_until_read = client_request.hold_kv_until_read;
  // Room for the longest sequence the request can reach (prompt + every
  // output token), so its vectors never regrow.
  request->kv.blocks.reserve(static_cast<size_t>(blocks_needed));
  if (request->tracks_block_keys) {
    request->next_round_follows = client_request.next_round_follows;
    request->tail_tokens.reserve(static_cast<size_t>(config_.block_tokens));
    FillPrompt(client_request, static_cast<size_t>(blocks_needed), *request);
  }
  if (speculator_ != nullptr) speculator_->Start(client_request, *request);
  scheduler_.AddWaiting(request.get());
  return request;
}

// Block keys and the partial last block of the prompt. Token ids when the
// client sent them; otherwise the trace's block keys (equal keys, equal
// blocks) and, past them, tokens unique to this request (no reuse).
void VllmV1Core::FillPrompt(const ClientRequest& client_request, size_t reserve_blocks,
                            VllmRequest& request) {
  const int64_t block = config_.block_tokens;
  if (!client_request.prompt.empty()) {
    TakeSharedKeys(client_request, request.block_keys);
    EFIMSIM_CHECK(client_request.every_prompt_id_made() ||
                      client_request.prompt_unmade_end <= FirstPromptTokenRead(request.block_keys.size()),
                  "prompt ids left unmade where the engine reads them");
    request.block_keys.reserve(reserve_blocks);
    AppendBlockKeys(client_request.prompt, config_.block_tokens, 0, request.block_keys);
    const size_t full = request.block_keys.size() * static_cast<size_t>(block);
    request.tail_tokens.assign(client_request.prompt.begin() + static_cast<int64_t>(full),
                               client_request.prompt.end());
    return;
  }
  request.block_keys.reserve(reserve_blocks);
  const int64_t length = client_request.prompt_length;
  const int64_t full_blocks = length / block;
  const int64_t given = std::min<int64_t>(
      full_blocks, static_cast<int64_t>(client_request.prompt_block_keys.size()));
  request.block_keys.assign(client_request.prompt_block_keys.begin(),
                            client_request.prompt_block_keys.begin() + given);
  TokenVector tokens(static_cast<size_t>(block));
  for (int64_t b = given; b < full_blocks; ++b) {
    for (int64_t i = 0; i < block; ++i) {
      tokens[static_cast<size_t>(i)] = draw_.SyntheticPrompt(request.id, b * block + i);
    }
    const BlockKey parent = request.block_keys.empty() ? kRootBlockKey : request.block_keys.back();
    request.block_keys.push_back(HashBlock(parent, tokens));
  }
  for (int64_t position = full_blocks * block; position < length; ++position) {
    request.tail_tokens.push_back(draw_.SyntheticPrompt(request.id, position));
  }
}

void VllmV1Core::TakeSharedKeys(const ClientRequest& client_request, std::vector<BlockKey>& keys) {
  const auto block = static_cast<size_t>(config_.block_tokens);
  const int64_t shared = client_request.prompt_tokens_shared_with_previous_round;
  if (shared <= 0) return;
  const size_t shared_blocks =
      std::min(static_cast<size_t>(shared), client_request.prompt.size()) / block;
  if (shared_blocks == 0 || !round_keys_.Take(client_request.user, client_request.round - 1, keys)) {
    return;
  }
  if (keys.size() > shared_blocks) keys.resize(shared_blocks);
  if (keys.empty()) return;
  // The client's claim, checked on the last block taken: its key is the
  // hash of its parent's key and this prompt's tokens there.
  const size_t last = keys.size() - 1;
  const BlockKey parent = last == 0 ? kRootBlockKey : keys[last - 1];
  EFIMSIM_CHECK(HashBlock(parent, TokenSpan(client_request.prompt).subspan(last * block, block)) ==
                    keys[last],
                "a prompt said to repeat its user's previous prompt does not");
}

void VllmV1Core::Schedule(StepPlan& plan, TimePoint now) {
  scheduler_.Schedule(plan, now);
  if (speculator_ != nullptr && !plan.empty()) speculator_->PriceDrafting(plan);
  if (!plan.empty() || (cpu_tier_ == nullptr && kv_link_ == nullptr)) return;
  // Nothing fits: wake when the next CPU KV load or KV pull is done, or,
  // with none pending, let requests whose loads are done give back the
  // blocks a request ahead of them needs.
  if (const std::optional<TimePoint> done = scheduler_.NextLoadDone(now)) {
    plan.wake_at = *done;
  } else if (scheduler_.ReleaseLoadedBlocks(now) > 0) {
    plan.retry = true;
  }
}

void VllmV1Core::AfterStep(const StepPlan& plan, TokenEmitter& emitter) {
  const std::vector<ScheduledSequence>& sequences = plan.sequences;
  const int32_t block_tokens = config_.block_tokens;
  for (size_t i = 0; i < sequences.size(); ++i) {
    if (i + kRequestPrefetchDistance < sequences.size()) {
      sequences[i + kRequestPrefetchDistance].request->Prefetch();
    }
    VllmRequest& r = static_cast<VllmRequest&>(*sequences[i].request);
    if (r.spec != nullptr) {
      speculator_->AfterStep(r, emitter, block_tokens);
      continue;
    }
    const TokenId token = emitter.Emit(r);
    if (token != kNoEmittedToken) r.AppendTokenKey(token, block_tokens);
  }
  if (speculator_ != nullptr) {
    batch_ids_.clear();
    for (const ScheduledSequence& seq : sequences) batch_ids_.push_back(seq.request->id);
    speculator_->EndStep(batch_ids_);
  }
  if (emitter.finished().empty()) return;
  for (Request* request : emitter.finished()) {
    VllmRequest& r = *static_cast<VllmRequest*>(request);
    if (r.next_round_follows) {
      round_keys_.Keep(r.user, r.round, std::move(r.block_keys),
                       static_cast<size_t>(r.prompt_tokens / config_.block_tokens));
    }
    if (r.hold_kv_until_read) {
      held_kv_.emplace(r.id, std::move(r.kv));  // freed by ReleaseHeldKv
      r.kv = {};
    } else {
      cache_.Free(r.kv);
    }
  }
  scheduler_.RemoveFinished();
}

void VllmV1Core::ReleaseHeldKv(uint64_t request_id) {
  const auto it = held_kv_.find(request_id);
  if (it == held_kv_.end()) return;
  cache_.Free(it->second);
  held_kv_.erase(it);
}

void VllmV1Core::Release(Request& request) {
  VllmRequest& r = static_cast<VllmRequest&>(request);
  if (r.state == RequestState::kRunning || r.state == RequestState::kLoadingKv) {
    cache_.Free(r.kv);
  }
  scheduler_.Remove(&r);
}

EngineCounters VllmV1Core::Counters() const {
  EngineCounters c;
  c.prefix_cache_lookups = cache_.stats().lookups;
  c.prefix_cache_query_tokens = cache_.stats().query_tokens;
  c.prefix_cache_hit_tokens = cache_.stats().hit_tokens;
  c.preemptions = scheduler_.preemptions();
  c.evicted_tokens = cache_.pool().evictions() * config_.block_tokens;
  c.kv_blocks_total = cache_.pool().num_blocks();
  if (cpu_tier_ != nullptr) AppendCpuKvTierCounters(*cpu_tier_, config_.block_tokens, c.parts);
  if (kv_link_ != nullptr) AppendKvTransferCounters(kv_link_->stats(), c.parts);
  if (speculator_ != nullptr) {
    AppendSpeculationCounters(speculator_->counters(), config_.speculative.num_speculative_tokens,
                              c.parts);
  }
  return c;
}

void VllmV1Core::CheckInvariants(const LiveRequests& live) const {
  const KvBlockPool& pool = cache_.pool();
  pool.CheckInvariants();
  std::vector<int32_t> references(static_cast<size_t>(pool.num_blocks()), 0);
  size_t running = 0, waiting = 0;
  for (const auto& [id, base] : live) {
    const VllmRequest& request = static_cast<const VllmRequest&>(*base);
    const RequestState state = request.state;
    const bool holds_blocks =
        state == RequestState::kRunning || state == RequestState::kLoadingKv;
    EFIMSIM_CHECK(holds_blocks || request.kv.blocks.empty(),
                  "a request that is not running holds blocks");
    for (const BlockId block : request.kv.blocks) ++references[block];
    running += state == RequestState::kRunning ? 1 : 0;
    waiting += (state == RequestState::kWaiting || state == RequestState::kPreempted ||
                state == RequestState::kLoadingKv) ? 1 : 0;
  }
  for (const auto& [id, kv] : held_kv_) {
    EFIMSIM_CHECK(live.find(id) == live.end(), "a live request's KV is held as finished");
    for (const BlockId block : kv.blocks) ++references[block];
  }
  for (BlockId b = 0; b < pool.num_blocks(); ++b) {
    EFIMSIM_CHECK(references[b] == pool.ref_count(b),
                  "block " + std::to_string(b) + " reference count " +
                      std::to_string(pool.ref_count(b)) + " but " +
                      std::to_string(references[b]) + " requests hold it");
  }
  EFIMSIM_CHECK(running == scheduler_.running().size(), "running list disagrees with states");
  EFIMSIM_CHECK(waiting == scheduler_.waiting().size(), "waiting queue disagrees with states");
  for (const VllmRequest* r : scheduler_.running()) {
    EFIMSIM_CHECK(r->state == RequestState::kRunning, "a non-running request in the running list");
  }
  for (const VllmRequest* r : scheduler_.waiting()) {
    EFIMSIM_CHECK(r->state == RequestState::kWaiting || r->state == RequestState::kPreempted ||
                      r->state == RequestState::kLoadingKv,
                  "a running request in the waiting queue");
  }
  // The host tier conserves its blocks too (held + free == capacity). A
  // key may be held in both tiers at once (write-through).
  if (cpu_tier_ != nullptr) cpu_tier_->CheckInvariants();
}

namespace {

// The CPU KV tier's settings (cpu_kv_tier_config.h) resolved for the GPU:
// the tier exists only with cpu_kv_gib > 0.
struct CpuKvTierSetup {
  int64_t blocks = 0;
  int64_t kv_bytes_per_block = 0;
  double offload_gbps = 0;
  std::string offload_source;
};

CpuKvTierSetup SetUpCpuKvTier(const EngineContext& context) {
  const CpuKvTierConfig& config = CpuKvTierSettings(context.options);
  CpuKvTierSetup setup;
  const HostLinkDefault link = DefaultHostLink(context.gpu);
  if (config.cpu_kv_gib > 0 && config.offload_gbps <= 0 && link.gbps <= 0) {
    throw UsageError("--cpu-kv-gib: GPU spec " + context.gpu.name +
                     " has no host_link_gbps; give the link's rate with --offload-gbps");
  }
  setup.offload_gbps = config.offload_gbps > 0 ? config.offload_gbps : link.gbps;
  setup.offload_source = config.offload_gbps > 0 ? std::string("--offload-gbps") : link.source;
  // Every GPU's worker offloads its own shard of a block: the target's KV
  // and a draft's in it, replicated KV heads or MLA latents once per GPU.
  const KvCapacity& capacity = context.capacity;
  setup.kv_bytes_per_block = context.engine.block_tokens * capacity.tensor_parallel *
                             (capacity.kv_bytes_per_token + capacity.draft_kv_bytes_per_token);
  setup.blocks = CpuKvTierBlocks(config, setup.kv_bytes_per_block);
  if (config.cpu_kv_gib > 0 && setup.blocks < 1) {
    throw UsageError("--cpu-kv-gib: " + std::to_string(config.cpu_kv_gib) +
                     " GiB holds no KV block of " + std::to_string(setup.kv_bytes_per_block) +
                     " bytes");
  }
  if (setup.blocks > INT32_MAX) throw UsageError("--cpu-kv-gib: more than 2^31-1 blocks");
  return setup;
}

// Measured on this build: the RSS of a replay grows by 107 bytes per GPU
// block (1M -> 4M blocks) and 85 per CPU tier block (--cpu-kv-gib 1 ->
// 4096); rounded up.
constexpr double kBytesPerGpuBlock = 110;
constexpr double kBytesPerCpuTierBlock = 90;

// The run's --speculative-config, bounded by the model's context.
SpeculativeConfig RunSpeculativeConfig(const OptionStore& options, const ModelSpec& model) {
  const int64_t context_tokens = model.max_context_tokens > 0 ? model.max_context_tokens : INT64_MAX;
  return ParseSpeculativeConfig(SpeculativeSettings(options).speculative_config, context_tokens);
}

SpeculativeConfig RunSpeculativeConfig(const EngineContext& context) {
  return RunSpeculativeConfig(context.options, context.model);
}

double VllmV1MemoryBytes(const EngineContext& context) {
  const CpuKvTierSetup tier = SetUpCpuKvTier(context);
  return static_cast<double>(context.capacity.blocks) * kBytesPerGpuBlock +
         static_cast<double>(tier.blocks) * kBytesPerCpuTierBlock;
}

std::unique_ptr<EngineCore> MakeVllmV1Core(const EngineContext& context) {
  const CpuKvTierSetup tier = SetUpCpuKvTier(context);
  VllmV1CoreConfig config;
  config.limits = VllmV1Limits(context.options);
  config.block_tokens = static_cast<int32_t>(context.engine.block_tokens);
  config.num_blocks = static_cast<int32_t>(context.capacity.blocks);
  config.prefix_caching = context.prefix_caching;
  config.max_context_tokens = context.model.max_context_tokens;
  config.output_token_first = context.model.tokens.text_first;
  config.output_token_last = context.model.tokens.text_last;
  config.cpu_kv_blocks = tier.blocks;
  config.kv_bytes_per_block = tier.kv_bytes_per_block;
  config.offload_bytes_per_s = tier.offload_gbps * 1e9;
  config.offload_latency = FromSeconds(CpuKvTierSettings(context.options).offload_latency_us * 1e-6);
  config.kv_link = context.kv_link;
  config.speculative = RunSpeculativeConfig(context);
  config.target_layers = context.model.layers;
  return std::make_unique<VllmV1Core>(config);
}

void DescribeVllmV1(const EngineContext&, std::vector<Setting>& e) {
  e.push_back({"name", std::string("vllm_v1")});
  e.push_back({"semantics", std::string("vLLM v1 engine, 0.9-0.10 series: synchronous "
                                        "scheduling, FCFS, chunked prefill, recompute "
                                        "preemption, automatic prefix caching")});
}

void DescribeParts(const EngineContext& context, RunInfo& info) {
  const SpeculativeConfig speculative = RunSpeculativeConfig(context);
  if (speculative.enabled()) {
    auto& s = info.Section("speculative_decoding").settings;
    s.push_back({"config", DescribeSpeculativeConfig(speculative)});
    s.push_back({"speculative_config", SpeculativeSettings(context.options).speculative_config});
    s.push_back({"semantics",
                 std::string("vLLM v1 spec decode (0.10-0.11): drafts in the step's token budget, "
                             "a (1 + drafts)-token verify per sequence, rejected drafts' progress "
                             "taken back (their KV slots stay with the request), only verified "
                             "tokens cached; docs/speculative-decoding.md")});
  }
  const CpuKvTierSetup setup = SetUpCpuKvTier(context);
  if (setup.blocks == 0) return;
  auto& t = info.Section("cpu_kv_tier").settings;
  t.push_back({"semantics",
               std::string("vLLM 0.11-0.12 OffloadingConnector with the CPU backend and LRU: "
                           "write-through stores of full blocks, lookup after the GPU prefix "
                           "hit, asynchronous loads (the request waits, others run); "
                           "sim/README.md \"CPU KV tier\"")});
  t.push_back({"active", context.prefix_caching});
  t.push_back({"cpu_kv_gib", CpuKvTierSettings(context.options).cpu_kv_gib});
  t.push_back({"offload_gbps", setup.offload_gbps});
  t.push_back({"offload_gbps_source", setup.offload_source});
  t.push_back({"offload_latency_us", CpuKvTierSettings(context.options).offload_latency_us});
  t.push_back({"store_transfers", std::string("not charged: GPU -> host copies assumed hidden "
                                              "behind steps (counted in bytes only)")});
}

std::string VllmV1Headline(const RunInfo& info) {
  auto text = [&](const std::string& key) { return SettingText(info, "engine", key, 3); };
  return "vllm_v1, max_num_batched_tokens " + text("max-num-batched-tokens") + ", max_num_seqs " +
         text("max-num-seqs") + ", block " + text("block-tokens") + " tokens, " +
         (text("cuda-graphs") == "true" ? "CUDA graphs" : "eager");
}

}  // namespace

EngineEntry VllmV1Engine() {
  EngineEntry entry;
  entry.limit_option_tables = [] {
    return std::vector<EngineOptionTable>{VllmV1LimitOptionTable()};
  };
  entry.part_option_tables = [] {
    return std::vector<EngineOptionTable>{CpuKvTierOptionTable(), SpeculativeOptionTable()};
  };
  entry.validate = [](const EngineContext& context) {
    SetUpCpuKvTier(context);
    RunSpeculativeConfig(context);
  };
  entry.draft_layers = [](const OptionStore& options, const ModelSpec& model) -> int64_t {
    const SpeculativeConfig c = RunSpeculativeConfig(options, model);
    const bool head = c.enabled() && !DraftsComparedByToken(c.method) && c.method != SpecMethod::kDraftModel;
    return head ? c.drafter_layers : 0;
  };
  entry.draft_model = [](const OptionStore& options, const ModelSpec& model) -> std::string {
    const SpeculativeConfig c = RunSpeculativeConfig(options, model);
    return c.method == SpecMethod::kDraftModel ? c.model : std::string();
  };
  entry.make = MakeVllmV1Core;
  entry.memory_bytes = VllmV1MemoryBytes;
  entry.describe = DescribeVllmV1;
  entry.describe_parts = DescribeParts;
  entry.headline = VllmV1Headline;
  // The optional parts: the CPU KV tier and speculative decoding.
  entry.summarize_parts = [](const RunSummary& summary, std::vector<RunInfoSection>& results) {
    SummarizeCpuKvTier(summary, results);
    SummarizeSpeculation(summary, results);
    SummarizeKvTransfer(summary, results);
  };
  entry.sweep_counters = CpuKvTierSweepCounters;
  entry.report_rows = [] {
    std::vector<EngineReportRow> rows = CpuKvTierReportRows();
    for (EngineReportRow& row : SpeculationReportRows()) rows.push_back(std::move(row));
    for (EngineReportRow& row : KvTransferReportRows()) rows.push_back(std::move(row));
    return rows;
  };
  entry.part_headline = [](const RunInfo& info) {
    return CpuKvTierHeadline(info) + SpeculationHeadline(info);
  };
  return entry;
}

}  // namespace efimsim
