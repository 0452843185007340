#include "models/import/aiconfigurator_import.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "models/import/csv_columns.h"
#include "models/latency/shape_rule.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"
#include "sim/base/sha256.h"

namespace efimsim {
namespace {

constexpr const char* kWhat = "an AIConfigurator CSV";

// The device names AIConfigurator's collector recorded, per efimsim GPU.
const std::map<std::string, std::string>& ExpectedDevices() {
  static const std::map<std::string, std::string> devices = {
      {"h100-sxm", "NVIDIA H100 80GB HBM3"}, {"h200", "NVIDIA H200"}, {"b200", "NVIDIA B200"},
      {"a100-sxm-80g", "NVIDIA A100-SXM4-80GB"}, {"l40s", "NVIDIA L40S"}};
  return devices;
}

struct SourceCsv {
  std::string path;
  std::string text;  // kept alive for the views of `csv`
  std::string sha256;
};

SourceCsv ReadCsv(const std::string& path) {
  SourceCsv file{path, ReadWholeFile(path), ""};
  file.sha256 = Sha256Hex(file.text);
  return file;
}

// Rows the import keeps: bf16 (both columns when present), full attention.
bool KeptAttentionRow(const CsvColumns& csv, size_t row) {
  if (csv.Text(row, "attn_dtype") != "bfloat16" || csv.Text(row, "kv_cache_dtype") != "bfloat16") return false;
  if (csv.Has("window_size") && csv.Int(row, "window_size", 0) != 0) return false;
  return csv.Int(row, "beam_width", 1) == 1;
}

// Checks the device column.
void CheckDevice(const CsvColumns& csv, size_t row, const std::string& device) {
  const std::string seen = csv.Text(row, "device");
  if (seen != device) {
    throw InputError(csv.origin(), csv.Line(row), "device",
                     "measured on \"" + seen + "\", not \"" + device + "\"");
  }
}

double Sol(const ShapeCeilings& c, double m, double n, double k) {
  return std::max(2 * m * n * k / c.bf16_flops_per_second, 2 * (m * n + m * k + n * k) / c.memory_bytes_per_second);
}

void ReadGemm(const SourceCsv& file, const std::string& device, ShapeProfile& profile,
              std::set<std::string>& kernels, std::vector<std::string>& notes) {
  const CsvColumns csv(file.text, file.path, kWhat);
  std::map<std::pair<int64_t, int64_t>, std::map<int64_t, double>> tables;
  int64_t repeats = 0, clamped = 0;
  for (size_t r = 0; r < csv.Rows(); ++r) {
    CheckDevice(csv, r, device);
    if (csv.Text(r, "gemm_dtype") != "bfloat16") continue;
    kernels.insert(csv.Text(r, "kernel_source"));
    const int64_t m = csv.Int(r, "m", 1), n = csv.Int(r, "n", 1), k = csv.Int(r, "k", 1);
    double us = csv.Milliseconds(r, "latency") * 1000.0;
    const double sol = Sol(profile.ceilings, static_cast<double>(m), static_cast<double>(n), static_cast<double>(k)) * 1e6;
    if (us < sol) {
      us = sol;
      ++clamped;
    }
    if (!tables[{n, k}].emplace(m, us).second) ++repeats;  // the first row of a key wins
  }
  for (const auto& [nk, points] : tables) {
    ShapeGemmTable t{nk.first, nk.second, {}};
    for (const auto& [m, us] : points) t.points.push_back({m, us});
    profile.gemm.push_back(std::move(t));
  }
  notes.push_back("gemm: " + std::to_string(profile.gemm.size()) + " (n, k) shapes from " + file.path + "; " +
                  std::to_string(repeats) + " repeated keys (first row kept), " + std::to_string(clamped) +
                  " times raised to the speed of light");
}

void ReadPrefill(const SourceCsv& file, const std::string& device, ShapeProfile& profile,
                 std::set<std::string>& kernels, std::vector<std::string>& notes) {
  const CsvColumns csv(file.text, file.path, kWhat);
  std::map<ShapeHeads, std::map<int64_t, double>> tables;
  for (size_t r = 0; r < csv.Rows(); ++r) {
    CheckDevice(csv, r, device);
    if (!KeptAttentionRow(csv, r) || csv.Int(r, "batch_size", 1) != 1) continue;
    kernels.insert(csv.Text(r, "kernel_source"));
    if (csv.Int(r, "step", 0) != 0) throw InputError(file.path, csv.Line(r), "step", "expected 0 (no cached prefix)");
    const ShapeHeads heads{csv.Int(r, "num_heads", 1), csv.Int(r, "num_key_value_heads", 1), csv.Int(r, "head_dim", 1)};
    tables[heads].emplace(csv.Int(r, "isl", 1), csv.Milliseconds(r, "latency") * 1000.0);
  }
  for (const auto& [heads, points] : tables) {
    ShapePrefillTable t{heads, {}};
    for (const auto& [tokens, us] : points) t.points.push_back({tokens, us});
    profile.prefill_attention.push_back(std::move(t));
  }
  notes.push_back("prefill attention: " + std::to_string(profile.prefill_attention.size()) +
                  " head shapes (batch-1 rows) from " + file.path);
}

void ReadDecode(const SourceCsv& file, const std::string& device, ShapeProfile& profile,
                std::set<std::string>& kernels, std::vector<std::string>& notes) {
  const CsvColumns csv(file.text, file.path, kWhat);
  std::map<ShapeHeads, std::map<std::pair<int64_t, int64_t>, double>> tables;
  for (size_t r = 0; r < csv.Rows(); ++r) {
    CheckDevice(csv, r, device);
    if (!KeptAttentionRow(csv, r)) continue;
    kernels.insert(csv.Text(r, "kernel_source"));
    if (csv.Int(r, "isl", 1) != 1) throw InputError(file.path, csv.Line(r), "isl", "expected 1 (one new token)");
    const ShapeHeads heads{csv.Int(r, "num_heads", 1), csv.Int(r, "num_key_value_heads", 1), csv.Int(r, "head_dim", 1)};
    tables[heads].emplace(std::pair(csv.Int(r, "batch_size", 1), csv.Int(r, "step", 0)),
                          csv.Milliseconds(r, "latency") * 1000.0);
  }
  for (const auto& [heads, points] : tables) {
    ShapeDecodeTable t{heads, {}};
    for (const auto& [key, us] : points) t.points.push_back({key.first, key.second, us});
    profile.decode_attention.push_back(std::move(t));
  }
  notes.push_back("decode attention: " + std::to_string(profile.decode_attention.size()) +
                  " head shapes from " + file.path + " (context = step, the tokens already cached)");
}

void ReadAllReduce(const SourceCsv& file, const std::string& device, ShapeProfile& profile,
                   std::set<std::string>& kernels, std::vector<std::string>& notes) {
  const CsvColumns csv(file.text, file.path, kWhat);
  std::map<int64_t, std::map<int64_t, double>> tables;
  for (size_t r = 0; r < csv.Rows(); ++r) {
    CheckDevice(csv, r, device);
    const std::string backend = csv.Text(r, "backend");
    if (backend.size() >= 6 && backend.compare(backend.size() - 6, 6, "_eager") == 0) continue;
    if (csv.Text(r, "allreduce_dtype") != "bfloat16") continue;
    kernels.insert(csv.Text(r, "kernel_source"));
    tables[csv.Int(r, "num_gpus", 2)].emplace(2 * csv.Int(r, "message_size", 1),
                                              csv.Milliseconds(r, "latency") * 1000.0);
  }
  for (const auto& [gpus, points] : tables) {
    ShapeAllReduceTable t{gpus, {}};
    for (const auto& [bytes, us] : points) t.points.push_back({bytes, us});
    profile.all_reduce.push_back(std::move(t));
  }
  notes.push_back("all-reduce: CUDA-graph rows for " + std::to_string(profile.all_reduce.size()) +
                  " TP sizes from " + file.path);
}

// The --dir folder, normalised, without a trailing separator.
std::filesystem::path FolderOf(const std::string& dir) {
  std::filesystem::path folder = std::filesystem::path(dir).lexically_normal();
  return folder.filename().empty() ? folder.parent_path() : folder;
}

// <system>/vllm-0.24.0 -> ("vllm_v1", "vLLM 0.24.0").
std::pair<std::string, std::string> EngineOf(const std::filesystem::path& folder, const std::string& dir) {
  const std::string leaf = folder.filename().string();
  if (leaf.rfind("vllm-", 0) == 0) return {"vllm_v1", "vLLM " + leaf.substr(5)};
  if (leaf.rfind("sglang-", 0) == 0) return {"sglang", "SGLang " + leaf.substr(7)};
  throw UsageError("--dir: expected an AIConfigurator <system>/vllm-<version> or sglang-<version> folder, got '" +
                   dir + "'");
}

// "AIConfigurator database at commit <c>", from MANIFEST.csv beside
// systems.csv (the converted files' provenance), or without the commit
// when there is no such file or row.
std::string DatabaseCommit(const std::string& systems_csv, const std::string& gemm_csv) {
  const std::filesystem::path manifest = std::filesystem::path(systems_csv).parent_path() / "MANIFEST.csv";
  const std::string unknown = "AIConfigurator database (commit not recorded)";
  if (!std::filesystem::exists(manifest)) return unknown;
  const std::string text = ReadWholeFile(manifest.string());
  const CsvColumns csv(text, manifest.string(), kWhat);
  const std::string relative =
      std::filesystem::path(gemm_csv).lexically_relative(manifest.parent_path()).generic_string();
  for (size_t r = 0; r < csv.Rows(); ++r) {
    if (csv.Text(r, "file") == relative) return "AIConfigurator database at commit " + csv.Text(r, "source_commit");
  }
  return unknown;
}

}  // namespace

GraphGemmTimings LoadGraphGemmTimings(const std::string& path) {
  const SourceCsv file = ReadCsv(path);
  const CsvColumns csv(file.text, file.path, kWhat);
  GraphGemmTimings out{file.path, file.sha256, {}};
  for (size_t r = 0; r < csv.Rows(); ++r) {
    if (csv.Text(r, "gemm_dtype") != "bfloat16") continue;
    out.us.emplace(std::tuple(csv.Int(r, "m", 1), csv.Int(r, "n", 1), csv.Int(r, "k", 1)),
                   csv.Milliseconds(r, "latency") * 1000.0);
  }
  if (out.us.empty()) throw InputError(path, 0, "gemm_dtype", "no bfloat16 rows");
  return out;
}

AiConfiguratorSystem LoadAiConfiguratorSystem(const std::string& path, const std::string& system) {
  const std::string text = ReadWholeFile(path);
  const CsvColumns csv(text, path, kWhat);
  for (size_t r = 0; r < csv.Rows(); ++r) {
    if (csv.Text(r, "system") != system) continue;
    AiConfiguratorSystem s;
    s.system = system;
    s.memory_bytes_per_second = csv.Number(r, "mem_bw");
    s.bandwidth_fraction = csv.Number(r, "mem_bw_empirical_scaling_factor");
    s.constant_latency_seconds = csv.Number(r, "mem_empirical_constant_latency");
    s.bf16_flops_per_second = csv.Number(r, "bfloat16_tc_flops");
    if (!(s.memory_bytes_per_second > 0) || !(s.bf16_flops_per_second > 0) ||
        !(s.bandwidth_fraction > 0 && s.bandwidth_fraction <= 1) || s.constant_latency_seconds < 0) {
      throw InputError(path, csv.Line(r), "mem_bw", "ceilings must be > 0 and the scaling factor in (0, 1]");
    }
    return s;
  }
  throw InputError(path, 0, "system", "no row for system \"" + system + "\"");
}

ShapeProfile ImportAiConfigurator(const AiConfiguratorImport& import, const GpuSpec& gpu,
                                  std::vector<std::string>& notes) {
  const auto device = ExpectedDevices().find(gpu.name);
  if (device == ExpectedDevices().end()) {
    throw UsageError("--gpu: AIConfigurator's database has no efimsim GPU named '" + gpu.name +
                     "' (it covers h100-sxm, h200, b200, a100-sxm-80g, l40s)");
  }
  const std::filesystem::path dir = FolderOf(import.dir);  // <system>/<framework>-<version>
  const auto [engine, stack] = EngineOf(dir, import.dir);
  const std::string system = dir.parent_path().filename().string();
  const std::string systems_csv = import.systems_csv.empty()
                                      ? (dir.parent_path().parent_path() / "systems.csv").string()
                                      : import.systems_csv;
  const AiConfiguratorSystem sys = LoadAiConfiguratorSystem(systems_csv, system);
  ShapeProfile profile;
  profile.gpu = gpu.name;
  profile.engine = engine;
  profile.command = import.command;
  profile.device = device->second;
  profile.measured_on = DatabaseCommit(systems_csv, (dir / "gemm.csv").string());
  profile.ceilings = {sys.bf16_flops_per_second, sys.memory_bytes_per_second};
  profile.elementwise = {sys.memory_bytes_per_second, sys.bandwidth_fraction, sys.constant_latency_seconds * 1e6};
  std::string ar_path = import.all_reduce_csv;
  if (ar_path.empty() && std::filesystem::exists(dir / "custom_allreduce.csv")) ar_path = (dir / "custom_allreduce.csv").string();
  std::vector<SourceCsv> files = {ReadCsv((dir / "gemm.csv").string()),
                                  ReadCsv((dir / "context_attention.csv").string()),
                                  ReadCsv((dir / "generation_attention.csv").string())};
  if (!ar_path.empty()) files.push_back(ReadCsv(ar_path));
  std::set<std::string> kernels;
  ReadGemm(files[0], device->second, profile, kernels, notes);
  ReadPrefill(files[1], device->second, profile, kernels, notes);
  ReadDecode(files[2], device->second, profile, kernels, notes);
  if (files.size() > 3) ReadAllReduce(files[3], device->second, profile, kernels, notes);
  if (files.size() == 3) notes.push_back("all-reduce: no custom_allreduce.csv (give --all-reduce FILE): TP priced by the ring");
  std::string kernel_list;
  for (const std::string& k : kernels) kernel_list += (kernel_list.empty() ? "" : ", ") + k;
  profile.source.kind = "aiconfigurator";
  profile.source.stack = stack + " kernels as NVIDIA AIConfigurator's collector timed them under CUDA graphs (" +
                         kernel_list + ")";
  profile.source.method =
      "bf16 rows, full attention, first row of a repeated key (as AIConfigurator's loader); GEMM times "
      "raised to the speed of light at systems.csv's ceilings; prefill attention from batch-1 rows; "
      "CUDA-graph all-reduce rows; milliseconds to microseconds; systems.csv row " + system;
  for (const SourceCsv& f : files) profile.source.files.push_back({f.path, f.sha256});
  profile.source.files.push_back({systems_csv, Sha256Hex(ReadWholeFile(systems_csv))});
  return profile;
}

namespace {

void AddErrors(std::vector<double>& errors, double predicted, double measured) {
  errors.push_back(std::abs(predicted / measured - 1.0));
}

ShapeRuleStudy Summarize(const std::string& table, int64_t shapes, std::vector<double> errors) {
  ShapeRuleStudy s{table, shapes, static_cast<int64_t>(errors.size()), 0, 0};
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  s.median = errors[errors.size() / 2];
  s.p90 = errors[std::min(errors.size() - 1, errors.size() * 9 / 10)];
  return s;
}

}  // namespace

std::vector<ShapeRuleStudy> StudyShapeRule(const ShapeProfile& profile) {
  std::vector<double> gemm, gemm_small, prefill, decode;
  int64_t gemm_shapes = 0;
  for (size_t i = 0; i < profile.gemm.size(); ++i) {
    const ShapeGemmTable& held = profile.gemm[i];
    if (held.n < 512 || held.k < 512) continue;
    std::vector<ShapeGemmTable> rest = profile.gemm;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    ++gemm_shapes;
    for (const ProfilePoint& p : TransferGemm(rest, profile.ceilings, held.n, held.k)) {
      for (const ProfilePoint& q : held.points) {
        if (q.key != p.key) continue;
        AddErrors(gemm, p.time_us, q.time_us);
        if (q.key <= 256) AddErrors(gemm_small, p.time_us, q.time_us);
      }
    }
  }
  for (size_t i = 0; i < profile.prefill_attention.size(); ++i) {
    std::vector<ShapePrefillTable> rest = profile.prefill_attention;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    const ShapePrefillTable& held = profile.prefill_attention[i];
    for (const ProfilePoint& p : TransferPrefill(rest, profile.ceilings, held.heads)) {
      for (const ProfilePoint& q : held.points) {
        if (q.key == p.key) AddErrors(prefill, p.time_us, q.time_us);
      }
    }
  }
  for (size_t i = 0; i < profile.decode_attention.size(); ++i) {
    std::vector<ShapeDecodeTable> rest = profile.decode_attention;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    const ShapeDecodeTable& held = profile.decode_attention[i];
    std::map<std::pair<int64_t, int64_t>, double> measured;
    for (const AttentionPoint& q : held.points) measured[{q.rows, q.context_tokens}] = q.time_us;
    for (const AttentionPoint& p : TransferDecode(rest, profile.ceilings, held.heads)) {
      const auto it = measured.find({p.rows, p.context_tokens});
      if (it != measured.end()) AddErrors(decode, p.time_us, it->second);
    }
  }
  return {Summarize("gemm", gemm_shapes, gemm), Summarize("gemm m<=256", gemm_shapes, gemm_small),
          Summarize("prefill_attention", static_cast<int64_t>(profile.prefill_attention.size()), prefill),
          Summarize("decode_attention", static_cast<int64_t>(profile.decode_attention.size()), decode)};
}

}  // namespace efimsim
