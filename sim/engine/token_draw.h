#pragma once
// Token ids the simulator makes up: generated tokens (drawn by the step
// driver) and prompt positions a trace gave only as a length. Each is a
// hash of (request id, position), so runs are reproducible and the same
// request gets the same tokens under every engine and policy.

#include <cstdint>

#include "sim/base/check.h"
#include "sim/base/tokens.h"
#include "sim/base/uint128.h"
#include "sim/core/random.h"

namespace efimsim {

class TokenDraw {
 public:
  // Text tokens are drawn from [first, last].
  TokenDraw(TokenId first, TokenId last) : first_(first), last_(last) {
    EFIMSIM_CHECK(first <= last, "empty output token range");
  }

  // A token id in [first, last] picked by `draw`: the high word of
  // draw * span, without a 64-bit division (one per generated token; tens
  // of cycles each).
  TokenId Text(uint64_t draw) const {
    const uint64_t span = static_cast<uint64_t>(last_) - static_cast<uint64_t>(first_) + 1;
    const uint64_t offset = static_cast<uint64_t>((static_cast<Uint128>(draw) * span) >> 64);
    return static_cast<TokenId>(first_ + static_cast<int64_t>(offset));
  }
  // The token generated at sequence position `position` of a request.
  TokenId Generated(uint64_t request_id, int64_t position) const {
    return Text(Mix64(request_id * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(position)));
  }
  // A 64-bit value unique to (request, prompt position): the seed of a
  // prompt token no other request shares.
  static uint64_t UniquePromptDraw(uint64_t request_id, int64_t position) {
    return Mix64(Mix64(request_id ^ 0x5bd1e995ULL) + static_cast<uint64_t>(position));
  }
  // A text token at a prompt position given only as a length.
  TokenId SyntheticPrompt(uint64_t request_id, int64_t position) const {
    return Text(UniquePromptDraw(request_id, position));
  }

 private:
  TokenId first_;
  TokenId last_;
};

}  // namespace efimsim
