#include "sim/engine/sglang/sglang_core.h"

#include "sim/engine/sglang/sglang_config.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/core/random.h"
#include "sim/engine/kv_transfer_outputs.h"
#include "sim/engine/token_draw.h"

namespace efimsim {

SglangCore::SglangCore(SglangCoreConfig config)
    : config_(config),
      cache_(static_cast<int64_t>(config.num_blocks) * config.block_tokens, config.page_size,
             config.prefix_caching),
      scheduler_(config.limits, cache_) {
  if (config_.kv_link.enabled()) {
    kv_link_ = std::make_unique<KvLink>(config_.kv_link);
    scheduler_.set_kv_link(kv_link_.get());
  }
}

SglangCore::~SglangCore() = default;

std::string SglangCore::RejectReason(const ClientRequest& request) const {
  const int64_t longest = request.prompt_tokens() + request.max_tokens;
  std::string reason = ContextRejectReason(longest, config_.max_context_tokens);
  if (reason.empty() && longest > cache_.num_slots()) {
    reason = "needs " + std::to_string(longest) + " KV token slots, the cache has " +
             std::to_string(cache_.num_slots());
  }
  return reason;
}

void SglangCore::FillPrompt(const ClientRequest& client_request, SglangRequest& request) const {
  TokenVector& tokens = request.tokens;
  tokens.reserve(static_cast<size_t>(client_request.prompt_length + client_request.max_tokens));
  const int64_t length = client_request.prompt_length;
  const int64_t per_key = std::max<int32_t>(client_request.block_key_tokens, 1);
  const int64_t keys = std::min<int64_t>(length / per_key,
                                         static_cast<int64_t>(client_request.prompt_block_keys.size()));
  for (int64_t k = 0; k < keys; ++k) {
    const uint64_t key = client_request.prompt_block_keys[static_cast<size_t>(k)];
    for (int64_t i = 0; i < per_key; ++i) {
      tokens.push_back(static_cast<TokenId>(Mix64(key + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(i + 1))));
    }
  }
  for (int64_t position = keys * per_key; position < length; ++position) {
    tokens.push_back(static_cast<TokenId>(TokenDraw::UniquePromptDraw(request.id, position)));
  }
}

std::unique_ptr<Request> SglangCore::Add(ClientRequest& client_request, TimePoint now) {
  auto request = std::make_unique<SglangRequest>();
  InitRequest(client_request, now, *request);
  // SGLang's radix cache reads every id (UnreadPromptTokens says 0).
  EFIMSIM_CHECK(client_request.every_prompt_id_made(), "SGLang given a prompt with unmade ids");
  if (!client_request.prompt.empty()) {
    // Taken, not copied: the prompt is the request's token stream.
    request->tokens = std::move(client_request.prompt);
  } else {
    FillPrompt(client_request, *request);
  }
  request->hold_kv_until_read = client_request.hold_kv_until_read;
  if (kv_link_ != nullptr && client_request.remote_prefill_tokens > 0) {
    request->remote_tokens = client_request.remote_prefill_tokens;
    scheduler_.AddRemote(request.get());
  } else {
    scheduler_.AddWaiting(request.get());
  }
  return request;
}

void SglangCore::Schedule(StepPlan& plan, TimePoint now) {
  scheduler_.Schedule(plan, now);
  if (plan.empty()) {
    scheduler_.OnIdle();
    if (const std::optional<TimePoint> next = scheduler_.NextPullDone(now)) plan.wake_at = *next;
  }
}

void SglangCore::AfterStep(const StepPlan& plan, TokenEmitter& emitter) {
  scheduler_.AfterPrefill(plan);
  for (const ScheduledSequence& seq : plan.sequences) {
    SglangRequest& r = static_cast<SglangRequest&>(*seq.request);
    const TokenId token = emitter.Emit(r);
    if (token != kNoEmittedToken) r.tokens.push_back(token);
  }
  if (emitter.finished().empty()) return;
  std::vector<Request*>& order = finished_scratch_;
  order.assign(emitter.finished().begin(), emitter.finished().end());
  std::sort(order.begin(), order.end(),
            [](const Request* a, const Request* b) { return a->id < b->id; });
  for (Request* request : order) {
    SglangRequest& r = static_cast<SglangRequest&>(*request);
    if (r.hold_kv_until_read) {
      // Kept as it is (tokens, slots, tree lock) until ReleaseHeldKv.
      auto held = std::make_unique<SglangRequest>();
      held->id = r.id;
      held->num_computed_tokens = r.num_computed_tokens;
      held->tokens = std::move(r.tokens);
      held->tree_tokens = r.tree_tokens;
      held->last_node = r.last_node;
      r.tokens.clear();
      r.tree_tokens = 0;
      r.last_node = nullptr;
      held_kv_.emplace(r.id, std::move(held));
    } else {
      scheduler_.Release(&r);
    }
  }
  scheduler_.RemoveFinished();
}

void SglangCore::ReleaseHeldKv(uint64_t request_id) {
  const auto it = held_kv_.find(request_id);
  if (it == held_kv_.end()) return;
  scheduler_.Release(it->second.get());
  held_kv_.erase(it);
}

void SglangCore::Release(Request& request) {
  SglangRequest& r = static_cast<SglangRequest&>(request);
  if (r.state == RequestState::kRunning || r.state == RequestState::kLoadingKv) scheduler_.Release(&r);
  scheduler_.Remove(&r);
}

KvUsage SglangCore::kv_usage() const {
  const int64_t used_slots = cache_.num_slots() - cache_.available() - cache_.evictable();
  return {(used_slots + config_.block_tokens - 1) / config_.block_tokens, config_.num_blocks};
}

bool SglangCore::kv_all_free() const {
  return cache_.protected_size() == 0 &&
         cache_.available() + cache_.evictable() == cache_.num_slots();
}

EngineCounters SglangCore::Counters() const {
  EngineCounters c;
  c.prefix_cache_lookups = scheduler_.counters().lookups;
  c.prefix_cache_query_tokens = scheduler_.counters().query_tokens;
  c.prefix_cache_hit_tokens = scheduler_.counters().hit_tokens;
  c.preemptions = scheduler_.counters().retractions;
  c.evicted_tokens = cache_.stats().evicted_tokens;
  c.kv_blocks_total = config_.num_blocks;
  if (kv_link_ != nullptr) AppendKvTransferCounters(kv_link_->stats(), c.parts);
  return c;
}

void SglangCore::CheckInvariants(const LiveRequests& live) const {
  std::vector<const RadixNode*> holders;
  std::vector<int64_t> private_slots;
  size_t running = 0, waiting = 0, pulling = 0;
  for (const auto& [id, request] : live) {
    const SglangRequest& r = static_cast<const SglangRequest&>(*request);
    const bool holds = r.state == RequestState::kRunning || r.state == RequestState::kLoadingKv;
    EFIMSIM_CHECK(holds || (r.num_computed_tokens == 0 && r.tree_tokens == 0),
                  "an sglang request that is not running holds slots");
    EFIMSIM_CHECK(r.tree_tokens >= 0 && r.tree_tokens <= r.num_computed_tokens,
                  "an sglang request's tree prefix is past its progress");
    if (holds) {
      holders.push_back(r.last_node);
      private_slots.push_back(r.OwnSlots());
      ++(r.state == RequestState::kRunning ? running : pulling);
    } else {
      ++waiting;
    }
  }
  for (const auto& [id, held] : held_kv_) {
    EFIMSIM_CHECK(live.find(id) == live.end(), "a live sglang request's KV is held as finished");
    holders.push_back(held->last_node);
    private_slots.push_back(held->OwnSlots());
  }
  cache_.CheckInvariants(holders, private_slots);
  const size_t chunked = scheduler_.chunked() != nullptr ? 1 : 0;
  EFIMSIM_CHECK(running == scheduler_.running().size() + chunked,
                "sglang running batch disagrees with states");
  EFIMSIM_CHECK(pulling == scheduler_.pulling().size(), "sglang pulls disagree with states");
  EFIMSIM_CHECK(waiting == scheduler_.waiting().size() + scheduler_.remote_waiting().size(),
                "sglang waiting queue disagrees with states");
}

namespace {

// SGLang's limits with its hardware-derived defaults resolved.
// The SGLang settings of a run (the engine OptionStore under this engine's name).
const SglangConfig& Settings(const EngineContext& context) {
  return context.options.Get<SglangConfig>("sglang");
}

SglangLimits ResolveSglangLimits(const EngineContext& context) {
  const SglangConfig& config = Settings(context);
  SglangLimits limits;
  limits.chunked_prefill_size = config.chunked_prefill_size > 0
                                    ? config.chunked_prefill_size
                                    : SglangDefaultChunkedPrefill(context.capacity.memory_gib);
  limits.max_running_requests =
      config.max_running_requests > 0
          ? config.max_running_requests
          : SglangDefaultMaxRunning(context.capacity.tokens, context.model.max_context_tokens);
  limits.max_prefill_tokens = config.max_prefill_tokens;
  limits.lpm = config.schedule_policy == "lpm";
  limits.schedule_conservativeness = config.schedule_conservativeness;
  return limits;
}

// Measured on this build: the RSS of a replay grows by 78 bytes per block
// of --block-tokens slots (1M -> 4M blocks); rounded up.
double SglangMemoryBytes(const EngineContext& context) {
  constexpr double kBytesPerBlock = 80;
  return static_cast<double>(context.capacity.blocks) * kBytesPerBlock;
}

std::unique_ptr<EngineCore> MakeSglangCore(const EngineContext& context) {
  SglangCoreConfig config;
  config.limits = ResolveSglangLimits(context);
  config.block_tokens = static_cast<int32_t>(context.engine.block_tokens);
  config.num_blocks = static_cast<int32_t>(context.capacity.blocks);
  config.page_size = static_cast<int32_t>(Settings(context).page_size);
  config.prefix_caching = context.prefix_caching;
  config.max_context_tokens = context.model.max_context_tokens;
  config.kv_link = context.kv_link;
  return std::make_unique<SglangCore>(config);
}

void DescribeSglang(const EngineContext& context, std::vector<Setting>& e) {
  const SglangLimits limits = ResolveSglangLimits(context);
  e.push_back({"name", std::string("sglang")});
  e.push_back({"semantics",
               std::string("SGLang 0.5.3 scheduler and RadixCache, synchronous (no overlap "
                           "scheduling): prefill batches before decode, lpm/fcfs order, "
                           "new_token_ratio admission, chunked prefill, retraction; token-level "
                           "radix prefix cache with LRU leaf eviction; block-tokens does not "
                           "apply (it only sizes KV figures)")});
  const SglangConfig& settings = Settings(context);
  for (const auto& param : SglangParams()) {
    std::visit([&](auto member) { e.push_back({param.info.name, settings.*member}); },
               param.field);
  }
  e.push_back({"chunked_prefill_size_effective", limits.chunked_prefill_size});
  e.push_back({"max_running_requests_effective", limits.max_running_requests});
}

std::string SglangHeadline(const RunInfo& info) {
  auto text = [&](const std::string& key) { return SettingText(info, "engine", key, 3); };
  return "sglang 0.5.3, schedule_policy " + text("schedule-policy") + ", chunked_prefill_size " +
         text("chunked_prefill_size_effective") + ", max_running_requests " +
         text("max_running_requests_effective") + ", page " + text("page-size") + " tokens, " +
         (text("cuda-graphs") == "true" ? "CUDA graphs" : "eager");
}

}  // namespace

EngineEntry SglangEngine() {
  EngineEntry entry;
  entry.option_tables = [] {
    return std::vector<EngineOptionTable>{
        BindParamTable("SGLang engine (--engine sglang)", SglangParams(),
                       StoredPart<SglangConfig>("sglang"), ParamScope{"engine", {"sglang"}})};
  };
  entry.pd_decode_prefix_caching = false;  // disaggregation/decode.py: ChunkCache
  entry.data_parallel_routing = DataParallelRouting::kSglangRoundRobin;  // data_parallel_controller.py
  entry.make = MakeSglangCore;
  entry.memory_bytes = SglangMemoryBytes;
  entry.describe = DescribeSglang;
  entry.headline = SglangHeadline;
  // Disaggregated serving's pulls (PD mode, decode side).
  entry.summarize_parts = [](const RunSummary& summary, std::vector<RunInfoSection>& results) {
    SummarizeKvTransfer(summary, results);
  };
  entry.report_rows = KvTransferReportRows;
  return entry;
}

}  // namespace efimsim
