#include "sim/client/output_length.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <sstream>

#include "sim/base/errors.h"
#include "sim/client/policy.h"
#include "sim/core/random.h"
#include "traces/trace_open.h"

namespace efimsim {
namespace {

constexpr const char* kOption = "--output-length: ";
// The standard normal's 90th percentile.
constexpr double kZ90 = 1.2815515655446004;

[[noreturn]] void Bad(const std::string& problem) { throw UsageError(kOption + problem); }

double ParseNumber(std::string_view spec, const std::string& key, const std::string& value) {
  if (value.empty()) Bad("'" + std::string(spec) + "': " + key + " needs a value");
  char* end = nullptr;
  const double x = std::strtod(value.c_str(), &end);
  if (end != value.c_str() + value.size() || !std::isfinite(x)) {
    Bad("'" + std::string(spec) + "': " + key + "=" + value + " is not a number");
  }
  return x;
}

// key=value pairs separated by ',' or ':'.
std::vector<std::pair<std::string, std::string>> ParseParams(std::string_view spec,
                                                             std::string_view text) {
  std::vector<std::pair<std::string, std::string>> params;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(",:", start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    const size_t equals = item.find('=');
    if (item.empty() || equals == std::string_view::npos) {
      std::string problem(1, '\'');
      problem.append(spec).append("': expected KEY=VALUE, got '").append(item).append("'");
      Bad(problem);
    }
    params.emplace_back(std::string(item.substr(0, equals)), std::string(item.substr(equals + 1)));
    start = end + 1;
  }
  return params;
}

}  // namespace

OutputLengthSpec ParseOutputLengthSpec(std::string_view text) {
  OutputLengthSpec spec;
  spec.text = std::string(text);
  const size_t colon = text.find(':');
  const std::string name(text.substr(0, colon));
  const std::string_view rest =
      colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  const bool has_rest = colon != std::string_view::npos;
  if (name == "fixed") {
    spec.kind = OutputLengthSpec::Kind::kFixed;
    if (has_rest) {
      const double n = ParseNumber(text, "fixed", std::string(rest));
      if (n < 1 || n != std::floor(n) || n > 1e12) {
        Bad("'" + spec.text + "': fixed:N needs a whole number of tokens >= 1");
      }
      spec.fixed_tokens = static_cast<int64_t>(n);
    }
  } else if (name == "trace") {
    spec.kind = OutputLengthSpec::Kind::kTrace;
    if (rest.empty()) Bad("'" + spec.text + "': trace:FILE needs a file");
    spec.trace_path = std::string(rest);
  } else if (name == "lognormal" || name == "eos" || name == "eol") {
    bool median = false;
    bool p90 = false;
    bool p = false;
    spec.kind = name == "lognormal" ? OutputLengthSpec::Kind::kLognormal
                : name == "eos"     ? OutputLengthSpec::Kind::kEos
                                    : OutputLengthSpec::Kind::kEndOfLine;
    if (has_rest || name != "eol") {
      for (const auto& [key, value] : ParseParams(text, rest)) {
        if (name == "lognormal" && key == "median") {
          spec.median_tokens = ParseNumber(text, key, value);
          median = true;
        } else if (name == "lognormal" && key == "p90") {
          spec.p90_tokens = ParseNumber(text, key, value);
          p90 = true;
        } else if (name == "eos" && key == "p") {
          spec.eos_probability = ParseNumber(text, key, value);
          p = true;
        } else if (name == "eol" && key == "multiline") {
          spec.multiline_share = ParseNumber(text, key, value);
        } else {
          Bad("'" + spec.text + "': unknown parameter '" + key + "' of " + name +
              " (lognormal: median, p90; eos: p; eol: multiline)");
        }
      }
    }
    if (name == "lognormal") {
      if (!median || !p90) Bad("'" + spec.text + "': lognormal needs median=M,p90=P");
      if (spec.median_tokens < 1 || spec.p90_tokens < spec.median_tokens) {
        Bad("'" + spec.text + "': lognormal needs 1 <= median <= p90");
      }
    } else if (name == "eos") {
      if (!p) Bad("'" + spec.text + "': eos needs p=P");
      if (!(spec.eos_probability > 0 && spec.eos_probability <= 1)) {
        Bad("'" + spec.text + "': eos needs 0 < p <= 1");
      }
    } else if (!(spec.multiline_share >= 0 && spec.multiline_share <= 1)) {
      Bad("'" + spec.text + "': eol needs 0 <= multiline <= 1");
    }
  } else {
    Bad("unknown model '" + name + "' in '" + spec.text +
        "' (choose one of: fixed, fixed:N, trace:FILE, lognormal:median=M,p90=P, eos:p=P, "
        "eol[:multiline=F])");
  }
  return spec;
}

OutputLengthOption ParseOutputLengthOption(std::string_view text) {
  OutputLengthOption option;
  option.base.text = "fixed";
  std::istringstream words{std::string(text)};
  std::string word;
  bool first = true;
  while (words >> word) {
    const size_t colon = word.find(':');
    const size_t equals = word.find('=');
    const bool is_override = equals != std::string::npos && equals < colon;
    if (!is_override) {
      if (!first) Bad("'" + word + "': only the first spec may apply to all policies; "
                      "overrides are POLICY=SPEC");
      option.base = ParseOutputLengthSpec(word);
    } else {
      const std::string policy = word.substr(0, equals);
      try {
        GetPolicy(policy);
      } catch (const UsageError& error) {  // "unknown policy 'x' (choose one of: ...)"
        Bad(std::string(error.what()) + " in '" + word + "'");
      }
      for (const auto& [name, spec] : option.overrides) {
        if (name == policy) Bad("policy '" + policy + "' given twice");
      }
      option.overrides.emplace_back(policy, ParseOutputLengthSpec(word.substr(equals + 1)));
    }
    first = false;
  }
  return option;
}

const OutputLengthSpec& OutputLengthOption::For(const std::string& policy) const {
  for (const auto& [name, spec] : overrides) {
    if (name == policy) return spec;
  }
  return base;
}

bool OutputLengthOption::IsDefault() const {
  if (!base.IsDefault()) return false;
  return std::all_of(overrides.begin(), overrides.end(),
                     [](const auto& o) { return o.second.IsDefault(); });
}

OutputLengthModel::OutputLengthModel(OutputLengthSpec spec, int64_t max_tokens, uint64_t seed)
    : spec_(std::move(spec)), max_tokens_(max_tokens), seed_(seed) {
  if (max_tokens_ < 1) throw UsageError("--max-tokens: must be at least 1");
  if (spec_.kind == OutputLengthSpec::Kind::kTrace) {
    const std::unique_ptr<TraceReader> reader = OpenTrace(spec_.trace_path);
    while (auto record = reader->Next()) {
      if (const auto* request = std::get_if<TraceRequest>(&*record)) {
        empirical_.push_back(request->output_tokens);
      }
    }
    if (empirical_.empty()) {
      Bad("'" + spec_.text + "': the trace has no request records with output lengths");
    }
  } else if (spec_.kind == OutputLengthSpec::Kind::kLognormal) {
    log_median_ = std::log(spec_.median_tokens);
    log_sigma_ = (std::log(spec_.p90_tokens) - log_median_) / kZ90;
  }
}

int64_t OutputLengthModel::Draw(uint64_t key, int64_t rest_of_line_tokens) const {
  int64_t length = max_tokens_;
  if (spec_.kind == OutputLengthSpec::Kind::kFixed) {
    if (spec_.fixed_tokens > 0) length = spec_.fixed_tokens;
  } else {
    RandomStream rng = RandomStream::Derive(seed_, key, "output_length");
    switch (spec_.kind) {
      case OutputLengthSpec::Kind::kFixed:
        break;
      case OutputLengthSpec::Kind::kTrace:
        length = empirical_[static_cast<size_t>(
            rng.UniformInt(0, static_cast<int64_t>(empirical_.size()) - 1))];
        break;
      case OutputLengthSpec::Kind::kLognormal: {
        // Box-Muller; 1 - U is in (0, 1], so the log is finite.
        const double u1 = 1.0 - rng.UniformDouble();
        const double u2 = rng.UniformDouble();
        const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
        const double x = std::exp(log_median_ + log_sigma_ * z);
        length = x >= static_cast<double>(max_tokens_) ? max_tokens_ : std::llround(x);
        break;
      }
      case OutputLengthSpec::Kind::kEos: {
        if (spec_.eos_probability >= 1) {
          length = 1;
          break;
        }
        const double u = rng.UniformDouble();  // [0, 1)
        const double k = std::floor(std::log1p(-u) / std::log1p(-spec_.eos_probability));
        length = k >= static_cast<double>(max_tokens_) ? max_tokens_ : 1 + static_cast<int64_t>(k);
        break;
      }
      case OutputLengthSpec::Kind::kEndOfLine:
        length = rng.UniformDouble() < spec_.multiline_share ? max_tokens_ : rest_of_line_tokens;
        break;
    }
  }
  return std::clamp<int64_t>(length, 1, max_tokens_);
}

std::string OutputLengthModel::Description() const {
  std::ostringstream out;
  switch (spec_.kind) {
    case OutputLengthSpec::Kind::kFixed:
      out << "fixed: " << (spec_.fixed_tokens > 0 ? std::min(spec_.fixed_tokens, max_tokens_)
                                                  : max_tokens_)
          << " tokens";
      break;
    case OutputLengthSpec::Kind::kTrace:
      out << "empirical: output lengths of " << empirical_.size() << " request records of "
          << spec_.trace_path;
      break;
    case OutputLengthSpec::Kind::kLognormal:
      out << "lognormal: median " << spec_.median_tokens << ", p90 " << spec_.p90_tokens
          << " tokens";
      break;
    case OutputLengthSpec::Kind::kEos:
      out << "eos: end-of-sequence with probability " << spec_.eos_probability
          << " after each token (geometric)";
      break;
    case OutputLengthSpec::Kind::kEndOfLine:
      out << "eol: single-line completions end at the end of the line (estimated from the line "
             "above, approximate); "
          << spec_.multiline_share << " of completions multi-line, to the cap";
      break;
  }
  out << "; capped at --max-tokens " << max_tokens_;
  return out.str();
}

std::string_view RestOfLineEstimateText(std::string_view prefix) {
  const size_t last_newline = prefix.rfind('\n');
  const size_t line_start = last_newline == std::string_view::npos ? 0 : last_newline + 1;
  size_t column = prefix.size() - line_start;
  // The nearest non-blank line above the cursor's line.
  size_t end = line_start;  // one past the newline that ends the line above
  while (end > 0) {
    const size_t newline = end - 1;  // prefix[newline] == '\n'
    const size_t previous = newline == 0 ? std::string_view::npos : prefix.rfind('\n', newline - 1);
    const size_t begin = previous == std::string_view::npos ? 0 : previous + 1;
    const std::string_view line = prefix.substr(begin, newline - begin);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      // Past the cursor's column, moved forward to a UTF-8 boundary.
      while (column < line.size() && (static_cast<unsigned char>(line[column]) & 0xC0) == 0x80) {
        ++column;
      }
      return column < line.size() ? line.substr(column) : std::string_view();
    }
    end = begin;
  }
  return {};
}

}  // namespace efimsim
