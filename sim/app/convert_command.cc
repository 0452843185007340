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

int RunConvertCommand(int argc, const char* const* argv) {
  po::options_description visible("Convert");
  visible.add_options()
      ("input", po::value<std::string>(), "trace to read: efimsim JSONL, Azure CSV, Mooncake JSONL, "
       "TaskTracker CSV or HumanEval infilling JSONL(.gz)")
      ("output", po::value<std::string>(), "efimsim trace (JSON Lines) to write; written "
       "completely or not at all")
      ("format", po::value<std::string>()->default_value("auto"),
       ParamHelpText(*FindRunParam("trace-format")->info).c_str())
      ("max-line-bytes", po::value<int64_t>()->default_value(kDefaultMaxLineBytes),
       "longest input line (or CSV record) accepted [bytes]")
      ("block-tokens", po::value<int64_t>()->default_value(16),
       "block size of the engine that will replay the output: Mooncake's 512-token hash ids "
       "become keys of this many tokens (must divide 512) [tokens]");
  po::positional_options_description positional;
  positional.add("input", 1).add("output", 1);
  po::variables_map values;
  if (!ParseCommandLine("convert",
                        "Converts any supported trace into efimsim's trace format "
                        "(traces/FORMAT.md).\nusage: efimsim convert INPUT OUTPUT [--format F]",
                        visible, argc, argv, values, &positional)) {
    return 0;
  }
  if (!values.count("input") || !values.count("output")) {
    throw UsageError("convert needs INPUT and OUTPUT (see efimsim convert --help)");
  }
  TraceReadOptions options;
  const std::string format = values["format"].as<std::string>();
  const auto parsed = ParseTraceFormat(format);
  if (!parsed) throw UsageError("--format: unknown trace format '" + format + "'");
  options.format = *parsed;
  options.max_line_bytes = values["max-line-bytes"].as<int64_t>();
  if (options.max_line_bytes < 1) throw UsageError("--max-line-bytes: must be >= 1");
  options.mooncake_block_key_tokens = values["block-tokens"].as<int64_t>();

  const std::string input = values["input"].as<std::string>();
  const std::string output = values["output"].as<std::string>();
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
