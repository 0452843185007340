#include "sim/app/command_table.h"

#include <sstream>

#include "sim/app/commands.h"

namespace efimsim::cli {
namespace {

// `markdown` as terminal text: [text](target) -> text, backticks dropped.
std::string PlainText(const std::string& markdown) {
  std::string out;
  for (size_t i = 0; i < markdown.size(); ++i) {
    const char c = markdown[i];
    if (c == '`') continue;
    if (c == '[') {
      const size_t close = markdown.find("](", i);
      const size_t end = close == std::string::npos ? close : markdown.find(')', close);
      if (end != std::string::npos) {
        out += markdown.substr(i + 1, close - i - 1);
        i = end;
        continue;
      }
    }
    out += c;
  }
  return out;
}

// `text` in lines of at most `width` columns, each after `indent` spaces
// but the first, which follows `first` (padded to indent).
std::string Wrapped(const std::string& first, const std::string& text, size_t indent,
                    size_t width) {
  std::string out = first + std::string(first.size() < indent ? indent - first.size() : 1, ' ');
  size_t column = first.size() < indent ? indent : first.size() + 1;
  std::istringstream words(text);
  std::string word;
  bool line_empty = true;
  while (words >> word) {
    if (!line_empty && column + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    line_empty = false;
  }
  return out + "\n";
}

}  // namespace

const std::vector<CommandEntry>& Commands() {
  static const std::vector<CommandEntry> commands = {
      {"compare", "compare",
       "runs several policies (default `baseline,fim,efim`) on the identical workload; prints "
       "them side by side with EFIM's gains; writes `comparison.csv` and one folder per policy",
       RunCompareCommand, CompareCommandRows},
      {"replay", "replay", "runs one policy; writes `summary.json` and `requests.csv`",
       RunReplayCommand, ReplayCommandRows},
      {"sweep", "sweep", "a grid of runs on all cores; `sweep.csv`; `--shard I/N`",
       RunSweepCommand, SweepCommandRows},
      {"merge", "merge", "joins shard outputs into the whole sweep's files", RunMergeCommand,
       MergeCommandRows},
      {"capacity", "capacity",
       "most users (or, open loop, the highest arrival rate) one replica serves within SLOs; "
       "replicas and GPUs for a target load, per policy",
       RunCapacityCommand, CapacityCommandRows},
      {"convert", "convert",
       "reads any supported trace and writes efimsim's trace format (`traces/FORMAT.md`)",
       RunConvertCommand, ConvertCommandRows},
      {"tokenize", "tokenize", "token counts (or ids with `--json`) under the Llama-3.1 BPE",
       RunTokenizeCommand, TokenizeCommandRows},
      {"predict", "predict",
       "one engine step's latency with a per-operator breakdown (`models/README.md`)",
       RunPredictCommand, PredictCommandRows},
      {"validate-latency", "validate-latency",
       "a latency model's error against measured step times (`models/PROFILE.md`)",
       RunValidateLatencyCommand, ValidateLatencyCommandRows},
      {"validate-serving", "validate-serving",
       "a real serving run (LLMServingSim bench layout, `vllm bench serve` JSON, vLLM "
       "OpenTelemetry spans, GuideLLM results) replayed with its configuration: TTFT, TPOT, E2E "
       "measured vs predicted, client-side times with the frontend model "
       "([docs/validation.md](docs/validation.md))",
       RunValidateServingCommand, ValidateServingCommandRows},
      {"profile", "profile import",
       "a kernel profile from GPU measurements (AIConfigurator's shape tables, LLMServingSim, "
       "efimsim's own kernels, the PyTorch reference, Vidur), with provenance and the held-out "
       "studies (`models/PROFILE.md`)",
       RunProfileCommand, ProfileImportCommandRows},
      {"profile", "profile check",
       "the physics check of kernel and shape profiles (default: every built-in one): each "
       "measured point's FLOP/s and bytes/s against its GPU's datasheet ceilings; exit 1 on an "
       "impossible point or a mis-keyed GEMM table ([docs/accuracy.md](docs/accuracy.md#physics-checks-of-measured-tables))",
       RunProfileCommand, ProfileCheckCommandRows},
      {"models", "models",
       "built-in model and GPU specs with derived figures (total and active parameters); "
       "`models import` turns a Hugging Face `config.json` into a spec (`models/README.md`)",
       RunModelsCommand, ModelsCommandRows},
  };
  return commands;
}

const CommandEntry* FindCommand(const std::string& name) {
  for (const CommandEntry& command : Commands()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

std::string CommandsUsage() {
  std::string out = "commands:\n";
  for (const CommandEntry& command : Commands()) {
    out += Wrapped("  " + command.shown_as, PlainText(command.summary), 20, 80);
  }
  return out;
}

std::string CommandsMarkdown() {
  std::string out = "| command | what it does |\n|---|---|\n";
  for (const CommandEntry& command : Commands()) {
    out += "| `" + command.shown_as + "` | " + command.summary + " |\n";
  }
  return out;
}

}  // namespace efimsim::cli
