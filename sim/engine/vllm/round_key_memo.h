#pragma once
// The prompt block keys of users' finished requests, kept for their next
// round (ClientRequest::next_round_follows). A closed-loop user's next
// prompt repeats the leading part of the previous one (under EFIM all of
// it: ClientRequest::prompt_tokens_shared_with_previous_round), and the
// keys of those blocks (a chained hash per block) are the same, so the
// engine takes them from here instead of hashing those tokens again. The
// same keys either way: nothing simulated changes, only the work.
//
// Bounded: at most `max_users` users' keys are kept, the oldest dropped
// first, so keys whose next round goes to another replica (or never comes)
// do not pile up. A dropped or missing entry only means hashing again.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "sim/engine/vllm/block_key.h"

namespace efimsim {

class RoundKeyMemo {
 public:
  explicit RoundKeyMemo(size_t max_users) : max_users_(max_users) {}

  // Keeps the first `prompt_blocks` of `keys` (the keys of `user`'s
  // finished request of round `round`: its prompt's full blocks, then its
  // output's) for the user's next round, replacing what was kept for them.
  void Keep(int64_t user, int64_t round, std::vector<BlockKey>&& keys, size_t prompt_blocks);
  // Moves what was kept for `user` from round `round` into `keys`; false
  // (and `keys` untouched) if nothing of that round is kept. Forgets what
  // was kept for the user either way: keys of an older round (the round
  // between went to another replica) are of another prompt.
  bool Take(int64_t user, int64_t round, std::vector<BlockKey>& keys);
  // How many keys Take(user, round, ...) would give now (0: none).
  size_t KeptKeys(int64_t user, int64_t round) const;

  size_t size() const { return kept_.size(); }

 private:
  struct Kept {
    std::vector<BlockKey> keys;
    int64_t round = 0;
    uint64_t serial = 0;  // which Keep made it (older queue entries name older ones)
  };
  struct Queued {
    int64_t user = 0;
    uint64_t serial = 0;
  };
  // Drops the oldest queue entry, and its keys if they are still kept.
  void DropOldest();

  size_t max_users_;
  std::unordered_map<int64_t, Kept> kept_;
  std::deque<Queued> order_;  // in Keep order; may name entries already taken
  uint64_t next_serial_ = 0;
};

}  // namespace efimsim
