#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "base/csv.h"
#include "cli/commands/commands.h"
#include "cli/commands/fill_run.h"
#include "engine/quota_yaml.h"
#include "model/cluster_source.h"
#include "model/job_topology.h"
#include "sim/policy_files.h"
#include "sim/report/html_report.h"
#include "sim/report/jobs_csv.h"
#include "sim/report/json_report.h"
#include "sim/report/text_table.h"
#include "sim/service_loads.h"
#include "sim/simulator.h"
#include "sim/traces/elastic_jobs.h"
#include "sim/traces/load_scaling.h"
#include "sim/traces/workload_loader.h"

namespace headroom::cli {
namespace {

struct SimFlags {
  std::string cluster;
  std::string workload;
  std::string policies = "all";
  uint64_t seed = 1;
  std::string out = "out/sim";
  double load = 0;
  double elastic = 0;
  unsigned threads = 0;
  uint32_t series_points = 1000;
  bool paranoid = false;
  bool jobs_csv = false;
  std::string experiment = "replay";
  std::string seeds = "42";
  double tune = 1.3;
  std::string migration = "preset";
  std::string preemption = "preset";
  double restart_s = -1;  // Below 0: each policy's own preemption.restart_s.
  std::string queues;
  std::string services;
  sim::ServiceOptions service;
  std::string failures;
  std::vector<std::string> incidents;
  double failure_rate = sim::FailureModel().node_failures_per_day;
  double latent_share = sim::FailureModel().latent_share;
  double latent_fail_after_s = sim::FailureModel().latent_fail_after_s;
  double check_catches = sim::FailureModel().check_catches;
  double warned_share = sim::FailureModel().warned_share;
  double warning_lead_s = sim::FailureModel().warning_lead_s;
  double false_warnings_per_day = sim::FailureModel().false_warnings_per_day;
  uint64_t large_job_devices = sim::SimOptions().large_job_devices;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "headroom sim: %s\n", message.c_str());
  return 2;
}

// "jobs-NAME.csv", NAME the policy's name with anything but letters, digits, '.', '_' and '-'
// as '_'; a name already used gets "-2", "-3", ... (two policy files may share a name).
std::string JobsCsvName(const std::string& policy, std::set<std::string>& used) {
  std::string name = policy;
  for (char& c : name) {
    const bool plain =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (!plain) c = '_';
  }
  std::string file = "jobs-" + name + ".csv";
  for (int n = 2; !used.insert(file).second; ++n) file = fmt::format("jobs-{}-{}.csv", name, n);
  return file;
}

sim::ClusterSummary Summarize(const model::Cluster& cluster, const std::string& source) {
  sim::ClusterSummary summary;
  summary.source = source;
  summary.devices = cluster.device_count();
  summary.nodes = cluster.nodes().size();
  summary.levels = cluster.level_names();
  std::map<std::string, uint64_t> by_model;
  for (const model::Device& device : cluster.devices()) {
    const std::string& name = cluster.device_class(device.device_class).model;
    ++by_model[name.empty() ? "unnamed" : name];
  }
  summary.devices_by_model.assign(by_model.begin(), by_model.end());
  return summary;
}

int RunSim(const SimFlags& flags) {
  if (flags.experiment == "fill") {
    FillFlags fill{flags.cluster, flags.workload, flags.policies, flags.seeds,
                   flags.tune,    flags.out,      flags.threads};
    return RunFillCommand(fill);
  }
  auto policies = sim::LoadPolicies(flags.policies);
  if (!policies) return Fail(policies.error().message);
  // Defragmentation by migration for every policy, with its defaults (policy_config.h), or
  // for none; "preset" keeps each policy's own setting.
  // Preemption likewise.
  for (engine::PolicyConfig& policy : *policies) {
    if (flags.migration != "preset") {
      policy.migration.enabled = flags.migration == "on";
      policy.description += "; migration " + flags.migration;
    }
    if (flags.preemption != "preset") {
      policy.preemption.enabled = flags.preemption == "on";
      policy.description += "; preemption " + flags.preemption;
    }
    if (flags.restart_s >= 0) {
      policy.preemption.restart_us = SecondsToUs(flags.restart_s);
      policy.description += fmt::format("; restarts take {:g} s", flags.restart_s);
    }
  }
  // Queues with quotas for every policy (replacing any a policy file names).
  if (!flags.queues.empty()) {
    auto text = ReadTextFile(flags.queues);
    if (!text) return Fail(text.error().message);
    auto queues = engine::ParseQueuesYaml(*text, flags.queues);
    if (!queues) return Fail(queues.error().message);
    for (engine::PolicyConfig& policy : *policies) {
      policy.queues = *queues;
      policy.description += "; queues from " + flags.queues;
    }
  }
  auto cluster = model::LoadCluster(flags.cluster);
  if (!cluster) return Fail(cluster.error().message);
  if (cluster->device_count() == 0)
    return Fail(flags.cluster + ": expected a cluster with devices, got none");
  for (const engine::PolicyConfig& policy : *policies) {
    if (policy.recovery.spare_nodes == 0) continue;
    if (auto level = engine::SpareLevel(policy.recovery, *cluster); !level) {
      return Fail(
          fmt::format("policy {} on {}: {}", policy.name, flags.cluster, level.error().message));
    }
  }

  sim::WorkloadOptions workload_options;
  workload_options.max_devices_per_node = std::max<uint32_t>(cluster->max_devices_per_node(), 1);
  workload_options.seed = flags.seed;
  auto loaded = sim::LoadWorkload(flags.workload, workload_options);
  if (!loaded) return Fail(loaded.error().message);
  model::Workload& workload = loaded->workload;
  if (workload.jobs.empty()) return Fail(flags.workload + ": expected at least one job, got none");
  if (auto levels = model::ValidateTopologyLevels(*cluster, workload.jobs, flags.workload);
      !levels) {
    return Fail(levels.error().message);
  }

  const uint64_t capacity_milli = uint64_t{1000} * cluster->device_count();
  sim::RunReport report;
  report.seed = flags.seed;
  report.cluster = Summarize(*cluster, flags.cluster);
  report.workload.format = workload.format;
  report.workload.source = workload.source;
  report.workload.jobs = workload.jobs.size();
  report.workload.load_scale = 1;
  if (flags.load > 0) {
    report.workload.load_scale = sim::ScaleToLoad(workload, flags.load, capacity_milli);
  }
  report.workload.offered_load = sim::OfferedLoad(workload, capacity_milli);
  if (flags.elastic > 0) sim::MakeElastic(workload, flags.elastic, flags.seed);
  report.workload.elastic_jobs =
      static_cast<uint64_t>(std::count_if(workload.jobs.begin(), workload.jobs.end(),
                                          [](const model::Job& job) { return job.elastic(); }));
  report.workload.arrival_span_s =
      UsToSeconds(workload.jobs.back().submit_time_us - workload.jobs.front().submit_time_us);
  for (const auto& [reason, count] : loaded->skipped) {
    report.workload.skipped_rows += count;
    report.workload.skipped_reasons.push_back({reason, count});
  }

  sim::SimOptions options;
  if (!flags.service.load_curve.empty() && flags.services.empty()) {
    return Fail("--service-curve: expected --services too (the traces the curve shapes)");
  }
  if (!flags.services.empty()) {
    sim::ServiceOptions service = flags.service;
    service.seed = flags.seed;
    auto services = sim::LoadServices(
        flags.services, service, *cluster,
        workload.jobs.back().submit_time_us - workload.jobs.front().submit_time_us);
    if (!services) return Fail(services.error().message);
    report.services = sim::ServicesSummary{
        .traces = flags.services,
        .services = services->size(),
        .replayed_by_count = static_cast<uint64_t>(std::count_if(
            services->begin(), services->end(),
            [](const sim::ServiceLoad& load) { return !load.replica_schedule.empty(); })),
        .options = service};
    options.services = *std::move(services);
  }
  if (!flags.failures.empty()) {
    auto failures = sim::LoadFailureModel(flags.failures);
    if (!failures) return Fail(failures.error().message);
    failures->node_failures_per_day = flags.failure_rate;
    failures->latent_share = flags.latent_share;
    failures->latent_fail_after_s = flags.latent_fail_after_s;
    failures->check_catches = flags.check_catches;
    failures->warned_share = flags.warned_share;
    failures->warning_lead_s = flags.warning_lead_s;
    failures->false_warnings_per_day = flags.false_warnings_per_day;
    failures->seed = flags.seed;
    report.failures = sim::FailuresSummary{.trace = flags.failures,
                                           .node_failures_per_day = flags.failure_rate,
                                           .classes = failures->classes.size(),
                                           .latent_share = flags.latent_share,
                                           .check_catches = flags.check_catches,
                                           .warned_share = flags.warned_share,
                                           .warning_lead_s = flags.warning_lead_s,
                                           .false_warnings_per_day = flags.false_warnings_per_day,
                                           .large_job_devices = flags.large_job_devices};
    options.failures = *std::move(failures);
  }
  for (const std::string& text : flags.incidents) {
    auto incident = sim::ParseFacilityIncident(text, *cluster);
    if (!incident) return Fail(incident.error().message);
    options.incidents.push_back(*incident);
    report.incidents.push_back(text);
  }
  options.large_job_devices = flags.large_job_devices;
  options.series_points = flags.series_points;
  options.paranoid = flags.paranoid;
  options.job_outcomes = flags.jobs_csv;
  report.policies = sim::RunPolicies(*cluster, workload, *policies, options, flags.threads);

  const std::string table = sim::WriteTextTable(report);
  std::fwrite(table.data(), 1, table.size(), stdout);

  std::error_code error;
  std::filesystem::create_directories(flags.out, error);
  if (error) return Fail(flags.out + ": cannot create directory: " + error.message());
  const std::filesystem::path out(flags.out);
  if (auto written = WriteReportFile(out / "report.json", sim::WriteJsonReport(report)); !written) {
    return Fail(written.error().message);
  }
  if (auto written = WriteReportFile(out / "report.html", sim::WriteHtmlReport(report)); !written) {
    return Fail(written.error().message);
  }
  std::printf("report: %s and %s\n", (out / "report.json").c_str(), (out / "report.html").c_str());
  if (!flags.jobs_csv) return 0;
  std::set<std::string> used;
  for (const sim::PolicyRun& run : report.policies) {
    const std::filesystem::path path = out / JobsCsvName(run.name, used);
    if (auto written = WriteReportFile(path, sim::WriteJobsCsv(workload, run)); !written) {
      return Fail(written.error().message);
    }
    std::printf("jobs: %s\n", path.c_str());
  }
  return 0;
}

}  // namespace

