#pragma once
// The one binder of option tables. A ParamTable<Part> (params.h) lists a
// config struct's options; binding it to where its Part lives inside a
// root config (a run's ExperimentConfig, a part's OptionStore) gives rows
// of closures that parse, print, describe and check each option on the
// root. Engines bind their tables to an OptionStore, the run lifts those
// rows into its ExperimentConfig (LiftParamTable), and the run's own tables
// bind directly: the same code for every owner.
//
// Every bound row carries its scope (params.h, ParamScope): the row's own,
// or the table's when the row names none.

#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "sim/base/option_store.h"
#include "sim/base/params.h"
#include "sim/base/setting_value.h"

namespace efimsim {

template <class Root>
struct BoundParam {
  const ParamInfo* info = nullptr;  // a row of a static table: outlives the binding
  ParamScope scope;
  // Parses `text` into the field (UsageError naming the option when bad).
  std::function<void(const std::string& text, Root& root)> set;
  // The field's value as text (ParamValueText), and typed, as run
  // descriptions write it.
  std::function<std::string(const Root& root)> value;
  std::function<SettingValue(const Root& root)> setting;
  // UsageError naming the option when the value is outside its range or
  // allowed values (for configs built in code, not parsed).
  std::function<void(const Root& root)> check;
};

// One table's rows with the --help group they are listed under
// (consecutive tables may share a group).
template <class Root>
struct BoundParamTable {
  std::string group;
  std::vector<BoundParam<Root>> params;
};

// Where a Part lives inside a Root; both accessors reach the same object,
// and `get` never modifies the root (const roots are read concurrently).
template <class Root, class Part>
struct PartAccess {
  std::function<Part&(Root&)> mut;
  std::function<const Part&(const Root&)> get;
};

// A Config held under `key` in an OptionStore.
template <class Config>
PartAccess<OptionStore, Config> StoredPart(const std::string& key) {
  return {[key](OptionStore& store) -> Config& { return store.Get<Config>(key); },
          [key](const OptionStore& store) -> const Config& { return store.Get<Config>(key); }};
}

// `table`'s rows bound to the Part that `access` reaches in a Root, each
// with its own scope or else `scope`. `table` must outlive the result
// (tables are function-local statics).
template <class Root, class Part>
BoundParamTable<Root> BindParamTable(std::string group, const ParamTable<Part>& table,
                                     PartAccess<Root, Part> access, const ParamScope& scope = {}) {
  BoundParamTable<Root> out;
  out.group = std::move(group);
  for (const Param<Part>& row : table) {
    const Param<Part>* p = &row;
    BoundParam<Root> bound;
    bound.info = &row.info;
    bound.scope = row.info.scope.applies_to_every_run() ? scope : row.info.scope;
    bound.set = [p, mut = access.mut](const std::string& text, Root& root) {
      SetParam(*p, text, mut(root));
    };
    bound.value = [p, get = access.get](const Root& root) { return ParamValueText(*p, get(root)); };
    bound.setting = [p, get = access.get](const Root& root) {
      const Part& part = get(root);
      return std::visit([&](auto member) { return SettingValue(part.*member); }, p->field);
    };
    bound.check = [p, get = access.get](const Root& root) { CheckParam(*p, get(root)); };
    out.params.push_back(std::move(bound));
  }
  return out;
}

// The rows of `inner`, bound to an Inner inside an Outer, rebound to the Outer.
template <class Outer, class Inner>
BoundParamTable<Outer> LiftParamTable(const BoundParamTable<Inner>& inner,
                                      PartAccess<Outer, Inner> access) {
  BoundParamTable<Outer> out;
  out.group = inner.group;
  for (const BoundParam<Inner>& row : inner.params) {
    BoundParam<Outer> lifted;
    lifted.info = row.info;
    lifted.scope = row.scope;
    lifted.set = [set = row.set, mut = access.mut](const std::string& text, Outer& outer) {
      set(text, mut(outer));
    };
    lifted.value = [value = row.value, get = access.get](const Outer& outer) {
      return value(get(outer));
    };
    lifted.setting = [setting = row.setting, get = access.get](const Outer& outer) {
      return setting(get(outer));
    };
    lifted.check = [check = row.check, get = access.get](const Outer& outer) { check(get(outer)); };
    out.params.push_back(std::move(lifted));
  }
  return out;
}

}  // namespace efimsim
