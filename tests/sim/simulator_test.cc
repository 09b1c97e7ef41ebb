// Simulator: determinism (the same cluster, workload, policies and seed give a byte-identical
// JSON report, whether policies run on one thread or four), conservation (every job completes
// or is counted unplaced), the engine's invariants along a paranoid run, and small scenarios
// whose waits and completion times are computed by hand.
#include "sim/simulator.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/presets.h"
#include "model/cluster_generator.h"
#include "sim/policy_files.h"
#include "sim/report/json_report.h"
#include "sim/traces/synthetic_spec.h"
#include "sim/traces/synthetic_workload.h"
#include "testing/cluster_fixtures.h"

namespace headroom::sim {
namespace {

using testing::JobOf;
using testing::TinyCluster;
using testing::WorkloadOf;

std::vector<engine::PolicyConfig> AllPolicies() { return *LoadPolicies("all"); }

RunReport ReportOf(const model::Cluster& cluster, const model::Workload& workload, uint64_t seed,
                   std::vector<PolicyRun> runs) {
  RunReport report;
  report.cluster.source = "test";
  report.cluster.devices = cluster.device_count();
  report.cluster.nodes = cluster.nodes().size();
  report.cluster.levels = cluster.level_names();
  report.workload.format = workload.format;
  report.workload.source = workload.source;
  report.workload.jobs = workload.jobs.size();
  report.seed = seed;
  report.policies = std::move(runs);
  return report;
}

std::string JsonOf(const model::Cluster& cluster, const model::Workload& workload, uint64_t seed,
                   unsigned threads) {
  SimOptions options;
  options.series_points = 64;
  return WriteJsonReport(ReportOf(cluster, workload, seed,
                                  RunPolicies(cluster, workload, AllPolicies(), options, threads)));
}

// A 64-device building (8 racks of one 8-device node... two nodes per rack, two racks per
// leaf) and a synthetic workload of 400 jobs with gangs up to 64 devices, from `seed`.
struct SeededInputs {
  model::Cluster cluster;
  model::Workload workload;
};

SeededInputs Seeded(uint64_t seed) {
  model::GeneratorOptions generator;
  generator.devices = 64;
  generator.devices_per_node = 8;
  generator.nvlink_domain = 16;
  generator.racks_per_leaf = 2;
  generator.leaves_per_pod = 2;
  auto cluster = model::GenerateCluster(generator);
  EXPECT_TRUE(cluster.has_value());
  SyntheticSpec spec = *SyntheticPreset("small");
  spec.jobs = 400;
  spec.mean_interarrival_s = 600;
  spec.fractional_share = 0.1;
  spec.models = {};
  WorkloadOptions options;
  options.max_devices_per_node = 8;
  options.seed = seed;
  model::Workload workload = GenerateSyntheticWorkload(spec, options, "synthetic:test");
  return SeededInputs{std::move(*cluster), std::move(workload)};
}

TEST(SimulatorTest, SameInputsGiveByteIdenticalReports) {
  const SeededInputs inputs = Seeded(7);
  const std::string first = JsonOf(inputs.cluster, inputs.workload, 7, 0);
  const std::string second = JsonOf(inputs.cluster, inputs.workload, 7, 0);
  EXPECT_EQ(first, second);
  // The seed matters: another seed gives another workload and another report.
  const SeededInputs other = Seeded(8);
  EXPECT_NE(first, JsonOf(other.cluster, other.workload, 7, 0));
}

TEST(SimulatorTest, ThreadCountDoesNotChangeResults) {
  const SeededInputs inputs = Seeded(11);
  const std::string one = JsonOf(inputs.cluster, inputs.workload, 11, 1);
  EXPECT_EQ(one, JsonOf(inputs.cluster, inputs.workload, 11, 4));
  EXPECT_EQ(one, JsonOf(inputs.cluster, inputs.workload, 11, 2));
}

TEST(SimulatorTest, EveryJobCompletesOrIsUnplaced) {
  const SeededInputs inputs = Seeded(3);
  SimOptions options;
  options.paranoid = true;
  for (const PolicyRun& run :
       RunPolicies(inputs.cluster, inputs.workload, AllPolicies(), options, 0)) {
    EXPECT_EQ(run.metrics.jobs_completed + run.metrics.jobs_unplaced, inputs.workload.jobs.size())
        << run.name;
    EXPECT_EQ(run.metrics.jobs_unplaced, 0u) << run.name;
    EXPECT_EQ(run.sorted_wait_s.size(), run.metrics.jobs_completed) << run.name;
  }
}

// Checks the engine's invariants and counts starts after every simulated step.
class InvariantObserver final : public Observer {
 public:
  void AfterStep(const SimView& view) override {
    if (!problem.empty()) return;
    problem = view.engine.CheckInvariants();
    if (view.now_us < last_us) problem = "time went backwards";
    last_us = view.now_us;
    starts += view.decisions.starts.size();
    preemptions += view.decisions.preemptions.size();
    ++steps;
  }
  std::string problem;
  TimeUs last_us = 0;
  uint64_t starts = 0;
  uint64_t preemptions = 0;
  uint64_t steps = 0;
};

RC_GTEST_PROP(SimulatorPropertyTest, RandomRunsAreDeterministicAndConserveJobs, ()) {
  const testing::ClusterSpec spec = *testing::GenClusterSpec();
  const model::Cluster cluster = spec.Build();
  const model::Workload workload =
      WorkloadOf(testing::ToJobs(*testing::GenWorkload({.max_jobs = 25, .elastic = true})));
  SimOptions options;
  options.series_points = 32;
  const std::vector<PolicyRun> first = RunPolicies(cluster, workload, AllPolicies(), options, 1);
  const std::vector<PolicyRun> second = RunPolicies(cluster, workload, AllPolicies(), options, 4);
  RC_ASSERT(WriteJsonReport(ReportOf(cluster, workload, 0, first)) ==
            WriteJsonReport(ReportOf(cluster, workload, 0, second)));
  for (size_t i = 0; i < first.size(); ++i) {
    const PolicyMetrics& metrics = first[i].metrics;
    RC_ASSERT(metrics.jobs_completed + metrics.jobs_unplaced == workload.jobs.size());
    InvariantObserver observer;
    const PolicyRun observed = Simulate(cluster, workload, AllPolicies()[i], options, &observer);
    RC_ASSERT(observer.problem.empty());
    // Each job that ran started once, and once more after each preemption.
    RC_ASSERT(observer.starts ==
              workload.jobs.size() - metrics.jobs_unplaced + observer.preemptions);
    RC_ASSERT(observer.preemptions == metrics.preemptions);
    RC_ASSERT(observed.metrics.engine_steps == observer.steps);
    RC_ASSERT(WriteJsonReport(ReportOf(cluster, workload, 0, {observed})) ==
              WriteJsonReport(ReportOf(cluster, workload, 0, {first[i]})));
  }
}

// 2 nodes × 8 GPUs, three 8-GPU jobs of 100 s at t=0: two start at once, the third when the
// first ends. Waits 0, 0, 100 s; completion times 100, 100, 200 s; makespan 200 s. Every
// policy agrees (single-node jobs run at full speed wherever they land).
TEST(SimulatorTest, ThreeJobsOnTwoNodesByHand) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  const model::Workload workload =
      WorkloadOf({JobOf(1, 8, "", 0, 0, 100, 100, 0), JobOf(1, 8, "", 0, 0, 100, 100, 0),
                  JobOf(1, 8, "", 0, 0, 100, 100, 0)});
  for (const PolicyRun& run : RunPolicies(cluster, workload, AllPolicies(), SimOptions{}, 1)) {
    SCOPED_TRACE(run.name);
    const PolicyMetrics& m = run.metrics;
    EXPECT_EQ(run.sorted_wait_s, (std::vector<double>{0, 0, 100}));
    EXPECT_DOUBLE_EQ(m.wait_s.mean, 100.0 / 3);
    EXPECT_DOUBLE_EQ(m.wait_s.p50, 0);
    EXPECT_DOUBLE_EQ(m.wait_s.max, 100);
    EXPECT_DOUBLE_EQ(m.jct_s.mean, 400.0 / 3);
    EXPECT_DOUBLE_EQ(m.jct_s.p50, 100);
    EXPECT_DOUBLE_EQ(m.jct_s.max, 200);
    // Bounded slowdowns 1, 1 and 200 / 100 = 2.
    EXPECT_DOUBLE_EQ(m.bounded_slowdown.mean, 4.0 / 3);
    EXPECT_DOUBLE_EQ(m.bounded_slowdown.max, 2);
    EXPECT_EQ(m.jobs_completed, 3u);
    EXPECT_EQ(m.jobs_unplaced, 0u);
    EXPECT_DOUBLE_EQ(m.makespan_s, 200);
    EXPECT_DOUBLE_EQ(m.mean_slowdown_from_placement, 1);
  }
}

// 2 nodes × 8 GPUs in one rack: A = 8 GPUs for 100 s at t=0, B = 2 × 8 GPUs for 50 s at t=1,
// C = 8 GPUs for 98 s at t=2 (estimates exact). B spans both nodes, so it runs 1.05 × 50 =
// 52.5 s (speed model: +5% for crossing nodes inside a rack).
//  fifo:     A at 0 (ends 100); B blocked and C behind it; B at 100 (ends 152.5); C at 152.5
//            (ends 250.5). Waits 0, 99, 150.5; JCT 100, 151.5, 248.5.
//  headroom: B (the larger job, first by multifactor priority) is reserved for t=100; C ends
//            by then (2 + 98), so it is backfilled at t=2 on the other node. Waits 0, 99, 0;
//            JCT 100, 151.5, 98.
TEST(SimulatorTest, BackfillAroundAReservationByHand) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  const model::Workload workload =
      WorkloadOf({JobOf(1, 8, "", 0, 0, 100, 100, 0), JobOf(2, 8, "", 0, 0, 50, 50, 1),
                  JobOf(1, 8, "", 0, 0, 98, 98, 2)});
  const std::vector<PolicyRun> runs =
      RunPolicies(cluster, workload, *LoadPolicies("fifo,headroom"), SimOptions{}, 1);
  ASSERT_EQ(runs.size(), 2u);

