// The simulator with a failure model: a fault drains its node and interrupts the job there,
// which resumes from its last checkpoint once it can start again (computed by hand), and on
// a random building no fault loses a job, under every policy, with the engine's invariants
// checked after every step.
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/presets.h"
#include "model/cluster_generator.h"
#include "sim/failure_model.h"
#include "sim/policy_files.h"
#include "sim/simulator.h"
#include "sim/traces/synthetic_spec.h"
#include "sim/traces/synthetic_workload.h"
#include "testing/cluster_fixtures.h"

namespace headroom::sim {
namespace {

using testing::JobOf;
using testing::TinyCluster;
using testing::WorkloadOf;

constexpr double kHour = 3600;
constexpr double kDay = 86400;

// One fault class whose repairs all take `repair_s`.
FailureModel OneClass(double repair_s, double per_day, uint64_t seed) {
  FailureModel model;
  model.classes.push_back({"GPU", "Hardware Failure", 1, {repair_s}});
  model.node_failures_per_day = per_day;
  model.seed = seed;
  return model;
}

// The model of the first seed below 1000 whose node n0 first fails at a time `fits(first_s,
// second_s)` accepts, second_s when it fails again after its repair (the fault found at once:
// a job runs there); and that first time. nullopt when no seed does.
std::optional<std::pair<FailureModel, double>> FirstFaultWhere(
    const model::Cluster& cluster, double repair_s,
    const std::function<bool(double first_s, double second_s)>& fits) {
  for (uint64_t seed = 1; seed < 1000; ++seed) {
    const FailureModel model = OneClass(repair_s, 0.5, seed);
    FaultProcess process(model, cluster, 0);
    const TimeUs first_us = process.NextUs();
    process.PopDue(first_us);  // The fault, found at once (the job runs there);
    process.Detect(NodeId(0), first_us);
    process.PopDue(process.NextUs());  // its repair.
    const double first_s = UsToSeconds(first_us);
    if (fits(first_s, UsToSeconds(process.NextUs()))) return std::pair(model, first_s);
  }
  return std::nullopt;
}

// One node, one 8-GPU job of 10 h with hourly checkpoints and a 10-minute restart; repairs take
// two days. The test finds a seed whose first fault comes at T within the job's first run and
// whose next comes after the job ends, then checks the run against T.
TEST(SimulatorFailuresTest, AnInterruptedJobWaitsForTheRepairAndResumesFromItsCheckpointByHand) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  const double runtime_s = 10 * kHour;
  const double repair_s = 2 * kDay;
  const auto found = FirstFaultWhere(cluster, repair_s, [&](double first_s, double second_s) {
    const double saved_s = std::floor(first_s / kHour) * kHour;
    const double end_s = first_s + repair_s + 600 + runtime_s - saved_s;
    return first_s > 1 && first_s < runtime_s && second_s > end_s;
  });
  ASSERT_TRUE(found.has_value()) << "no seed below 1000 gives the scenario";
  const auto& [faults, fault_s] = *found;

  engine::PolicyConfig policy = *engine::PresetPolicy("fifo");
  policy.preemption.checkpoint_interval_us = SecondsToUs(kHour);
  policy.preemption.restart_us = SecondsToUs(600.0);
  SimOptions options;
  options.paranoid = true;
  options.failures = faults;
  options.large_job_devices = 8;
  const model::Workload workload = WorkloadOf({JobOf(1, 8, "", 0, 0, runtime_s, runtime_s, 0)});
  const PolicyRun run = Simulate(cluster, workload, policy, options);

  const double unsaved_s = fault_s - std::floor(fault_s / kHour) * kHour;
  const double makespan_s = fault_s + repair_s + 600 + runtime_s - (fault_s - unsaved_s);
  ASSERT_TRUE(run.failures.has_value());
  const FailureMetrics& failures = *run.failures;
  EXPECT_EQ(failures.node_faults, 1u);
  EXPECT_EQ(failures.interruptions, 1u);
  EXPECT_NEAR(failures.lost_device_hours, (unsaved_s + 600) * 8 / kHour, 1e-6);
  EXPECT_NEAR(failures.recovery_s.mean, repair_s + 600, 1e-6);
  EXPECT_NEAR(failures.mean_repair_s, repair_s, 1e-6);
  EXPECT_EQ(failures.large_jobs_completed, 1u);
  EXPECT_NEAR(failures.effective_training_time, 1 - (unsaved_s + 600 + repair_s) / makespan_s,
              1e-9);
  EXPECT_EQ(failures.faults_by_class, (std::vector<std::pair<std::string, uint64_t>>{{"GPU", 1}}));
  EXPECT_NEAR(run.metrics.makespan_s, makespan_s, 1e-6);
  EXPECT_EQ(run.metrics.preemptions, 0u);
  EXPECT_EQ(run.metrics.jobs_completed, 1u);
  // Its wait counts the repair: pending from the fault to its next start.
  EXPECT_NEAR(run.metrics.wait_s.max, repair_s, 1e-6);
  EXPECT_DOUBLE_EQ(run.metrics.goodput_device_hours, runtime_s * 8 / kHour);
  bool seen_down = false;
  for (const SeriesPoint& point : run.series) seen_down = seen_down || point.down_devices == 8;
  EXPECT_TRUE(seen_down);

