#pragma once
// Settings of parts a run composes without naming them (an engine, an
// engine's optional part, a workload): one plain config struct per key,
// type-erased and copied with the run's config. A part binds its ParamTable
// to its struct in a store (bound_params.h), so --help, parsing, sweeps and
// run descriptions list its options beside everyone else's, and a new part
// with options touches only its own files and its registry line.
//
// Keys are the part's own ("sglang", "vllm_v1.cpu_kv_tier", "vllm-bench");
// one key holds one Config type for the store's whole life.

#include <any>
#include <map>
#include <string>

namespace efimsim {

class OptionStore {
 public:
  // The settings under `key`, default-constructed on first use.
  template <class Config>
  Config& Get(const std::string& key) {
    auto it = values_.find(key);
    if (it == values_.end()) it = values_.emplace(key, Config{}).first;
    return std::any_cast<Config&>(it->second);
  }
  // The settings under `key`; the defaults when none were set. Never
  // inserts, so concurrent readers of one const store are safe.
  template <class Config>
  const Config& Get(const std::string& key) const {
    static const Config defaults{};
    const auto it = values_.find(key);
    return it == values_.end() ? defaults : std::any_cast<const Config&>(it->second);
  }

 private:
  std::map<std::string, std::any> values_;  // key -> its config struct
};

}  // namespace efimsim
