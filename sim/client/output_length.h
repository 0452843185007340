#pragma once
// Output-length models: how many tokens a request generates before it
// stops (`--output-length`). Every length is capped by --max-tokens and is
// at least 1 (an engine always samples one token).
//
// Spec syntax (one value of --output-length; parameters separated by ','
// or ':', so that a sweep grid, whose values are comma-separated, can use
// ':'):
//   fixed              every request generates --max-tokens (the default;
//                      the behaviour before output-length models existed)
//   fixed:N            every request generates min(N, --max-tokens)
//   trace:FILE         the empirical distribution of a trace's recorded
//                      output lengths (any trace with request records, e.g.
//                      the Azure code trace's GeneratedTokens column), drawn
//                      uniformly from its records; 0-token records count as 1
//   lognormal:median=M,p90=P   a lognormal with that median and 90th
//                      percentile (tokens), rounded to the nearest integer
//   eos:p=P            the model emits end-of-sequence after each token with
//                      probability P: geometric, P(L = k) = (1-P)^(k-1) P,
//                      mean 1/P
//   eol[:multiline=F]  editing sessions only (typing, trace sessions): a
//                      single-line completion stops at the end of the line
//                      the cursor is on; a share F (default 0.2, an
//                      assumption, not a measurement) are multi-line and run
//                      to --max-tokens. The client does not know the rest of
//                      the line the user will type, so it is estimated from
//                      the line above: the nearest non-blank line before the
//                      cursor's line, past the cursor's column, BPE-encoded,
//                      plus one token for the newline (approximate).
// Per-policy overrides follow the base spec, separated by spaces:
//   "lognormal:median=13,p90=55 efim=eos:p=0.05"
// gives efim the eos model and every other policy the lognormal one (as in
// the EFIM paper, whose FIM and EFIM models were different models).
//
// Randomness (common random numbers): a request's draw comes from
// RandomStream::Derive(seed, key, "output_length"), where the key is a
// stable identity of the request that is the same under every policy
// (closed loop: user and round; sessions: the session id and the number of
// text edits applied when it is sent). So the same request gets the same
// length under every policy that uses the same model, and an override
// changes only its own policy's lengths. Trace request records keep their
// recorded lengths whatever the option says.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace efimsim {

struct OutputLengthSpec {
  enum class Kind { kFixed, kTrace, kLognormal, kEos, kEndOfLine };
  Kind kind = Kind::kFixed;
  int64_t fixed_tokens = 0;      // kFixed: 0 = --max-tokens
  std::string trace_path;        // kTrace
  double median_tokens = 0;      // kLognormal
  double p90_tokens = 0;         // kLognormal
  double eos_probability = 0;    // kEos, in (0, 1]
  double multiline_share = 0.2;  // kEndOfLine, in [0, 1]
  std::string text;              // as given

  bool IsDefault() const { return kind == Kind::kFixed && fixed_tokens == 0; }
};

// The option's whole value: a base spec and per-policy overrides.
struct OutputLengthOption {
  OutputLengthSpec base;
  std::vector<std::pair<std::string, OutputLengthSpec>> overrides;  // policy -> spec

  // The spec `policy` uses.
  const OutputLengthSpec& For(const std::string& policy) const;
  // True when every policy generates --max-tokens (no model is needed).
  bool IsDefault() const;
};

// Parses one spec. Throws UsageError("--output-length: ...") for an unknown
// model, a missing or bad number, or an unknown parameter.
OutputLengthSpec ParseOutputLengthSpec(std::string_view text);
// Parses the whole option value (base spec, then POLICY=SPEC overrides);
// an override naming an unknown policy, or a policy twice, is a UsageError.
OutputLengthOption ParseOutputLengthOption(std::string_view text);

// Draws lengths for one run under one spec.
class OutputLengthModel {
 public:
  // Reads the trace for kTrace (InputError for a bad file; UsageError when
  // it has no request records). `max_tokens` >= 1.
  OutputLengthModel(OutputLengthSpec spec, int64_t max_tokens, uint64_t seed);

  // True for eol: Draw needs the estimated rest of the line.
  bool needs_line_context() const { return spec_.kind == OutputLengthSpec::Kind::kEndOfLine; }
  // The length of the request whose stable identity is `key` (PairKey in
  // sim/core/random.h), in
  // [1, max_tokens]. `rest_of_line_tokens` is used only by eol (>= 1).
  int64_t Draw(uint64_t key, int64_t rest_of_line_tokens = 1) const;
  // One line for outputs, e.g. "lognormal: median 13, p90 55 tokens; cap 128".
  std::string Description() const;
  const OutputLengthSpec& spec() const { return spec_; }

 private:
  OutputLengthSpec spec_;
  int64_t max_tokens_;
  uint64_t seed_;
  std::vector<int64_t> empirical_;  // kTrace: the trace's lengths, in file order
  double log_median_ = 0;           // kLognormal
  double log_sigma_ = 0;
};

// The estimated tokens to the end of the line for a cursor at the end of
// `prefix` (see eol above), given the token count of a text. At least 1.
template <class CountTokens>
int64_t RestOfLineTokens(std::string_view prefix, CountTokens&& count_tokens);

// ---- implementation of the template ----
std::string_view RestOfLineEstimateText(std::string_view prefix);

template <class CountTokens>
int64_t RestOfLineTokens(std::string_view prefix, CountTokens&& count_tokens) {
  const std::string_view rest = RestOfLineEstimateText(prefix);
  return 1 + (rest.empty() ? 0 : static_cast<int64_t>(count_tokens(rest)));
}

}  // namespace efimsim