  const PolicyMetrics& fifo = runs[0].metrics;
  EXPECT_EQ(runs[0].sorted_wait_s, (std::vector<double>{0, 99, 150.5}));
  EXPECT_DOUBLE_EQ(fifo.jct_s.mean, (100 + 151.5 + 248.5) / 3);
  EXPECT_DOUBLE_EQ(fifo.jct_s.max, 248.5);
  EXPECT_DOUBLE_EQ(fifo.makespan_s, 250.5);
  EXPECT_DOUBLE_EQ(fifo.mean_slowdown_from_placement, (1 + 1.05 + 1) / 3);

  const PolicyMetrics& headroom = runs[1].metrics;
  EXPECT_EQ(runs[1].sorted_wait_s, (std::vector<double>{0, 0, 99}));
  EXPECT_DOUBLE_EQ(headroom.jct_s.mean, (100 + 151.5 + 98) / 3);
  EXPECT_DOUBLE_EQ(headroom.jct_s.max, 151.5);
  EXPECT_DOUBLE_EQ(headroom.makespan_s, 152.5);
  EXPECT_EQ(headroom.jobs_completed, 3u);
}

// A job no node can hold is counted unplaced, and the run still ends.
TEST(SimulatorTest, UnplaceableJobIsCountedNotLost) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  const model::Workload workload =
      WorkloadOf({JobOf(1, 8, "", 0, 0, 100, 100, 0), JobOf(1, 16, "", 0, 0, 100, 100, 10),
                  JobOf(1, 2, "model == \"B200\"", 0, 0, 100, 100, 20)});
  for (const PolicyRun& run : RunPolicies(cluster, workload, AllPolicies(), SimOptions{}, 1)) {
    SCOPED_TRACE(run.name);
    EXPECT_EQ(run.metrics.jobs_completed, 1u);
    EXPECT_EQ(run.metrics.jobs_unplaced, 2u);
  }
}

}  // namespace
}  // namespace headroom::sim