  // Without classes there are no faults and no failure figures.
  options.failures = FailureModel();
  const PolicyRun calm = Simulate(cluster, workload, policy, options);
  EXPECT_FALSE(calm.failures.has_value());
  EXPECT_DOUBLE_EQ(calm.metrics.makespan_s, runtime_s);
}

// A job that declares what a checkpoint costs it (60 s) pays it after each interval of work,
// and the pauses count against its effective training time: with its own two-hour interval, and
// with the intervals a directing policy told its two starts (Daly's at the prior rate for the
// first: one node, M = 172,800 s: √(2 δ M) = 4,553.7 s, × 1.00441 − 60 = 4,513.7 s). One fault
// inside its first attempt, found by seed as above; the figures worked out by hand from it.
TEST(SimulatorFailuresTest, CheckpointPausesCountAndAStartKeepsTheIntervalItWasTold) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  const double runtime_s = 10 * kHour;
  const double repair_s = 2 * kDay;
  const double cost_s = 60;
  const double restart_s = 600;
  const auto found = FirstFaultWhere(cluster, repair_s, [&](double first_s, double second_s) {
    return first_s > 1 && first_s < runtime_s && second_s > first_s + repair_s + 1.1 * runtime_s;
  });
  ASSERT_TRUE(found.has_value()) << "no seed below 1000 gives the scenario";
  const auto& [faults, fault_s] = *found;

  struct Told : Observer {
    std::vector<double> intervals_s;
    void AfterStep(const SimView& view) override {
      for (const engine::StartJob& start : view.decisions.starts) {
        intervals_s.push_back(UsToSeconds(start.checkpoint_interval_us));
      }
    }
  };
  for (const bool directed : {false, true}) {
    SCOPED_TRACE(directed ? "directed" : "its own interval");
    engine::PolicyConfig policy = *engine::PresetPolicy("fifo");
    policy.preemption.restart_us = SecondsToUs(restart_s);
    policy.recovery.direct_checkpoints = directed;
    policy.recovery.node_faults_per_day = 0.5;
    SimOptions options;
    options.paranoid = true;
    options.failures = faults;
    options.large_job_devices = 8;
    model::Job job = JobOf(1, 8, "", 0, 0, runtime_s, runtime_s, 0);
    job.checkpoint_interval_us = SecondsToUs(2 * kHour);
    job.checkpoint_cost_us = SecondsToUs(cost_s);
    Told told;
    const PolicyRun run = Simulate(cluster, WorkloadOf({job}), policy, options, &told);

    ASSERT_EQ(told.intervals_s.size(), 2u);
    if (directed) {
      EXPECT_EQ(told.intervals_s[0], 4514);
      // The restart is told a shorter one: the floor has met a fault in fault_s of node-time.
      EXPECT_GT(told.intervals_s[1], 0);
      EXPECT_LT(told.intervals_s[1], 4514);
    } else {
      EXPECT_EQ(told.intervals_s, (std::vector<double>{0, 0}));
    }
    const double first_interval_s = directed ? told.intervals_s[0] : 2 * kHour;
    const double second_interval_s = directed ? told.intervals_s[1] : 2 * kHour;
    const double first_pace = 1 + cost_s / first_interval_s;
    const double second_pace = 1 + cost_s / second_interval_s;
    const double done_s = fault_s / first_pace;
    const double saved_s = std::floor(done_s / first_interval_s) * first_interval_s;
    const double lost_s = (done_s - saved_s) * first_pace + restart_s;
    const double makespan_s = fault_s + repair_s + restart_s + (runtime_s - saved_s) * second_pace;
    const double unproductive_s = lost_s + saved_s * cost_s / first_interval_s + repair_s +
                                  (runtime_s - saved_s) * cost_s / second_interval_s;
    ASSERT_TRUE(run.failures.has_value());
    EXPECT_EQ(run.failures->interruptions, 1u);
    EXPECT_NEAR(run.failures->lost_device_hours, lost_s * 8 / kHour, 1e-6);
    EXPECT_NEAR(run.metrics.makespan_s, makespan_s, 1e-5);
    EXPECT_NEAR(run.failures->effective_training_time, 1 - unproductive_s / makespan_s, 1e-9);
  }
}

