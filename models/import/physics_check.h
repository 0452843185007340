#pragma once
// Physics checks of measured kernel tables (issue 33 item 3). Every timed
// point of a profile implies a FLOP rate and a byte rate; a point that beats
// the GPU's datasheet ceilings is impossible, and a large shape far below
// both is suspicious. `efimsim profile import` runs the check on what it
// writes and `efimsim profile check` on any profile (default: the built-in
// ones); docs/accuracy.md documents the rules and the committed profiles'
// results.
//
// What a point implies (lower bounds of the work, so that "impossible" is a
// proof, not a guess):
//   GEMM (m, n, k)       FLOPs 2mnk; bytes (mk + kn + mn) x element bytes
//                        (2 for bf16; 1 for FP8 tables: the least an FP8
//                        kernel moves, the source's own speed-of-light rule)
//   attention            models/latency/operator_work.h's FLOPs and bytes
//                        (KV of every cached and new token read once, queries
//                        read and outputs written once; FP8 KV at 1 byte)
//   MoE experts          FLOPs tokens x top-k x 6 x hidden x inter/tp / ep;
//                        bytes: the weights of the experts one token must
//                        touch, min(experts / ep, ceil(top-k / ep)) under
//                        uniform routing (a real router's distinct top-k),
//                        one expert under the synthetic balanced and
//                        power-law routings, whose draws may repeat experts
//   MLA attention        each quantity the fewer of its two forms': FLOPs
//                        of the expanded form (every head's q.k and p.v as
//                        ordinary attention), bytes of the absorbed form
//                        (the latent and rope key read once); not judged slow
//   all-reduce           bytes over the GPU link: (g - 1)/g x bytes per GPU,
//                        the least any algorithm receives, vs interconnect_gbps
//   elementwise          operator_work.h's bytes (sampling: one fp32 read of
//                        the logits); measured tables only
// Tables marked modelled are not measurements and are not checked.
//
// Rules (the constants below; docs/accuracy.md gives the evidence):
//   impossible   FLOP/s > kCeilingTolerance x the datasheet dense peak of the
//                table's dtype, or (bytes - L2 size) / time >
//                kCeilingTolerance x the datasheet memory bandwidth: bytes
//                beyond what the L2 can hold must come from DRAM
//   cache        bytes / time above that bandwidth but explained by the L2
//                (operands that fit in it, kept warm between timed repeats):
//                flagged, not an error
//   slow         a large row (roofline time at the datasheet ceilings >=
//                kLargeRooflineUs) below kSlowFraction of both ceilings: flagged
//                (MoE rows are not judged: the experts a batch touches grow
//                with its tokens, far above the bytes counted)
//   GEMM floor   a bf16 GEMM table whose large rows (m, n, k all >=
//                kGemmFloorMinDim) never reach kGemmFloorFraction of the
//                datasheet peak: an error, the signature of a table keyed at
//                smaller shapes than were timed (a TP shard's keys on TP1 times)

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/formats/kernel_profile.h"
#include "models/formats/model_spec.h"
#include "models/formats/shape_profile.h"

namespace efimsim {

// A datasheet peak is the boost-clock rate, which a part holds but cannot
// exceed; 10% covers event-timer resolution on short kernels, the profiles'
// 6 significant digits and part-to-part clock spread. (The committed tables
// reach at most 1.005x the compute peak.)
inline constexpr double kCeilingTolerance = 1.10;
// Rows whose work takes at least 20 us at the datasheet ceilings: fixed
// costs of a few microseconds (launch, a kernel's prologue) cannot explain
// a rate below kSlowFraction there.
inline constexpr double kLargeRooflineUs = 20.0;
inline constexpr double kSlowFraction = 0.05;
// Large bf16 GEMMs reach 50-97% of the datasheet peak on every GPU with
// committed tables (lowest: L40S under SGLang, 50%); a table keyed at half
// the timed shapes halves its rates, to 30-41% on the RTX PRO 6000.
inline constexpr int64_t kGemmFloorMinDim = 2048;
inline constexpr double kGemmFloorFraction = 0.45;

// One measured point as the check saw it.
struct PhysicsRow {
  std::string table;  // "gemm (n 5120, k 8192)", "decode_attention (32/8/128)", ...
  std::string key;    // "m 1", "batch 8, context 4096", "tokens 64", ...
  double time_us = 0;
  double flops = 0;
  double bytes = 0;                // lower bound of bytes moved (link bytes for all-reduce)
  double compute_fraction = 0;     // FLOP/s over the dtype's datasheet peak
  double bandwidth_fraction = 0;   // bytes/s over the datasheet bandwidth (or the link's)
  double dram_fraction = 0;        // (bytes - L2 size)/s over the datasheet bandwidth
  double Tflops() const { return time_us > 0 ? flops / time_us * 1e-6 : 0; }
  double Tbps() const { return time_us > 0 ? bytes / time_us * 1e-6 : 0; }
  double Utilisation() const;  // max(compute_fraction, bandwidth_fraction)
};

// One family of tables ("gemm", "gemm_fp8 fp8_block", "moe", "elementwise", ...).
struct PhysicsGroup {
  std::string name;
  int64_t tables = 0;
  int64_t rows = 0;
  int64_t above_ceiling = 0;  // impossible rows
  int64_t cache_resident = 0;  // above the bandwidth, within the L2 (flagged)
  int64_t slow = 0;            // flagged
  int64_t below_gemm_floor = 0;  // tables (an error)
  std::optional<PhysicsRow> worst;    // the highest utilisation (or most above a ceiling)
  std::optional<PhysicsRow> slowest;  // the lowest utilisation among large rows
  std::vector<std::string> floor_tables;  // "gemm (n 4096, k 2048): best 35.3% at m 2048"
};

struct PhysicsReport {
  std::string origin;  // the profile's file, or what the import read
  std::string gpu;
  double compute_peak = 0;  // bf16 FLOP/s of the spec
  double bandwidth = 0;     // bytes/s
  double l2_bytes = 0;
  std::vector<PhysicsGroup> groups;
  int64_t Rows() const;
  int64_t Errors() const;  // impossible rows + tables below the GEMM floor
  int64_t Flags() const;   // cache-resident + slow rows
};

// Checks every measured point of a shape profile against `gpu`'s datasheet.
PhysicsReport CheckShapeProfilePhysics(const ShapeProfile& profile, const GpuSpec& gpu);
// The same for a model-keyed profile of `model` (whose shapes key its
// elementwise and all-reduce tables).
PhysicsReport CheckKernelProfilePhysics(const KernelProfile& profile, const ModelSpec& model,
                                        const GpuSpec& gpu);

// Every built-in profile checked against its GPU's spec (kernel profiles,
// then shape profiles, each in name order), origins named by their files
// ("models/profiles/<gpu>/<source>/<model>.json", "models/shape_profiles/...").
std::vector<PhysicsReport> CheckBuiltinProfilesPhysics();

// The per-group summary, one block per group, for stdout or stderr.
std::string PhysicsReportText(const PhysicsReport& report);
// One line per group with errors, naming the group and its worst row (or
// each table below the GEMM floor), for an import's or check's failure;
// empty without errors.
std::string PhysicsErrorText(const PhysicsReport& report);

}  // namespace efimsim
