#pragma once
// efimsim profile check: the physics check (models/import/physics_check.h)
// of profile files, or of every built-in profile; and how profile import
// applies the same check to what it writes.

#include <string>

#include "models/import/physics_check.h"
#include "sim/app/command_rows.h"

namespace efimsim::cli {

CommandRows ProfileCheckRows();
// argv[0] is "check". Prints each profile's summary on stdout; returns 1
// when some profile has an error (an impossible row, a table below the
// GEMM floor), else 0.
int RunProfileCheck(int argc, const char* const* argv);

// profile import's --physics values: "enforce" (the default) or "flag".
// Prints the report on stderr; with errors under "enforce", throws
// InputError naming the profile, each group's worst row and the tables
// below the floor, so nothing is written; under "flag" the errors are
// printed as flags and the import goes on.
void ApplyImportPhysics(const PhysicsReport& report, const std::string& mode);

}  // namespace efimsim::cli
