// JSON half of the HumanEval infilling importer.
#include <nlohmann/json.hpp>

#include "sim/base/errors.h"
#include "traces/humaneval_reader.h"

namespace efimsim {

HumanEvalTask ParseHumanEvalLine(std::string_view line, const std::string& file,
                                 int64_t line_number) {
  using Json = nlohmann::json;
  Json object;
  try {
    object = Json::parse(line.begin(), line.end());
  } catch (const Json::parse_error& e) {
    throw InputError(file, line_number, "",
                     "not valid JSON at byte " + std::to_string(e.byte) + " of the line");
  }
  if (!object.is_object()) throw InputError(file, line_number, "", "not a JSON object");
  const auto text = [&](const char* field) {
    const auto it = object.find(field);
    if (it == object.end()) throw InputError(file, line_number, field, "missing");
    if (!it->is_string()) throw InputError(file, line_number, field, "must be a string");
    return it->get<std::string>();
  };
  HumanEvalTask task;
  task.task_id = text("task_id");
  task.prompt = text("prompt");
  task.suffix = text("suffix");
  task.canonical_solution = text("canonical_solution");
  return task;
}

}  // namespace efimsim
