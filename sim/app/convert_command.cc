#include <filesystem>
#include <iostream>

#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/app/interrupt.h"
#include "sim/base/atomic_file.h"
#include "sim/base/errors.h"
#include "traces/trace_open.h"
#include "traces/trace_writer.h"

namespace efimsim::cli {

namespace {

// convert's options; --format, --max-line-bytes and --block-tokens are the
// run's rows (--trace-format, --max-line-bytes, --block-tokens).
struct ConvertCommandOptions {
  std::string input;
  std::string output;
  std::string format = "auto";
  int64_t max_line_bytes = kDefaultMaxLineBytes;
  int64_t block_tokens = 16;
};

const CommandParamTable<ConvertCommandOptions>& ConvertParams() {
  using C = ConvertCommandOptions;
  static const CommandParamTable<C> table = {
      {{"input", "",
        "trace to read: efimsim JSONL, Azure CSV, Mooncake JSONL, TaskTracker CSV or HumanEval "
        "infilling JSONL(.gz) (also the first positional argument)"},
       &C::input, {.positional = 1}},
      {{"output", "",
        "efimsim trace (JSON Lines) to write; written completely or not at all (also the "
        "second positional argument)"},
       &C::output, {.positional = 1}},
      {Renamed(RunParamInfo("trace-format"), "format"), &C::format},
      {Noted(RunParamInfo("max-line-bytes"),
             "convert refuses a longer one instead (a converted trace is whole)"),
       &C::max_line_bytes},
      {Noted(RunParamInfo("block-tokens"),
             "here the block size of the engine that will replay the output: Mooncake's "
             "512-token hash ids become keys of this many tokens (must divide 512)"),
       &C::block_tokens},
  };
  return table;
}

CommandRows ConvertRows() {
  return OwnRows("convert",
                 "Converts any supported trace into efimsim's trace format "
                 "(traces/FORMAT.md).\nusage: efimsim convert INPUT OUTPUT [--format F]",
                 "Convert", ConvertParams());
}

}  // namespace

std::vector<CommandRows> ConvertCommandRows() { return {ConvertRows()}; }

int RunConvertCommand(int argc, const char* const* argv) {
  po::variables_map values;
  ConvertCommandOptions own;
  if (!ParseCommandRows(ConvertRows(), ConvertParams(), argc, argv, values, own)) return 0;
  if (own.input.empty() || own.output.empty()) {
    throw UsageError("convert needs INPUT and OUTPUT (see efimsim convert --help)");
  }
  TraceReadOptions options;
  const auto parsed = ParseTraceFormat(own.format);
  if (!parsed) throw UsageError("--format: unknown trace format '" + own.format + "'");
  options.format = *parsed;
  options.max_line_bytes = own.max_line_bytes;
  options.mooncake_block_key_tokens = own.block_tokens;

  const std::string& input = own.input;
  const std::string& output = own.output;
  std::error_code same_error;
  if (std::filesystem::exists(output) &&
      std::filesystem::equivalent(input, output, same_error)) {
    throw UsageError("convert: OUTPUT " + output + " is the INPUT file; writing it would destroy "
                     "the trace");
  }
  std::unique_ptr<TraceReader> reader = OpenTrace(input, options);
  AtomicOutputFile file(output);
  TraceWriter writer(file.stream(), reader->header());
  // Polled per record: an interrupt drops the temporary file (~AtomicOutputFile).
  while (auto record = reader->Next()) {
    ThrowIfInterrupted();
    writer.Write(*record);
  }
  ThrowIfInterrupted();
  file.Commit();
  std::cout << "wrote " << writer.records_written() << " records from " << input << " ("
            << TraceFormatName(options.format == TraceFormat::kAuto ? DetectTraceFormat(input)
                                                                    : options.format)
            << ") to " << output << "\n";
  return 0;
}

}  // namespace efimsim::cli
