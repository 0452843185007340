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
#include "sim/app/profile_check.h"
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
    "           vidur), with provenance and the held-out studies\n"
    "  check    the physics check of profile files, or of every built-in profile: measured\n"
    "           points against the GPU's datasheet ceilings\n";

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

// profile import's options; --model and --gpu are the run's rows.
struct ProfileImportOptions {
  std::string from;
  std::string model;
  std::string gpu;
  std::vector<std::string> run;
  std::string mlp;
  std::string attention;
  std::string file;
  std::string dir;
  bool shapes = false;
  std::vector<std::string> bundle;
  std::string systems;
  std::string elementwise_rates_from;
  std::string elementwise_rates_carried_by;
  std::string dispatch_gap_from;
  std::string all_reduce;
  std::string measured_on;
  std::string interpolation = "auto";
  std::string physics = "enforce";
  std::string out;
};

// The rows naming the source and its files.
void AddSourceRows(CommandParamTable<ProfileImportOptions>& table) {
  using C = ProfileImportOptions;
  table.insert(table.end(), {
      {{"from", "",
        "the source's kind: pytorch-reference (op timings of ../shared/data/gpu/"
        "h100-pytorch-reference/<model>.ops.runN.json), vidur (Vidur's compute/<gpu>/<model>/"
        "mlp.csv) llmservingsim (LLMServingSim's profiler/perf/<HW>/<model>/<variant>/ folder, "
        "--dir) or aiconfigurator (NVIDIA AIConfigurator's <system>/<framework>-<version>/ CSV "
        "folder, --dir: a shape-keyed profile for every dense model, no --model), or "
        "efimsim-kernels (a profile efimsim-calibrate measured, --file)"},
       &C::from, {.required = true}},
      {Noted(RunParamInfo("model"), "not with aiconfigurator"), &C::model},
      {RunParamInfo("gpu"), &C::gpu, {.required = true}},
      {{"run", "",
        "pytorch-reference: an ops JSON file; repeat for several runs (combined by the minimum "
        "of their medians)"},
       &C::run},
      {{"mlp", "", "vidur: the mlp.csv file"}, &C::mlp},
      {{"attention", "",
        "vidur: the attention.csv file, when the source has one (one backend, TP=1 rows used)"},
       &C::attention},
      {{"file", "",
        "efimsim-kernels: a profile efimsim-calibrate wrote on the GPU (kept gzipped in "
        "kernels/calibrate/runs/<run>/<model>.json.gz), checked and committed as it is"},
       &C::file},
      {{"dir", "",
        "vidur: a profiling folder (compute/<gpu>/<model>/): its mlp.csv, and its attention.csv "
        "when present; llmservingsim: the bundle folder with meta.yaml and tp1/; aiconfigurator: "
        "the <system>/<framework>-<version>/ folder with gemm.csv, context_attention.csv, "
        "generation_attention.csv (and custom_allreduce.csv)"},
       &C::dir},
      {{"shapes", "",
        "llmservingsim: a shape profile (every dense model) from bundles whose model was "
        "profiled with overridden shapes (--bundle, repeatable; no --model)"},
       &C::shapes, {.is_switch = true}},
      {{"bundle", "",
        "llmservingsim --shapes: a bundle folder (meta.yaml, tp1/); repeat to merge several"},
       &C::bundle},
      {{"systems", "", "aiconfigurator: its systems.csv (default: two folders above --dir)"},
       &C::systems},
  });
}

// The rows of the measurements' extras, provenance, interpolation and output.
void AddExtraRows(CommandParamTable<ProfileImportOptions>& table) {
  using C = ProfileImportOptions;
  table.insert(table.end(), {
      {{"elementwise-rates-from", "",
        "pytorch-reference: a Vidur mlp.csv of the same GPU whose measured norm, RoPE, "
        "activation and add kernels give the bandwidth and small-kernel time used to model the "
        "reference's unfused elementwise ops; without it the profile has no elementwise tables "
        "(roofline)"},
       &C::elementwise_rates_from},
      {{"elementwise-rates-carried-by", "",
        "pytorch-reference: when --elementwise-rates-from is another GPU's Vidur mlp.csv, a "
        "reference ops JSON measured on that GPU: the rates' bandwidth is scaled by the two "
        "runs' measured copy bandwidths (the floor kept)"},
       &C::elementwise_rates_carried_by},
      {{"dispatch-gap-from", "",
        "pytorch-reference: an AIConfigurator gemm.csv of the same GPU (GEMMs timed under CUDA "
        "graphs): the GEMMs' eager dispatch gap becomes the median of eager minus graph times "
        "over the shapes both measured, instead of the intercept of time over bytes"},
       &C::dispatch_gap_from},
      {{"all-reduce", "",
        "a Vidur network all_reduce.csv of the same GPU: all-reduce tables for TP 2/4/8; "
        "aiconfigurator: a custom_allreduce.csv when --dir has none"},
       &C::all_reduce},
      {{"measured-on", "",
        "when (or at which source version) the measurements were made, as the source says; "
        "recorded as provenance.date_utc (required, except for llmservingsim, whose meta.yaml "
        "has profiled_at)"},
       &C::measured_on},
      {{"interpolation", "",
        "inside measured grids: linear, log-log, or auto (the one with the smaller median "
        "held-out error on the source's own grid points)"},
       &C::interpolation},
      {Choice("physics",
              "what the physics check of the imported tables does with an error (a point above the "
              "GPU's datasheet ceilings, a GEMM table below the floor; see efimsim profile check "
              "--help): enforce refuses the import, flag writes the profile and prints them",
              {"enforce", "flag"}),
       &C::physics},
      {{"out", "", "the profile JSON to write (atomically)"}, &C::out, {.required = true}},
  });
}