namespace headroom::sim {
namespace {

using testing::WorkloadOf;

// The defragmentation scenario of tests/engine/defrag_test.cc run by the simulator: on two
// 8-device nodes, a (4 devices, 10 s), b and c (4 devices, 36,000 s) start at 0 — a and b on n0,
// c on n1; a ends at 10; the 8-device gang g arrives at 20 and waits on fragmentation. With
// migration, b moves to n1 at 20: it has done 20 s, pauses 60 + 600 s, and does the remaining
// 35,980 s from 680 s, ending at 36,660 s. One migration costing 4 × 660 device-s = 0.7333
// device-hours. Without migration, g waits for b until 36,000 s.
TEST(SimulatorTest, MigrationMovesOneJobThatPaysItsPauseByHand) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  const model::Workload workload =
      WorkloadOf({JobOf(1, 4, "", 0, 0, 10, 10, 0), JobOf(1, 4, "", 0, 0, 36000, 36000, 0),
                  JobOf(1, 4, "", 0, 0, 36000, 36000, 0), JobOf(1, 8, "", 0, 0, 3600, 3600, 20)});
  engine::PolicyConfig policy = *engine::PresetPolicy("headroom");
  policy.queue_order = "priority";
  policy.migration.enabled = true;
  SimOptions options;
  options.paranoid = true;
  const PolicyRun moved = Simulate(cluster, workload, policy, options);
  EXPECT_EQ(moved.metrics.migrations, 1u);
  EXPECT_NEAR(moved.metrics.migration_cost_device_hours, 4 * 660 / 3600.0, 1e-12);
  EXPECT_EQ(moved.sorted_wait_s, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(moved.metrics.makespan_s, 36660);
  EXPECT_EQ(moved.metrics.jobs_completed, 4u);

  policy.migration.enabled = false;
  const PolicyRun waited = Simulate(cluster, workload, policy, options);
  EXPECT_EQ(waited.metrics.migrations, 0u);
  EXPECT_DOUBLE_EQ(waited.metrics.migration_cost_device_hours, 0);
  EXPECT_EQ(waited.sorted_wait_s, (std::vector<double>{0, 0, 0, 35980}));
  EXPECT_DOUBLE_EQ(waited.metrics.makespan_s, 39600);
}

// Preemption by hand on one 8-device node: `low` (8 devices, 3 h of work, priority 0) starts at
// 0; `high` (8 devices, 1 h, priority 5) arrives at 1.5 h and preempts it. `low` keeps the work
// up to its checkpoint at 1 h and loses 0.5 h; it restarts when `high` ends at 2.5 h, pauses
// 600 s, and does its remaining 2 h, ending at 9,600 + 7,200 = 16,800 s. Lost: (1,800 + 600) s
// × 8 devices = 5.33 device-hours. Without preemption `high` waits 1.5 h for `low`.
TEST(SimulatorTest, APreemptedJobResumesFromItsLastCheckpointAfterItsRestartByHand) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  model::Job low = JobOf(1, 8, "", 0, 0, 10800, 10800, 0);
  model::Job high = JobOf(1, 8, "", 0, 0, 3600, 3600, 5400);
  high.priority = 5;
  const model::Workload workload = WorkloadOf({low, high});
  engine::PolicyConfig policy = *engine::PresetPolicy("headroom");
  policy.victim_selector = "lowest_priority";
  policy.preemption.enabled = true;
  policy.preemption.checkpoint_interval_us = SecondsToUs(3600);
  policy.preemption.restart_us = SecondsToUs(600);
  SimOptions options;
  options.paranoid = true;
  const PolicyRun preempted = Simulate(cluster, workload, policy, options);
  EXPECT_EQ(preempted.metrics.preemptions, 1u);
  EXPECT_NEAR(preempted.metrics.preemption_lost_device_hours, 2400.0 * 8 / 3600, 1e-9);
  // `low` waits again from its preemption at 1.5 h to its restart at 2.5 h.
  EXPECT_EQ(preempted.sorted_wait_s, (std::vector<double>{0, 3600}));
  // Its slowdown: JCT 16,800 s over the 13,200 s it held devices.
  EXPECT_DOUBLE_EQ(preempted.metrics.bounded_slowdown.max, 16800.0 / 13200);
  EXPECT_DOUBLE_EQ(preempted.metrics.makespan_s, 16800);
  EXPECT_DOUBLE_EQ(preempted.metrics.jct_s.max, 16800);
  EXPECT_EQ(preempted.metrics.jobs_completed, 2u);
  // Goodput counts the work that was needed (3 h + 1 h on 8 devices), not what was lost.
  EXPECT_DOUBLE_EQ(preempted.metrics.goodput_device_hours, 4.0 * 8);

