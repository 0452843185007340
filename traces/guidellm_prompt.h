#pragma once
// The prompt text of one GuideLLM request, for rebuilding which prompts
// share leading text (traces/shared_prefix_token_ids.h). GuideLLM 0.6
// stores a request's `request_args` as Python's repr of a dict
// ({'method': None, ..., 'body': {..., 'prompt': '...'}}); other versions
// store the same dict as a JSON object. Both are read.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace efimsim {

// body.prompt of `request_args` (a JSON object, or a string holding its
// Python repr) as UTF-8; nullopt when it has none or the repr cannot be
// read. Never throws: the text is an aid to the replay, not a measurement.
std::optional<std::string> GuidellmPromptText(const nlohmann::json& request_args);

// For tests: the first string value following the string key `key` and a
// ':' in a Python literal (dict repr), decoded; nullopt when absent or
// malformed. Escapes: \\ \' \" \n \r \t \0 \a \b \f \v \xHH \uHHHH
// \UHHHHHHHH (code points written as UTF-8) and backslash-newline.
std::optional<std::string> PythonReprStringValue(const std::string& repr, const std::string& key);

}  // namespace efimsim
