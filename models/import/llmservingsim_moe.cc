#include "models/import/llmservingsim_moe.h"

#include <algorithm>
#include <iterator>

#include "models/import/csv_columns.h"
#include "sim/base/errors.h"

namespace efimsim {

LlmServingSimMoeGrid ParseLlmServingSimMoe(const std::string& text, const std::string& origin) {
  const CsvColumns csv(text, origin, "an LLMServingSim moe.csv");
  for (const char* column : {"tokens", "activated_experts", "time_us"}) csv.Require(column);
  LlmServingSimMoeGrid grid;
  grid.origin = origin;
  for (size_t row = 0; row < csv.Rows(); ++row) {
    const int64_t tokens = csv.Int(row, "tokens", 1);
    const int64_t experts = csv.Int(row, "activated_experts", 1);
    const double us = csv.Number(row, "time_us");
    if (!(us > 0)) throw InputError(origin, csv.Line(row), "time_us", "must be > 0");
    if (!grid.us[tokens].emplace(experts, us).second) {
      throw InputError(origin, csv.Line(row), "activated_experts",
                       "repeats the row of tokens " + std::to_string(tokens) + " and " +
                           std::to_string(experts) + " experts");
    }
  }
  if (grid.us.empty()) throw InputError(origin, 1, "tokens", "no rows");
  return grid;
}

namespace {

// `by_experts` at `experts` activated experts: linear between the bracketing
// measured counts, the nearest one beyond them.
double AtExperts(const std::map<int64_t, double>& by_experts, double experts) {
  const auto upper = by_experts.lower_bound(static_cast<int64_t>(experts + 0.999999));
  if (upper == by_experts.begin()) return upper->second;
  if (upper == by_experts.end()) return std::prev(upper)->second;
  const auto lower = std::prev(upper);
  const double x0 = static_cast<double>(lower->first);
  const double x1 = static_cast<double>(upper->first);
  const double t = std::clamp((experts - x0) / (x1 - x0), 0.0, 1.0);
  return lower->second + t * (upper->second - lower->second);
}

}  // namespace

std::vector<ProfilePoint> UniformRoutingMoePoints(const LlmServingSimMoeGrid& grid,
                                                  const ShardShapes& shapes) {
  std::vector<ProfilePoint> points;
  for (const auto& [tokens, by_experts] : grid.us) {
    const double experts = ExpectedActiveExperts(shapes, static_cast<double>(tokens));
    points.push_back({tokens, AtExperts(by_experts, experts)});
  }
  return points;
}

}  // namespace efimsim