  // A job that declares its own checkpoint interval (30 min) loses nothing at 1.5 h.
  model::Job frequent = low;
  frequent.checkpoint_interval_us = SecondsToUs(1800);
  const PolicyRun saved = Simulate(cluster, WorkloadOf({frequent, high}), policy, options);
  EXPECT_NEAR(saved.metrics.preemption_lost_device_hours, 600.0 * 8 / 3600, 1e-9);
  EXPECT_DOUBLE_EQ(saved.metrics.makespan_s, 9600 + 5400);

  policy.preemption.enabled = false;
  const PolicyRun waited = Simulate(cluster, workload, policy, options);
  EXPECT_EQ(waited.metrics.preemptions, 0u);
  EXPECT_EQ(waited.sorted_wait_s, (std::vector<double>{0, 5400}));
  EXPECT_DOUBLE_EQ(waited.metrics.makespan_s, 14400);
}

// 2 nodes × 8 GPUs; A = 8 GPUs for 100 s at t=0; E = 2 × 8 GPUs for 100 s at full width at
// t=1. Rigid, E waits for A and spans both nodes: starts at 100, runs 1.05 × 100 = 105 s,
// JCT 204 s. Elastic from one task (fifo), it starts at once on the free node and runs its
// 1,600 device-seconds there in 200 s: JCT 200 s, the same goodput.
TEST(SimulatorTest, AnElasticGangStartsNarrowerAndRunsLongerByHand) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  const model::Job a = JobOf(1, 8, "", 0, 0, 100, 100, 0);
  model::Job e = JobOf(2, 8, "", 0, 0, 100, 100, 1);
  const engine::PolicyConfig fifo = *engine::PresetPolicy("fifo");
  SimOptions options;
  options.paranoid = true;
  const PolicyRun rigid = Simulate(cluster, WorkloadOf({a, e}), fifo, options);
  EXPECT_EQ(rigid.sorted_wait_s, (std::vector<double>{0, 99}));
  EXPECT_DOUBLE_EQ(rigid.metrics.jct_s.max, 204);
  e.min_task_count = 1;
  const PolicyRun elastic = Simulate(cluster, WorkloadOf({a, e}), fifo, options);
  EXPECT_EQ(elastic.sorted_wait_s, (std::vector<double>{0, 0}));
  EXPECT_DOUBLE_EQ(elastic.metrics.jct_s.max, 200);
  EXPECT_DOUBLE_EQ(elastic.metrics.makespan_s, 201);
  EXPECT_DOUBLE_EQ(elastic.metrics.goodput_device_hours, rigid.metrics.goodput_device_hours);
}

