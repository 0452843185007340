// efimsim capacity: the largest load one deployment sustains within every
// SLO, per policy (sim/serving/capacity_search.h), and what a target load
// needs in replicas and GPUs, with EFIM's saving over FIM and baseline.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <thread>

#include "sim/app/capacity_report.h"
#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/app/interrupt.h"
#include "sim/app/output_dir.h"
#include "sim/app/report.h"
#include "sim/app/thread_pool.h"
#include "sim/base/atomic_file.h"
#include "sim/base/errors.h"
#include "sim/metrics/output_writers.h"
#include "sim/serving/capacity_search.h"

namespace efimsim::cli {
namespace {

// The capacity command's own settings besides the search's
// (CapacitySearchConfig) and the run's (AllParamTables()).
struct CapacityOptions {
  std::string policies = "baseline,fim,efim";
  int64_t target_users = 2000;
  int64_t gpus_per_replica = 0;  // 0: --tp
  std::string search = "auto";
  double target_rate = 10;
  int64_t jobs = std::max<int64_t>(1, std::thread::hardware_concurrency());
  std::string out = "efimsim-capacity";
};

const ParamTable<CapacityOptions>& CapacityParams() {
  using C = CapacityOptions;
  static const ParamTable<C> table = {
      {{"policies", "", "comma-separated policies to size"}, &C::policies},
      {{"target-users", "users", "the load to serve, e.g. developers typing at once", 1},
       &C::target_users},
      {{"gpus-per-replica", "GPUs", "GPUs one replica occupies, for the GPU count; 0 = --tp", 0},
       &C::gpus_per_replica},
      {Choice("search", "users (closed loop: most users), rate (open loop: highest arrival rate; "
              "trace and typing), or auto: rate for --workload trace, else users",
              {"auto", "users", "rate"}),
       &C::search},
      {{"target-rate", "the search's unit", "open loop: the rate to serve (requests/s for a trace "
        "of request records, sessions/s for typing and session traces)", 1e-9},
       &C::target_rate},
      {{"jobs", "threads", "worker threads (one policy's search per thread; results do not "
        "depend on it)", 1},
       &C::jobs},
      {{"out", "", "output directory: capacity.csv (one row per policy) and probes.csv (every "
        "run)"},
       &C::out},
  };
  return table;
}

const ParamTable<CapacitySearchConfig>& SearchParams() {
  using C = CapacitySearchConfig;
  static const ParamTable<C> table = {
      {{"max-users", "users", "search bound per deployment", 1}, &C::max_users},
      {{"plateau-gain", "fraction", "saturated when doubling users raises throughput by less than "
        "this fraction (not with --think-time-dist exponential: queue growth and SLOs decide)", 0},
       &C::plateau_gain},
      {{"queue-growth-ratio", "x", "saturated when the last third of requests queue this many "
        "times longer than the first third (plus 50 ms)", 1},
       &C::queue_growth_ratio},
      {{"warmup-rounds", "rounds", "leave each user's first rounds out of SLOs and saturation "
        "(the t = 0 cold burst)", 0},
       &C::warmup_rounds},
      {{"rate-step", "", "open loop: the search grid (rate = k x step); typing in sessions/s, "
        "trace as a --rate-scale; 0 = auto: typing 0.01 sessions/s, trace 1/16 of the recorded "
        "rate", 0},
       &C::rate_step},
      {{"max-rate-steps", "steps of --rate-step", "open loop: search bound", 1},
       &C::max_rate_steps},
      {{"warmup-fraction", "fraction", "open loop: leave the first fraction of requests (by "
        "arrival) out of SLOs and saturation (the run starts empty); below 1", 0},
       &C::warmup_fraction},
  };
  return table;
}

}  // namespace

int RunCapacityCommand(int argc, const char* const* argv) {
  po::options_description general("Capacity");
  general.add_options()
      ("slo", po::value<std::vector<std::string>>()->composing(),
       "METRIC=LIMIT_MS, repeatable; every one must hold. Metrics: {ttft,tpot,e2e,queueing}_"
       "{mean,p50,p90,p99,max}_ms. Default: ttft_p99_ms=500 and tpot_p99_ms=50");
  static const CapacityOptions option_defaults;
  static const CapacitySearchConfig search_defaults;
  AddParamOptions(general, CapacityParams(), option_defaults);
  AddParamOptions(general, SearchParams(), search_defaults);
  po::options_description visible;
  visible.add(general);
  for (const auto& group : ExperimentOptionGroups()) visible.add(group);
  po::variables_map values;
  if (!ParseCommandLine("capacity",
                        "Searches, per policy, the most closed-loop users one deployment (--replicas "
                        "replicas behind\n--router; default one replica) serves while meeting "
                        "every --slo, flags saturation instead\nof reporting a meaningless number, "
                        "and turns --target-users into replicas and GPUs, with\nEFIM's saving. "
                        "Workloads: efim-paper (documents default to synthetic here, so every "
                        "load\nhas the same kind of document) or typing.\n\n"
                        "Open loop (--search rate; the default for --workload trace): the "
                        "highest arrival rate instead,\nrequests/s or sessions/s, and "
                        "--target-rate in replicas and GPUs. A trace is replayed at\n"
                        "--rate-scale k x step; typing becomes an open population of sessions "
                        "arriving at\n--session-rate k x step over --duration-s (0: 180 s). "
                        "SLOs skip the first --warmup-fraction\nof requests by arrival.",
                        visible, argc, argv, values)) {
    return 0;
  }
  CapacityOptions options;
  ApplyParamOptions(values, CapacityParams(), options);
  CapacitySearchConfig search;
  ApplyParamOptions(values, SearchParams(), search);
  const std::vector<std::string> policies = SplitPolicies(options.policies);
  std::vector<Slo> slos;
  if (values.count("slo")) {
    for (const std::string& text : values["slo"].as<std::vector<std::string>>()) {
      slos.push_back(ParseSlo(text));
    }
  } else {
    slos = {ParseSlo("ttft_p99_ms=500"), ParseSlo("tpot_p99_ms=50")};
  }
  const int64_t target = options.target_users;
  const int jobs = static_cast<int>(std::min<int64_t>(options.jobs, 4096));
  const std::string& search_mode = options.search;
  const double target_rate = options.target_rate;

  ExperimentConfig base = ExperimentFromOptions(values);
  const int64_t gpus_per_replica =
      options.gpus_per_replica > 0 ? options.gpus_per_replica : base.latency.tensor_parallel;
  const std::string gpus_source = options.gpus_per_replica > 0
                                      ? std::string("--gpus-per-replica")
                                      : "TP " + std::to_string(base.latency.tensor_parallel);
  if (!base.timeline_path.empty()) throw UsageError("--timeline: not available in capacity");
  if (values["documents"].defaulted() && base.workload == "efim-paper") base.documents = "synthetic";
  const bool open_loop =
      search_mode == "rate" || (search_mode == "auto" && base.workload == "trace");
  if (open_loop && base.workload == "typing" && base.duration_s == 0) {
    base.duration_s = search.typing_window_s;
  }
  base.interrupt = InstallInterruptHandler();
  const std::string out_dir = OutputDirOption(options.out);
  // Checked now, created only once the search has an answer: a failed or
  // interrupted search leaves no folder behind.
  FirstMissingFolder(out_dir);

  std::string slo_text;
  for (const Slo& slo : slos) {
    slo_text += (slo_text.empty() ? "" : ", ") + slo.metric + " <= " + FormatFixed(slo.limit_ms, 1);
  }
  if (open_loop) {
    std::cerr << "capacity: " << policies.size() << " policies, " << slo_text
              << ", open loop: arrival rate, up to " << search.max_rate_steps
              << " steps per deployment ...\n";
  } else {
    std::cerr << "capacity: " << policies.size() << " policies, " << slo_text << ", up to "
              << search.max_users << " users per deployment ...\n";
  }
  const auto started = std::chrono::steady_clock::now();
  std::vector<Plan> plans(policies.size());
  try {
    ParallelFor(
        static_cast<int64_t>(policies.size()), jobs,
        [&](int64_t i) {
          ExperimentConfig config = base;
          config.policy = policies[static_cast<size_t>(i)];
          plans[static_cast<size_t>(i)].search = open_loop
                                                     ? SearchRateCapacity(config, slos, search)
                                                     : SearchCapacity(config, slos, search);
        },
        [&](int64_t done) {
          std::cerr << "capacity: " << done << "/" << policies.size() << " policies searched\n";
        });
  } catch (const Interrupted& interrupted) {
    std::cerr << "efimsim: " << interrupted.what() << "; no output files were written\n";
    return 130;
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  PrepareOutputDir(out_dir);
  if (open_loop) {
    RateReportSetup report;
    report.slo_text = slo_text;
    report.target_rate = target_rate;
    report.gpus_per_replica = gpus_per_replica;
    report.gpus_source = gpus_source;
    report.warmup_fraction = search.warmup_fraction;
    report.out_dir = out_dir;
    report.wall_s = wall_s;
    return ReportRateCapacity(plans, base, report);
  }
  for (Plan& plan : plans) {
    if (plan.search.max_users == 0) continue;
    plan.deployments = (target + plan.search.max_users - 1) / plan.search.max_users;
    plan.replicas = plan.deployments * base.replicas;
    plan.gpus = plan.replicas * gpus_per_replica;
  }

  // Outputs.
  std::string capacity_csv =
      "policy,max_users,at_search_limit,saturated_from_users,replicas_per_deployment,router,"
      "target_users,replicas_needed,gpus_per_replica,gpus_needed,prefix_cache_hit_rate,"
      "ttft_p99_ms,tpot_p99_ms,e2e_p99_ms,request_throughput_per_s,probes,slos,limited_by\n";
  std::string probes_csv =
      "policy,users,passed,meets_slos,saturated,request_throughput_per_s,ttft_p99_ms,tpot_p99_ms,"
      "e2e_p99_ms,queueing_mean_ms,prefix_cache_hit_rate,verdict\n";
  auto f = [](double v) { return FormatFixed(v, 6); };
  for (const Plan& plan : plans) {
    const CapacityResult& r = plan.search;
    const LoadProbe* answer = r.answer();
    const RunSummary empty;
    const RunSummary& s = answer != nullptr ? answer->summary : empty;
    capacity_csv += r.policy + "," + std::to_string(r.max_users) + "," +
                    (r.at_search_limit ? "true" : "false") + "," +
                    std::to_string(r.saturated_from_users) + "," + std::to_string(base.replicas) +
                    "," + base.router + "," + std::to_string(target) + "," +
                    std::to_string(plan.replicas) + "," + std::to_string(gpus_per_replica) + "," +
                    std::to_string(plan.gpus) + "," + f(s.prefix_cache_hit_rate) + "," +
                    f(s.ttft_ms.p99) + "," + f(s.tpot_ms.p99) + "," + f(s.e2e_ms.p99) + "," +
                    f(s.request_throughput_per_s) + "," + std::to_string(r.probes.size()) + "," +
                    CsvQuoted(slo_text) + "," + CsvQuoted(r.limited_by) + "\n";
    for (const LoadProbe& p : r.probes) {
      probes_csv += r.policy + "," + std::to_string(p.users) + "," +
                    (p.meets_slos && !p.saturated ? "true" : "false") + "," +
                    (p.meets_slos ? "true" : "false") + "," + (p.saturated ? "true" : "false") +
                    "," + f(p.summary.request_throughput_per_s) + "," + f(p.summary.ttft_ms.p99) +
                    "," + f(p.summary.tpot_ms.p99) + "," + f(p.summary.e2e_ms.p99) + "," +
                    f(p.summary.queueing_ms.mean) + "," + f(p.summary.prefix_cache_hit_rate) +
                    "," + CsvQuoted(p.verdict) + "\n";
    }
  }
  WriteFileAtomically(out_dir + "/capacity.csv", capacity_csv);
  WriteFileAtomically(out_dir + "/probes.csv", probes_csv);

  // Report.
  const std::string deployment =
      base.replicas == 1 ? std::string("one replica")
                         : std::to_string(base.replicas) + " replicas behind " + base.router;
  std::cout << "capacity: most users " << deployment << " serves with " << slo_text << " (ms)\n"
            << "workload: " << base.workload << ", users varied; documents " << base.documents
            << "; model " << base.engine.model << " on " << base.engine.gpu << "; SLOs on rounds >= "
            << search.warmup_rounds << "\n"
            << "latency:  " << DescribeLatencyModel(base) << "\n"
            << "target:   " << target << " users; GPUs = replicas x " << gpus_per_replica
            << " (" << gpus_source << ")\n\n";
  std::cout << Pad("policy", 10, false) << Pad("max users", 10) << Pad("replicas", 10)
            << Pad("GPUs", 7) << Pad("hit rate", 10) << Pad("p99 TTFT", 10) << Pad("p99 TPOT", 10)
            << Pad("req/s", 9) << "  next load up fails because\n";
  for (const Plan& plan : plans) {
    const CapacityResult& r = plan.search;
    const LoadProbe* answer = r.answer();
    std::string users = (r.at_search_limit ? ">=" : "") + std::to_string(r.max_users);
    std::string replicas = plan.gpus > 0 ? (r.at_search_limit ? "<=" : "") +
                                               std::to_string(plan.replicas)
                                         : "-";
    std::string gpus = plan.gpus > 0 ? std::to_string(plan.gpus) : "-";
    std::cout << Pad(r.policy, 10, false) << Pad(users, 10) << Pad(replicas, 10) << Pad(gpus, 7)
              << AnswerCells(answer)
              << "  " << (r.max_users == 0 ? "even 1 user fails: " : "") << r.limited_by << "\n";
  }
  std::cout << "\n";
  PrintEfimSaving(plans);
  PrintWrote(plans, out_dir, wall_s);
  return 0;
}

}  // namespace efimsim::cli
