// Reader of models/fallback/efficiency.json (nlohmann/json stays in *_io.cc
// files). Strict: every field the C++ uses is checked, unknown keys are
// errors, and every error is an InputError naming the field path.
#include <utility>

#include <nlohmann/json.hpp>

#include "models/latency/calibrated_fallback.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

using nlohmann::json;

std::vector<std::string> StringList(StrictObject& object, const std::string& key) {
  const json& list = object.Array(key);
  if (list.empty()) throw InputError(object.origin(), 0, object.Path(key), "must not be empty");
  std::vector<std::string> out;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) {
      throw InputError(object.origin(), 0, object.Path(key) + "[" + std::to_string(i) + "]",
                       "expected a string");
    }
    out.push_back(list[i].get<std::string>());
  }
  return out;
}

FallbackErrorSummary ParseErrorSummary(const json& value, const std::string& origin,
                               const std::string& path) {
  StrictObject object(value, origin, path);
  FallbackErrorSummary summary;
  summary.points = object.Int("points", 1);
  summary.median = object.Number("median", 0.0);
  summary.p90 = object.Number("p90", 0.0);
  object.Number("median_signed", -1.0);
  object.RejectUnknownKeys();
  return summary;
}

EfficiencyCurve ParseCurve(const json& value, const std::string& origin, const std::string& path) {
  StrictObject object(value, origin, path);
  EfficiencyCurve curve;
  curve.t0_seconds = object.Number("t0_us", 0.0) * 1e-6;
  curve.eta_flops = object.Positive("eta_flops");
  curve.eta_bytes = object.Positive("eta_bytes");
  curve.p = object.Number("p", 1.0);
  curve.source = object.String("source");
  curve.fitted = curve.source == "fitted";
  if (curve.fitted) {
    StrictObject study(object.Field("leave_one_out"), origin, object.Path("leave_one_out"));
    curve.fallback_error = ParseErrorSummary(study.Field("fallback"), origin,
                                             study.Path("fallback"));
    curve.roofline_error = ParseErrorSummary(study.Field("roofline"), origin,
                                             study.Path("roofline"));
    study.RejectUnknownKeys();
  }
  object.RejectUnknownKeys();
  return curve;
}

std::vector<FallbackCheck> ParseChecks(StrictObject& root) {
  const json& list = root.Array("checks");
  std::vector<FallbackCheck> checks;
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject object(list[i], root.origin(), "checks[" + std::to_string(i) + "]");
    FallbackCheck check;
    check.operator_class = object.String("class");
    check.gpu = object.String("gpu");
    check.flops = object.Number("flops", 0.0);
    check.bytes = object.Number("bytes", 0.0);
    check.seconds = object.Positive("seconds");
    object.RejectUnknownKeys();
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace

FallbackCalibration ParseFallbackCalibration(const std::string& json_text,
                                             const std::string& origin) {
  const json root_json = ParseJson(json_text, origin);
  StrictObject root(root_json, origin, "");
  const int64_t version = root.Int("schema_version", 1);
  if (version != 1) {
    throw InputError(origin, 0, "schema_version",
                     "unsupported version " + std::to_string(version) + " (this build reads 1)");
  }
  FallbackCalibration c;
  root.String("form");
  root.String("ceilings");
  c.fitted_on = StringList(root, "fitted_on");
  c.all_reduce_fitted_on = StringList(root, "all_reduce_fitted_on");
  c.source = root.String("source");
  c.command = root.String("command");
  StrictObject classes(root.Field("classes"), origin, "classes");
  const std::pair<const char*, EfficiencyCurve*> curves[] = {
      {"gemm", &c.gemm},
      {"prefill_attention", &c.prefill_attention},
      {"decode_attention", &c.decode_attention},
      {"elementwise", &c.elementwise},
      {"all_reduce", &c.all_reduce}};
  for (const auto& [name, curve] : curves) {
    *curve = ParseCurve(classes.Field(name), origin, classes.Path(name));
  }
  classes.RejectUnknownKeys();
  // The study's per-GPU tables and the inputs' checksums are for people
  // (docs/fallback.md); the model reads only their presence.
  StrictObject(root.Field("study"), origin, "study");
  if (root.Array("inputs").empty()) throw InputError(origin, 0, "inputs", "must not be empty");
  c.checks = ParseChecks(root);
  root.RejectUnknownKeys();
  return c;
}

}  // namespace efimsim
