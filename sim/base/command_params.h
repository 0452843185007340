#pragma once
// A command's own options as documented rows (compare's --out, predict's
// --seq and --json, ...): the same ParamInfo as simulation options
// (params.h: name, unit, help, range, allowed values) set into a plain
// config struct of the command's, plus how the command line spells the row
// (OptionSyntax). Fields may also be lists of text: a repeatable option.
//
// A row that a command shares with the run tables takes the run row's
// ParamInfo (FindRunParam(name)->info), never a second copy of its text.

#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "sim/base/params.h"

namespace efimsim {

// How a command's row is spelled; the defaults are a simulation option's
// (`--name VALUE`, `--name` alone for true where the field is bool).
struct OptionSyntax {
  bool is_switch = false;   // bool field: `--name` alone sets it; it takes no value
  bool multitoken = false;  // list field: one `--name A B` gives several values
  bool required = false;    // the command refuses to run without it
  int positional = 0;       // also the command's positional arguments: how many; -1: all the rest
};

template <class Config>
struct CommandParam {
  using Field = std::variant<int64_t Config::*, double Config::*, bool Config::*,
                             std::string Config::*, std::vector<std::string> Config::*>;
  ParamInfo info;
  Field field;
  OptionSyntax syntax = {};
};

template <class Config>
using CommandParamTable = std::vector<CommandParam<Config>>;

// `info` under another name: a command's row for a run row it spells
// differently (convert's --format is the run's --trace-format).
inline ParamInfo Renamed(ParamInfo info, std::string name) {
  info.name = std::move(name);
  return info;
}

// `info` with `note` after its help: what a run row means in one command.
inline ParamInfo Noted(ParamInfo info, const std::string& note) {
  info.help += "; " + note;
  return info;
}

// True when the row's field is a list (a repeatable option).
template <class Config>
bool IsListParam(const CommandParam<Config>& param) {
  return std::holds_alternative<std::vector<std::string> Config::*>(param.field);
}

// Sets the field from the command line's texts: a list takes them all (each
// checked against info.allowed), any other field the last, parsed and
// checked as SetParam does. Throws UsageError("--<name>: ...").
template <class Config>
void SetCommandParam(const CommandParam<Config>& param, const std::vector<std::string>& texts,
                     Config& config) {
  std::visit(
      [&](auto member) {
        using T = std::remove_cvref_t<decltype(config.*member)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          for (const std::string& text : texts) CheckAllowedValue(param.info, text);
          config.*member = texts;
        } else if (!texts.empty()) {
          SetParam(Param<Config>{param.info, member}, texts.back(), config);
        }
      },
      param.field);
}

// The field's value as text: ParamValueText, or a list's values joined by
// spaces (for --help defaults).
template <class Config>
std::string CommandParamText(const CommandParam<Config>& param, const Config& config) {
  return std::visit(
      [&](auto member) -> std::string {
        using T = std::remove_cvref_t<decltype(config.*member)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          std::string out;
          for (const std::string& value : config.*member) out += (out.empty() ? "" : " ") + value;
          return out;
        } else {
          return ParamValueText(Param<Config>{param.info, member}, config);
        }
      },
      param.field);
}

}  // namespace efimsim