// A 64-device building that fails often (a fault per node every 4 days, repairs of 1 to 12 h)
// under every policy: every job completes (or is unplaced, never lost), the engine's
// invariants hold after every step, and faults do interrupt work.
TEST(SimulatorFailuresTest, NoFaultLosesAJobUnderAnyPolicy) {
  model::GeneratorOptions generator;
  generator.devices = 64;
  generator.nvlink_domain = 16;
  generator.racks_per_leaf = 2;
  generator.leaves_per_pod = 2;
  auto cluster = model::GenerateCluster(generator);
  ASSERT_TRUE(cluster.has_value());
  SyntheticSpec spec = *SyntheticPreset("small");
  spec.jobs = 300;
  spec.mean_interarrival_s = 600;
  spec.models = {};
  WorkloadOptions workload_options;
  workload_options.max_devices_per_node = 8;
  workload_options.seed = 5;
  const model::Workload workload =
      GenerateSyntheticWorkload(spec, workload_options, "synthetic:test");
  SimOptions options;
  options.paranoid = true;
  options.series_points = 32;
  options.failures = OneClass(3600, 0.25, 9);
  options.failures.classes.push_back({"NIC", "Hardware Failure", 2, {3600, 12 * kHour}});
  uint64_t interruptions = 0;
  for (const PolicyRun& run : RunPolicies(*cluster, workload, *LoadPolicies("all"), options, 0)) {
    EXPECT_EQ(run.metrics.jobs_completed + run.metrics.jobs_unplaced, workload.jobs.size())
        << run.name;
    EXPECT_EQ(run.metrics.jobs_unplaced, 0u) << run.name;
    ASSERT_TRUE(run.failures.has_value()) << run.name;
    EXPECT_GT(run.failures->node_faults, 0u) << run.name;
    EXPECT_GE(run.failures->lost_device_hours, 0) << run.name;
    interruptions += run.failures->interruptions;
  }
  EXPECT_GT(interruptions, 0u);
}

// A job larger than the building waits for ever: the run still ends, at the first moment after
// the other job's end when no node is down (repairs are awaited only while a node is down and a
// job waits), not at the drain limit a year on (about 1,100 faults and repairs), counting it
// unplaced.
TEST(SimulatorFailuresTest, AJobThatNeverFitsDoesNotKeepTheRunGoing) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  SimOptions options;
  options.failures = OneClass(6 * kHour, 1, 3);
  const model::Workload workload =
      WorkloadOf({JobOf(1, 8, "", 0, 0, kHour, kHour, 0), JobOf(3, 8, "", 0, 0, kHour, kHour, 1)});
  const PolicyRun run = Simulate(cluster, workload, *engine::PresetPolicy("slurm-like"), options);
  EXPECT_EQ(run.metrics.jobs_completed, 1u);
  EXPECT_EQ(run.metrics.jobs_unplaced, 1u);
  EXPECT_LT(run.metrics.engine_steps, 300u);
}

// Every fault latent on an idle node: a job started on one fails `latent_fail_after_s` into its
// work under a policy without checks; a readiness check that always catches keeps every job
// off them, at the price of its checks. The floor: one node failing once every 2 days, repairs
// of 6 h, and a job of 1 h every 2 h, so that it is idle half the time.
TEST(SimulatorFailuresTest, ReadinessChecksKeepJobsOffNodesWithHiddenFaults) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  std::vector<model::Job> jobs;
  for (int i = 0; i < 400; ++i) {
    jobs.push_back(JobOf(1, 8, "", 0, 0, kHour, kHour, i * 2 * kHour));
  }
  const model::Workload workload = WorkloadOf(jobs);
  SimOptions options;
  options.paranoid = true;
  options.failures = OneClass(6 * kHour, 0.5, 11);
  options.failures.latent_share = 1;
  options.failures.latent_fail_after_s = 300;
  options.failures.check_catches = 1;
  engine::PolicyConfig unchecked = *engine::PresetPolicy("fifo");
  engine::PolicyConfig checked = unchecked;
  checked.readiness.check_us = SecondsToUs(30.0);
  checked.readiness.verified_for_us = SecondsToUs(kHour);

  const PolicyRun blind = Simulate(cluster, workload, unchecked, options);
  ASSERT_TRUE(blind.failures.has_value());
  EXPECT_GT(blind.failures->jobs_started_on_faulty, 0u);
  EXPECT_EQ(blind.failures->checks, 0u);
  EXPECT_EQ(blind.failures->check_device_hours, 0);
  // Each job that met a hidden fault failed 5 minutes into its work.
  EXPECT_GE(blind.failures->interruptions, blind.failures->jobs_started_on_faulty);
  EXPECT_EQ(blind.metrics.jobs_completed, jobs.size());

  const PolicyRun careful = Simulate(cluster, workload, checked, options);
  ASSERT_TRUE(careful.failures.has_value());
  EXPECT_EQ(careful.failures->jobs_started_on_faulty, 0u);
  EXPECT_GT(careful.failures->checks_failed, 0u);
  EXPECT_GE(careful.failures->checks, careful.failures->checks_failed);
  EXPECT_NEAR(careful.failures->check_device_hours,
              static_cast<double>(careful.failures->checks) * 30 * 8 / kHour, 1e-6);
  EXPECT_EQ(careful.metrics.jobs_completed, jobs.size());
  // A job a check turned away lost the check only; a blind start loses 5 minutes and a restart.
  EXPECT_LT(careful.failures->lost_device_hours, blind.failures->lost_device_hours);
}

