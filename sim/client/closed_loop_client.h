#pragma once
// Closed-loop users (the paper's benchmark): every user sends round 0 at
// t = 0; each next round is sent `think_time` after the previous response's
// last token, and a user stops after its last round. The model's output is
// thrown away (the next context comes from the workload). Each request
// carries the round's reference output where the workload has text
// (RoundPrompter::BuildReference).
//
// With exponential_think_time, every request (round 0 included) is sent
// after a pause drawn from an exponential distribution of mean
// `think_time`, so users do not move in lockstep. The pause before
// (user, round) comes from RandomStream::Derive(seed, PairKey(user, round),
// "think_time"): the same under every policy (paired comparisons).

#include <cstdint>
#include <vector>

#include "sim/client/client.h"
#include "sim/client/client_request.h"
#include "sim/client/output_length.h"
#include "sim/client/round_prompter.h"
#include "sim/core/simulator.h"

namespace efimsim {

struct ClosedLoopConfig {
  int64_t max_output_tokens = 128;
  Duration think_time{0};              // fixed pause, or the exponential's mean
  bool exponential_think_time = false;
  uint64_t seed = 0;                   // exponential_think_time only
};

class ClosedLoopClient : public Client, public EventHandler {
 public:
  // All references must outlive the client.
  ClosedLoopClient(Simulator& simulator, RoundPrompter& prompter, RequestSink& sink,
                   ClosedLoopConfig config);

  // Schedules every user's first round at Now().
  void Start() override;
  // The engine finished `user`'s outstanding request at Now().
  void OnResponseComplete(int64_t user);
  void OnRequestEnded(uint64_t /*request_id*/, int64_t user) override { OnResponseComplete(user); }
  // Every user finished all rounds, and every request sent ended.
  void CheckDrained(int64_t ended) const override;
  int64_t efim_rebases() const override { return rebases(); }

  void HandleEvent(const Event& event) override;
  // Optional (null: every request runs to its cap): draws each request's
  // output_length, keyed by (user, round); the cap (max_tokens) stays
  // config.max_output_tokens. Must outlive the client.
  void set_output_length(const OutputLengthModel* model) override { output_length_ = model; }

  int64_t requests_sent() const { return static_cast<int64_t>(next_request_id_); }
  int64_t users_done() const { return users_done_; }
  int64_t rebases() const { return prompter_.rebases(); }

 private:
  void SendRound(int64_t user);
  // The pause before `user` sends `round`.
  Duration ThinkTime(int64_t user, int64_t round) const;

  Simulator& simulator_;
  RoundPrompter& prompter_;
  RequestSink& sink_;
  ClosedLoopConfig config_;
  std::vector<int64_t> next_round_;
  uint64_t next_request_id_ = 0;
  int64_t users_done_ = 0;
  const OutputLengthModel* output_length_ = nullptr;
};

}  // namespace efimsim