// Queues a and b, 4 devices guaranteed each, on one 8-device node: b's 8-device job borrows a's
// idle half; a's 4-device job arrives at 1800 s and, after the preset's 900 s of reclaim
// hysteresis, reclaims it at 2700 s (b's job loses its 2700 s and restarts for 600 s once a's
// job ends at 6300 s: 6300 + 600 + 10800 = 17700).
TEST(SimulatorTest, AQueueReclaimsItsGuaranteeByHand) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  model::Job borrower = JobOf(1, 8, "", 0, 0, 10800, 10800, 0);
  borrower.tenant = "b";
  model::Job owner = JobOf(1, 4, "", 0, 0, 3600, 3600, 1800);
  owner.tenant = "a";
  engine::PolicyConfig policy = *engine::PresetPolicy("headroom");
  policy.preemption.enabled = true;
  policy.preemption.checkpoint_interval_us = SecondsToUs(3600);
  policy.preemption.restart_us = SecondsToUs(600);
  for (const char* name : {"a", "b"}) {
    engine::QueueConfig queue;
    queue.name = name;
    queue.guaranteed[0] = 4000;
    queue.stated[0] = true;
    policy.queues.push_back(queue);
  }
  SimOptions options;
  options.paranoid = true;
  options.series_points = 16;
  const PolicyRun run = Simulate(cluster, WorkloadOf({borrower, owner}), policy, options);
  EXPECT_EQ(policy.preemption.reclaim_after_us, SecondsToUs(900));
  EXPECT_EQ(run.metrics.preemptions, 1u);
  EXPECT_DOUBLE_EQ(run.metrics.makespan_s, 17700);
  ASSERT_EQ(run.queues.size(), 3u);  // a, b, (unqueued).
  const QueueRun& a = run.queues[0];
  const QueueRun& b = run.queues[1];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.guaranteed_devices, 4);
  EXPECT_EQ(a.limit_devices, -1);
  EXPECT_EQ(a.jobs_started, 1u);
  EXPECT_DOUBLE_EQ(a.wait_s.max, 900);
  EXPECT_DOUBLE_EQ(a.jct_s.max, 4500);
  EXPECT_EQ(a.preemptions, 0u);
  EXPECT_DOUBLE_EQ(a.peak_usage_devices, 4);
  EXPECT_EQ(b.preemptions, 1u);
  EXPECT_NEAR(b.preemption_lost_device_hours, 3300.0 * 8 / 3600, 1e-9);
  EXPECT_DOUBLE_EQ(b.jct_s.max, 17700);
  EXPECT_DOUBLE_EQ(b.peak_usage_devices, 8);
  EXPECT_EQ(run.queues[2].jobs_started, 0u);
  for (const SeriesPoint& point : run.series) {
    ASSERT_EQ(point.queue_usage_devices.size(), 3u);
    EXPECT_LE(point.queue_usage_devices[0] + point.queue_usage_devices[1], 8);
  }
}

