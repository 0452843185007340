#pragma once
// One request's speculative-decoding state inside the vLLM v1 engine
// (VllmRequest::spec; null when speculation is off, so requests of runs
// without it carry one null pointer). The speculator (speculator.h) writes
// it; the scheduler reads drafts.size() and trims them.

#include <cstdint>

#include "sim/base/tokens.h"

namespace efimsim {

struct SpecState {
  // The request's tokens: prompt (ids, or the ids drawn for a prompt given
  // as a length) then every generated token. What n-gram and suffix
  // proposers look up in; model drafters leave it empty.
  TokenVector history;
  // The tokens the target generates first (ClientRequest::reference_output:
  // the text typed next); generated positions beyond it are drawn tokens.
  TokenVector reference;
  // Drafts proposed for the next step (vLLM's spec_token_ids). Scheduling
  // the request trims them to the prefix its step verifies; the step's end
  // verifies them all, then proposes anew.
  TokenVector drafts;
};

}  // namespace efimsim
