#pragma once
// inference-perf's load generator (inference_perf/loadgen/load_generator.py)
// on shared_prefix data (traces/shared_prefix_data.h):
//   * stages run in sequence; stage s sends int(rate_s x duration_s)
//     requests at InferencePerfStageArrivalsNs times (constant or poisson)
//     from its start, request k with prompt k mod size() (data restarts at
//     0 each stage, as get_data() does);
//   * the next stage starts once every request of this one ended, plus the
//     load's interval (load.interval, default 1 s) plus the 1 s the
//     generator gives workers to fill their queues before a stage's clock
//     starts; stage 0 starts at t = 0;
//   * multi-turn chat: request k belongs to user k mod size(), whose turns
//     go one at a time (a turn scheduled while the previous one runs waits
//     for it, then goes at once: SessionChains with think time 0); turn t's
//     prompt is turn t-1's prompt, the answer the engine generated for it,
//     then the user's question (prompt i) again, as LocalUserSession
//     concatenates them; conversations restart with each stage (the workers
//     clear user sessions between stages).
// Each request generates exactly its output_len (ignore_eos, inference-
// perf's default). Seeded: stage s draws from Derive(seed, s, ...).

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/client/client.h"
#include "sim/client/session_chains.h"
#include "sim/core/simulator.h"
#include "traces/benchmark_arrivals.h"
#include "traces/shared_prefix_data.h"

namespace efimsim {

struct LoadStage {
  double rate = 1;        // requests/s
  double duration_s = 1;  // s
};

struct StagedLoadConfig {
  InferencePerfLoad load = InferencePerfLoad::kConstant;
  std::vector<LoadStage> stages;
  Duration interval = Nanoseconds(1000000000);          // load.interval
  Duration stage_start_delay = Nanoseconds(1000000000);  // the generator's queue-fill second
  uint64_t seed = 1;
  TimePoint stop_sending_at = TimePoint::max();  // nothing sent after this
};

struct StagedLoadStats {
  int64_t stages_started = 0;
  int64_t requests_sent = 0;
};

class StagedLoadClient : public Client, public EventHandler {
 public:
  // `generated_token(request_id, position)`: the token the engine generates
  // at sequence position `position` of request `request_id` (multi-turn
  // prompts carry the previous answer). All references outlive the client.
  StagedLoadClient(Simulator& simulator, const SharedPrefixData& data, RequestSink& sink,
                   StagedLoadConfig config,
                   std::function<TokenId(uint64_t request_id, int64_t position)> generated_token);

  void set_output_length(const OutputLengthModel* /*model*/) override {}  // forced lengths
  void Start() override;
  void OnRequestEnded(uint64_t request_id, int64_t user) override;
  void CheckDrained(int64_t ended) const override;
  int64_t efim_rebases() const override { return 0; }
  void HandleEvent(const Event& event) override;

  const StagedLoadStats& stats() const { return stats_; }
  // Stage s's start (simulated ns); -1 if it has not started.
  int64_t stage_start_ns(size_t stage) const;

 private:
  struct User {
    TokenVector history;  // previous turn's prompt (the conversation so far)
    uint64_t last_request = 0;
    int64_t last_output = 0;
    bool has_turn = false;
    int64_t turns = 0;  // sent in this stage
  };

  void StartStage();
  void ScheduleNextArrival();
  void Arrive();
  void Submit(ClientRequest request);
  void BuildTurn(ClientRequest& request);

  Simulator& simulator_;
  const SharedPrefixData& data_;
  RequestSink& sink_;
  StagedLoadConfig config_;
  std::function<TokenId(uint64_t, int64_t)> generated_token_;
  SessionChains chains_;
  size_t stage_ = 0;
  std::vector<int64_t> stage_start_ns_;
  std::vector<int64_t> times_ns_;  // the stage's arrival times from its start
  size_t next_ = 0;                // next arrival of the stage
  int64_t ended_in_stage_ = 0;
  bool stage_stopped_ = false;     // an arrival fell after stop_sending_at
  std::vector<User> users_;
  uint64_t next_request_id_ = 0;
  int64_t in_flight_ = 0;
  StagedLoadStats stats_;
};

}  // namespace efimsim
