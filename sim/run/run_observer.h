#pragma once
// The observers a run hangs on its replicas: RunObserver summarizes every
// request as it ends, keeps its record (or streams it to a sink in request-
// id order), feeds the timeline, and tells the router and then the client
// that the request is done; TimelineStepObserver forwards engine steps to
// the timeline.

#include <optional>
#include <string>
#include <vector>

#include "sim/client/client.h"
#include "sim/engine/engine_replica.h"
#include "sim/metrics/request_id_order.h"
#include "sim/metrics/request_record_sink.h"
#include "sim/metrics/summary.h"
#include "sim/metrics/timeline_writer.h"
#include "sim/run/router.h"

namespace efimsim {

// Summarizes records as they come, keeps them (or streams them in id order
// to a sink), and tells the client that produced a request it is done.
class RunObserver : public RequestObserver {
 public:
  // Added to every completed request's first token and finish, as the
  // client sees them (--client-overhead-ms).
  Duration client_overhead{0};

  explicit RunObserver(RequestRecordSink* sink) {
    if (sink != nullptr) order.emplace(*sink);
  }
  Client* client = nullptr;
  Router* router = nullptr;
  TimelineWriter* timeline = nullptr;  // optional

  void OnRequestFinished(const RequestRecord& record) override {
    if (client_overhead == Duration{0}) return Ended(record);
    RequestRecord seen = record;
    seen.first_token += client_overhead;
    seen.finish += client_overhead;
    Ended(seen);
  }
  void OnRequestCancelled(const RequestRecord& record) override { Ended(record); }
  void OnRequestRejected(const ClientRequest& request, const std::string& reason) override {
    ++rejected;
    if (first_rejection.empty()) {
      first_rejection = "request " + std::to_string(request.request_id) + ": " + reason;
    }
    if (order) order->Skip(request.request_id);
    Done(request.request_id, request.user);  // the user moves on
  }
  RunSummaryBuilder summary;
  std::vector<int64_t>* output_tokens = nullptr;  // optional: of completed requests
  std::vector<RequestRecord> records;       // without a sink
  std::optional<RequestIdOrder> order;      // with a sink
  int64_t rejected = 0;
  std::string first_rejection;

 private:
  void Ended(const RequestRecord& record) {
    summary.Add(record);
    if (output_tokens != nullptr && !record.cancelled) output_tokens->push_back(record.output_tokens);
    if (order) {
      order->Add(record);
    } else {
      records.push_back(record);
    }
    if (timeline != nullptr) timeline->AddRequest(record);
    Done(record.request_id, record.user);
  }
  void Done(uint64_t request_id, int64_t user) {
    // The router forgets the request first: the client may send the user's
    // next request (with a new id) from inside these calls.
    if (router != nullptr) router->OnRequestDone(request_id);
    if (client != nullptr) client->OnRequestEnded(request_id, user);
  }
};

// Forwards each engine step to the timeline.
class TimelineStepObserver : public StepObserver {
 public:
  explicit TimelineStepObserver(TimelineWriter* timeline) : timeline_(timeline) {}
  void OnStep(const StepRecord& record) override {
    TimelineStep step;
    step.replica = record.replica;
    step.start = record.start;
    step.end = record.end;
    step.tokens = record.tokens;
    step.prefill_sequences = record.prefill_sequences;
    step.decode_sequences = record.decode_sequences;
    step.preempted = record.preempted;
    step.kv_used_blocks = record.kv_used_blocks;
    step.kv_total_blocks = record.kv_total_blocks;
    timeline_->AddStep(step);
  }

 private:
  TimelineWriter* timeline_;
};

}  // namespace efimsim
