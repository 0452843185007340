#pragma once
// The deployments `capacity --pd-splits` compares (docs/disaggregation.md):
// co-located replicas (the run's --replicas behind --router) or
// disaggregated pools of N prefill and M decode replicas of the run's
// engine, model, GPU and TP.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/run/experiment.h"

namespace efimsim {

struct DeploymentSplit {
  int64_t prefill_replicas = 0;  // 0: co-located
  int64_t decode_replicas = 0;   // 0 when co-located
  bool colocated() const { return prefill_replicas == 0; }
  // "colocated" or "1P2D" (the xPyD notation of vLLM's and SGLang's docs).
  std::string Name() const;
};

// The splits `auto` stands for: co-located, then every prefill:decode
// ratio of at most 5 replicas in its smallest form (2P2D is two 1P1D):
// 1P1D, 1P2D, 1P3D, 1P4D, 2P1D, 2P3D, 3P1D, 3P2D, 4P1D.
std::vector<DeploymentSplit> AutoDeploymentSplits();

// "colocated,1:1,2P1D" (N:M or NPMD, case-insensitive; "auto" alone for
// AutoDeploymentSplits()), in the order given. Throws UsageError naming
// --pd-splits for an empty list, a bad item, a count outside [1, 4096] or a
// repeated deployment.
std::vector<DeploymentSplit> ParseDeploymentSplits(const std::string& text);

// `base` deployed as `split`: co-located keeps --replicas and drops the
// pool options (back to their defaults, which a co-located run requires);
// a split sets the two pools and --replicas 1, keeping --decode-router,
// --decode-gpu, --decode-tp and the link options as given.
ExperimentConfig WithDeploymentSplit(const ExperimentConfig& base, const DeploymentSplit& split);

}  // namespace efimsim
