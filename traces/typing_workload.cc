#include "traces/typing_workload.h"

#include <cmath>

#include "sim/base/errors.h"
#include "sim/base/time.h"
#include "traces/source_files.h"
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

bool IsProbability(double p) { return p >= 0 && p <= 1; }

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
    if (config_.sessions_per_user < 1) throw UsageError("typing: sessions_per_user must be >= 1");
    if (!(config_.think_time_mean_s > 0)) throw UsageError("typing: think_time_mean_s must be > 0");
  } else {
    if (config_.sessions < 1) throw UsageError("typing: sessions must be >= 1");
    if (!(config_.session_rate_per_s > 0) || !std::isfinite(config_.session_rate_per_s)) {
      throw UsageError("typing: session_rate_per_s must be > 0");
    }
  }
  source_dir_ = config_.source_dir.empty() ? DefaultPythonLibDir() : config_.source_dir;
  if (source_dir_.empty()) {
    throw UsageError("typing: no source directory given and no /usr/lib/python3.* found");
  }
  files_ = ListSourceFiles(source_dir_, config_.extensions);
  if (files_.empty()) throw UsageError("typing: no source files in " + source_dir_);
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
      " files under " + source_dir_;

  if (config_.population == TypingPopulation::kClosed) {
    for (int64_t u = 0; u < config_.users; ++u) {
      auto user = std::make_unique<User>(User{
          u, RandomStream::Derive(config_.seed, static_cast<uint64_t>(u), "typing.think"),
          RandomStream::Derive(config_.seed, static_cast<uint64_t>(u), "typing.session"), 0,
          config_.sessions_per_user, nullptr, {}});
      StartSession(*user, SecondsToNs(user->think.Exponential(config_.think_time_mean_s)));
      users_.push_back(std::move(user));
    }
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
    const std::string& path = files_[static_cast<size_t>((first + attempt) % count)];
    std::string text;
    try {
      text = ReadWholeFile(path, config_.max_document_bytes);
    } catch (const InputError&) {
      continue;
    }
    if (text.empty() || !IsValidUtf8(text)) continue;
    SessionStart start;
    start.time_ns = time_ns;
    start.user_id = "u";  // (not "u" + ...: g++ 12 warns falsely, -Wrestrict)
    start.user_id += std::to_string(user.number);
    start.session_id = start.user_id + "-s" + std::to_string(user.sessions_started);
    start.document_id = path.substr(source_dir_.size() + (source_dir_.back() == '/' ? 0 : 1));
    user.session = std::make_unique<TypingSession>(config_.behavior, user.session_rng,
                                                   std::move(text), std::move(start));
    user.pending.push_back(user.session->start());
    ++user.sessions_started;
    return;
  }
  throw UsageError("typing: no usable (UTF-8, non-empty, small enough) file in " + source_dir_);
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
    users_.push_back(std::move(user));
    ++arrivals_made_;
    next_arrival_ns_ += SecondsToNs(arrivals_->Exponential(1.0 / config_.session_rate_per_s));
  }
}

std::optional<TraceRecord> TypingWorkload::ReadNext() {
  while (true) {
    constexpr size_t kNone = static_cast<size_t>(-1);
    size_t best = kNone;  // users_ shrinks below, so not users_.size()
    int64_t best_time = 0;
    for (size_t i = 0; i < users_.size();) {
      if (!Refill(*users_[i])) {
        users_.erase(users_.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      const int64_t time = RecordTimeNs(users_[i]->pending.front());
      if (best == kNone || time < best_time) {
        best = i;
        best_time = time;
      }
      ++i;
    }
    // An open arrival due before the earliest pending record starts first.
    if (arrivals_ && arrivals_made_ < config_.sessions &&
        (best == kNone || next_arrival_ns_ <= best_time)) {
      AdmitOpenArrivals(next_arrival_ns_);
      continue;
    }
    if (best == kNone) return std::nullopt;
    TraceRecord record = std::move(users_[best]->pending.front());
    users_[best]->pending.pop_front();
    return record;
  }
}

}  // namespace efimsim
