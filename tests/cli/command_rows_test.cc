// Every command's options are documented rows (sim/app/command_rows.h):
// no option is hand-written, a command's row for a run option keeps the run
// row's text, --help prints the rows, and the row kinds (switch, list,
// required, positional, retired spelling) parse as documented.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/app/cli_options.h"
#include "sim/app/command_rows.h"
#include "sim/app/command_table.h"
#include "sim/app/commands.h"
#include "sim/base/errors.h"
#include "sim/run/run_params.h"

namespace efimsim::cli {
namespace {

// The command's own row named `name`, else the run's, or null.
const ParamInfo* FindRow(const CommandRows& rows, const std::string& name) {
  for (const ParamInfo& info : rows.own_rows) {
    if (info.name == name) return &info;
  }
  const RunParam* run = FindRunParam(name);
  return run == nullptr ? nullptr : run->info;
}

std::vector<CommandRows> AllCommandRows() {
  std::vector<CommandRows> all;
  for (const CommandEntry& entry : Commands()) {
    EXPECT_NE(entry.rows, nullptr) << entry.name << " has no rows";
    if (entry.rows == nullptr) continue;
    for (CommandRows& rows : entry.rows()) all.push_back(std::move(rows));
  }
  return all;
}

TEST(CommandRowsTest, EveryOptionOfEveryCommandIsARow) {
  for (const CommandRows& rows : AllCommandRows()) {
    for (const auto& option : rows.visible.options()) {
      const std::string name = option->long_name();
      const ParamInfo* row = FindRow(rows, name);
      ASSERT_NE(row, nullptr) << rows.command << " --" << name << ": not a row";
      // The help is the row's (a run row's may add its scope after it).
      EXPECT_EQ(option->description().rfind(ParamHelpText(*row), 0), 0u)
          << rows.command << " --" << name << ": '" << option->description() << "'";
    }
  }
}

TEST(CommandRowsTest, CommandRowsOfRunOptionsKeepTheRunRowsText) {
  for (const CommandRows& rows : AllCommandRows()) {
    for (const ParamInfo& own : rows.own_rows) {
      const RunParam* run = FindRunParam(own.name);
      if (run == nullptr) continue;
      EXPECT_EQ(own.help.rfind(run->info->help, 0), 0u)
          << rows.command << " --" << own.name << " drifted from the run's row: " << own.help;
      EXPECT_EQ(own.unit, run->info->unit) << rows.command << " --" << own.name;
    }
  }
}

TEST(CommandRowsTest, JsonIsASwitchEverywhere) {
  int commands_with_json = 0;
  for (const CommandRows& rows : AllCommandRows()) {
    const auto* json = rows.visible.find_nothrow("json", false);
    if (json == nullptr) continue;
    ++commands_with_json;
    EXPECT_EQ(json->semantic()->max_tokens(), 0u) << rows.command << " --json takes a value";
  }
  EXPECT_EQ(commands_with_json, 3);  // predict, validate-latency, tokenize
}

// A command's argv as main passes it: the command's words ("models
// import"), then `args`.
std::vector<const char*> Argv(const std::string& command, const std::vector<std::string>& args,
                              std::vector<std::string>& storage) {
  std::istringstream words(command);
  std::string word;
  storage.clear();
  while (words >> word) storage.push_back(word);
  for (const std::string& arg : args) storage.push_back(arg);
  std::vector<const char*> argv;
  for (const std::string& arg : storage) argv.push_back(arg.c_str());
  return argv;
}

// What `run` prints on standard output.
std::string Stdout(int (*run)(int, const char* const*), const std::vector<const char*>& argv) {
  std::ostringstream captured;
  std::streambuf* saved = std::cout.rdbuf(captured.rdbuf());
  run(static_cast<int>(argv.size()), argv.data());
  std::cout.rdbuf(saved);
  return captured.str();
}

TEST(CommandRowsTest, HelpPrintsTheRows) {
  for (const CommandEntry& entry : Commands()) {
    for (const CommandRows& rows : entry.rows()) {
      std::vector<std::string> storage;
      const std::vector<const char*> argv = Argv(rows.command, {"--help"}, storage);
      std::ostringstream expected;
      expected << "usage: efimsim " << rows.command << " [options]\n\n"
               << rows.synopsis << "\n\n" << rows.visible << "\n";
      EXPECT_EQ(Stdout(entry.run, argv), expected.str()) << rows.command;
    }
  }
}

// A command of every row kind.
struct KindsOptions {
  bool json = false;
  std::vector<std::string> seq;
  std::string needed;
  std::string out = "here";
  std::vector<std::string> files;
};

const CommandParamTable<KindsOptions>& KindsParams() {
  using C = KindsOptions;
  static const CommandParamTable<C> table = {
      {{"json", "", "a switch"}, &C::json, {.is_switch = true}},
      {{"seq", "", "a list"}, &C::seq, {.multitoken = true}},
      {{"needed", "", "required"}, &C::needed, {.required = true}},
      {{"out", "", "a value with a default"}, &C::out},
      {{"files", "", "the positional arguments"}, &C::files, {.positional = -1}},
  };
  return table;
}

CommandRows KindsRows() {
  CommandRows rows("kinds", "every row kind");
  AddCommandGroup(rows, "Kinds", KindsParams());
  rows.retired = {{"old", "it is --out now"}};
  return rows;
}

KindsOptions ParseKinds(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"kinds"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  po::variables_map values;
  EXPECT_TRUE(ParseCommandLine(KindsRows(), static_cast<int>(argv.size()), argv.data(), values));
  KindsOptions options;
  ApplyCommandRows(values, KindsParams(), options);
  return options;
}

std::string UsageMessage(const std::vector<std::string>& args) {
  try {
    ParseKinds(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "no error";
}

TEST(CommandRowsTest, SwitchTakesNoValue) {
  const KindsOptions options = ParseKinds({"--json", "a.txt", "--needed", "n"});
  EXPECT_TRUE(options.json);
  EXPECT_EQ(options.files, std::vector<std::string>{"a.txt"});
  EXPECT_FALSE(ParseKinds({"--needed", "n"}).json);
}

TEST(CommandRowsTest, ListTakesSeveralValuesAndRepeats) {
  const KindsOptions options = ParseKinds({"--seq", "1", "2", "--needed", "n", "--seq", "3"});
  EXPECT_EQ(options.seq, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_TRUE(options.files.empty());
}

TEST(CommandRowsTest, RequiredRowIsAUsageErrorWhenMissing) {
  EXPECT_NE(UsageMessage({"--json"}).find("'--needed' is required"), std::string::npos)
      << UsageMessage({"--json"});
  EXPECT_EQ(ParseKinds({"--needed", "n"}).needed, "n");
}

TEST(CommandRowsTest, PositionalArgumentsFillTheirRow) {
  const KindsOptions options = ParseKinds({"a", "--needed", "n", "b"});
  EXPECT_EQ(options.files, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(options.out, "here");
}

TEST(CommandRowsTest, HelpShowsDefaultsAndHidesRetiredSpellings) {
  std::ostringstream help;
  help << KindsRows().visible;
  EXPECT_NE(help.str().find("--out arg (=here)"), std::string::npos) << help.str();
  EXPECT_NE(help.str().find("--needed arg "), std::string::npos) << help.str();
  EXPECT_EQ(help.str().find("--old"), std::string::npos) << help.str();
}

TEST(CommandRowsTest, RetiredSpellingNamesTheNewOne) {
  EXPECT_NE(UsageMessage({"--old", "x", "--needed", "n"}).find("--old: it is --out now"),
            std::string::npos);
  EXPECT_NE(UsageMessage({"--old=x", "--needed", "n"}).find("--old: it is --out now"),
            std::string::npos);
}

TEST(CommandRowsTest, UnexpectedPositionalIsRefusedWhereNoRowTakesIt) {
  std::vector<std::string> storage;
  const std::vector<const char*> argv = Argv("replay", {"trace.csv"}, storage);
  try {
    RunReplayCommand(static_cast<int>(argv.size()), argv.data());
    ADD_FAILURE() << "replay took a positional argument";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("unexpected argument 'trace.csv'"),
              std::string::npos);
  }
}

// validate-serving's old --json FILE and --workload PATH name their new spellings.
TEST(CommandRowsTest, ValidateServingOldSpellingsNameTheNewOnes) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--json", "out.json", "run-dir"}, "--json: validate-serving writes the comparison JSON "
                                           "with --out FILE"},
      {{"run-dir", "--json=out.json"}, "with --out FILE"},
      {{"--workload", "w.jsonl", "run-dir"}, "--workload: the run's workload JSONL is "
                                              "--workload-file PATH"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> storage;
    const std::vector<const char*> argv = Argv("validate-serving", args, storage);
    try {
      RunValidateServingCommand(static_cast<int>(argv.size()), argv.data());
      ADD_FAILURE() << args.front() << " was taken";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace efimsim::cli
