// CPU tests of the calibration harness's file formats: the JSON reader and
// writer, the model spec reader, the shapes a model needs, and the profile
// writer's exact key set (models/PROFILE.md).

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "../calibrate/json.h"
#include "../calibrate/model_spec.h"
#include "../calibrate/profile.h"
#include "test_main.h"

using namespace efimsim::kernels;

namespace {

// A copy of models/specs/llama-3.1-8b.json (kernels/ builds without models/).
const char* kLlamaSpec = R"({
  "schema_version": 1,
  "name": "llama-3.1-8b",
  "source": "meta-llama/Llama-3.1-8B config.json",
  "layers": 32, "hidden_size": 4096, "q_heads": 32, "kv_heads": 8, "head_dim": 128,
  "ffn_size": 14336, "vocab_size": 128256, "tied_embeddings": false, "activation": "silu",
  "mlp": "gated", "dtype": "bfloat16", "max_context_tokens": 131072,
  "tokens": { "note": "x", "bos": 128000, "fim_prefix": 128002, "fim_suffix": 128003,
              "fim_middle": 128005, "text_first": 256, "text_last": 127999 }
})";

std::set<std::string> keys(const json::Value& v) {
  std::set<std::string> out;
  for (const auto& [k, x] : v.as_object()) out.insert(k);
  return out;
}

Profile sample_profile() {
  Profile p;
  p.gpu = "h100-sxm";
  p.model = "llama-3.1-8b";
  p.command = "efimsim-calibrate --model m.json --out p.json";
  p.provenance = {"NVIDIA H100 80GB HBM3", 132, 1980, 2619, "580.1", "13.0", "abc123", "2026-11-23T07:00:00Z"};
  p.gemm.push_back({"qkv_proj", 6144, 4096, {{16, 12.4}, {1, 12.1}}});
  p.prefill = {32, 8, 128, 16, {{512, 0, 40.0}, {16, 0, 5.0}}};
  p.decode = {32, 8, 128, 16, {{64, 4096, 180.0}, {1, 128, 3.5}}};
  p.elementwise.push_back({"rmsnorm", {{1, 2.0}, {2, 2.0}}});
  return p;
}

}  // namespace

TEST(json_parses_documents_and_reports_errors_with_position) {
  const auto v = json::parse(R"({"a": [1, 2.5, -3e2, true, null], "b": {"c": "x\n\u00e9\ud83d\ude00"}})");
  CHECK(v.at("a").as_array().size() == 5);
  CHECK(v.at("a").as_array()[1].as_number() == 2.5);
  CHECK(v.at("a").as_array()[2].as_int() == -300);
  CHECK(v.at("a").as_array()[3].as_bool());
  CHECK(v.at("a").as_array()[4].is_null());
  CHECK(v.at("b").at("c").as_string() == "x\n\xc3\xa9\xf0\x9f\x98\x80");
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1,}", "{\"a\":1 \"b\":2}", "01", "1.", "\"abc",
                          "{\"a\":1,\"a\":2}", "[1] x", "nul", "\"\\x\"", "// c\n1"}) {
    CHECK_THROWS(json::parse(bad));
  }
  try {
    json::parse("{\n  \"a\": tru }");
    CHECK(false);
  } catch (const json::Error& e) {
    CHECK_MSG(std::string(e.what()).find("line 2") != std::string::npos, e.what());
  }
  CHECK_THROWS(v.at("missing"));
  CHECK_THROWS(v.at("a").as_string());
  CHECK_THROWS(json::Value(2.5).as_int());
}

