#pragma once
// What a client sends to an engine, and the engine's answer back.

#include <cstdint>

#include "sim/base/time.h"
#include "sim/base/tokens.h"

namespace efimsim {

struct ClientRequest {
  uint64_t request_id = 0;       // unique within a run, in send order
  int64_t user = 0;
  int64_t round = 0;
  TokenVector prompt;
  int64_t max_output_tokens = 0;  // generation stops after this many tokens
  TimePoint sent;                 // arrival at the engine (no network delay)
};

// The engine side of the client: accepts requests at Now().
class RequestSink {
 public:
  virtual ~RequestSink() = default;
  virtual void Submit(ClientRequest request) = 0;
};

}  // namespace efimsim
