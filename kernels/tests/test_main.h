#pragma once
// A tiny test runner (the calibration machine has no GoogleTest). Each TEST
// registers itself; CHECK records a failure with file and line and the test
// goes on. The runner prints "N passed, M failed" last and exits nonzero when
// any test failed.

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace efimsim::kernels::testing {

struct TestCase {
  const char* name;
  std::function<void()> body;
};

inline std::vector<TestCase>& registry() {
  static std::vector<TestCase> tests;
  return tests;
}

inline int& current_failures() {
  static int failures = 0;
  return failures;
}

struct Registrar {
  Registrar(const char* name, std::function<void()> body) { registry().push_back({name, std::move(body)}); }
};

inline void fail(const char* file, int line, const std::string& what) {
  ++current_failures();
  std::printf("    FAILED %s:%d: %s\n", file, line, what.c_str());
}

inline int run_all() {
  int passed = 0;
  int failed = 0;
  for (const auto& t : registry()) {
    current_failures() = 0;
    try {
      t.body();
    } catch (const std::exception& e) {
      fail(__FILE__, __LINE__, std::string("unexpected exception: ") + e.what());
    }
    if (current_failures() == 0) {
      ++passed;
      std::printf("[ ok ] %s\n", t.name);
    } else {
      ++failed;
      std::printf("[FAIL] %s\n", t.name);
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace efimsim::kernels::testing

#define EK_CONCAT2(a, b) a##b
#define EK_CONCAT(a, b) EK_CONCAT2(a, b)
#define TEST(name)                                                                     \
  static void name();                                                                  \
  static ::efimsim::kernels::testing::Registrar EK_CONCAT(registrar_, name)(#name, name); \
  static void name()
#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) ::efimsim::kernels::testing::fail(__FILE__, __LINE__, #cond);    \
  } while (false)
#define CHECK_MSG(cond, msg)                                                              \
  do {                                                                                    \
    if (!(cond)) ::efimsim::kernels::testing::fail(__FILE__, __LINE__, std::string(#cond) + ": " + (msg)); \
  } while (false)
#define CHECK_THROWS(stmt)                                                        \
  do {                                                                            \
    bool threw_ = false;                                                          \
    try {                                                                         \
      stmt;                                                                       \
    } catch (const std::exception&) {                                             \
      threw_ = true;                                                              \
    }                                                                             \
    if (!threw_) ::efimsim::kernels::testing::fail(__FILE__, __LINE__, "no exception from " #stmt); \
  } while (false)