// Every fault a hidden fault of a node's links (a fabric class): a node's own check never finds
// one, and work on one node never meets one; a job on two nodes fails on it unless a check
// across its nodes, here always catching, finds it first, at the price of that check. The
// floor: two nodes failing once every 2 days each, repairs of 6 h, and a job of 1 h every 2 h.
TEST(SimulatorFailuresTest, OnlyACheckAcrossAGangsNodesFindsAHiddenFaultOfTheirLinks) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  SimOptions options;
  options.paranoid = true;
  options.failures.classes.push_back({"NIC", "Hardware Failure", 1, {6 * kHour}, true});
  options.failures.node_failures_per_day = 0.5;
  options.failures.seed = 11;
  options.failures.latent_share = 1;
  options.failures.latent_fail_after_s = 300;
  options.failures.check_catches = 1;
  engine::PolicyConfig node_checks = *engine::PresetPolicy("fifo");
  node_checks.readiness.check_us = SecondsToUs(30.0);
  node_checks.readiness.verified_for_us = SecondsToUs(kHour);
  engine::PolicyConfig gang_checks = node_checks;
  gang_checks.readiness.gang_check_us = SecondsToUs(20.0);
  const auto workload_of = [](uint32_t tasks) {
    std::vector<model::Job> jobs;
    for (int i = 0; i < 400; ++i) {
      jobs.push_back(JobOf(tasks, 8, "", 0, 0, kHour, kHour, i * 2 * kHour));
    }
    return WorkloadOf(jobs);
  };

  // One-node jobs: the faults stay hidden, no work meets them and no check finds them.
  const PolicyRun alone = Simulate(cluster, workload_of(1), gang_checks, options);
  ASSERT_TRUE(alone.failures.has_value());
  EXPECT_EQ(alone.failures->jobs_started_on_faulty, 0u);
  EXPECT_EQ(alone.failures->checks_failed, 0u);
  EXPECT_EQ(alone.failures->gang_checks, 0u);
  EXPECT_GT(alone.failures->checks, 0u);

  // Two-node jobs: node checks pass them wrongly and the jobs fail 5 minutes into their work.
  const PolicyRun missed = Simulate(cluster, workload_of(2), node_checks, options);
  ASSERT_TRUE(missed.failures.has_value());
  EXPECT_GT(missed.failures->jobs_started_on_faulty, 0u);
  EXPECT_EQ(missed.failures->checks_failed, 0u);
  EXPECT_GE(missed.failures->interruptions, missed.failures->jobs_started_on_faulty);

  // With the check across the gang's nodes, none works on a faulty link.
  const PolicyRun found = Simulate(cluster, workload_of(2), gang_checks, options);
  ASSERT_TRUE(found.failures.has_value());
  EXPECT_EQ(found.failures->jobs_started_on_faulty, 0u);
  EXPECT_GT(found.failures->checks_failed, 0u);
  EXPECT_GT(found.failures->gang_checks, 0u);
  EXPECT_NEAR(found.failures->check_device_hours,
              (static_cast<double>(found.failures->checks) * 30 * 8 +
               static_cast<double>(found.failures->gang_checks) * 20 * 16) /
                  kHour,
              1e-6);
  EXPECT_EQ(found.metrics.jobs_completed, 400u);
  EXPECT_LT(found.failures->lost_device_hours, missed.failures->lost_device_hours);
}

}  // namespace
}  // namespace headroom::sim