const CommandParamTable<ProfileImportOptions>& ProfileImportParams() {
  static const CommandParamTable<ProfileImportOptions> table = [] {
    CommandParamTable<ProfileImportOptions> rows;
    AddSourceRows(rows);
    AddExtraRows(rows);
    return rows;
  }();
  return table;
}

CommandRows ProfileImportRows() {
  return OwnRows("profile import",
                 "Writes a kernel profile for a named model and GPU from GPU measurements,\n"
                 "or (--from aiconfigurator, or llmservingsim --shapes) a shape profile that "
                 "prices every model.\nShapes are checked, never stretched: a model-keyed "
                 "source whose shapes are not the model's is refused.\nTables the source lacks "
                 "stay missing (the roofline prices them, flagged). The profile names\nits "
                 "files with their SHA-256 and the measuring stack. Prints the held-out "
                 "study\n(interpolation, or the shape rule's leave-one-out) and what was done "
                 "on stderr.",
                 "Profile import", ProfileImportParams());
}

// The import's settings (command line, measured-on, interpolation), checked;
// throws UsageError on a missing --measured-on or a bad --interpolation.
ImportSettings ImportSettingsFrom(const ProfileImportOptions& o, const std::string& from, int argc,
                                  const char* const* argv) {
  ImportSettings settings;
  settings.command = CommandLine(argc, argv);
  settings.measured_on = o.measured_on;
  if (settings.measured_on.empty() && from != "llmservingsim" && from != "aiconfigurator" &&
      from != "efimsim-kernels") {
    throw UsageError("the option '--measured-on' is required but missing");
  }
  settings.interpolation = o.interpolation;
  if (!o.dispatch_gap_from.empty()) {
    if (from != "pytorch-reference") throw UsageError("--dispatch-gap-from: only for --from pytorch-reference");
    settings.dispatch_gap_from = LoadGraphGemmTimings(o.dispatch_gap_from);
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

// What an import read, naming its profile in the physics check's messages.
std::string ImportOrigin(const ProfileImportOptions& o) {
  for (const std::string* path : {&o.dir, &o.file, &o.mlp}) {
    if (!path->empty()) return *path;
  }
  if (!o.run.empty()) return o.run.front();
  if (!o.bundle.empty()) return o.bundle.front();
  return o.out;
}

// The physics check of an imported shape profile, before it is written.
void CheckImportedPhysics(const ProfileImportOptions& o, const ShapeProfile& profile, const GpuSpec& gpu) {
  PhysicsReport report = CheckShapeProfilePhysics(profile, gpu);
  report.origin = ImportOrigin(o);
  ApplyImportPhysics(report, o.physics);
}

// The same for a model-keyed profile of `model`.
void CheckImportedPhysics(const ProfileImportOptions& o, const KernelProfile& profile, const ModelSpec& model,
                          const GpuSpec& gpu) {
  PhysicsReport report = CheckKernelProfilePhysics(profile, model, gpu);
  report.origin = ImportOrigin(o);
  ApplyImportPhysics(report, o.physics);
}

// --from pytorch-reference: the profile from the ops JSON runs, with
// elementwise rates from a Vidur mlp.csv when given.
KernelProfile ImportFromReference(const ProfileImportOptions& o, const ModelSpec& model,
                                  const GpuSpec& gpu, const std::optional<VidurAllReduceTable>& all_reduce,
                                  const ImportSettings& settings, ImportReport& report) {
  if (o.run.empty()) throw UsageError("--run: give at least one ops JSON file");
  if (!o.mlp.empty()) throw UsageError("--mlp: only for --from vidur");
  std::vector<ReferenceOps> runs;
  for (const std::string& path : o.run) {
    ThrowIfInterrupted();
    runs.push_back(LoadReferenceOps(path));
  }
  std::optional<ElementwiseRates> rates;
  if (!o.elementwise_rates_from.empty()) {
    rates = ElementwiseRatesFromVidur(LoadVidurMlpCsv(o.elementwise_rates_from));
    if (!o.elementwise_rates_carried_by.empty()) {
      rates = CarryElementwiseRates(*rates, LoadReferenceOps(o.elementwise_rates_carried_by),
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
KernelProfile ImportFromVidur(const ProfileImportOptions& o, const ModelSpec& model,
                              const GpuSpec& gpu, const std::optional<VidurAllReduceTable>& all_reduce,
                              const ImportSettings& settings, ImportReport& report) {
  if (!o.run.empty() || !o.elementwise_rates_from.empty() || !o.elementwise_rates_carried_by.empty()) {
    throw UsageError("--run and --elementwise-rates-from/-carried-by are only for --from pytorch-reference");
  }
  std::string mlp_path = !o.mlp.empty() ? o.mlp : "";
  std::string attention_path = !o.attention.empty() ? o.attention : "";
  if (!o.dir.empty()) {
    if (!mlp_path.empty() || !attention_path.empty()) {
      throw UsageError("--dir: give either --dir or --mlp/--attention");
    }
    const std::string dir = o.dir;
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
KernelProfile ImportFromLlmServingSim(const ProfileImportOptions& o, const ModelSpec& model,
                                      const GpuSpec& gpu, const ImportSettings& settings,
                                      ImportReport& report) {
  if (!o.run.empty() || !o.mlp.empty() || !o.attention.empty() ||
      !o.elementwise_rates_from.empty() || !o.all_reduce.empty()) {
    throw UsageError("--from llmservingsim takes --dir only (the bundle folder)");
  }
  if (o.dir.empty()) throw UsageError("--dir: give the LLMServingSim bundle folder");
  return ImportLlmServingSimProfile(o.dir, model, gpu, settings, report);
}

// --from aiconfigurator: a shape profile (no model), with the shape rule's
// leave-one-out study on stderr.
int ImportFromAiConfigurator(const ProfileImportOptions& o, const GpuSpec& gpu, int argc,
                             const char* const* argv) {
  if (!o.model.empty() || !o.run.empty() || !o.mlp.empty() || !o.attention.empty() ||
      !o.elementwise_rates_from.empty()) {
    throw UsageError("--from aiconfigurator takes --dir (and --systems, --all-reduce) only: its profile is "
                     "keyed by shape and prices every dense model");
  }
  if (o.dir.empty()) throw UsageError("--dir: give the AIConfigurator <system>/<framework>-<version>/ folder");
  AiConfiguratorImport import;
  import.dir = o.dir;
  if (!o.systems.empty()) import.systems_csv = o.systems;
  if (!o.all_reduce.empty()) import.all_reduce_csv = o.all_reduce;
  import.command = CommandLine(argc, argv);
  std::vector<std::string> notes;
  const ShapeProfile profile = ImportAiConfigurator(import, gpu, notes);
  for (const std::string& note : notes) std::fprintf(stderr, "%s\n", note.c_str());
  std::fprintf(stderr, "shape rule, leave-one-out (each measured shape predicted from the others):\n");
  std::fprintf(stderr, "%-26s %7s %8s %9s %7s\n", "table", "shapes", "points", "median%", "p90%");
  for (const ShapeRuleStudy& s : StudyShapeRule(profile)) {
    std::fprintf(stderr, "%-26s %7lld %8lld %9.1f %7.1f\n", s.table.c_str(), static_cast<long long>(s.shapes),
                 static_cast<long long>(s.points), 100 * s.median, 100 * s.p90);
  }
  CheckImportedPhysics(o, profile, gpu);
  const std::string out = o.out;
  WriteImportedProfile(out, ShapeProfileJson(profile));
  std::fprintf(stderr, "wrote %s (%s, %s kernels)\n", out.c_str(), profile.gpu.c_str(), profile.engine.c_str());
  return 0;
}

// --from llmservingsim --shapes: a shape profile from bundles of models
// profiled with overridden shapes.
int ImportLlmServingSimShapeProfile(const ProfileImportOptions& o, const GpuSpec& gpu,
                                    const ImportSettings& settings) {
  if (!o.model.empty() || !o.dir.empty()) {
    throw UsageError("--shapes: give --bundle folders (no --model, no --dir): the bundles' shapes are the keys");
  }
  if (o.bundle.empty()) throw UsageError("--bundle: give at least one LLMServingSim bundle folder");
  ImportReport report;
  const ShapeProfile profile =
      ImportLlmServingSimShapes(o.bundle, gpu, settings, report);
  for (const std::string& note : report.notes) std::fprintf(stderr, "%s\n", note.c_str());
  CheckImportedPhysics(o, profile, gpu);
  const std::string out = o.out;
  WriteImportedProfile(out, ShapeProfileJson(profile));
  std::fprintf(stderr, "wrote %s (%s, %s kernels, %zu GEMM shapes)\n", out.c_str(), profile.gpu.c_str(),
               profile.engine.c_str(), profile.gemm.size());
  return 0;
}

// --from efimsim-kernels: efimsim-calibrate's own profile, read, checked
// against --model and --gpu, and written back as it is (its provenance
// names the commit and GPU it was measured on).
KernelProfile ImportFromEfimsimKernels(const ProfileImportOptions& o, const ModelSpec& model,
                                       const GpuSpec& gpu) {
  if (!o.run.empty() || !o.mlp.empty() || !o.attention.empty() || !o.dir.empty() ||
      !o.elementwise_rates_from.empty() || !o.all_reduce.empty()) {
    throw UsageError("--from efimsim-kernels takes --file only (efimsim-calibrate's profile)");
  }
  if (o.file.empty()) throw UsageError("--file: give the profile efimsim-calibrate wrote");
  const std::string path = o.file;
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
  po::variables_map values;
  ProfileImportOptions o;
  if (!ParseCommandRows(ProfileImportRows(), ProfileImportParams(), argc, argv, values, o)) {
    return 0;
  }
  CheckOutputFileDir("--out", o.out);  // before the import's work
  const std::string from = o.from;
  const GpuSpec gpu = LoadGpuSpec(o.gpu);
  if (from == "aiconfigurator") return ImportFromAiConfigurator(o, gpu, argc, argv);
  if (from == "llmservingsim" && o.shapes) {
    return ImportLlmServingSimShapeProfile(o, gpu, ImportSettingsFrom(o, from, argc, argv));
  }
  if (o.shapes || !o.bundle.empty()) {
    throw UsageError("--shapes and --bundle are for --from llmservingsim only");
  }
  if (o.model.empty()) throw UsageError("the option '--model' is required but missing");
  const ModelSpec model = LoadModelSpec(o.model);
  const ImportSettings settings = ImportSettingsFrom(o, from, argc, argv);
  std::optional<VidurAllReduceTable> all_reduce;
  if (!o.all_reduce.empty()) all_reduce = LoadVidurAllReduceCsv(o.all_reduce);

  ImportReport report;
  KernelProfile profile;
  if (from == "pytorch-reference") {
    profile = ImportFromReference(o, model, gpu, all_reduce, settings, report);
  } else if (from == "vidur") {
    profile = ImportFromVidur(o, model, gpu, all_reduce, settings, report);
  } else if (from == "llmservingsim") {
    profile = ImportFromLlmServingSim(o, model, gpu, settings, report);
  } else if (from == "efimsim-kernels") {
    profile = ImportFromEfimsimKernels(o, model, gpu);
    CheckImportedPhysics(o, profile, model, gpu);
    const std::string out = o.out;
    WriteImportedProfile(out, KernelProfileJson(profile));
    std::fprintf(stderr, "wrote %s (%s/%s)\n", out.c_str(), profile.gpu.c_str(), profile.model.c_str());
    return 0;
  } else {
    throw UsageError("--from: expected pytorch-reference, vidur, llmservingsim, aiconfigurator or efimsim-kernels, got '" +
                     from + "'");
  }

  PrintImportReport(report);
  CheckImportedPhysics(o, profile, model, gpu);
  const std::string out = o.out;
  WriteImportedProfile(out, KernelProfileJson(profile));
  std::fprintf(stderr, "wrote %s (%s/%s)\n", out.c_str(), profile.gpu.c_str(), profile.model.c_str());
  return 0;
}

}  // namespace

std::vector<CommandRows> ProfileImportCommandRows() { return {ProfileImportRows()}; }
std::vector<CommandRows> ProfileCheckCommandRows() { return {ProfileCheckRows()}; }

int RunProfileCommand(int argc, const char* const* argv) {
  const std::string sub = argc >= 2 ? argv[1] : "";
  if (sub == "import") return RunImport(argc - 1, argv + 1);
  if (sub == "check") return RunProfileCheck(argc - 1, argv + 1);
  if (sub.empty() || sub == "--help" || sub == "-h" || sub == "help") {
    std::cout << kProfileUsage;
    return sub.empty() ? 2 : 0;
  }
  throw UsageError("profile: unknown subcommand '" + sub + "' (subcommands: import, check)");
}

}  // namespace efimsim::cli
