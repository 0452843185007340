#pragma once
// A minimal parallel loop for the CPU references: they are the slow side of
// every GPU check, and the calibration machine has many cores. Results do not
// depend on the thread count: each index is computed by exactly one thread
// with the same arithmetic. An exception thrown by the body stops the loop
// early and is rethrown on the calling thread after every worker joined.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace efimsim::kernels {

template <class F>
void parallel_for(std::int64_t n, F&& body) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t threads = std::min<std::int64_t>({static_cast<std::int64_t>(hw), n, 64});
  if (threads <= 1) {
    for (std::int64_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    try {
      for (std::int64_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) body(i);
    } catch (...) {
      next.store(n);
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads - 1));
  for (std::int64_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace efimsim::kernels
