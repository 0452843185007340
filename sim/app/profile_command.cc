// efimsim profile import: a kernel profile (models/PROFILE.md) from GPU
// measurements made outside efimsim, with their provenance.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "models/import/aiconfigurator_import.h"
#include "models/import/llmservingsim_import.h"
#include "models/import/llmservingsim_shapes.h"
#include "models/import/profile_import.h"
#include "models/latency/profile_latency_model.h"
#include "models/formats/spec_catalog.h"
#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/app/interrupt.h"
#include "sim/base/output_dir.h"
#include "sim/base/atomic_file.h"
#include "sim/base/errors.h"

namespace efimsim::cli {
namespace {

constexpr const char* kProfileUsage =
    "usage: efimsim profile <subcommand> [options]\n"
    "\n"
    "subcommands:\n"
    "  import   write a kernel profile from GPU measurements (--from aiconfigurator: a shape\n"
    "           profile for every model; llmservingsim, efimsim-kernels, pytorch-reference,\n"
    "           vidur), with provenance and the held-out studies\n";

// The command line as typed, for the profile's "command" field.
std::string CommandLine(int argc, const char* const* argv) {
  std::string text = "efimsim profile";
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    text += " ";
    text += arg.find_first_of(" \t'\"") == std::string::npos ? arg : "'" + arg + "'";
  }
  return text;
}

// Adds profile import's options (the source, its files, model, GPU,
// provenance, interpolation and the output) to general.
void AddImportOptions(po::options_description& general) {
  general.add_options()
      ("from", po::value<std::string>()->required(),
       "the source's kind: pytorch-reference (op timings of ../shared/data/gpu/"
       "h100-pytorch-reference/<model>.ops.runN.json), vidur (Vidur's compute/<gpu>/<model>/mlp.csv) "
       "llmservingsim (LLMServingSim's profiler/perf/<HW>/<model>/<variant>/ folder, --dir) or "
       "aiconfigurator (NVIDIA AIConfigurator's <system>/<framework>-<version>/ CSV folder, --dir: "
       "a shape-keyed profile for every dense model, no --model), or efimsim-kernels (a profile "
       "efimsim-calibrate measured, --file)")
      ("model", po::value<std::string>(), "built-in model name or path to a model spec JSON (not with "
       "aiconfigurator)")
      ("gpu", po::value<std::string>()->required(), "built-in GPU name or path to a GPU spec JSON")
      ("run", po::value<std::vector<std::string>>()->composing(),
       "pytorch-reference: an ops JSON file; repeat for several runs (combined by the minimum of "
       "their medians)")
      ("mlp", po::value<std::string>(), "vidur: the mlp.csv file")
      ("attention", po::value<std::string>(),
       "vidur: the attention.csv file, when the source has one (one backend, TP=1 rows used)")
      ("file", po::value<std::string>(),
       "efimsim-kernels: a profile efimsim-calibrate wrote on the GPU (../shared/data/gpu/"
       "efimsim-kernels/<gpu>/<model>.json), checked and committed as it is")
      ("dir", po::value<std::string>(),
       "vidur: a profiling folder (compute/<gpu>/<model>/): its mlp.csv, and its attention.csv when "
       "present; llmservingsim: the bundle folder with meta.yaml and tp1/; aiconfigurator: the "
       "<system>/<framework>-<version>/ folder with gemm.csv, context_attention.csv, "
       "generation_attention.csv (and custom_allreduce.csv)")
      ("shapes", po::bool_switch(),
       "llmservingsim: a shape profile (every dense model) from bundles whose model was profiled "
       "with overridden shapes (--bundle, repeatable; no --model)")
      ("bundle", po::value<std::vector<std::string>>()->composing(),
       "llmservingsim --shapes: a bundle folder (meta.yaml, tp1/); repeat to merge several")
      ("systems", po::value<std::string>(),
       "aiconfigurator: its systems.csv (default: two folders above --dir)")
      ("elementwise-rates-from", po::value<std::string>(),
       "pytorch-reference: a Vidur mlp.csv of the same GPU whose measured norm, RoPE, activation and "
       "add kernels give the bandwidth and small-kernel time used to model the reference's unfused "
       "elementwise ops; without it the profile has no elementwise tables (roofline)")
      ("elementwise-rates-carried-by", po::value<std::string>(),
       "pytorch-reference: when --elementwise-rates-from is another GPU's Vidur mlp.csv, a reference "
       "ops JSON measured on that GPU: the rates' bandwidth is scaled by the two runs' measured copy "
       "bandwidths (the floor kept)")
      ("dispatch-gap-from", po::value<std::string>(),
       "pytorch-reference: an AIConfigurator gemm.csv of the same GPU (GEMMs timed under CUDA "
       "graphs): the GEMMs' eager dispatch gap becomes the median of eager minus graph times over "
       "the shapes both measured, instead of the intercept of time over bytes")
      ("all-reduce", po::value<std::string>(),
       "a Vidur network all_reduce.csv of the same GPU: all-reduce tables for TP 2/4/8; "
       "aiconfigurator: a custom_allreduce.csv when --dir has none")
      ("measured-on", po::value<std::string>()->default_value(""),
       "when (or at which source version) the measurements were made, as the source says; "
       "recorded as provenance.date_utc (required, except for llmservingsim, whose meta.yaml has "
       "profiled_at)")
      ("interpolation", po::value<std::string>()->default_value("auto"),
       "inside measured grids: linear, log-log, or auto (the one with the smaller median held-out "
       "error on the source's own grid points)")
      ("out", po::value<std::string>()->required(), "the profile JSON to write (atomically)");
}

// The import's settings (command line, measured-on, interpolation), checked;
// throws UsageError on a missing --measured-on or a bad --interpolation.
ImportSettings ImportSettingsFrom(const po::variables_map& values, const std::string& from, int argc,
                                  const char* const* argv) {
  ImportSettings settings;
  settings.command = CommandLine(argc, argv);
  settings.measured_on = values["measured-on"].as<std::string>();
  if (settings.measured_on.empty() && from != "llmservingsim" && from != "aiconfigurator" &&
      from != "efimsim-kernels") {
    throw UsageError("the option '--measured-on' is required but missing");
  }
  settings.interpolation = values["interpolation"].as<std::string>();
  if (values.count("dispatch-gap-from")) {
    if (from != "pytorch-reference") throw UsageError("--dispatch-gap-from: only for --from pytorch-reference");
    settings.dispatch_gap_from = LoadGraphGemmTimings(values["dispatch-gap-from"].as<std::string>());
  }
  if (settings.interpolation != "auto" && settings.interpolation != "linear" &&
      settings.interpolation != "log-log") {
    throw UsageError("--interpolation: expected auto, linear or log-log, got '" +
                     settings.interpolation + "'");
  }
  return settings;
}

// Writes an imported profile to --out whole, unless a signal came during
// the import (its readers are not polled): then Interrupted, nothing written.
void WriteImportedProfile(const std::string& out, const std::string& json) {
  ThrowIfInterrupted();
  WriteFileAtomically(out, json);
}

// --from pytorch-reference: the profile from the ops JSON runs, with
// elementwise rates from a Vidur mlp.csv when given.
KernelProfile ImportFromReference(const po::variables_map& values, const ModelSpec& model,
                                  const GpuSpec& gpu, const std::optional<VidurAllReduceTable>& all_reduce,
                                  const ImportSettings& settings, ImportReport& report) {
  if (!values.count("run")) throw UsageError("--run: give at least one ops JSON file");
  if (values.count("mlp")) throw UsageError("--mlp: only for --from vidur");
  std::vector<ReferenceOps> runs;
  for (const std::string& path : values["run"].as<std::vector<std::string>>()) {
    ThrowIfInterrupted();
    runs.push_back(LoadReferenceOps(path));
  }
  std::optional<ElementwiseRates> rates;
  if (values.count("elementwise-rates-from")) {
    rates = ElementwiseRatesFromVidur(LoadVidurMlpCsv(values["elementwise-rates-from"].as<std::string>()));
    if (values.count("elementwise-rates-carried-by")) {
      rates = CarryElementwiseRates(*rates, LoadReferenceOps(values["elementwise-rates-carried-by"].as<std::string>()),
                                    runs);
      std::fprintf(stderr, "elementwise rates %s\n", rates->carried.c_str());
    }
    std::fprintf(stderr, "elementwise rates from %s: %.2f TB/s, %.2f us per small kernel\n",
                 rates->origin.c_str(), rates->tbps, rates->floor_us);
  }
  return ImportReferenceProfile(runs, model, gpu, rates, all_reduce, settings, report);
}

// --from vidur: the profile from mlp.csv (and attention.csv) given as files
// or as a folder.
KernelProfile ImportFromVidur(const po::variables_map& values, const ModelSpec& model,
                              const GpuSpec& gpu, const std::optional<VidurAllReduceTable>& all_reduce,
                              const ImportSettings& settings, ImportReport& report) {
  if (values.count("run") || values.count("elementwise-rates-from") || values.count("elementwise-rates-carried-by")) {
    throw UsageError("--run and --elementwise-rates-from/-carried-by are only for --from pytorch-reference");
  }
  std::string mlp_path = values.count("mlp") ? values["mlp"].as<std::string>() : "";
  std::string attention_path = values.count("attention") ? values["attention"].as<std::string>() : "";
  if (values.count("dir")) {
    if (!mlp_path.empty() || !attention_path.empty()) {
      throw UsageError("--dir: give either --dir or --mlp/--attention");
    }
    const std::string dir = values["dir"].as<std::string>();
    mlp_path = dir + "/mlp.csv";
    if (std::filesystem::exists(dir + "/attention.csv")) attention_path = dir + "/attention.csv";
  }
  if (mlp_path.empty()) throw UsageError("--mlp: give Vidur's mlp.csv (or --dir)");
  std::optional<VidurAttentionTable> attention;
  if (!attention_path.empty()) attention = LoadVidurAttentionCsv(attention_path);
  return ImportVidurProfile(LoadVidurMlpCsv(mlp_path), model, gpu, attention, all_reduce, settings,
                            report);
}

// --from llmservingsim: the profile from the bundle folder (--dir only).
KernelProfile ImportFromLlmServingSim(const po::variables_map& values, const ModelSpec& model,
                                      const GpuSpec& gpu, const ImportSettings& settings,
                                      ImportReport& report) {
  if (values.count("run") || values.count("mlp") || values.count("attention") ||
      values.count("elementwise-rates-from") || values.count("all-reduce")) {
    throw UsageError("--from llmservingsim takes --dir only (the bundle folder)");
  }
  if (!values.count("dir")) throw UsageError("--dir: give the LLMServingSim bundle folder");
  return ImportLlmServingSimProfile(values["dir"].as<std::string>(), model, gpu, settings, report);
}

// --from aiconfigurator: a shape profile (no model), with the shape rule's
// leave-one-out study on stderr.
int ImportFromAiConfigurator(const po::variables_map& values, const GpuSpec& gpu, int argc,
                             const char* const* argv) {
  if (values.count("model") || values.count("run") || values.count("mlp") || values.count("attention") ||
      values.count("elementwise-rates-from")) {
    throw UsageError("--from aiconfigurator takes --dir (and --systems, --all-reduce) only: its profile is "
                     "keyed by shape and prices every dense model");
  }
  if (!values.count("dir")) throw UsageError("--dir: give the AIConfigurator <system>/<framework>-<version>/ folder");
  AiConfiguratorImport import;
  import.dir = values["dir"].as<std::string>();
  if (values.count("systems")) import.systems_csv = values["systems"].as<std::string>();
  if (values.count("all-reduce")) import.all_reduce_csv = values["all-reduce"].as<std::string>();
  import.command = CommandLine(argc, argv);
  std::vector<std::string> notes;
  const ShapeProfile profile = ImportAiConfigurator(import, gpu, notes);
  for (const std::string& note : notes) std::fprintf(stderr, "%s\n", note.c_str());
  std::fprintf(stderr, "shape rule, leave-one-out (each measured shape predicted from the others):\n");
  std::fprintf(stderr, "%-22s %7s %8s %9s %7s\n", "table", "shapes", "points", "median%", "p90%");
  for (const ShapeRuleStudy& s : StudyShapeRule(profile)) {
    std::fprintf(stderr, "%-22s %7lld %8lld %9.1f %7.1f\n", s.table.c_str(), static_cast<long long>(s.shapes),
                 static_cast<long long>(s.points), 100 * s.median, 100 * s.p90);
  }
  const std::string out = values["out"].as<std::string>();
  WriteImportedProfile(out, ShapeProfileJson(profile));
  std::fprintf(stderr, "wrote %s (%s, %s kernels)\n", out.c_str(), profile.gpu.c_str(), profile.engine.c_str());
  return 0;
}

// --from llmservingsim --shapes: a shape profile from bundles of models
// profiled with overridden shapes.
int ImportLlmServingSimShapeProfile(const po::variables_map& values, const GpuSpec& gpu,
                                    const ImportSettings& settings) {
  if (values.count("model") || values.count("dir")) {
    throw UsageError("--shapes: give --bundle folders (no --model, no --dir): the bundles' shapes are the keys");
  }
  if (!values.count("bundle")) throw UsageError("--bundle: give at least one LLMServingSim bundle folder");
  ImportReport report;
  const ShapeProfile profile =
      ImportLlmServingSimShapes(values["bundle"].as<std::vector<std::string>>(), gpu, settings, report);
  for (const std::string& note : report.notes) std::fprintf(stderr, "%s\n", note.c_str());
  const std::string out = values["out"].as<std::string>();
  WriteImportedProfile(out, ShapeProfileJson(profile));
  std::fprintf(stderr, "wrote %s (%s, %s kernels, %zu GEMM shapes)\n", out.c_str(), profile.gpu.c_str(),
               profile.engine.c_str(), profile.gemm.size());
  return 0;
}

// --from efimsim-kernels: efimsim-calibrate's own profile, read, checked
// against --model and --gpu, and written back as it is (its provenance
// names the commit and GPU it was measured on).
KernelProfile ImportFromEfimsimKernels(const po::variables_map& values, const ModelSpec& model,
                                       const GpuSpec& gpu) {
  if (values.count("run") || values.count("mlp") || values.count("attention") || values.count("dir") ||
      values.count("elementwise-rates-from") || values.count("all-reduce")) {
    throw UsageError("--from efimsim-kernels takes --file only (efimsim-calibrate's profile)");
  }
  if (!values.count("file")) throw UsageError("--file: give the profile efimsim-calibrate wrote");
  const std::string path = values["file"].as<std::string>();
  KernelProfile profile = LoadKernelProfile(path);
  if (profile.source) throw InputError(path, 0, "source", "an imported profile, not efimsim-calibrate's");
  if (profile.gpu != gpu.name) {
    throw InputError(path, 0, "gpu", "measured on \"" + profile.gpu + "\", not \"" + gpu.name + "\"");
  }
  if (profile.model != model.name) {
    throw InputError(path, 0, "model", "for \"" + profile.model + "\", not \"" + model.name + "\"");
  }
  // Usable as it is: the latency model checks every table's shape.
  ProfileLatencyModel check(model, gpu, CpuOverheadConfig{}, profile);
  std::fprintf(stderr, "efimsim-calibrate profile of %s on %s (%s, commit %s): shapes checked\n",
               model.name.c_str(), gpu.name.c_str(), profile.provenance.gpu_name.c_str(),
               profile.provenance.git_commit.c_str());
  return profile;
}

// Prints the import's notes, held-out interpolation study and choice on stderr.
void PrintImportReport(const ImportReport& report) {
  for (const std::string& note : report.notes) std::fprintf(stderr, "%s\n", note.c_str());
  std::fprintf(stderr, "held-out interpolation error (each interior grid point from its neighbours):\n");
  std::fprintf(stderr, "%-10s %7s %14s %14s %14s %14s %12s\n", "table", "points", "linear_median%",
               "linear_p90%", "loglog_median%", "loglog_p90%", "run_to_run%");
  for (const InterpolationErrors& e : report.interpolation) {
    std::fprintf(stderr, "%-10s %7lld %14.1f %14.1f %14.1f %14.1f %12.1f\n", e.table.c_str(),
                 static_cast<long long>(e.points), 100 * e.linear_median, 100 * e.linear_p90,
                 100 * e.loglog_median, 100 * e.loglog_p90, 100 * e.run_to_run_median);
  }
  std::fprintf(stderr, "interpolation: %s\n", InterpolationName(report.chosen));
}

int RunImport(int argc, const char* const* argv) {
  po::options_description general("Profile import");
  AddImportOptions(general);
  po::variables_map values;
  if (!ParseCommandLine("profile import",
                        "Writes a kernel profile for a named model and GPU from GPU measurements,\n"
                        "or (--from aiconfigurator, or llmservingsim --shapes) a shape profile that "
                        "prices every model.\nShapes are checked, never stretched: a model-keyed "
                        "source whose shapes are not the model's is refused.\nTables the source "
                        "lacks stay missing (the roofline prices them, flagged). The profile names\n"
                        "its files with their SHA-256 and the measuring stack. Prints the held-out "
                        "study\n(interpolation, or the shape rule's leave-one-out) and what was "
                        "done on stderr.",
                        general, argc, argv, values)) {
    return 0;
  }
  CheckOutputFileDir("--out", values["out"].as<std::string>());  // before the import's work
  const std::string from = values["from"].as<std::string>();
  const GpuSpec gpu = LoadGpuSpec(values["gpu"].as<std::string>());
  if (from == "aiconfigurator") return ImportFromAiConfigurator(values, gpu, argc, argv);
  if (from == "llmservingsim" && values["shapes"].as<bool>()) {
    return ImportLlmServingSimShapeProfile(values, gpu, ImportSettingsFrom(values, from, argc, argv));
  }
  if (values["shapes"].as<bool>() || values.count("bundle")) {
    throw UsageError("--shapes and --bundle are for --from llmservingsim only");
  }
  if (!values.count("model")) throw UsageError("the option '--model' is required but missing");
  const ModelSpec model = LoadModelSpec(values["model"].as<std::string>());
  const ImportSettings settings = ImportSettingsFrom(values, from, argc, argv);
  std::optional<VidurAllReduceTable> all_reduce;
  if (values.count("all-reduce")) all_reduce = LoadVidurAllReduceCsv(values["all-reduce"].as<std::string>());

  ImportReport report;
  KernelProfile profile;
  if (from == "pytorch-reference") {
    profile = ImportFromReference(values, model, gpu, all_reduce, settings, report);
  } else if (from == "vidur") {
    profile = ImportFromVidur(values, model, gpu, all_reduce, settings, report);
  } else if (from == "llmservingsim") {
    profile = ImportFromLlmServingSim(values, model, gpu, settings, report);
  } else if (from == "efimsim-kernels") {
    profile = ImportFromEfimsimKernels(values, model, gpu);
    const std::string out = values["out"].as<std::string>();
    WriteImportedProfile(out, KernelProfileJson(profile));
    std::fprintf(stderr, "wrote %s (%s/%s)\n", out.c_str(), profile.gpu.c_str(), profile.model.c_str());
    return 0;
  } else {
    throw UsageError("--from: expected pytorch-reference, vidur, llmservingsim, aiconfigurator or efimsim-kernels, got '" +
                     from + "'");
  }

  PrintImportReport(report);
  const std::string out = values["out"].as<std::string>();
  WriteImportedProfile(out, KernelProfileJson(profile));
  std::fprintf(stderr, "wrote %s (%s/%s)\n", out.c_str(), profile.gpu.c_str(), profile.model.c_str());
  return 0;
}

}  // namespace

int RunProfileCommand(int argc, const char* const* argv) {
  const std::string sub = argc >= 2 ? argv[1] : "";
  if (sub == "import") return RunImport(argc - 1, argv + 1);
  if (sub.empty() || sub == "--help" || sub == "-h" || sub == "help") {
    std::cout << kProfileUsage;
    return sub.empty() ? 2 : 0;
  }
  throw UsageError("profile: unknown subcommand '" + sub + "' (subcommands: import)");
}

}  // namespace efimsim::cli
