#pragma once
// Data parallelism (--data-parallel-size D): D engine cores, the group's
// "ranks", each with its own scheduler and KV cache on its own TP group of
// GPUs, behind one front door. vLLM's --data-parallel-size, and SGLang's
// DP attention (--dp-size D --enable-dp-attention, whose --tp is the whole
// group's: D x the ranks' TP).
//
// Routing, by engine:
//   vLLM (vllm/v1/engine/core_client.py, DPLBAsyncMPClient.
//   get_core_engine_for_request): a new request goes to the rank with the
//   lowest score 4 x waiting + running, ties to the first in scan order;
//   the scan starts at rank 0 (one API server). The counts are the ones
//   the DP coordinator last published (vllm/v1/engine/coordinator.py:
//   every 100 ms while they change) plus one waiting request for each
//   request the front end sent a rank since. Here a publication is taken
//   lazily: the first request 100 ms or more after the last one reads the
//   ranks' counts at that instant (vLLM's coordinator publishes on its own
//   clock, so its counts can be up to 100 ms older).
//   SGLang (python/sglang/srt/managers/data_parallel_controller.py,
//   round_robin_scheduler, the default load_balance_method): ranks in turn.
//
// Lockstep (MoE models; vllm/v1/engine/core.py, DPEngineCoreProc): an MoE
// layer's experts span every rank's GPUs, so all ranks run every forward
// pass together. While any rank has work, every rank steps; a rank with
// nothing scheduled runs a dummy batch (one token, padded as the others).
// Each rank's batch is padded to the group's largest (vLLM's DP padding),
// the MoE layers run over all ranks' rows, and the step of every rank ends
// when the slowest rank's does: the others' wait is counted as
// communication in their step records. Dense models' ranks share nothing:
// without lockstep they step on their own and the group only routes.
//
// Each rank is a Replica (replica.h) and writes its own step records
// (replica index = its position among all ranks of the run).

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/engine/engine_entry.h"
#include "sim/engine/replica.h"

namespace efimsim {

class DataParallelGroup final : public EngineReplica, private StepGate {
 public:
  // Precondition: ranks non-empty, none holding requests. `latency` prices
  // the dummy batch of an idle rank; it outlives the group.
  DataParallelGroup(Simulator& simulator, std::vector<std::unique_ptr<Replica>> ranks, bool lockstep,
                    const LatencyModel& latency,
                    DataParallelRouting routing = DataParallelRouting::kVllmLoadScore);
  ~DataParallelGroup() override;

  void Submit(ClientRequest request) override;
  void Cancel(uint64_t request_id) override;
  void HandleEvent(const Event& event) override;

  bool idle() const override;
  // The ranks' counters summed (steps: rank steps, dummy batches not counted).
  EngineCounters Counters() const override;
  void CheckInvariants() const override;
  void set_step_observer(StepObserver* observer) override;
  int64_t outstanding_requests() const override;
  bool kv_all_free() const override;
  // Disaggregated serving: every rank reports its remote reads; a held
  // prefill leg's KV is released by the rank that holds it.
  void set_remote_kv_read_observer(RemoteKvReadObserver* observer) override;
  void ReleaseHeldKv(uint64_t request_id, TimePoint at) override;

  // The rank the next request would go to on the counts as they stand
  // (tests): Submit may first take a new publication (vLLM), and only
  // Submit advances the round-robin turn (SGLang).
  size_t PickRank() const;
  // Group steps in which at least one rank ran a dummy batch.
  int64_t dummy_steps() const { return dummy_steps_; }

 private:
  void RequestGroupStep() override;
  void StartGroupStep();
  void CompleteGroupStep();

  Simulator& simulator_;
  std::vector<std::unique_ptr<Replica>> ranks_;
  const bool lockstep_;
  const LatencyModel& latency_;
  const DataParallelRouting routing_;
  size_t next_round_robin_ = 0;
  // vLLM's routing counts: (waiting, running) per rank as last published,
  // plus the front end's increments; republished from `next_publish_` on.
  std::vector<std::pair<int64_t, int64_t>> published_;
  TimePoint next_publish_ = TimePoint::min();
  std::vector<size_t> stepping_;  // ranks in the step in flight
  bool step_in_flight_ = false;
  bool schedule_pending_ = false;
  int64_t dummy_steps_ = 0;
};

}  // namespace efimsim
