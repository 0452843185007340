#pragma once
// A name -> entry table for policies (prompt formats, engines, latency
// models, workloads). Entries keep registration order, so listings in --help
// are stable; lookups of unknown names throw UsageError listing the valid ones.

#include <string>
#include <string_view>
#include <vector>

#include "sim/base/errors.h"

namespace efimsim {

template <class Entry>
class Registry {
 public:
  // `kind` names what the registry holds, for error messages ("policy").
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  void Add(std::string name, Entry entry) {
    for (const auto& item : items_) {
      if (item.name == name) throw UsageError(kind_ + " '" + name + "' registered twice");
    }
    items_.push_back({std::move(name), std::move(entry)});
  }

  const Entry* Find(std::string_view name) const {
    for (const auto& item : items_) {
      if (item.name == name) return &item.entry;
    }
    return nullptr;
  }

  const Entry& Get(std::string_view name) const {
    if (const Entry* entry = Find(name)) return *entry;
    throw UsageError("unknown " + kind_ + " '" + std::string(name) + "' (choose one of: " +
                     JoinedNames() + ")");
  }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& item : items_) names.push_back(item.name);
    return names;
  }

  std::string JoinedNames() const {
    std::string out;
    for (const auto& item : items_) out += (out.empty() ? "" : ", ") + item.name;
    return out;
  }

 private:
  struct Item {
    std::string name;
    Entry entry;
  };
  std::string kind_;
  std::vector<Item> items_;
};

}  // namespace efimsim