TEST(json_writer_round_trips_and_prints_shortest_numbers) {
  CHECK(json::format_number(12.1) == "12.1");
  CHECK(json::format_number(3) == "3");
  CHECK(json::format_number(-0.0) == "0");
  CHECK(json::format_number(0.1 + 0.2) == "0.30000000000000004");
  CHECK(json::format_number(1e-7) == "1e-07");
  CHECK_THROWS(json::format_number(NAN));
  json::Value doc = json::Value::object();
  doc.set("s", json::Value("quote \" back \\ tab \t"));
  doc.set("n", json::Value(1.0 / 3.0));
  json::Value arr = json::Value::array();
  arr.push_back(json::Value(1));
  arr.push_back(json::Value::object());
  doc.set("a", arr);
  const auto text = json::write(doc);
  const auto back = json::parse(text);
  CHECK(back.at("s").as_string() == "quote \" back \\ tab \t");
  CHECK(back.at("n").as_number() == 1.0 / 3.0);
  CHECK(json::write(back) == text);
  CHECK(keys(back) == (std::set<std::string>{"s", "n", "a"}));
  CHECK(text.find("\"s\"") < text.find("\"n\""));  // insertion order kept
}

TEST(model_spec_reader_reads_llama_and_derives_profile_gemm_shapes) {
  const auto m = model_spec_from_json(json::parse(kLlamaSpec));
  CHECK(m.name == "llama-3.1-8b" && m.layers == 32 && m.q_heads == 32 && m.kv_heads == 8 && m.head_dim == 128);
  const auto shapes = gemm_shapes(m);
  CHECK(shapes.size() == 5);
  CHECK(shapes[0].name == "qkv_proj" && shapes[0].n == 6144 && shapes[0].k == 4096);
  CHECK(shapes[1].name == "o_proj" && shapes[1].n == 4096 && shapes[1].k == 4096);
  CHECK(shapes[2].name == "gate_up_proj" && shapes[2].n == 28672 && shapes[2].k == 4096);
  CHECK(shapes[3].name == "down_proj" && shapes[3].n == 4096 && shapes[3].k == 14336);
  CHECK(shapes[4].name == "lm_head" && shapes[4].n == 128256 && shapes[4].k == 4096);
  auto doc = json::parse(kLlamaSpec);
  doc.set("mlp", json::Value("plain"));
  CHECK(gemm_shapes(model_spec_from_json(doc))[2].n == 14336);
  doc.set("kv_heads", json::Value(5));
  CHECK_THROWS(model_spec_from_json(doc));
  doc.set("kv_heads", json::Value(8.5));
  CHECK_THROWS(model_spec_from_json(doc));
  CHECK_THROWS(read_model_spec("/nonexistent/spec.json"));
}

TEST(model_spec_reader_rejects_gemm_widths_beyond_int) {
  // Each field fits an int, their products do not (fuzz finding 8).
  auto doc = json::parse(kLlamaSpec);
  doc.set("q_heads", json::Value(65536));
  doc.set("kv_heads", json::Value(1));
  doc.set("head_dim", json::Value(65536));
  CHECK_THROWS(model_spec_from_json(doc));
  doc = json::parse(kLlamaSpec);
  doc.set("ffn_size", json::Value(1 << 30));  // x2 for the gated MLP
  CHECK_THROWS(model_spec_from_json(doc));
  doc.set("mlp", json::Value("plain"));  // one ffn_size wide: fits
  CHECK(gemm_shapes(model_spec_from_json(doc))[2].n == (1 << 30));
  // The widest that fits: (32 + 2 * 8) * head_dim <= 2^31 - 1.
  doc = json::parse(kLlamaSpec);
  doc.set("head_dim", json::Value(44739242));
  CHECK(gemm_shapes(model_spec_from_json(doc))[0].n == 48 * 44739242);
  doc.set("head_dim", json::Value(44739243));
  CHECK_THROWS(model_spec_from_json(doc));
}

TEST(sweep_grids_cover_1_to_16384_and_respect_the_context_window) {
  const auto m = model_spec_from_json(json::parse(kLlamaSpec));
  const auto grid = token_grid(false);
  CHECK(grid.front() == 1 && grid.back() == 16384 && grid.size() == 15);
  CHECK(token_grid(true).back() == 16384);
  auto small = m;
  small.max_context_tokens = 16384;
  for (const auto& p : prefill_grid(small, false)) CHECK(p.new_tokens + p.context_tokens <= 16384);
  bool has_targets = false, has_second = false;
  for (const auto& p : prefill_grid(m, false)) {
    has_targets |= p.new_tokens == 4096 && p.context_tokens == 0;
    has_second |= p.new_tokens == 1024 && p.context_tokens == 4096;
  }
  CHECK(has_targets && has_second);
  bool has_decode_target = false;
  for (const auto& p : decode_grid(m, 1 << 20, false)) {
    CHECK(static_cast<long long>(p.batch) * p.context_tokens <= (1 << 20));
    has_decode_target |= p.batch == 64 && p.context_tokens == 4096;
  }
  CHECK(has_decode_target);
  // 1 new token with no context: exactly one visible key, 4 FLOPs per head dim element.
  CHECK(prefill_attention_flops(m, 1, 0) == 4.0 * 32 * 128);
  CHECK(decode_attention_bytes(m, 1, 1) == 2.0 * 8 * 128 * 2 + 2.0 * 32 * 128 * 2);
}

