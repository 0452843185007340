// JSON half of the HumanEval infilling importer.
#include <nlohmann/json.hpp>

#include "traces/json_line_io.h"

#include "sim/base/errors.h"
#include "traces/humaneval_reader.h"

namespace efimsim {

HumanEvalTask ParseHumanEvalLine(std::string_view line, const std::string& file,
                                 int64_t line_number) {
  const nlohmann::json object = ParseJsonObjectLine(line, file, line_number);
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
