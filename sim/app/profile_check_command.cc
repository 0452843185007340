// efimsim profile check [FILE...]: the physics check of kernel and shape
// profiles (models/import/physics_check.h); profile import's --physics.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "models/formats/kernel_profile.h"
#include "models/formats/shape_profile.h"
#include "models/formats/spec_catalog.h"
#include "sim/app/profile_check.h"
#include "sim/base/errors.h"

namespace efimsim::cli {
namespace {

struct ProfileCheckOptions {
  std::vector<std::string> files;
};

const CommandParamTable<ProfileCheckOptions>& ProfileCheckParams() {
  using C = ProfileCheckOptions;
  static const CommandParamTable<C> table = {
      {{"files", "",
        "kernel or shape profile files to check (also the positional arguments; default: every "
        "built-in profile, models/profiles and models/shape_profiles)"},
       &C::files, {.multitoken = true, .positional = -1}},
  };
  return table;
}

// The physics check of one profile file: a shape profile when the file
// says so ("kind": "efimsim-shape-profile"), else a model-keyed profile of
// its own model; both against the datasheet of the GPU it names.
PhysicsReport CheckFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().find("\"efimsim-shape-profile\"") != std::string::npos) {
    const ShapeProfile profile = ParseShapeProfile(text.str(), path);
    return CheckShapeProfilePhysics(profile, LoadGpuSpec(profile.gpu));
  }
  const KernelProfile profile = ParseKernelProfile(text.str(), path);
  return CheckKernelProfilePhysics(profile, LoadModelSpec(profile.model), LoadGpuSpec(profile.gpu));
}

}  // namespace

CommandRows ProfileCheckRows() {
  return OwnRows("profile check",
                 "Checks kernel and shape profiles against their GPU's datasheet: every measured point\n"
                 "implies FLOP/s and bytes/s. A point above the dense peak of its dtype, or whose bytes\n"
                 "beyond the L2 exceed the memory bandwidth, is impossible (x1.10 tolerance); a bf16\n"
                 "GEMM table whose large rows never reach 45% of the peak is below the GEMM floor\n"
                 "(keyed at smaller shapes than were timed). Both are errors (exit 1). Rows above the\n"
                 "bandwidth within the L2, and large rows below 5% of both ceilings, are flagged.\n"
                 "Prints each profile's summary (docs/accuracy.md has the rules).\n"
                 "usage: efimsim profile check [FILE...]",
                 "Profile check", ProfileCheckParams());
}

int RunProfileCheck(int argc, const char* const* argv) {
  po::variables_map values;
  ProfileCheckOptions o;
  if (!ParseCommandRows(ProfileCheckRows(), ProfileCheckParams(), argc, argv, values, o)) return 0;
  std::vector<PhysicsReport> reports;
  if (o.files.empty()) {
    reports = CheckBuiltinProfilesPhysics();
  } else {
    for (const std::string& path : o.files) reports.push_back(CheckFile(path));
  }
  int64_t rows = 0, errors = 0, flags = 0, failed = 0;
  for (const PhysicsReport& report : reports) {
    std::cout << PhysicsReportText(report);
    rows += report.Rows();
    errors += report.Errors();
    flags += report.Flags();
    if (report.Errors() > 0) {
      ++failed;
      std::cerr << report.origin << ": physics check failed:\n" << PhysicsErrorText(report);
    }
  }
  std::printf("%zu profiles, %lld rows: %lld errors in %lld profiles, %lld rows flagged\n", reports.size(),
              static_cast<long long>(rows), static_cast<long long>(errors), static_cast<long long>(failed),
              static_cast<long long>(flags));
  return failed > 0 ? 1 : 0;
}

void ApplyImportPhysics(const PhysicsReport& report, const std::string& mode) {
  std::fputs(PhysicsReportText(report).c_str(), stderr);
  if (report.Errors() == 0) return;
  const std::string errors = PhysicsErrorText(report);
  if (mode == "flag") {
    std::fprintf(stderr, "physics check: flagged, not refused (--physics flag):\n%s", errors.c_str());
    return;
  }
  throw InputError(report.origin, 0, "",
                   "physics check failed (nothing written; --physics flag imports it flagged):\n" +
                       errors.substr(0, errors.size() - 1));  // the message's last newline is the caller's
}

}  // namespace efimsim::cli