TEST(profile_json_has_exactly_the_documented_keys_sorted_points) {
  const auto doc = profile_to_json(sample_profile());
  CHECK(keys(doc) == (std::set<std::string>{"schema_version", "kind", "gpu", "model", "command", "kernels",
                                             "provenance", "gemm", "prefill_attention", "decode_attention",
                                             "elementwise", "cpu_overhead"}));
  CHECK(doc.at("schema_version").as_int() == 1);
  CHECK(doc.at("kind").as_string() == "efimsim-kernel-profile");
  CHECK(keys(doc.at("kernels")) ==
        (std::set<std::string>{"gemm", "prefill_attention", "decode_attention", "elementwise"}));
  CHECK(keys(doc.at("provenance")) ==
        (std::set<std::string>{"gpu_name", "sm_count", "sm_clock_mhz", "memory_clock_mhz", "driver_version",
                               "cuda_runtime_version", "git_commit", "date_utc"}));
  const auto& g = doc.at("gemm").as_array()[0];
  CHECK(keys(g) == (std::set<std::string>{"name", "n", "k", "points"}));
  CHECK(keys(g.at("points").as_array()[0]) == (std::set<std::string>{"m", "time_us"}));
  CHECK(g.at("points").as_array()[0].at("m").as_int() == 1);  // sorted
  CHECK(keys(doc.at("prefill_attention")) ==
        (std::set<std::string>{"q_heads", "kv_heads", "head_dim", "block_tokens", "points"}));
  CHECK(keys(doc.at("prefill_attention").at("points").as_array()[0]) ==
        (std::set<std::string>{"new_tokens", "context_tokens", "time_us"}));
  CHECK(doc.at("prefill_attention").at("points").as_array()[0].at("new_tokens").as_int() == 16);
  CHECK(keys(doc.at("decode_attention").at("points").as_array()[0]) ==
        (std::set<std::string>{"batch", "context_tokens", "time_us"}));
  CHECK(keys(doc.at("elementwise").as_array()[0]) == (std::set<std::string>{"name", "points"}));
  CHECK(keys(doc.at("elementwise").as_array()[0].at("points").as_array()[0]) ==
        (std::set<std::string>{"tokens", "time_us"}));
  CHECK(keys(doc.at("cpu_overhead")) ==
        (std::set<std::string>{"source", "step_us", "per_sequence_us", "per_layer_launch_us",
                               "graph_capture_batch_sizes"}));
  CHECK(doc.at("cpu_overhead").at("source").as_string() == "default");
}

TEST(plain_mlp_times_gelu_and_gated_mlp_silu_and_mul) {
  auto doc = json::parse(kLlamaSpec);
  auto names = [](const ModelSpec& m) {
    std::set<std::string> out;
    for (const auto& e : elementwise_ops(m)) out.insert(e.name);
    return out;
  };
  const auto gated = model_spec_from_json(doc);
  CHECK(names(gated) == (std::set<std::string>{"rmsnorm", "rope", "silu_and_mul", "residual_add", "kv_cache_write"}));
  CHECK(gated.activation == "silu");
  doc.set("mlp", json::Value("plain"));
  doc.set("activation", json::Value("gelu_pytorch_tanh"));
  const auto plain = model_spec_from_json(doc);
  CHECK(names(plain) == (std::set<std::string>{"rmsnorm", "rope", "gelu", "residual_add", "kv_cache_write"}));
  for (const auto& e : elementwise_ops(plain)) {
    if (e.name == "gelu") CHECK(e.bytes_per_token == 2 * (14336 + 14336));  // read up, write out
  }
  const auto rows = sampling_grid(false);
  CHECK(rows.front() == 1 && rows.back() == 4096 && rows.size() == 13);
  CHECK(sampling_grid(true).back() == 4096);
  CHECK(sampling_bytes(gated, 2) == 2.0 * (4.0 * 128256 + 8.0));
}

