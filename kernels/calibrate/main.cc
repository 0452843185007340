// efimsim-calibrate: checks every CUDA kernel against its CPU reference, then
// times the shapes a model's steps need and writes a kernel profile
// (models/PROFILE.md) for the latency model. See kernels/README.md.

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "../cuda/gemm_cublaslt.h"
#include "../cuda/launch_config.h"
#include "bench.h"
#include "checks.h"
#include "cuda_check.h"
#include "device_info.h"
#include "model_spec.h"
#include "profile.h"
#include "timing.h"
#include "torch_compare.h"

#ifndef EFIMSIM_KERNELS_SOURCE_DIR
#define EFIMSIM_KERNELS_SOURCE_DIR "."
#endif

namespace efimsim::kernels {
namespace {

constexpr int kExitChecksFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoDevice = 3;

const char* kUsage = R"(usage: efimsim-calibrate [options]

Checks every kernel variant against its CPU reference (and, for every
--model, every kernel at that model's shapes), then (with --model) times the
shapes that model's steps need and writes a kernel profile in the format of
models/PROFILE.md. Nothing is timed unless every check passes.

  --check               run the correctness checks (always run before timing)
  --model SPEC.json     a model spec (models/specs/*.json); repeatable
  --out FILE            profile path (one --model only)
  --out-dir DIR         write DIR/<model name>.json for every --model
  --gpu NAME            the profile's "gpu" field, models/gpus/<NAME>.json
                        (default h100-sxm)
  --compare-torch       also time torch.matmul and flash SDPA on the target
                        shapes (needs python3 with torch; skipped otherwise)
  --python PATH         interpreter for --compare-torch (default python3)
  --torch-script PATH   default: <kernels source>/calibrate/compare_torch.py
  --quick               coarse grids (for trying the harness, not for profiles)
  --repetitions N       run every sweep N times (default 2, >= 1); each point's
                        time is the minimum of the N medians, and the spread
                        per table goes to provenance.sweep_repetitions
  --no-repetition-provenance  leave provenance.sweep_repetitions out of the
                        profile (for a simulator whose reader predates it);
                        the spread is still printed
  --sampling-top-k K    the sampling table's kernel: 1 = greedy argmax
                        (default), up to 64 = top-k
  --reps N              timed runs per point, median reported (default 25, >= 20)
  --warmup N            runs before the timed ones (default 5; at least 2
                        are made, and the second is timed as a probe)
  --long-point-us X     a point whose probe takes longer than X us is a long
                        point: no more warm-ups, then --long-point-reps timed
                        runs (default 2000; 0: every point gets --reps)
  --long-point-reps N   timed runs of a long point, median reported (default
                        7, >= 5); the log marks such points [long point]
  --no-flush            do not flush L2 before each timed run
  --peak-tflops X       roofline compute peak (default 790, bf16 8192^3 on H100)
  --peak-tbps X         roofline bandwidth peak (default 3.0, H100 HBM3 copy)
  --max-decode-kv-tokens N  cap on batch x context in the decode grid
                        (default 1048576)
  --git-commit SHA      provenance commit (default: git rev-parse HEAD of the
                        source tree, "-dirty" if modified, else "unknown")
  --seed N              input seed for the checks (default: from the clock)
  --device N            CUDA device (default 0)
  --help                this text

Exit status: 0 ok, 1 a check failed or a run error, 2 usage error, 3 no GPU.
)";

struct Options {
  bool check = false;
  bool compare_torch = false;
  bool quick = false;
  std::vector<std::string> models;
  std::string out, out_dir, gpu = "h100-sxm", python = "python3";
  std::string torch_script = EFIMSIM_KERNELS_SOURCE_DIR "/calibrate/compare_torch.py";
  std::string git_commit;
  TimingOptions timing;
  Peaks peaks;
  std::int64_t max_decode_kv_tokens = 1 << 20;
  int repetitions = 2;
  bool repetition_provenance = true;
  int sampling_top_k = 1;
  std::uint64_t seed = 0;
  bool seed_given = false;
  int device = 0;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

double parse_double(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(d > 0)) throw UsageError(flag + " needs a positive number, got '" + v + "'");
  return d;
}

long long parse_int(const std::string& flag, const std::string& v, long long min) {
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || x < min) throw UsageError(flag + " needs an integer >= " + std::to_string(min));
  return x;
}

Options parse(int argc, char** argv, bool& help) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") help = true;
    else if (a == "--check") o.check = true;
    else if (a == "--compare-torch") o.compare_torch = true;
    else if (a == "--quick") o.quick = true;
    else if (a == "--no-flush") o.timing.flush_l2 = false;
    else if (a == "--model") o.models.push_back(value());
    else if (a == "--out") o.out = value();
    else if (a == "--out-dir") o.out_dir = value();
    else if (a == "--gpu") o.gpu = value();
    else if (a == "--python") o.python = value();
    else if (a == "--torch-script") o.torch_script = value();
    else if (a == "--git-commit") o.git_commit = value();
    else if (a == "--reps") o.timing.reps = static_cast<int>(parse_int(a, value(), 20));
    else if (a == "--warmup") o.timing.warmup = static_cast<int>(parse_int(a, value(), 1));
    else if (a == "--long-point-us") o.timing.long_point_us = static_cast<double>(parse_int(a, value(), 0));
    else if (a == "--long-point-reps") o.timing.long_point_reps = static_cast<int>(parse_int(a, value(), 5));
    else if (a == "--peak-tflops") o.peaks.tflops = parse_double(a, value());
    else if (a == "--peak-tbps") o.peaks.tbps = parse_double(a, value());
    else if (a == "--max-decode-kv-tokens") o.max_decode_kv_tokens = parse_int(a, value(), 1);
    else if (a == "--repetitions") o.repetitions = static_cast<int>(parse_int(a, value(), 1));
    else if (a == "--no-repetition-provenance") o.repetition_provenance = false;
    else if (a == "--sampling-top-k") {
      o.sampling_top_k = static_cast<int>(parse_int(a, value(), 1));
      if (o.sampling_top_k > 64) throw UsageError("--sampling-top-k must be 1..64");
    }
    else if (a == "--seed") {
      o.seed = static_cast<std::uint64_t>(parse_int(a, value(), 0));
      o.seed_given = true;
    } else if (a == "--device") o.device = static_cast<int>(parse_int(a, value(), 0));
    else throw UsageError("unknown option " + a);
  }
  if (help) return o;
  if (!o.check && o.models.empty()) throw UsageError("nothing to do: give --check and/or --model SPEC.json");
  if (!o.out.empty() && o.models.size() != 1) throw UsageError("--out needs exactly one --model (use --out-dir)");
  if (!o.out.empty() && !o.out_dir.empty()) throw UsageError("--out and --out-dir are exclusive");
  if (o.compare_torch && o.models.empty()) throw UsageError("--compare-torch needs a --model for its shapes");
  return o;
}

// A point timed as a long point (TimingOptions) says so after its figures.
void print_perf(const std::string& what, double us, const Work& w, const Peaks& peaks, bool long_point = false) {
  std::printf("  %-52s %s%s\n", what.c_str(), describe_perf(us, w, peaks).c_str(),
              long_point ? "  [long point]" : "");
  std::fflush(stdout);
}

Profile sweep(const ModelSpec& spec, const Options& o, const DeviceInfo& info, const std::string& command,
              Bench& bench) {
  Profile prof;
  prof.gpu = o.gpu;
  prof.model = spec.name;
  prof.command = command;
  prof.provenance = info.provenance;
  if (launch::decode::uses_tensor_cores(spec.q_heads / spec.kv_heads)) prof.decode_kernel = "efimsim-paged-splitkv-mma-v1";
  std::printf("\n== sweep %s: gemm (%s) ==\n", spec.name.c_str(), prof.gemm_kernel.c_str());
  for (const auto& shape : gemm_shapes(spec)) {
    GemmTable t{shape.name, shape.n, shape.k, {}};
    for (int m : token_grid(o.quick)) {
      const double us = bench.gemm_cublaslt_us(m, shape.n, shape.k);
      t.points.push_back({m, us});
      print_perf(shape.name + " m=" + std::to_string(m) + " n=" + std::to_string(shape.n) + " k=" +
                     std::to_string(shape.k) + " cublaslt",
                 us, Bench::gemm_work(m, shape.n, shape.k), o.peaks, bench.took_long_point());
    }
    prof.gemm.push_back(std::move(t));
  }
  std::printf("\n== sweep %s: prefill attention (%s) ==\n", spec.name.c_str(), prof.prefill_kernel.c_str());
  prof.prefill = {spec.q_heads, spec.kv_heads, spec.head_dim, cuda::kBlockTokens, {}};
  for (const auto& pt : prefill_grid(spec, o.quick)) {
    const double us = bench.prefill_us(spec, pt.new_tokens, pt.context_tokens);
    prof.prefill.points.push_back({pt.new_tokens, pt.context_tokens, us});
    print_perf("new=" + std::to_string(pt.new_tokens) + " context=" + std::to_string(pt.context_tokens), us,
               Bench::prefill_work(spec, pt.new_tokens, pt.context_tokens), o.peaks, bench.took_long_point());
  }
  std::printf("\n== sweep %s: decode attention (%s) ==\n", spec.name.c_str(), prof.decode_kernel.c_str());
  prof.decode = {spec.q_heads, spec.kv_heads, spec.head_dim, cuda::kBlockTokens, {}};
  for (const auto& pt : decode_grid(spec, o.max_decode_kv_tokens, o.quick)) {
    const double us = bench.decode_us(spec, pt.batch, pt.context_tokens);
    prof.decode.points.push_back({pt.batch, pt.context_tokens, us});
    print_perf("batch=" + std::to_string(pt.batch) + " context=" + std::to_string(pt.context_tokens), us,
               Bench::decode_work(spec, pt.batch, pt.context_tokens), o.peaks, bench.took_long_point());
  }
  std::printf("\n== sweep %s: per-token operators (%s) ==\n", spec.name.c_str(), prof.elementwise_kernel.c_str());
  for (const auto& op : elementwise_ops(spec)) {
    ElementwiseTable t{op.name, {}};
    for (int tokens : token_grid(o.quick)) {
      const double us = bench.elementwise_us(spec, op.name, tokens);
      t.points.push_back({tokens, us});
      print_perf(op.name + " tokens=" + std::to_string(tokens), us, Bench::elementwise_work(spec, op.name, tokens),
                 o.peaks, bench.took_long_point());
    }
    prof.elementwise.push_back(std::move(t));
  }
  std::printf("\n== sweep %s: sampling (%s, fp32 logits over %d ids) ==\n", spec.name.c_str(),
              o.sampling_top_k == 1 ? "greedy argmax" : ("top-" + std::to_string(o.sampling_top_k)).c_str(),
              spec.vocab_size);
  {
    ElementwiseTable t{"sampling", {}};
    for (int rows : sampling_grid(o.quick)) {
      const double us = bench.sampling_us(spec, rows, o.sampling_top_k);
      t.points.push_back({rows, us});
      print_perf("sampling rows=" + std::to_string(rows), us, Bench::sampling_work(spec, rows), o.peaks, bench.took_long_point());
    }
    prof.elementwise.push_back(std::move(t));
  }
  return prof;
}

void print_run_to_run(const RunToRun& rr) {
  std::printf("\n== run-to-run spread over %d repetitions ((max - min) / min of each point's median) ==\n",
              rr.repetitions);
  for (const auto& n : rr.tables) {
    std::printf("  %-28s %3d points  max %6.2f%%  median %6.2f%%\n", n.table.c_str(), n.points, 100.0 * n.max_rel_diff,
                100.0 * n.median_rel_diff);
  }
}

struct TargetRow {
  std::string target, measured, goal;
  bool measured_ok = false;  // false: could not be measured in this run
  bool pass = false;
};

// The issue's targets, measured afresh (kernels/README.md lists them).
std::vector<TargetRow> measure_targets(const ModelSpec& spec, const Options& o, const DeviceInfo& info, Bench& bench) {
  std::vector<TargetRow> rows;
  char buf[256];
  std::printf("\n== targets for %s ==\n", spec.name.c_str());
  std::vector<TorchCase> cases;
  std::map<std::string, double> ours;
  for (const auto& s : gemm_shapes(spec)) {
    for (int m : {1, 16, 128, 1024, 4096, 16384}) {
      const std::string id = "matmul/" + s.name + "/m=" + std::to_string(m);
      TorchCase c;
      c.id = id;
      c.op = "matmul";
      c.m = m;
      c.n = s.n;
      c.k = s.k;
      cases.push_back(c);
      if (o.compare_torch) ours[id] = bench.gemm_cublaslt_us(m, s.n, s.k);
    }
  }
  const std::vector<std::pair<int, int>> prefill_points = {{4096, 0}, {1024, 4096}};
  for (auto [n, c] : prefill_points) {
    if (n + c > spec.max_context_tokens) continue;
    const std::string id = "sdpa/" + std::to_string(n) + "+" + std::to_string(c);
    const double us = bench.prefill_us(spec, n, c);
    ours[id] = us;
    print_perf("prefill new=" + std::to_string(n) + " context=" + std::to_string(c), us, Bench::prefill_work(spec, n, c),
               o.peaks);
    TorchCase tc;
    tc.id = id;
    tc.op = "sdpa";
    tc.new_tokens = n;
    tc.context_tokens = c;
    tc.q_heads = spec.q_heads;
    tc.kv_heads = spec.kv_heads;
    tc.head_dim = spec.head_dim;
    cases.push_back(tc);
  }
  {
    const double us = bench.decode_us(spec, 64, 4096);
    const Work w = Bench::decode_work(spec, 64, 4096);
    const double share = w.bytes / (us * 1e-6) / (o.peaks.tbps * 1e12);
    print_perf("decode batch=64 context=4096", us, w, o.peaks);
    std::snprintf(buf, sizeof buf, "%.1f%% (%.2f TB/s)", 100.0 * share, w.bytes / (us * 1e-6) * 1e-12);
    rows.push_back({"decode attention (64 x 4096) share of HBM " + std::to_string(o.peaks.tbps).substr(0, 4) + " TB/s, " + spec.name,
                    buf, ">= 70%", true, share >= 0.70});
  }
  if (o.compare_torch) {
    const auto torch = run_torch_cases(cases, o.python, o.torch_script, o.timing.warmup, o.timing.reps,
                                       2 * info.l2_bytes, std::cout);
    double worst_gemm = 0;
    std::string worst_gemm_at;
    bool all_gemm = torch.available;
    for (const auto& c : cases) {
      const auto it = torch.time_us.find(c.id);
      if (auto note = torch.notes.find(c.id); note != torch.notes.end()) {
        std::printf("  torch %s: %s\n", c.id.c_str(), note->second.c_str());
      }
      if (it == torch.time_us.end()) {
        if (c.op == "matmul") all_gemm = false;
        continue;
      }
      const double ratio = ours[c.id] / it->second;  // our time / torch time
      std::printf("  %-34s ours %10.2f us  torch %10.2f us  ours/torch time %.3f\n", c.id.c_str(), ours[c.id],
                  it->second, ratio);
      if (c.op == "matmul" && ratio > worst_gemm) {
        worst_gemm = ratio;
        worst_gemm_at = c.id;
      }
      if (c.op == "sdpa") {
        const double thr = it->second / ours[c.id];
        std::snprintf(buf, sizeof buf, "%.2f (ours %.1f us, torch %s %.1f us)", thr, ours[c.id],
                      torch.torch_version.c_str(), it->second);
        rows.push_back({"prefill vs flash SDPA throughput, " + c.id.substr(5) + " (new+cached), " + spec.name, buf,
                        ">= 0.80", true, thr >= 0.80});
      }
    }
    if (all_gemm && !worst_gemm_at.empty()) {
      std::snprintf(buf, sizeof buf, "%.3f (worst: %s)", worst_gemm, worst_gemm_at.c_str());
      rows.push_back({"cuBLASLt GEMM time / torch.matmul time, every weight shape, " + spec.name, buf, "<= 1.05", true,
                      worst_gemm <= 1.05});
    } else {
      rows.push_back({"cuBLASLt GEMM vs torch.matmul, " + spec.name, "not measured: PyTorch comparison unavailable",
                      "<= 1.05", false, false});
    }
  } else {
    rows.push_back({"cuBLASLt GEMM vs torch.matmul, " + spec.name, "not measured: run with --compare-torch", "<= 1.05",
                    false, false});
    rows.push_back({"prefill vs flash SDPA, " + spec.name, "not measured: run with --compare-torch", ">= 0.80", false,
                    false});
  }
  return rows;
}

int run(int argc, char** argv) {
  bool help = false;
  Options o;
  try {
    o = parse(argc, argv, help);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "efimsim-calibrate: %s\n\n%s", e.what(), kUsage);
    return kExitUsage;
  }
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::vector<ModelSpec> specs;
  for (const auto& path : o.models) {
    specs.push_back(read_model_spec(path));
    if (specs.back().mla) {
      throw UsageError(path + ": \"mla\": multi-head latent attention is not among the kernels efimsim-calibrate "
                       "times (its attention and KV cache differ from the GQA kernels here)");
    }
  }

  int devices = 0;
  const cudaError_t count_err = cudaGetDeviceCount(&devices);
  if (count_err != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "efimsim-calibrate: no CUDA device (%s); nothing can be checked or timed here\n",
                 count_err != cudaSuccess ? cudaGetErrorString(count_err) : "device count is 0");
    return kExitNoDevice;
  }
  if (o.device >= devices) throw UsageError("--device " + std::to_string(o.device) + " does not exist");
  CUDA_CHECK(cudaSetDevice(o.device));
  const DeviceInfo info = read_device_info(o.device, o.git_commit, EFIMSIM_KERNELS_SOURCE_DIR);
  const Provenance& pv = info.provenance;
  std::printf("device %d: %s, %d SMs, SM clock %d MHz, memory clock %d MHz, L2 %zu MiB, driver %s, runtime %s\n",
              o.device, pv.gpu_name.c_str(), pv.sm_count, pv.sm_clock_mhz, pv.memory_clock_mhz, info.l2_bytes >> 20,
              pv.driver_version.c_str(), pv.cuda_runtime_version.c_str());
  std::printf("git commit %s, %s; roofline %.0f TFLOP/s, %.2f TB/s\n", pv.git_commit.c_str(), pv.date_utc.c_str(),
              o.peaks.tflops, o.peaks.tbps);
  if (info.compute_capability < 80) {
    std::fprintf(stderr, "efimsim-calibrate: compute capability %d.%d; the kernels need sm_80 or newer\n",
                 info.compute_capability / 10, info.compute_capability % 10);
    return kExitChecksFailed;
  }

  cuda::CublasLtGemm cublaslt;
  const std::uint64_t seed =
      o.seed_given ? o.seed
                   : static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  const CheckSummary checks = run_checks(cublaslt, pv.sm_count, seed, std::cout);
  if (!checks.ok()) {
    std::fprintf(stderr, "efimsim-calibrate: %d check(s) FAILED; nothing is timed\n", checks.failed);
    return kExitChecksFailed;
  }
  for (const auto& spec : specs) {
    const CheckSummary mc = run_model_checks(cublaslt, pv.sm_count, spec, seed, std::cout);
    if (!mc.ok()) {
      std::fprintf(stderr, "efimsim-calibrate: %d check(s) FAILED at %s's shapes; nothing is timed\n", mc.failed,
                   spec.name.c_str());
      return kExitChecksFailed;
    }
  }
  if (specs.empty()) return 0;

  Timer timer(o.timing, info.l2_bytes);
  Bench bench(cublaslt, timer, pv.sm_count, seed ^ 0x5eedull);
  const std::string command = join_command_line(argc, argv);
  std::vector<TargetRow> targets;
  for (const auto& spec : specs) {
    std::vector<Profile> reps;
    for (int r = 0; r < o.repetitions; ++r) {
      std::printf("\n#### %s: repetition %d of %d\n", spec.name.c_str(), r + 1, o.repetitions);
      reps.push_back(sweep(spec, o, info, command, bench));
    }
    Profile prof = combine_repetitions(reps);
    if (o.repetitions > 1) print_run_to_run(prof.run_to_run);
    if (o.repetitions < 2 || !o.repetition_provenance) prof.run_to_run = {};
    std::string path = o.out;
    if (!o.out_dir.empty()) path = o.out_dir + "/" + spec.name + ".json";
    if (!path.empty()) {
      write_profile(prof, path);
      std::printf("wrote %s\n", path.c_str());
    } else {
      std::printf("(no --out/--out-dir: profile for %s not written)\n", spec.name.c_str());
    }
    for (auto& row : measure_targets(spec, o, info, bench)) targets.push_back(std::move(row));
  }
  std::printf("\n== targets (kernels/README.md) on %s ==\n| target | measured | goal | verdict |\n|---|---|---|---|\n",
              pv.gpu_name.c_str());
  for (const auto& r : targets) {
    std::printf("| %s | %s | %s | %s |\n", r.target.c_str(), r.measured.c_str(), r.goal.c_str(),
                r.measured_ok ? (r.pass ? "met" : "NOT met") : "owed");
  }
  return 0;
}

}  // namespace
}  // namespace efimsim::kernels

int main(int argc, char** argv) {
  try {
    return efimsim::kernels::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "efimsim-calibrate: error: %s\n", e.what());
    return 1;
  }
}
