// GuideLLM's recorded prompt text (traces/guidellm_prompt.h): the Python
// repr GuideLLM 0.6 writes and the JSON object form.
#include <gtest/gtest.h>

#include "traces/guidellm_prompt.h"

namespace efimsim {
namespace {

TEST(GuidellmPrompt, ReadsThePromptOfAPythonRepr) {
  const nlohmann::json args =
      "{'method': None, 'stream': True, 'body': {'model': 'm', 'max_tokens': 56, "
      "'prompt': 'It\\'s \"x\"\\n\\tdone \\\\ \\xe9\\u20ac\\U0001F600', 'ignore_eos': True}}";
  const auto prompt = GuidellmPromptText(args);
  ASSERT_TRUE(prompt.has_value());
  EXPECT_EQ(*prompt, "It's \"x\"\n\tdone \\ \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

TEST(GuidellmPrompt, AKeyInsideAnotherValueIsNotTheKey) {
  // 'prompt': appears inside the model's value and as a value; only the
  // key that is a whole string followed by ':' counts.
  EXPECT_EQ(PythonReprStringValue("{'model': \"'prompt': 'no'\", 'x': 'prompt', 'prompt': \"yes\"}", "prompt"),
            "yes");
  EXPECT_EQ(PythonReprStringValue("{'prompt': None, 'body': {'prompt': 'inner'}}", "prompt"), "inner");
}

TEST(GuidellmPrompt, MalformedOrAbsentGivesNothing) {
  EXPECT_FALSE(PythonReprStringValue("{'prompt': 'unterminated", "prompt").has_value());
  EXPECT_FALSE(PythonReprStringValue("{'prompt': 'bad \\q escape'}", "prompt").has_value());
  EXPECT_FALSE(PythonReprStringValue("{'prompt': 'bad \\xZZ'}", "prompt").has_value());
  EXPECT_FALSE(PythonReprStringValue("{'prompt': '\\U00110000'}", "prompt").has_value());
  EXPECT_FALSE(PythonReprStringValue("{'body': {}}", "prompt").has_value());
  EXPECT_FALSE(GuidellmPromptText(nlohmann::json(3)).has_value());
}

TEST(GuidellmPrompt, ReadsTheJsonObjectForm) {
  const nlohmann::json args = {{"body", {{"prompt", "def f():"}, {"max_tokens", 8}}}};
  EXPECT_EQ(GuidellmPromptText(args), "def f():");
  EXPECT_FALSE(GuidellmPromptText(nlohmann::json{{"body", {{"prompt", 1}}}}).has_value());
  EXPECT_FALSE(GuidellmPromptText(nlohmann::json::object()).has_value());
}

}  // namespace
}  // namespace efimsim
