#pragma once
// Documented parameters of a config struct: one table drives --help, value
// parsing and validation, so the three can never disagree (after LevelDB's
// options.h: every field has a default, a unit and a reason).
//
// A Config is a plain struct with defaults; ParamTable<Config> lists its
// user-settable fields. Names are CLI spellings without dashes
// ("max-num-batched-tokens"). Defaults are read from a default-constructed
// Config, never written twice.

#include <cstdint>
#include <limits>
#include <type_traits>
#include <string>
#include <variant>
#include <vector>

namespace efimsim {

inline constexpr double kParamNoLimit = std::numeric_limits<double>::infinity();

// Which part of a run reads an option. `selector` is the option that
// chooses the part ("engine", "workload") and `parts` the names that read
// it; an empty selector means every run reads it. A run that sets the
// option away from its default while its selector names another part is
// refused (run_params.h, CheckRunParams), so no option is silently ignored.
struct ParamScope {
  std::string selector;
  std::vector<std::string> parts;
  bool applies_to_every_run() const { return selector.empty(); }
};

struct ParamInfo {
  std::string name;  // CLI spelling, e.g. "max-num-batched-tokens"
  std::string unit;  // "tokens", "ms", "GiB", "" for none
  std::string help;  // one line
  double min_value = -kParamNoLimit;  // numeric fields only
  double max_value = kParamNoLimit;
  // Fields with a fixed set of values: every allowed value as text, in the
  // order --help lists them; empty for any value. SetParam and CheckParam
  // reject anything else with a message that lists them.
  std::vector<std::string> allowed = {};
  // Outputs (sweep.csv columns, the run description) leave the field out
  // while it keeps its default, so runs that do not use an option added
  // later write the bytes they wrote before it existed.
  bool quiet_default = false;
  // The parts that read the option; empty: every run, or the table's scope
  // where a bound table gives one (bound_params.h).
  ParamScope scope = {};
};

// `info` read only by the parts `parts` chosen by option `selector`.
ParamInfo ScopedTo(std::string selector, std::vector<std::string> parts, ParamInfo info);

// A text field with a fixed set of values.
ParamInfo Choice(std::string name, std::string help, std::vector<std::string> allowed);

// `info` with quiet_default set (for Choice rows).
inline ParamInfo Quiet(ParamInfo info) {
  info.quiet_default = true;
  return info;
}

template <class Config>
struct Param {
  using Field = std::variant<int64_t Config::*, double Config::*, bool Config::*,
                             std::string Config::*>;
  ParamInfo info;
  Field field;
};

template <class Config>
using ParamTable = std::vector<Param<Config>>;

// Parses `text` into the field named by `param` of `config`. Throws
// UsageError("--<name>: ...") for a malformed or out-of-range value.
template <class Config>
void SetParam(const Param<Config>& param, const std::string& text, Config& config);

// The field's current value as text (for --help defaults and summaries).
template <class Config>
std::string ParamValueText(const Param<Config>& param, const Config& config);

// Throws UsageError("--<name>: ...") when the field's value in `config` is
// out of range or not one of the allowed values (a config built in code).
template <class Config>
void CheckParam(const Param<Config>& param, const Config& config);

// Non-template helpers the templates use.
int64_t ParseInt64Option(const ParamInfo& info, const std::string& text);
double ParseDoubleOption(const ParamInfo& info, const std::string& text);
bool ParseBoolOption(const ParamInfo& info, const std::string& text);
std::string FormatDouble(double value);
// Throws UsageError naming the option and its allowed values unless `text`
// is one of them (no check when info.allowed is empty).
void CheckAllowedValue(const ParamInfo& info, const std::string& text);
// Throws UsageError naming the option unless `value` is within its range.
void CheckRange(const ParamInfo& info, double value, const std::string& text);

template <class Config>
void SetParam(const Param<Config>& param, const std::string& text, Config& config) {
  std::visit(
      [&](auto member) {
        using T = std::remove_reference_t<decltype(config.*member)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          config.*member = ParseInt64Option(param.info, text);
        } else if constexpr (std::is_same_v<T, double>) {
          config.*member = ParseDoubleOption(param.info, text);
        } else if constexpr (std::is_same_v<T, bool>) {
          config.*member = ParseBoolOption(param.info, text);
        } else {
          config.*member = text;
        }
      },
      param.field);
  if (!param.info.allowed.empty()) CheckAllowedValue(param.info, ParamValueText(param, config));
}

template <class Config>
std::string ParamValueText(const Param<Config>& param, const Config& config) {
  return std::visit(
      [&](auto member) -> std::string {
        using T = std::remove_cvref_t<decltype(config.*member)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          return std::to_string(config.*member);
        } else if constexpr (std::is_same_v<T, double>) {
          return FormatDouble(config.*member);
        } else if constexpr (std::is_same_v<T, bool>) {
          return config.*member ? "true" : "false";
        } else {
          return config.*member;
        }
      },
      param.field);
}

template <class Config>
void CheckParam(const Param<Config>& param, const Config& config) {
  const std::string text = ParamValueText(param, config);
  std::visit(
      [&](auto member) {
        using T = std::remove_cvref_t<decltype(config.*member)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
          CheckRange(param.info, static_cast<double>(config.*member), text);
        }
      },
      param.field);
  CheckAllowedValue(param.info, text);
}

}  // namespace efimsim
