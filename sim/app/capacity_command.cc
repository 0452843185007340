// efimsim capacity: the largest load one deployment sustains within every
// SLO, per policy (sim/run/capacity_search.h), and what a target load
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
#include "sim/base/output_dir.h"
#include "sim/app/report.h"
#include "sim/run/thread_pool.h"
#include "sim/base/atomic_file.h"
#include "sim/base/errors.h"
#include "sim/run/run_params.h"
#include "sim/run/workload.h"
#include "sim/metrics/output_writers.h"
#include "sim/run/capacity_search.h"
#include "sim/run/deployment_split.h"

namespace efimsim::cli {
namespace {

// The capacity command's own settings besides the search's
// (CapacitySearchConfig) and the run's (AllParamTables()).
struct CapacityOptions {
  // empty: client_ttft_p99_ms=500 and client_tpot_p99_ms=50 (with
  // --frontend none: ttft_p99_ms=500 and tpot_p99_ms=50)
  std::vector<std::string> slo;
  std::string policies = "baseline,fim,efim";
  int64_t target_users = 2000;
  int64_t gpus_per_replica = 0;  // 0: --tp
  std::string search = "auto";
  std::string pd_splits;  // empty: the deployment the run options give
  double target_rate = 10;
  int64_t jobs = std::max<int64_t>(1, std::thread::hardware_concurrency());
  std::string out = "efimsim-capacity";
};

const CommandParamTable<CapacityOptions>& CapacityParams() {
  using C = CapacityOptions;
  static const CommandParamTable<C> table = {
      {{"slo", "",
        "METRIC=LIMIT_MS, repeatable; every one must hold. Metrics: {ttft,tpot,e2e,queueing}_"
        "{mean,p50,p90,p99,max}_ms (the engine's times), and client_{ttft,tpot,e2e}_... (what a "
        "benchmark client sees: engine + frontend; not with --frontend none). Default: "
        "client_ttft_p99_ms=500 and client_tpot_p99_ms=50, as a benchmark client would judge "
        "them; with --frontend none, ttft_p99_ms=500 and tpot_p99_ms=50"},
       &C::slo},
      {{"policies", "", "comma-separated policies to size"}, &C::policies},
      {{"target-users", "users", "the load to serve, e.g. developers typing at once", 1},
       &C::target_users},
      {{"gpus-per-replica", "GPUs", "GPUs one replica occupies, for the GPU count; 0 = --tp", 0},
       &C::gpus_per_replica},
      {Choice("search", "users (closed loop: most users), rate (open loop: highest arrival rate; "
              "trace, vllm-bench and typing), or auto: users for efim-paper and typing, else rate",
              {"auto", "users", "rate"}),
       &C::search},
      {{"pd-splits", "", "compare deployments and name the cheapest per policy: comma-separated "
        "colocated (--replicas behind --router), N:M or NPMD (N prefill + M decode replicas, "
        "docs/disaggregation.md), or auto (colocated and 1P1D ... 4P1D: 10 deployments). Users "
        "search only; each deployment is searched as its own --prefill-replicas run"},
       &C::pd_splits},
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

const CommandParamTable<CapacitySearchConfig>& SearchParams() {
  using C = CapacitySearchConfig;
  static const CommandParamTable<C> table = {
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

// capacity's command line: --slo, CapacityParams(), SearchParams() and the
// run's options.
CommandRows CapacityRows() {
  CommandRows rows("capacity",
                   "Searches, per policy, the most closed-loop users one deployment "
                   "(--replicas replicas behind\n--router; default one replica) serves "
                   "while meeting every --slo, flags saturation instead\nof reporting a "
                   "meaningless number, and turns --target-users into replicas and GPUs, "
                   "with\nEFIM's saving. Workloads: efim-paper (documents default to "
                   "synthetic here, so every load\nhas the same kind of document) or "
                   "typing.\n\n"
                   "Open loop (--search rate; the default for --workload trace): the "
                   "highest arrival rate instead,\nrequests/s or sessions/s, and "
                   "--target-rate in replicas and GPUs. A trace is replayed at\n"
                   "--rate-scale k x step; typing becomes an open population of sessions "
                   "arriving at\n--session-rate k x step over --duration-s (0: 180 s). "
                   "SLOs skip the first --warmup-fraction\nof requests by arrival.");
  po::options_description general("Capacity");
  AddCommandRows(rows, general, CapacityParams());
  AddCommandRows(rows, general, SearchParams());
  rows.visible.add(general);
  AddExperimentRows(rows);
  return rows;
}

// A capacity command's settings, read from its options and checked.
struct CapacityCommand {
  CapacityOptions options;
  CapacitySearchConfig search;
  std::vector<std::string> policies;
  std::vector<Slo> slos;
  std::string slo_text;  // "ttft_p99_ms <= 500.0, tpot_p99_ms <= 50.0"
  ExperimentConfig base;  // each policy's run, but for its policy (and deployment)
  std::vector<DeploymentSplit> splits;  // --pd-splits; empty: base's deployment
  int64_t gpus_per_replica = 0;
  std::string gpus_source;  // "--gpus-per-replica" or "TP 2"
  bool open_loop = false;   // searching the arrival rate, not users
  std::string out_dir;      // checked, not created yet
};

// --slo as given (parsed: its usage errors come before the run options').
std::vector<Slo> GivenSlos(const CapacityOptions& options) {
  std::vector<Slo> slos;
  for (const std::string& text : options.slo) slos.push_back(ParseSlo(text));
  return slos;
}

// With no --slo: p99 TTFT <= 500 ms and p99 TPOT <= 50 ms, the client's
// (engine + frontend) when `client`, else the engine's.
std::vector<Slo> DefaultSlos(bool client) {
  if (client) return {ParseSlo("client_ttft_p99_ms=500"), ParseSlo("client_tpot_p99_ms=50")};
  return {ParseSlo("ttft_p99_ms=500"), ParseSlo("tpot_p99_ms=50")};
}

// --pd-splits, parsed, with every deployment's run checked before any search
// (ValidateExperiment: an engine without disaggregation, a pool option out
// of range).
std::vector<DeploymentSplit> CheckedSplits(const CapacityCommand& c) {
  if (c.open_loop) {
    throw UsageError("--pd-splits: with the users search only (--search users; efim-paper or "
                     "typing); for an arrival rate run capacity once per deployment");
  }
  if (c.base.prefill_replicas > 0) {
    throw UsageError("--prefill-replicas: give the deployments to compare in --pd-splits instead");
  }
  std::vector<DeploymentSplit> splits = ParseDeploymentSplits(c.options.pd_splits);
  for (const DeploymentSplit& split : splits) {
    for (const std::string& policy : c.policies) {
      ExperimentConfig config = WithDeploymentSplit(c.base, split);
      config.policy = policy;
      ValidateExperiment(config);
    }
  }
  return splits;
}

// Reads and checks the command (usage errors in the order the options are
// checked), gives its base config the interrupt flag, and
// checks that --out can be created; creates nothing.
CapacityCommand CapacityCommandFromOptions(const po::variables_map& values) {
  CapacityCommand c;
  ApplyCommandRows(values, CapacityParams(), c.options);
  ApplyCommandRows(values, SearchParams(), c.search);
  c.policies = SplitPolicies(c.options.policies);
  c.slos = GivenSlos(c.options);
  c.base = ExperimentFromOptions(values);
  ExperimentConfig& base = c.base;
  // A capacity answer is judged as a benchmark client sees it: the API
  // server's time (the engine's fitted frontend) is on unless --frontend
  // says otherwise, and the default SLOs are the client's.
  if (values["frontend"].defaulted()) base.frontend = "default";
  if (c.slos.empty()) c.slos = DefaultSlos(HasClientTimes(base));
  const int64_t ranks = base.engine.data_parallel_size;
  c.gpus_per_replica = c.options.gpus_per_replica > 0 ? c.options.gpus_per_replica
                                                      : ranks * base.latency.tensor_parallel;
  c.gpus_source = c.options.gpus_per_replica > 0 ? std::string("--gpus-per-replica")
                  : ranks > 1 ? "DP " + std::to_string(ranks) + " x TP " + std::to_string(base.latency.tensor_parallel)
                              : "TP " + std::to_string(base.latency.tensor_parallel);
  if (c.options.gpus_per_replica == 0 && DecodeTp(base) != base.latency.tensor_parallel) {
    c.gpus_source += "; decode replicas x their --decode-tp " + std::to_string(DecodeTp(base));
  }
  if (!base.timeline_path.empty()) throw UsageError("--timeline: not available in capacity");
  // Synthetic documents by default where the workload reads --documents: a
  // search runs the workload dozens of times.
  if (values["documents"].defaulted() && OptionApplies(base, "documents")) {
    base.documents = "synthetic";
  }
  const WorkloadCapacityAxes axes = CapacityAxes(base.workload);
  c.open_loop = c.options.search == "rate" || (c.options.search == "auto" && !axes.users);
  if (c.open_loop && axes.rate == WorkloadCapacityAxes::Rate::kSessions && base.duration_s == 0) {
    base.duration_s = c.search.typing_window_s;
  }
  base.interrupt = InterruptFlag();
  if (!c.options.pd_splits.empty()) c.splits = CheckedSplits(c);
  for (const Slo& slo : c.slos) {
    if (IsClientSloMetric(slo.metric) && !HasClientTimes(base)) {
      throw UsageError("--slo " + slo.metric + ": client-side times need a frontend, and "
                       "--frontend none turns it off: drop it, or give --frontend default or its "
                       "figures");
    }
  }
  c.out_dir = OutputDirOption(c.options.out);
  // Checked now, created only once the search has an answer: a failed or
  // interrupted search leaves no folder behind.
  FirstMissingFolder(c.out_dir);
  for (const Slo& slo : c.slos) {
    c.slo_text +=
        (c.slo_text.empty() ? "" : ", ") + slo.metric + " <= " + FormatFixed(slo.limit_ms, 1);
  }
  return c;
}

// "capacity: 3 policies, <SLOs>, ..." on stderr: what the search is about to do.
void AnnounceSearch(const CapacityCommand& c) {
  const char* const policies = c.policies.size() == 1 ? " policy, " : " policies, ";
  if (c.open_loop) {
    std::cerr << "capacity: " << c.policies.size() << policies << c.slo_text
              << ", open loop: arrival rate, up to " << c.search.max_rate_steps
              << " steps per deployment ...\n";
  } else {
    std::cerr << "capacity: " << c.policies.size() << policies << c.slo_text << ", up to "
              << c.search.max_users << " users per deployment ...\n";
  }
}

// Searches every policy, one per thread on up to --jobs threads, reporting
// progress on stderr. Returns the plans in policy order, searched but not
// sized; throws Interrupted.
std::vector<Plan> SearchPolicies(const CapacityCommand& c) {
  const int jobs = static_cast<int>(std::min<int64_t>(c.options.jobs, 4096));
  // One search per policy, or per policy and deployment (policy-major).
  const std::vector<DeploymentSplit> splits =
      c.splits.empty() ? std::vector<DeploymentSplit>{DeploymentSplit{}} : c.splits;
  const size_t count = c.policies.size() * splits.size();
  std::vector<Plan> plans(count);
  ParallelFor(
      static_cast<int64_t>(count), jobs,
      [&](int64_t i) {
        const std::string& policy = c.policies[static_cast<size_t>(i) / splits.size()];
        const DeploymentSplit& split = splits[static_cast<size_t>(i) % splits.size()];
        ExperimentConfig config = c.splits.empty() ? c.base : WithDeploymentSplit(c.base, split);
        config.policy = policy;
        Plan& plan = plans[static_cast<size_t>(i)];
        plan.deployment = c.splits.empty() ? "" : split.Name();
        plan.replicas_per_deployment = TotalReplicas(config);
        plan.gpus_per_deployment = GpusPerDeployment(config, c.options.gpus_per_replica);
        plan.search = c.open_loop ? SearchRateCapacity(config, c.slos, c.search)
                                  : SearchCapacity(config, c.slos, c.search);
      },
      [&](int64_t done) {
        std::cerr << "capacity: " << done << "/" << count
                  << (c.splits.empty() ? " policies searched" : " searches done (policies x deployments)")
                  << "\n";
      });
  return plans;
}

// What the open-loop report needs from the command.
RateReportSetup RateSetup(const CapacityCommand& c, double wall_s) {
  RateReportSetup report;
  report.slo_text = c.slo_text;
  report.target_rate = c.options.target_rate;
  report.gpus_per_replica = c.gpus_per_replica;
  report.gpus_per_replica_option = c.options.gpus_per_replica;
  report.gpus_source = c.gpus_source;
  report.warmup_fraction = c.search.warmup_fraction;
  report.out_dir = c.out_dir;
  report.wall_s = wall_s;
  return report;
}

// --pd-splits: marks, per policy, the plan with the fewest GPUs (the first
// in --pd-splits order on a tie). Without splits there is one plan per
// policy and nothing to mark.
void MarkCheapest(std::vector<Plan>& plans) {
  for (size_t i = 0; i < plans.size(); ++i) {
    Plan& plan = plans[i];
    if (plan.deployment.empty() || plan.gpus <= 0) continue;
    bool cheapest = true;
    for (size_t j = 0; j < plans.size(); ++j) {
      const Plan& other = plans[j];
      if (j == i || other.search.policy != plan.search.policy || other.gpus <= 0) continue;
      if (other.gpus < plan.gpus || (other.gpus == plan.gpus && j < i)) cheapest = false;
    }
    plan.cheapest = cheapest;
  }
}

// Closed loop: fills each plan that serves some users with the deployments,
// replicas and GPUs that serve --target-users (rounded up).
void PlanForTargetUsers(std::vector<Plan>& plans, const CapacityCommand& c) {
  const int64_t target = c.options.target_users;
  for (Plan& plan : plans) {
    if (plan.search.max_users == 0 || plan.search.limited_by_rejections) continue;
    plan.deployments = (target + plan.search.max_users - 1) / plan.search.max_users;
    plan.replicas = plan.deployments * plan.replicas_per_deployment;
    plan.gpus = plan.deployments * plan.gpus_per_deployment;
  }
  MarkCheapest(plans);
}

// Closed loop: writes capacity.csv (one row per plan) and probes.csv (one
// row per probe) into the output folder, each whole or not at all.
void WriteUsersCapacityCsvs(const std::vector<Plan>& plans, const CapacityCommand& c) {
  const bool splits = !c.splits.empty();
  const bool client = HasClientTimes(c.base);
  const std::string client_columns = client ? kClientCsvColumns : "";
  // --pd-splits adds the deployment and whether it is its policy's cheapest.
  const std::string split_columns = splits ? "deployment,cheapest," : "";
  std::string capacity_csv =
      "policy," + split_columns +
      "max_users,at_search_limit,saturated_from_users,replicas_per_deployment,router,"
      "target_users,replicas_needed,gpus_per_replica,gpus_needed,prefix_cache_hit_rate,"
      "ttft_p99_ms,tpot_p99_ms,e2e_p99_ms,request_throughput_per_s,probes,slos,limited_by" +
      client_columns + "\n";
  std::string probes_csv =
      "policy," + std::string(splits ? "deployment," : "") + "users,passed,meets_slos,saturated,request_throughput_per_s,ttft_p99_ms,tpot_p99_ms,"
      "e2e_p99_ms,queueing_mean_ms,prefix_cache_hit_rate,verdict" + client_columns + "\n";
  for (const Plan& plan : plans) {
    const CapacityResult& r = plan.search;
    const std::string split_cells =
        splits ? plan.deployment + "," + (plan.cheapest ? "true," : "false,") : "";
    capacity_csv += r.policy + "," + split_cells + std::to_string(r.max_users) + "," +
                    (r.at_search_limit ? "true" : "false") + "," +
                    std::to_string(r.saturated_from_users) + "," +
                    std::to_string(plan.replicas_per_deployment) + "," + c.base.router + "," +
                    std::to_string(c.options.target_users) + "," +
                    std::to_string(plan.replicas) + "," + std::to_string(c.gpus_per_replica) +
                    "," + std::to_string(plan.gpus) + "," + AnswerCsvTail(r, c.slo_text, client);
    for (const LoadProbe& p : r.probes) {
      probes_csv += r.policy + "," + (splits ? plan.deployment + "," : "") +
                    std::to_string(p.users) + "," + ProbeCsvTail(p, client);
    }
  }
  WriteFileAtomically(c.out_dir + "/capacity.csv", capacity_csv);
  WriteFileAtomically(c.out_dir + "/probes.csv", probes_csv);
}

// --pd-splits: "cheapest for fim: 4P1D, 50 GPUs (10 deployments of 5
// replicas)" per policy (* in the table), or why none serves the target.
void PrintCheapest(const std::vector<Plan>& plans, const CapacityCommand& c) {
  for (const std::string& policy : c.policies) {
    const Plan* best = FindPlan(plans, policy);
    if (best == nullptr) {
      std::cout << "cheapest for " << policy << ": none of the deployments serves a user\n";
      continue;
    }
    std::cout << "cheapest for " << policy << ": " << best->deployment << ", "
              << (best->search.at_search_limit ? "at most " : "") << best->gpus << " GPUs ("
              << best->deployments << " deployment" << (best->deployments == 1 ? "" : "s")
              << " of " << best->replicas_per_deployment << " replica"
              << (best->replicas_per_deployment == 1 ? "" : "s") << ")\n";
  }
  std::cout << "\n";
}

// Closed loop: prints the report (what was searched, the table, EFIM's
// saving and the files written).
void PrintUsersCapacity(const std::vector<Plan>& plans, const CapacityCommand& c,
                        double wall_s) {
  const ExperimentConfig& base = c.base;
  std::string deployment = DeploymentText(base);
  if (!c.splits.empty()) {
    deployment = "each deployment (";
    for (size_t i = 0; i < c.splits.size(); ++i) deployment += (i ? ", " : "") + c.splits[i].Name();
    deployment += "; routers: " + base.router + ", decode " + DecodeRouter(base) + ")";
  }
  std::cout << "capacity: most users " << deployment << " serves with " << c.slo_text
            << " (ms)\n"
            << "workload: " << base.workload << ", users varied; documents " << base.documents
            << "; model " << base.engine.model << " on " << base.engine.gpu << "; SLOs on rounds >= "
            << c.search.warmup_rounds << "\n"
            << "latency:  " << PlansLatencyModel(plans) << "\n"
            << ClientTimesLine(base)
            << "target:   " << c.options.target_users << " users; GPUs = replicas x "
            << c.gpus_per_replica << " (" << c.gpus_source << ")\n\n";
  const bool splits = !c.splits.empty();
  std::cout << Pad("policy", 10, false) << (splits ? Pad("deployment", 12, false) : "")
            << Pad("max users", 10) << Pad("replicas", 10)
            << Pad("GPUs", 7) << Pad("hit rate", 10) << Pad("p99 TTFT", 10) << Pad("p99 TPOT", 10)
            << Pad("req/s", 9) << "  next load up fails because\n";
  for (const Plan& plan : plans) {
    const CapacityResult& r = plan.search;
    std::string users = (r.at_search_limit ? ">=" : "") + std::to_string(r.max_users);
    std::cout << Pad(r.policy, 10, false)
              << (splits ? Pad(plan.deployment + (plan.cheapest ? " *" : ""), 12, false) : "")
              << Pad(users, 10) << ReplicaCells(plan) << AnswerCells(r.answer())
              << "  " << (r.max_users == 0 ? "even 1 user fails: " : "") << r.limited_by << "\n";
  }
  std::cout << "\n";
  if (splits) PrintCheapest(plans, c);
  PrintRejectionWarnings(plans);
  PrintEfimSaving(plans);
  PrintWrote(plans, c.out_dir, wall_s);
}

}  // namespace

std::vector<CommandRows> CapacityCommandRows() { return {CapacityRows()}; }

int RunCapacityCommand(int argc, const char* const* argv) {
  po::variables_map values;
  if (!ParseCommandLine(CapacityRows(), argc, argv, values)) return 0;
  const CapacityCommand command = CapacityCommandFromOptions(values);
  AnnounceSearch(command);
  const auto started = std::chrono::steady_clock::now();
  std::vector<Plan> plans = SearchPolicies(command);  // Interrupted: main reports it
  // The last moment to stop: the outputs below are written whole.
  ThrowIfInterrupted();
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  PrepareOutputDir(command.out_dir);
  if (command.open_loop) return ReportRateCapacity(plans, command.base, RateSetup(command, wall_s));
  PlanForTargetUsers(plans, command);
  WriteUsersCapacityCsvs(plans, command);
  PrintUsersCapacity(plans, command, wall_s);
  return 0;
}

}  // namespace efimsim::cli
