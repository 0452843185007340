// efimsim merge: joins the outputs of sweep shards (--shard I/N) into one
// sweep: sweep.csv in grid order, byte-identical to the whole sweep's, and
// every shard's runs/<run-id>/ folders.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/app/interrupt.h"
#include "sim/base/output_dir.h"
#include "sim/app/staged_output_dir.h"
#include "sim/run/sweep_manifest.h"
#include "sim/run/sweep_table.h"
#include "sim/base/atomic_file.h"
#include "sim/base/errors.h"

namespace efimsim::cli {
namespace {

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open (is it a sweep output directory?)");
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// The manifest the shards share (as a whole sweep's: shard 0/1); InputError
// naming the first shard of another sweep (a different grid or options).
SweepManifest CheckOneSweep(const std::vector<std::string>& inputs) {
  SweepManifest first;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ThrowIfInterrupted();
    const std::string path = inputs[i] + "/sweep.json";
    const SweepManifest manifest = ParseSweepManifest(ReadWholeFile(path), path);
    if (i == 0) {
      first = manifest;
      continue;
    }
    const std::string difference = SweepManifestDifference(first, manifest);
    if (!difference.empty()) {
      throw InputError(path, 0, "", "a shard of another sweep than " + inputs.front() + " (" +
                                        difference + "); merge joins the shards of one sweep");
    }
  }
  first.shard = "0/1";
  return first;
}

// merge's options.
struct MergeCommandOptions {
  std::string out = "efimsim-sweep";
  bool no_runs = false;
  std::vector<std::string> inputs;
};

const CommandParamTable<MergeCommandOptions>& MergeParams() {
  using C = MergeCommandOptions;
  static const CommandParamTable<C> table = {
      {{"out", "", "output directory for the merged sweep.csv and runs/"}, &C::out},
      {{"no-runs", "", "write only sweep.csv; do not copy runs/<run-id>/ folders"}, &C::no_runs,
       {.is_switch = true}},
      {{"inputs", "", "the shards' output directories (also the positional arguments)"},
       &C::inputs, {.positional = -1}},
  };
  return table;
}

CommandRows MergeRows() {
  return OwnRows("merge",
                 "efimsim merge SHARD_DIR... --out DIR\n\nJoins the outputs of `efimsim sweep "
                 "--shard I/N` runs: DIR/sweep.csv holds every\nrun in grid order (identical to "
                 "running the grid whole) and DIR/runs/ every run's folder.\nFails if a run is "
                 "missing or appears twice.",
                 "Merge", MergeParams());
}

}  // namespace

std::vector<CommandRows> MergeCommandRows() { return {MergeRows()}; }

int RunMergeCommand(int argc, const char* const* argv) {
  po::variables_map values;
  MergeCommandOptions own;
  if (!ParseCommandRows(MergeRows(), MergeParams(), argc, argv, values, own)) return 0;
  if (own.inputs.empty()) throw UsageError("merge: give the shard output directories");
  const std::vector<std::string>& inputs = own.inputs;
  const SweepManifest manifest = CheckOneSweep(inputs);
  std::vector<std::string> contents, names;
  for (const std::string& dir : inputs) {
    ThrowIfInterrupted();
    names.push_back(dir + "/sweep.csv");
    contents.push_back(ReadWholeFile(names.back()));
  }
  const std::string merged = MergeSweepCsvs(contents, names);
  const std::string out_dir = OutputDirOption(own.out);
  StagedOutputDir staged(out_dir);  // written whole or not at all
  if (!own.no_runs) {
    namespace fs = std::filesystem;
    PrepareOutputDir(staged.Path("runs"));
    for (const std::string& dir : inputs) {
      const fs::path runs = fs::path(dir) / "runs";
      if (!fs::is_directory(runs)) continue;
      // Run by run, polling between them (a sweep may have thousands).
      std::error_code error;
      for (fs::directory_iterator run(runs, error), end; !error && run != end;
           run.increment(error)) {
        ThrowIfInterrupted();
        fs::copy(run->path(), fs::path(staged.Path("runs")) / run->path().filename(),
                 fs::copy_options::recursive | fs::copy_options::overwrite_existing, error);
      }
      if (error) {
        throw OutputError("merge: copying " + runs.string() + " to " + out_dir + "/runs: " +
                          error.message());
      }
    }
  }
  WriteFileAtomically(staged.Path("sweep.csv"), merged);
  WriteFileAtomically(staged.Path("sweep.json"), SweepManifestJson(manifest));
  staged.Commit();
  std::cout << "wrote " << out_dir << "/sweep.csv from " << inputs.size() << " shards\n";
  return 0;
}

}  // namespace efimsim::cli
