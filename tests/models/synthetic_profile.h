#pragma once
// A synthetic kernel profile for tests (NOT a measurement): every table
// follows an exact roofline, time = max(FLOPs / 500 TFLOP/s, bytes / 2.5
// TB/s) + 4 us, at the model's full shapes, on grids like the harness's.

#include <cmath>

#include "models/formats/kernel_profile.h"
#include "models/latency/operator_work.h"
#include "models/latency/roofline_fit.h"

namespace efimsim::testing {

inline const RooflineFit kSyntheticRoofline{1.0 / 500e12, 1.0 / 2.5e12, 4e-6};

inline double SyntheticUs(const OperatorWork& work) { return kSyntheticRoofline.Seconds(work) * 1e6; }

inline KernelProfile SyntheticProfile(const ModelSpec& model, const std::string& gpu) {
  const ShardShapes s = ShardModel(model, 1);
  KernelProfile p;
  p.origin = "synthetic test fixture";
  p.gpu = gpu;
  p.model = model.name;
  p.command = "synthetic test fixture";
  p.gemm_kernel = p.prefill_attention_kernel = p.decode_attention_kernel = p.elementwise_kernel =
      "synthetic";
  p.provenance.gpu_name = "synthetic test fixture";
  const std::vector<int64_t> ms = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  for (int g = 0; g < kGemmCount; ++g) {
    const GemmId id = static_cast<GemmId>(g);
    if (!HasGemm(s, id)) continue;
    GemmTable t;
    t.name = std::string(GemmName(id));
    t.n = GemmShapeOf(s, id).n;
    t.k = GemmShapeOf(s, id).k;
    for (int64_t m : ms) t.points.push_back({m, SyntheticUs(GemmWork(s, id, static_cast<double>(m)))});
    p.gemm.push_back(t);
  }
  for (AttentionTable* t : {&p.prefill_attention, &p.decode_attention}) {
    t->q_heads = model.q_heads;
    t->kv_heads = model.kv_heads;
    t->head_dim = model.head_dim;
    t->block_tokens = 16;
  }
  for (int64_t n : {16, 64, 256, 1024, 4096}) {
    for (int64_t c : {0, 256, 1024, 4096, 16384}) {
      p.prefill_attention.points.push_back(
          {n, c, SyntheticUs(PrefillAttentionWork(s, static_cast<double>(n), static_cast<double>(c)))});
    }
  }
  for (int64_t b : {1, 4, 16, 64, 256}) {
    for (int64_t c : {128, 1024, 4096, 16384}) {
      p.decode_attention.points.push_back(
          {b, c, SyntheticUs(DecodeAttentionWork(s, static_cast<double>(b), static_cast<double>(c)))});
    }
  }
  for (int e = 0; e < kElementwiseCount; ++e) {
    const ElementwiseId id = static_cast<ElementwiseId>(e);
    if (id == ElementwiseId::kSampling) continue;  // like the harness: not measured
    ElementwiseTable t;
    t.name = std::string(ElementwiseName(id, s.gated_mlp));
    for (int64_t m : ms) t.points.push_back({m, SyntheticUs(ElementwiseWork(s, id, static_cast<double>(m)))});
    p.elementwise.push_back(t);
  }
  p.cpu_overhead.source = "default";
  p.cpu_overhead.step_us = 1500;
  p.cpu_overhead.per_sequence_us = 10;
  p.cpu_overhead.per_layer_launch_us = 70;
  p.cpu_overhead.graph_capture_batch_sizes = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 128, 256, 512};
  return p;
}

}  // namespace efimsim::testing
