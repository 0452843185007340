#include "traces/tokenizer/bpe_word_merger.h"

#include <algorithm>
#include <functional>

namespace efimsim::tokenizer {
namespace {

// A token in the doubly linked list of the word being merged.
struct Symbol {
  int32_t id;
  int32_t prev;  // index of the previous live symbol, -1 at the start
  int32_t next;  // index of the next live symbol, -1 at the end
  bool alive;
};

// A candidate merge of symbols[left] with its next symbol. Entries can go
// stale when a neighbour merges first; they are re-validated when popped.
struct Candidate {
  int32_t rank;
  int32_t left;
  int32_t merged_id;
  // std heap is a max-heap: "less" means "lower priority".
  bool operator<(const Candidate& other) const {
    if (rank != other.rank) return rank > other.rank;
    return left > other.left;
  }
};

struct MergeScratch {
  std::vector<Symbol> symbols;
  std::vector<Candidate> heap;
};

}  // namespace

void AppendBpeMergedIds(std::string_view pre_token, const std::array<int32_t, 256>& byte_token_ids,
                        const BpeMergeTable& merges, std::vector<int32_t>& out) {
  const auto n = static_cast<int32_t>(pre_token.size());
  if (n == 0) return;
  if (n == 1) {
    out.push_back(byte_token_ids[static_cast<uint8_t>(pre_token[0])]);
    return;
  }
  thread_local MergeScratch scratch;
  std::vector<Symbol>& symbols = scratch.symbols;
  std::vector<Candidate>& heap = scratch.heap;
  symbols.clear();
  heap.clear();
  for (int32_t i = 0; i < n; ++i) {
    symbols.push_back(Symbol{byte_token_ids[static_cast<uint8_t>(pre_token[static_cast<std::size_t>(i)])],
                             i - 1, i + 1 < n ? i + 1 : -1, true});
  }
  const auto push_candidate = [&](int32_t left) {
    const int32_t right = symbols[left].next;
    if (const BpeMerge* merge = merges.Find(symbols[left].id, symbols[right].id)) {
      heap.push_back(Candidate{merge->rank, left, merge->merged_id});
      std::push_heap(heap.begin(), heap.end());
    }
  };
  for (int32_t i = 0; i + 1 < n; ++i) push_candidate(i);

  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    const Candidate top = heap.back();
    heap.pop_back();
    Symbol& left = symbols[top.left];
    if (!left.alive || left.next < 0) continue;
    Symbol& right = symbols[left.next];
    const BpeMerge* current = merges.Find(left.id, right.id);
    if (current == nullptr || current->rank != top.rank) continue;  // stale
    left.id = top.merged_id;
    left.next = right.next;
    right.alive = false;
    if (left.next >= 0) symbols[left.next].prev = top.left;
    if (left.prev >= 0) push_candidate(left.prev);
    if (left.next >= 0) push_candidate(top.left);
  }
  for (int32_t i = 0; i >= 0; i = symbols[i].next) out.push_back(symbols[i].id);
}

}  // namespace efimsim::tokenizer
