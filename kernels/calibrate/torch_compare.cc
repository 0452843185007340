#include "torch_compare.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "json.h"

namespace efimsim::kernels {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

TorchResults run_torch_cases(const std::vector<TorchCase>& cases, const std::string& python,
                             const std::string& script, int warmup, int reps, std::size_t flush_bytes,
                             std::ostream& log) {
  TorchResults res;
  if (std::ifstream(script).fail()) {
    log << "compare-torch: script " << script << " not found; skipping the PyTorch comparison\n";
    return res;
  }
  json::Value req = json::Value::object();
  req.set("warmup", json::Value(warmup));
  req.set("reps", json::Value(reps));
  req.set("flush_l2_bytes", json::Value(static_cast<double>(flush_bytes)));
  json::Value list = json::Value::array();
  for (const auto& c : cases) {
    json::Value v = json::Value::object();
    v.set("id", json::Value(c.id));
    v.set("op", json::Value(c.op));
    if (c.op == "matmul") {
      v.set("m", json::Value(c.m));
      v.set("n", json::Value(c.n));
      v.set("k", json::Value(c.k));
    } else {
      v.set("new_tokens", json::Value(c.new_tokens));
      v.set("context_tokens", json::Value(c.context_tokens));
      v.set("q_heads", json::Value(c.q_heads));
      v.set("kv_heads", json::Value(c.kv_heads));
      v.set("head_dim", json::Value(c.head_dim));
    }
    list.push_back(v);
  }
  req.set("cases", list);
  char dir_template[] = "/tmp/efimsim-torch-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) {
    log << "compare-torch: cannot make a temporary directory; skipping\n";
    return res;
  }
  const std::string req_path = std::string(dir) + "/request.json";
  const std::string resp_path = std::string(dir) + "/response.json";
  {
    std::ofstream out(req_path);
    out << json::write(req);
  }
  const std::string cmd = shell_quote(python) + " " + shell_quote(script) + " " + shell_quote(req_path) + " " +
                          shell_quote(resp_path);
  log << "compare-torch: " << cmd << "\n";
  log.flush();
  const int status = std::system(cmd.c_str());
  const int code = status == -1 ? -1 : (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  if (code != 0) {
    log << "compare-torch: " << python << " exited with " << code
        << (code == 3 ? " (no torch or no CUDA device for torch)" : code == 127 ? " (python3 not found)" : "")
        << "; continuing without the PyTorch comparison\n";
  } else {
    try {
      std::ifstream in(resp_path);
      std::stringstream text;
      text << in.rdbuf();
      const auto doc = json::parse(text.str());
      res.available = true;
      res.torch_version = doc.at("torch_version").as_string();
      for (const auto& r : doc.at("results").as_array()) {
        const std::string& id = r.at("id").as_string();
        if (r.contains("time_us")) res.time_us[id] = r.at("time_us").as_number();
        if (r.contains("error")) res.notes[id] = r.at("error").as_string();
        if (r.contains("note")) res.notes[id] = r.at("note").as_string();
      }
    } catch (const std::exception& e) {
      log << "compare-torch: unreadable response: " << e.what() << "\n";
      res.available = false;
    }
  }
  std::remove(req_path.c_str());
  std::remove(resp_path.c_str());
  rmdir(dir);
  return res;
}

}  // namespace efimsim::kernels
