#include "sim/app/command_rows.h"

#include <algorithm>
#include <iostream>

#include "sim/app/cli_options.h"
#include "sim/base/errors.h"

namespace efimsim::cli {
namespace {

// The value semantic of a row: a switch, a list, or one text value (which
// `--name` alone sets to true where true is a value it takes).
po::value_semantic* RowSemantic(const ParamInfo& info, const OptionSyntax& syntax,
                                const std::string& default_text, bool is_list) {
  if (syntax.is_switch) return po::bool_switch();
  if (is_list) {
    auto* list = po::value<std::vector<std::string>>()->composing();
    if (syntax.multitoken) list->multitoken();
    if (syntax.required) list->required();
    return list;
  }
  auto* value = po::value<std::string>();
  if (syntax.required) return value->required();
  value->default_value(default_text, default_text);  // empty: shown as plain "arg"
  const bool takes_true =
      default_text == "true" || default_text == "false" ||
      std::find(info.allowed.begin(), info.allowed.end(), "true") != info.allowed.end();
  if (takes_true) value->implicit_value("true");
  return value;
}

// UsageError for the first retired spelling on the command line.
void RefuseRetired(const CommandRows& rows, const po::parsed_options& parsed) {
  for (const po::option& option : parsed.options) {
    for (const RetiredOption& retired : rows.retired) {
      if (option.string_key == retired.name) {
        throw UsageError("--" + retired.name + ": " + retired.message + " (see efimsim " +
                         rows.command + " --help)");
      }
    }
  }
}

// UsageError for a positional argument of a command that takes none: boost
// would otherwise drop `efimsim replay trace.csv`'s file without a word.
void RefuseUnexpectedPositional(const CommandRows& rows, const po::parsed_options& parsed) {
  if (rows.positional.max_total_count() > 0) return;
  for (const po::option& option : parsed.options) {
    if (option.position_key >= 0 && !option.value.empty()) {
      throw UsageError(rows.command + ": unexpected argument '" + option.value.front() +
                       "'; settings are --options (a trace is --workload trace --trace FILE; "
                       "see efimsim " + rows.command + " --help)");
    }
  }
}

}  // namespace

void AddCommandRow(CommandRows& rows, po::options_description& group, const ParamInfo& info,
                   const OptionSyntax& syntax, const std::string& default_text, bool is_list) {
  const std::string help = ParamHelpText(info);
  group.add_options()(info.name.c_str(), RowSemantic(info, syntax, default_text, is_list),
                      help.c_str());
  rows.own_rows.push_back(info);
  if (syntax.positional != 0) rows.positional.add(info.name.c_str(), syntax.positional);
}

std::vector<std::string> OptionTexts(const po::variable_value& value) {
  if (const auto* list = boost::any_cast<std::vector<std::string>>(&value.value())) return *list;
  if (const auto* flag = boost::any_cast<bool>(&value.value())) return {*flag ? "true" : "false"};
  return {value.as<std::string>()};
}

bool ParseCommandLine(const CommandRows& rows, int argc, const char* const* argv,
                      po::variables_map& values) {
  po::options_description all;
  all.add(rows.visible);
  all.add_options()("help,h", "show this help");
  for (const RetiredOption& retired : rows.retired) {
    all.add_options()(retired.name.c_str(), po::value<std::string>()->implicit_value(""), "");
  }
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(all);
    // Without positional rows none is set: the command refuses them below
    // with its own message (boost's would not say what to do instead).
    if (rows.positional.max_total_count() > 0) parser.positional(rows.positional);
    const po::parsed_options parsed = parser.run();
    RefuseRetired(rows, parsed);
    RefuseUnexpectedPositional(rows, parsed);
    po::store(parsed, values);
    // --help before notify: notify checks required options, which a user
    // asking for help has not given.
    if (values.count("help")) {
      std::cout << "usage: efimsim " << rows.command << " [options]\n\n" << rows.synopsis
                << "\n\n" << rows.visible << "\n";
      return false;
    }
    po::notify(values);
  } catch (const po::error& error) {
    throw UsageError(std::string(error.what()) + " (see efimsim " + rows.command + " --help)");
  }
  return true;
}

}  // namespace efimsim::cli
