#pragma once
// Each engine's own settings, held in a run's config without the run
// naming the engine: EngineOptions keeps one plain config struct per engine
// name (type-erased, copied with the config), and an engine publishes its
// ParamTable through EngineOptionTables so --help, parsing, sweeps and the
// run description list its options beside everyone else's. A new engine
// with options therefore touches only its own folder (its struct, its
// table) and its line in Engines() (engines.cc).

#include <any>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "sim/base/params.h"
#include "sim/metrics/run_info.h"

namespace efimsim {

class EngineOptions {
 public:
  // The settings of `engine`, default-constructed on first use.
  template <class Config>
  Config& Get(const std::string& engine) {
    auto it = values_.find(engine);
    if (it == values_.end()) it = values_.emplace(engine, Config{}).first;
    return std::any_cast<Config&>(it->second);
  }
  // The settings of `engine`; its defaults when none were set.
  template <class Config>
  const Config& Get(const std::string& engine) const {
    static const Config defaults{};
    const auto it = values_.find(engine);
    return it == values_.end() ? defaults : std::any_cast<const Config&>(it->second);
  }

 private:
  std::map<std::string, std::any> values_;  // engine name -> its config struct
};

// One option of an engine, bound to its field inside EngineOptions.
struct EngineOptionParam {
  const ParamInfo* info = nullptr;
  std::function<void(const std::string& text, EngineOptions& options)> set;
  std::function<std::string(const EngineOptions& options)> value;
  std::function<SettingValue(const EngineOptions& options)> setting;
  std::function<void(const EngineOptions& options)> check;
};

struct EngineOptionTable {
  std::string group;  // the --help group
  std::vector<EngineOptionParam> params;
};

// `table`'s rows bound to engine `engine`'s Config inside EngineOptions.
// `table` must outlive the result (tables are function-local statics).
template <class Config>
EngineOptionTable BindEngineOptions(std::string engine, std::string group,
                                    const ParamTable<Config>& table) {
  EngineOptionTable out;
  out.group = std::move(group);
  for (const Param<Config>& param : table) {
    const Param<Config>* p = &param;
    EngineOptionParam row;
    row.info = &param.info;
    row.set = [p, engine](const std::string& text, EngineOptions& options) {
      SetParam(*p, text, options.Get<Config>(engine));
    };
    row.value = [p, engine](const EngineOptions& options) {
      return ParamValueText(*p, options.Get<Config>(engine));
    };
    row.setting = [p, engine](const EngineOptions& options) {
      const Config& config = options.Get<Config>(engine);
      return std::visit([&](auto member) { return SettingValue(config.*member); }, p->field);
    };
    row.check = [p, engine](const EngineOptions& options) {
      CheckParam(*p, options.Get<Config>(engine));
    };
    out.params.push_back(std::move(row));
  }
  return out;
}

}  // namespace efimsim
