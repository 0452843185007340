#pragma once
// The `typing` workload generator: simulated users typing real source files
// (typing_session.h for one session's model), as a TraceReader yielding
// editing-session records lazily in time order. Memory: the active
// sessions' documents and the sorted list of source paths.
//
// Population (how sessions start; the typing itself never waits for the
// server, as real users do not):
//   closed: `users` users; each runs sessions_per_user sessions one after
//     another, each preceded by a think time Exponential(think_time_mean_s)
//     (the first too, so users do not start in lockstep);
//   open: `sessions` sessions arrive as a Poisson process of
//     session_rate_per_s, each by a new user.
// Randomness, from named streams of `seed` (sim/core/random.h):
//   closed: RandomStream::Derive(seed, user, "typing.think") for think times,
//           RandomStream::Derive(seed, user, "typing.session") for documents
//           and typing (the user's sessions draw from it in turn);
//   open:   RandomStream::Derive(seed, 0, "typing.arrivals") for arrivals,
//           RandomStream::Derive(seed, k, "typing.session") for session k.
// So a user's sessions do not depend on how many users there are. Records
// of different sessions at the same time come in order of user number.
// Ids: user "u<N>", session "u<N>-s<K>" (K from 0), document = the file's
// path relative to source_dir or the pinned corpus (SourceDocuments::name).

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <unordered_map>
#include <optional>
#include <string>
#include <vector>

#include "traces/source_documents.h"
#include "traces/trace_reader.h"
#include "traces/typing_session.h"

namespace efimsim {

enum class TypingPopulation { kClosed, kOpen };

struct TypingWorkloadConfig {
  std::string source_dir;                    // "": the pinned corpus (pinned_corpus.h)
  std::vector<std::string> extensions{".py"};
  int64_t max_document_bytes = 256 * 1024;   // larger files are skipped
  uint64_t seed = 1;
  TypingPopulation population = TypingPopulation::kClosed;
  int64_t users = 16;                        // closed
  int64_t sessions_per_user = 1;             // closed
  double think_time_mean_s = 5.0;            // closed
  double session_rate_per_s = 0.5;           // open
  int64_t sessions = 100;                    // open
  TypingBehavior behavior;
};

// The most users a closed population may have: each one not yet started
// holds a 16-byte queue entry, 1.6 GB at this cap.
inline constexpr int64_t kMaxTypingUsers = 100000000;

class TypingWorkload : public TraceReader {
 public:
  // Lists the source files. Throws UsageError for bad parameters or when
  // there is no matching file, InputError when the directory cannot be read.
  explicit TypingWorkload(TypingWorkloadConfig config);
  ~TypingWorkload() override;
  // Sessions refer to config_ and users_; the object stays where it is made.
  TypingWorkload(const TypingWorkload&) = delete;
  TypingWorkload& operator=(const TypingWorkload&) = delete;

  const TraceHeader& header() const override { return header_; }
  std::optional<TraceRecord> ReadNext() override;

  // The documents sessions draw from, sorted by path.
  const SourceDocuments& documents() const { return files_; }

 private:
  struct User;
  // Makes sure `user` has a record pending unless it is done; false if done.
  bool Refill(User& user);
  void StartSession(User& user, int64_t time_ns);
  void AdmitOpenArrivals(int64_t up_to_ns);

  // A user's next record time, or (not yet started) its first session's
  // start; the queue's top is the earliest, ties to the lowest number.
  struct Due {
    int64_t time_ns;
    int64_t number;
    bool operator>(const Due& o) const {
      return time_ns != o.time_ns ? time_ns > o.time_ns : number > o.number;
    }
  };
  // The user that `due` names, started (its first session begun) if it was
  // not yet.
  User& Activate(const Due& due);

  TypingWorkloadConfig config_;
  TraceHeader header_;
  SourceDocuments files_;
  // Memory follows the users in a session: a user is made (its document
  // read, its streams derived) when its first session starts and dropped
  // after its last, so a closed population holds only the 16-byte Due of
  // each user that has not started yet.
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  std::unordered_map<int64_t, std::unique_ptr<User>> active_;  // by number
  // open population
  std::optional<RandomStream> arrivals_;
  int64_t next_arrival_ns_ = 0;
  int64_t arrivals_made_ = 0;
};

}  // namespace efimsim