TEST(repeated_sweeps_combine_by_minimum_and_record_the_spread) {
  auto a = sample_profile();
  auto b = sample_profile();
  b.gemm[0].points = {{16, 12.4 * 1.10}, {1, 12.1 * 0.95}};  // same keys, same order as a
  b.decode.points[1].time_us = 3.5 * 1.02;
  const Profile c = combine_repetitions({a, b});
  CHECK(c.run_to_run.repetitions == 2);
  CHECK(c.gemm[0].points[0].second == 12.4);         // min
  CHECK(c.gemm[0].points[1].second == 12.1 * 0.95);  // min
  bool saw_gemm = false, saw_decode = false;
  for (const auto& n : c.run_to_run.tables) {
    if (n.table == "gemm/qkv_proj") {
      saw_gemm = true;
      CHECK(n.points == 2);
      CHECK(std::abs(n.max_rel_diff - 0.10) < 1e-12);
      CHECK(std::abs(n.median_rel_diff - 0.5 * (0.10 + (1 / 0.95 - 1))) < 1e-12);
    }
    if (n.table == "decode_attention") {
      saw_decode = true;
      CHECK(std::abs(n.max_rel_diff - 0.02) < 1e-12 && n.median_rel_diff > 0.0);
    }
  }
  CHECK(saw_gemm && saw_decode);
  CHECK(c.run_to_run.tables.size() == 1 + 2 + 1);  // gemm, prefill, decode, one elementwise
  // The optional provenance object, and only there.
  const auto doc = profile_to_json(c);
  CHECK(keys(doc.at("provenance")) ==
        (std::set<std::string>{"gpu_name", "sm_count", "sm_clock_mhz", "memory_clock_mhz", "driver_version",
                               "cuda_runtime_version", "git_commit", "date_utc", "sweep_repetitions"}));
  const auto& rr = doc.at("provenance").at("sweep_repetitions");
  CHECK(keys(rr) == (std::set<std::string>{"count", "combine", "tables"}));
  CHECK(rr.at("count").as_int() == 2 && rr.at("combine").as_string() == "minimum");
  CHECK(keys(rr.at("tables").as_array()[0]) ==
        (std::set<std::string>{"table", "points", "max_rel_diff", "median_rel_diff"}));
  // Repetitions that do not line up are refused.
  b.decode.points.pop_back();
  CHECK_THROWS(combine_repetitions({a, b}));
  CHECK_THROWS(combine_repetitions({}));
}

TEST(profile_rejects_duplicate_points_and_bad_times) {
  auto p = sample_profile();
  p.gemm[0].points.push_back({16, 13.0});
  CHECK_THROWS(profile_to_json(p));
  p = sample_profile();
  p.decode.points[0].time_us = NAN;
  CHECK_THROWS(profile_to_json(p));
  p = sample_profile();
  p.elementwise[0].points.clear();
  CHECK_THROWS(profile_to_json(p));
}

TEST(profile_file_round_trips_through_the_reader) {
  const std::string path = "efimsim_kernels_io_test_profile.json";
  write_profile(sample_profile(), path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const auto doc = json::parse(text.str());
  CHECK(doc.at("decode_attention").at("points").as_array()[1].at("time_us").as_number() == 180.0);
  CHECK(json::write(doc) == text.str());
  std::remove(path.c_str());
}

TEST(command_line_is_shell_quoted) {
  const char* argv[] = {"build/efimsim-calibrate", "--model", "a b.json", "--x=it's"};
  CHECK(join_command_line(4, argv) == "build/efimsim-calibrate --model 'a b.json' '--x=it'\\''s'");
}

int main() { return efimsim::kernels::testing::run_all(); }
