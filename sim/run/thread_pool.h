#pragma once
// ParallelFor: runs task(i) for every i in [0, count) on up to `threads`
// worker threads. Tasks are started in index order; which thread runs which
// task, and the order they finish in, are unspecified, so a task must write
// only its own slot of any shared output (results keyed by index stay
// independent of the thread count).
//
// `on_done(done)` runs on the calling thread after each completion (for
// progress lines), never concurrently with itself. If a task throws, no
// further task starts, the running ones finish, and the exception of the
// lowest failing index is rethrown.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/base/heap_pages.h"

namespace efimsim {

inline void ParallelFor(int64_t count, int threads, const std::function<void(int64_t)>& task,
                        const std::function<void(int64_t done)>& on_done = {}) {
  if (count <= 0) return;
  const int64_t workers = std::clamp<int64_t>(threads, 1, count);
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::condition_variable changed;
  int64_t finished = 0;          // guarded by mutex
  int64_t running_workers = workers;
  int64_t error_index = -1;
  std::exception_ptr error;

  auto work = [&] {
    BackThreadHeapWithHugePages();  // this thread's malloc arena (sim/base/heap_pages.h)
    for (;;) {
      if (failed.load()) break;
      const int64_t i = next.fetch_add(1);
      if (i >= count) break;
      std::exception_ptr caught;
      try {
        task(i);
      } catch (...) {
        caught = std::current_exception();
        failed.store(true);
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (caught && (error_index < 0 || i < error_index)) {
        error_index = i;
        error = caught;
      }
      if (!caught) ++finished;
      changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex);
    --running_workers;
    changed.notify_all();
  };

  std::vector<std::thread> pool;
  for (int64_t t = 0; t < workers; ++t) pool.emplace_back(work);
  int64_t reported = 0;
  {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return finished > reported || running_workers == 0; });
      while (reported < finished) {
        ++reported;
        if (on_done && !error) {
          lock.unlock();
          on_done(reported);
          lock.lock();
        }
      }
      if (running_workers == 0) break;
    }
  }
  for (std::thread& thread : pool) thread.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace efimsim