// Largest free block per level and the share of multi-node jobs inside one rack, under fifo
// (per-task first fit, no backfill) on two racks of two 8-device nodes:
//   g0 (2 x 8, 0 s) on n0, n1 — inside r0; it runs 1.05 x 100 s (two nodes), ending at 105 s;
//   s (1 x 8, 0 s) on n2; g1 (2 x 8, 1 s) waits for g0, then takes n0, n1 — inside r0 again;
//   g2 (2 x 4, 300 s) fits on n0 alone: one node, so not a multi-node job.
// Series every 30 s: at 0 the building is empty (32 free, 16 in either rack); from 30 s to
// 90 s only n3 is free (8, 8).
TEST(SimulatorTest, BlockMetricsByHand) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Rack("r1", {{"n2", 8}, {"n3", 8}}).Build();
  const model::Workload workload =
      WorkloadOf({JobOf(2, 8, "", 0, 0, 100, 100, 0), JobOf(1, 8, "", 0, 0, 1000, 1000, 0),
                  JobOf(2, 8, "", 0, 0, 100, 100, 1), JobOf(2, 4, "", 0, 0, 100, 100, 300)});
  SimOptions options;
  options.series_points = 10;
  const PolicyRun run = Simulate(cluster, workload, *engine::PresetPolicy("fifo"), options);
  EXPECT_EQ(run.metrics.multi_node_jobs, 2u);
  EXPECT_DOUBLE_EQ(run.metrics.multi_node_within_one_block, 1);
  EXPECT_EQ(run.metrics.multi_node_within_one_block_by_level, (std::vector<double>{1, 1}));
  ASSERT_FALSE(run.series.empty());
  // t = 0 is sampled before the first step: all 32 devices free, 16 in either rack.
  EXPECT_EQ(run.series.front().largest_free_block_by_level, (std::vector<uint32_t>{32, 16}));
  // From 1 s to 100 s: g0 on r0, s on n2 — 8 free devices, all on n3.
  for (const SeriesPoint& point : run.series) {
    if (point.time_s > 0 && point.time_s < 100) {
      EXPECT_EQ(point.largest_free_block_by_level, (std::vector<uint32_t>{8, 8})) << point.time_s;
    }
  }
}

}  // namespace
}  // namespace headroom::sim
