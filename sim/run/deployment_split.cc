#include "sim/run/deployment_split.h"

#include <algorithm>
#include <cctype>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

constexpr int64_t kMaxPoolReplicas = 4096;  // as --prefill-replicas and --decode-replicas

[[noreturn]] void Fail(const std::string& item, const std::string& problem) {
  throw UsageError("--pd-splits: '" + item + "': " + problem +
                   " (a comma-separated list of colocated, N:M or NPMD, e.g. colocated,1:1,2P1D; "
                   "or auto)");
}

int64_t Count(const std::string& item, const std::string& digits) {
  if (digits.empty() || digits.size() > 4 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) {
    Fail(item, "expected a whole number of replicas");
  }
  const int64_t n = std::stoll(digits);
  if (n < 1 || n > kMaxPoolReplicas) Fail(item, "each pool takes 1 to 4096 replicas");
  return n;
}

DeploymentSplit ParseItem(const std::string& item) {
  std::string lower;
  for (const unsigned char c : item) lower += static_cast<char>(std::tolower(c));
  if (lower == "colocated") return {};
  size_t cut = lower.find(':');
  if (cut != std::string::npos) {
    return {Count(item, lower.substr(0, cut)), Count(item, lower.substr(cut + 1))};
  }
  cut = lower.find('p');
  if (cut != std::string::npos && lower.size() > cut + 1 && lower.back() == 'd') {
    return {Count(item, lower.substr(0, cut)),
            Count(item, lower.substr(cut + 1, lower.size() - cut - 2))};
  }
  Fail(item, "not colocated, N:M or NPMD");
}

}  // namespace

std::string DeploymentSplit::Name() const {
  if (colocated()) return "colocated";
  return std::to_string(prefill_replicas) + "P" + std::to_string(decode_replicas) + "D";
}

std::vector<DeploymentSplit> AutoDeploymentSplits() {
  return {{0, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 1}, {2, 3}, {3, 1}, {3, 2}, {4, 1}};
}

std::vector<DeploymentSplit> ParseDeploymentSplits(const std::string& text) {
  if (text == "auto") return AutoDeploymentSplits();
  std::vector<DeploymentSplit> splits;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, comma - begin);
    if (item.empty()) Fail(item, "an empty item");
    const DeploymentSplit split = ParseItem(item);
    for (const DeploymentSplit& seen : splits) {
      if (seen.prefill_replicas == split.prefill_replicas &&
          seen.decode_replicas == split.decode_replicas) {
        Fail(item, "given twice (" + split.Name() + ")");
      }
    }
    splits.push_back(split);
    begin = comma + 1;
  }
  return splits;
}

ExperimentConfig WithDeploymentSplit(const ExperimentConfig& base, const DeploymentSplit& split) {
  ExperimentConfig config = base;
  if (split.colocated()) {
    const ExperimentConfig defaults;
    config.prefill_replicas = 0;
    config.decode_replicas = defaults.decode_replicas;
    config.decode_router = defaults.decode_router;
    config.kv_link_gbps = defaults.kv_link_gbps;
    config.kv_link_latency_us = defaults.kv_link_latency_us;
    config.decode_gpu = defaults.decode_gpu;
    config.decode_tp = defaults.decode_tp;
    config.decode_engine_args = defaults.decode_engine_args;
  } else {
    config.replicas = 1;
    config.prefill_replicas = split.prefill_replicas;
    config.decode_replicas = split.decode_replicas;
  }
  return config;
}

}  // namespace efimsim
