#include "device_info.h"

#include <cuda_runtime.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "cuda_check.h"

namespace efimsim::kernels {
namespace {

std::string version_string(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string run_and_read(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 256> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) out += buf.data();
  if (pclose(pipe) != 0) return {};
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string git_commit_of(const std::string& source_dir) {
  const std::string dir = shell_quote(source_dir);
  const std::string head = run_and_read("git -C " + dir + " rev-parse HEAD 2>/dev/null");
  if (head.size() != 40) return "unknown";
  const std::string status = run_and_read("git -C " + dir + " status --porcelain --untracked-files=no 2>/dev/null");
  return status.empty() ? head : head + "-dirty";
}

// The kernel module's version from /proc/driver/nvidia/version, when present.
std::string nvidia_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  std::istringstream words(line);
  std::string w;
  while (words >> w) {
    if (!w.empty() && w[0] >= '0' && w[0] <= '9' && w.find('.') != std::string::npos) return w;
  }
  return {};
}

}  // namespace

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

DeviceInfo read_device_info(int device, const std::string& git_commit, const std::string& source_dir) {
  DeviceInfo info;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  int sm_khz = 0, mem_khz = 0, driver = 0, runtime = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  Provenance& p = info.provenance;
  p.gpu_name = prop.name;
  p.sm_count = prop.multiProcessorCount;
  p.sm_clock_mhz = sm_khz / 1000;
  p.memory_clock_mhz = mem_khz / 1000;
  const std::string module = nvidia_driver_version();
  p.driver_version = (module.empty() ? std::string() : module + " ") + "(CUDA driver API " + version_string(driver) + ")";
  p.cuda_runtime_version = version_string(runtime);
  p.git_commit = git_commit.empty() ? git_commit_of(source_dir) : git_commit;
  p.date_utc = utc_now_iso8601();
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.global_memory_bytes = prop.totalGlobalMem;
  info.compute_capability = prop.major * 10 + prop.minor;
  return info;
}

}  // namespace efimsim::kernels
