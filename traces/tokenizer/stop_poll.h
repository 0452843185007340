#pragma once
// A caller's way to stop a long load (a 9 MB tokenizer.json takes about half
// a second): the loader calls the poll every few thousand items and lets
// whatever it throws (efimsim's Interrupted, after a signal) escape
// unchanged. An empty poll is never called.

#include <functional>

namespace efimsim::tokenizer {

using StopPoll = std::function<void()>;

// Items (JSON parse events, vocab entries, merges) between two polls: about
// a millisecond of work.
inline constexpr int kItemsPerStopPoll = 16384;

}  // namespace efimsim::tokenizer