std::function<int()> AddSimCommand(CLI::App& app) {
  auto flags = std::make_shared<SimFlags>();
  CLI::App* command =
      app.add_subcommand("sim", "Replay a workload on a cluster under every policy, side by side");
  command
      ->add_option("--cluster", flags->cluster,
                   "Cluster YAML, or FORMAT:PATH of a trace's node list (openb:, philly:)")
      ->required();
  command
      ->add_option("--workload", flags->workload,
                   "FORMAT:PATH with FORMAT openb, philly, helios, itp or synthetic")
      ->required();
  command
      ->add_option(
          "--policy", flags->policies,
          "Comma-separated policies: presets (fifo, slurm-like, spread, headroom), "
          "preemption baselines (k8s-preemption, kueue-like, tiresias), static-partition (with "
          "--services), policy files (FILE.yaml, "
          "docs/engine.md \"Policy files\"), or all presets")
      ->capture_default_str();
  command->add_option("--seed", flags->seed, "Seed for synthetic inputs")->capture_default_str();
  command->add_option("--out", flags->out, "Directory for report.json and report.html")
      ->capture_default_str();
  command
      ->add_option("--load", flags->load,
                   "Scale arrival times so the offered load is this (e.g. 0.9)")
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--elastic", flags->elastic,
                   "Share of the multi-task jobs declared elastic (from one task up to what they "
                   "ask for; they start at the widest width that fits)")
      ->check(CLI::Range(0.0, 1.0));
  command->add_option("--threads", flags->threads, "Policies simulated at once (0: all cores)")
      ->capture_default_str();
  command->add_option("--series-points", flags->series_points, "Points in each time series")
      ->capture_default_str()
      ->check(CLI::Range(16u, 100000u));
  command
      ->add_option("--experiment", flags->experiment,
                   "replay: run the trace in time; fill: FGD's fill experiment (place pods one by "
                   "one, none leaves; --policy then names packing policies: random, dotprod, "
                   "clustering, packing, bestfit, fgd, headroom)")
      ->check(CLI::IsMember({"replay", "fill"}))
      ->capture_default_str();
  command->add_option("--seeds", flags->seeds, "Fill: seeds, as 42-51 or 42,43")
      ->capture_default_str();
  command->add_option("--tune", flags->tune, "Fill: requested GPUs as a multiple of capacity")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command
      ->add_option("--migration", flags->migration,
                   "Defragmentation by migration: on or off for every policy, or as each preset "
                   "sets it")
      ->check(CLI::IsMember({"preset", "on", "off"}))
      ->capture_default_str();
  command
      ->add_option("--preemption", flags->preemption,
                   "Preemption of lower-priority jobs: on or off for every policy, or as each "
                   "preset sets it")
      ->check(CLI::IsMember({"preset", "on", "off"}))
      ->capture_default_str();
  command->add_option("--queues", flags->queues,
                      "Queues with quotas (YAML, a 'queues' list) for every policy");
  command->add_option("--services", flags->services,
                      "Inference services beside the workload, one per request trace: "
                      "azure-llm:PATH or mooncake:PATH, comma-separated; dlrm:PATH adds a DLRM "
                      "instance trace's services, replayed by replica count");
  command->add_option("--service-model", flags->service.model, "Model the services serve")
      ->capture_default_str();
  command->add_option("--service-device-model", flags->service.device_model, "Replicas' devices")
      ->capture_default_str();
  command->add_option("--service-devices", flags->service.devices_per_replica, "Per replica")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  command->add_option("--service-min-replicas", flags->service.min_replicas)->capture_default_str();
  command->add_option("--service-max-replicas", flags->service.max_replicas)->capture_default_str();
  command
      ->add_option("--service-startup", flags->service.startup_s,
                   "Seconds from a replica's start to serving (model load)")
      ->capture_default_str();
  command
      ->add_option("--service-rate", flags->service.rate_scale,
                   "Request rate as a multiple of each trace's (shifted copies superposed)")
      ->capture_default_str();
  command->add_option(
      "--service-curve", flags->service.load_curve,
      "Daily load curve, FORMAT:PATH (alibaba-genai:qps.csv): each trace is the "
      "day's peak, repeated across the workload's arrivals and thinned by the curve");
  command
      ->add_option("--service-ttft-slo", flags->service.ttft_slo_s,
                   "Seconds to first token a request may take")
      ->capture_default_str();
  command
      ->add_option("--service-tbt-slo", flags->service.tbt_slo_s,
                   "Seconds between tokens a request may take")
      ->capture_default_str();
  command->add_option("--incident", flags->incidents,
                      "A cooling zone or power domain at a share of its capacity for a while: "
                      "cooling:ZONE:START_S:DURATION_S:SHARE or feed:DOMAIN:START_S:DURATION_S:"
                      "SHARE, START_S from the first arrival (repeat for more; docs/facility.md)");
  command->add_option("--failures", flags->failures,
                      "Node faults and repairs: stepfun:PATH (a StepFun fault_trace.json) gives "
                      "the fault classes and their repair times");
  command
      ->add_option("--failure-rate", flags->failure_rate,
                   "Faults per 8-device node-day (default: Llama 3's 419 interruptions of a "
                   "16,384-GPU job in 54 days)")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  command
      ->add_option("--latent-share", flags->latent_share,
                   "Share of faults that stay hidden on an idle node until a job fails there or a "
                   "readiness check finds them (an assumption: no source measures it)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  command
      ->add_option("--latent-fail-after", flags->latent_fail_after_s,
                   "Seconds into its work a job on a node with a hidden fault fails")
      ->check(CLI::Range(1.0, 1e7))
      ->capture_default_str();
  command
      ->add_option("--check-catches", flags->check_catches,
                   "Share of hidden faults a policy's readiness check finds")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  command
      ->add_option("--warned-share", flags->warned_share,
                   "Share of faults whose warning signs show in telemetry before they end the "
                   "work on their node (an assumption, like --latent-share)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  command
      ->add_option("--warning-lead-s", flags->warning_lead_s,
                   "Seconds a warned fault shows before it ends the work on its node")
      ->check(CLI::Range(1.0, 1e7))
      ->capture_default_str();
  command
      ->add_option("--false-warnings", flags->false_warnings_per_day,
                   "Warnings per 8-device node-day that no fault follows")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  command
      ->add_option("--restart-s", flags->restart_s,
                   "Seconds a requeued job takes to restart from its checkpoint, for every policy "
                   "(default: each policy's preemption.restart_s)")
      ->check(CLI::Range(0.0, 86400.0));
  command
      ->add_option("--large-job-devices", flags->large_job_devices,
                   "Jobs of at least this many devices count in effective_training_time")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32))
      ->capture_default_str();
  command->add_flag("--paranoid", flags->paranoid, "Check every engine invariant after each step");
  command->add_flag("--jobs-csv", flags->jobs_csv,
                    "Also write jobs-POLICY.csv per policy: each job's submit, start, end, wait, "
                    "preemptions and moves");
  return [flags] { return RunSim(*flags); };
}

}  // namespace headroom::cli
