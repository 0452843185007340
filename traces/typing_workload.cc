#include "traces/typing_workload.h"

#include <cmath>

#include "sim/base/errors.h"
#include "sim/base/time.h"
#include "traces/utf8_text.h"

namespace efimsim {
namespace {

// A drawn or configured span: one beyond FromSeconds's 2^62 ns comes from
// absurd means (e.g. --think-time-s 1e300), a usage error.
int64_t SecondsToNs(double seconds) {
  if (!FitsFromSeconds(seconds)) {
    throw UsageError("typing: a pause of " + std::to_string(seconds) +
                     " s is beyond 2^62 ns (about 146 years); lower the typing means");
  }
  return ToNanoseconds(FromSeconds(seconds));
}

}  // namespace

struct TypingWorkload::User {
  int64_t number = 0;
  RandomStream think;
  RandomStream session_rng;
  int64_t sessions_started = 0;
  int64_t sessions_total = 1;
  std::unique_ptr<TypingSession> session;
  std::deque<TraceRecord> pending;
};

TypingWorkload::TypingWorkload(TypingWorkloadConfig config) : config_(std::move(config)) {
  ValidateTypingBehavior(config_.behavior);
  if (config_.population == TypingPopulation::kClosed) {
    if (config_.users < 1) throw UsageError("typing: users must be >= 1");
    if (config_.users > kMaxTypingUsers) {
      // Each user not yet started is a 16-byte entry (1.6 GB at the cap).
      throw UsageError("typing: users must be <= " + std::to_string(kMaxTypingUsers) + ", got " +
                       std::to_string(config_.users));
    }
    if (config_.sessions_per_user < 1) throw UsageError("typing: sessions_per_user must be >= 1");
    if (!(config_.think_time_mean_s > 0)) throw UsageError("typing: think_time_mean_s must be > 0");
  } else {
    if (config_.sessions < 1) throw UsageError("typing: sessions must be >= 1");
    if (!(config_.session_rate_per_s > 0) || !std::isfinite(config_.session_rate_per_s)) {
      throw UsageError("typing: session_rate_per_s must be > 0");
    }
  }
  files_ = SourceDocuments::Open(config_.source_dir, config_.extensions);
  if (files_.size() == 0) throw UsageError("typing: no source files in " + files_.source());
  header_.source = "typing";
  header_.description =
      "typing generator: " +
      (config_.population == TypingPopulation::kClosed
           ? std::to_string(config_.users) + " users x " +
                 std::to_string(config_.sessions_per_user) + " sessions (closed)"
           : std::to_string(config_.sessions) + " sessions at " +
                 std::to_string(config_.session_rate_per_s) + "/s (open)") +
      ", " + std::to_string(config_.behavior.chars_per_second) + " chars/s, seed " +
      std::to_string(config_.seed) + ", documents: " + std::to_string(files_.size()) +
      " files of " + files_.source();

  if (config_.population == TypingPopulation::kClosed) {
    // Only each user's first start time now (the first draw of its think
    // stream); the rest when the user starts (Activate).
    std::vector<Due> starts;
    starts.reserve(static_cast<size_t>(config_.users));
    for (int64_t u = 0; u < config_.users; ++u) {
      RandomStream think = RandomStream::Derive(config_.seed, static_cast<uint64_t>(u), "typing.think");
      starts.push_back({SecondsToNs(think.Exponential(config_.think_time_mean_s)), u});
    }
    due_ = decltype(due_)(std::greater<Due>(), std::move(starts));
  } else {
    arrivals_ = RandomStream::Derive(config_.seed, 0, "typing.arrivals");
    next_arrival_ns_ = SecondsToNs(arrivals_->Exponential(1.0 / config_.session_rate_per_s));
  }
}

TypingWorkload::~TypingWorkload() = default;

void TypingWorkload::StartSession(User& user, int64_t time_ns) {
  // A usable document: valid UTF-8, non-empty, within the size limit;
  // starting from a random file, the next ones in order are tried.
  const auto count = static_cast<int64_t>(files_.size());
  const int64_t first = user.session_rng.UniformInt(0, count - 1);
  for (int64_t attempt = 0; attempt < count; ++attempt) {
    const auto file = static_cast<size_t>((first + attempt) % count);
    std::string text;
    try {
      text = files_.Read(file, config_.max_document_bytes);
    } catch (const InputError&) {
      continue;
    }
    if (text.empty() || !IsValidUtf8(text)) continue;
    SessionStart start;
    start.time_ns = time_ns;
    start.user_id = "u";  // (not "u" + ...: g++ 12 warns falsely, -Wrestrict)
    start.user_id += std::to_string(user.number);
    start.session_id = start.user_id + "-s" + std::to_string(user.sessions_started);
    start.document_id = files_.name(file);
    user.session = std::make_unique<TypingSession>(config_.behavior, user.session_rng,
                                                   std::move(text), std::move(start));
    user.pending.push_back(user.session->start());
    ++user.sessions_started;
    return;
  }
  throw UsageError("typing: no usable (UTF-8, non-empty, small enough) file in " + files_.source());
}

bool TypingWorkload::Refill(User& user) {
  while (user.pending.empty()) {
    if (user.session && !user.session->finished()) {
      user.session->Step(user.pending);
    } else if (user.sessions_started < user.sessions_total) {
      const int64_t end = user.session ? user.session->now_ns() : 0;
      StartSession(user, end + SecondsToNs(user.think.Exponential(config_.think_time_mean_s)));
    } else {
      return false;
    }
  }
  return true;
}

void TypingWorkload::AdmitOpenArrivals(int64_t up_to_ns) {
  while (arrivals_ && arrivals_made_ < config_.sessions && next_arrival_ns_ <= up_to_ns) {
    auto user = std::make_unique<User>(User{
        arrivals_made_, RandomStream::Derive(config_.seed, 0, "typing.think"),
        RandomStream::Derive(config_.seed, static_cast<uint64_t>(arrivals_made_), "typing.session"),
        0, 1, nullptr, {}});
    StartSession(*user, next_arrival_ns_);
    due_.push({next_arrival_ns_, arrivals_made_});
    active_.emplace(arrivals_made_, std::move(user));
    ++arrivals_made_;
    next_arrival_ns_ += SecondsToNs(arrivals_->Exponential(1.0 / config_.session_rate_per_s));
  }
}

TypingWorkload::User& TypingWorkload::Activate(const Due& due) {
  if (const auto it = active_.find(due.number); it != active_.end()) return *it->second;
  // A closed-population user's first session: the streams as the eager
  // version made them, the think stream past the draw that gave due.time_ns.
  const auto u = static_cast<uint64_t>(due.number);
  auto user = std::make_unique<User>(User{
      due.number, RandomStream::Derive(config_.seed, u, "typing.think"),
      RandomStream::Derive(config_.seed, u, "typing.session"), 0, config_.sessions_per_user,
      nullptr, {}});
  user->think.Exponential(config_.think_time_mean_s);
  StartSession(*user, due.time_ns);
  return *active_.emplace(due.number, std::move(user)).first->second;
}

std::optional<TraceRecord> TypingWorkload::ReadNext() {
  while (true) {
    // An open arrival due no later than the earliest pending record starts
    // first (and then wins ties by the lower number, as users started
    // earlier do).
    if (arrivals_ && arrivals_made_ < config_.sessions &&
        (due_.empty() || next_arrival_ns_ <= due_.top().time_ns)) {
      AdmitOpenArrivals(next_arrival_ns_);
      continue;
    }
    if (due_.empty()) return std::nullopt;
    const Due due = due_.top();
    due_.pop();
    User& user = Activate(due);
    TraceRecord record = std::move(user.pending.front());
    user.pending.pop_front();
    if (Refill(user)) {
      due_.push({RecordTimeNs(user.pending.front()), due.number});
    } else {
      active_.erase(due.number);
    }
    return record;
  }
}

}  // namespace efimsim
