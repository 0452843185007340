// --timeline: the Chrome trace-event file of a run is valid JSON with one
// track per replica (a step event per engine step) and one per session (a
// request event per request).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/run/workload_options.h"
#include "sim/run/experiment.h"

namespace efimsim {
namespace {

TEST(Timeline, TracksForReplicasAndSessionsWithOneEventPerStepAndRequest) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("efimsim-timeline-" + std::to_string(getpid()) + ".json"))
          .string();
  ExperimentConfig config;
  config.documents = "synthetic";
  config.users = 3;
  PaperSettings(config).rounds = 2;
  config.replicas = 2;
  config.router = "session-affinity";
  config.timeline_path = path;
  const ExperimentResult run = RunExperiment(config);

  std::ifstream in(path);
  ASSERT_TRUE(in.good());
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  int64_t steps = 0, requests = 0;
  std::set<int64_t> replica_tracks, session_tracks, named_replicas, named_sessions;
  for (const auto& event : trace.at("traceEvents")) {
    const int pid = event.at("pid").get<int>();
    const int64_t tid = event.at("tid").get<int64_t>();
    if (event.at("ph") == "M" && event.at("name") == "thread_name") {
      (pid == 1 ? named_replicas : named_sessions).insert(tid);
    }
    if (event.at("ph") != "X") continue;
    EXPECT_GE(event.at("dur").get<double>(), 0.0);
    if (pid == 1) {
      ++steps;
      replica_tracks.insert(tid);
      EXPECT_TRUE(event.at("args").contains("kv_usage"));
      EXPECT_EQ(event.at("args").at("prefill").get<int64_t>() +
                    event.at("args").at("decode").get<int64_t>() > 0,
                true);
    } else {
      ++requests;
      session_tracks.insert(tid);
      EXPECT_FALSE(event.at("args").at("cancelled").get<bool>());
    }
  }
  EXPECT_EQ(steps, run.summary.engine.steps);
  EXPECT_EQ(requests, 6);
  EXPECT_EQ(session_tracks, (std::set<int64_t>{0, 1, 2}));
  EXPECT_EQ(named_sessions, session_tracks);
  EXPECT_EQ(named_replicas, (std::set<int64_t>{0, 1}));
  EXPECT_TRUE(std::includes(named_replicas.begin(), named_replicas.end(), replica_tracks.begin(),
                            replica_tracks.end()));
}

}  // namespace
}  // namespace efimsim
