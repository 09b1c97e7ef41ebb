// Why pending, complete (issue 11 item 6): Explain counts the nodes each constraint turns away
// (a partition of the cluster's nodes) and says how much of the gang fits; every pending job
// the start plan reaches gets an expected start, consistent with the EASY reservation of the
// head and with the jobs planned before it.
#include <numeric>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/engine.h"
#include "testing/cluster_fixtures.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using headroom::testing::JobOf;
using headroom::testing::TinyCluster;

uint32_t TalliedNodes(const PendingStatus& status) {
  return std::accumulate(status.nodes.begin(), status.nodes.end(), 0u,
                         [](uint32_t sum, const NodeTally& tally) { return sum + tally.nodes; });
}

TEST(ExplainTest, CountsTheNodesEachConstraintTurnsAway) {
  // Four nodes: n0 drained, n1 A100 (the job wants H100), n2 with 6 of 8 devices busy, n3
  // with its devices free but its CPU taken (only n3 has the CPU the hog asks for).
  const model::Cluster cluster = TinyCluster()
                                     .Rack("r0", {{"n0", 8}, {"n1", 8, "A100", 32'000}})
                                     .Rack("r1", {{"n2", 8, "H100", 32'000}, {"n3", 8}})
                                     .Build();
  // With a reservation the gang's wait is known and moving `busy` to n3 does not pay.
  testing::Harness h(cluster, testing::InArrivalOrder(testing::HeadroomWithReservations()));
  h.Drain("n0");
  const JobId cpu_hog = h.Submit(JobOf(1, 0, "", 64'000));
  const JobId busy = h.Submit(JobOf(1, 6, "model == \"H100\""));
  h.Step(0);
  ASSERT_EQ(h.NodesOf(cpu_hog), std::vector<std::string>{"n3"});
  ASSERT_EQ(h.NodesOf(busy), std::vector<std::string>{"n2"});
  const JobId gang = h.Submit(JobOf(2, 4, "model == \"H100\"", 1000));
  h.Step(1);
  const PendingStatus status = h.engine().Explain(gang, ExplainDetail::kNodes);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(TalliedNodes(status), 4u);
  ASSERT_EQ(status.nodes.size(), 4u);
  EXPECT_EQ(status.nodes[0].constraint, "drained");
  EXPECT_EQ(status.nodes[0].nodes, 1u);
  EXPECT_EQ(status.nodes[1].constraint, "without a device the selector accepts");
  EXPECT_EQ(status.nodes[2].constraint, "with fewer than 4 free matching devices");
  EXPECT_EQ(status.nodes[3].constraint, "with less than 1000 mCPU free");
  EXPECT_EQ(status.tasks_placeable, 0u);
  EXPECT_NE(status.message.find(" Of 4 nodes: 1 drained, 1 without a device the selector "
                                "accepts, 1 with fewer than 4 free matching devices, 1 with less "
                                "than 1000 mCPU free (together 0 of 2 tasks)."),
            std::string::npos)
      << status.message;
  // The brief form leaves the O(nodes) tallies out.
  EXPECT_TRUE(h.engine().Explain(gang).nodes.empty());
}

TEST(ExplainTest, ARequiredLevelCountsTheTasksOfTheBestDomain) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Rack("r1", {{"n2", 8}, {"n3", 8}}).Build();
  testing::Harness h(cluster, testing::InArrivalOrder("headroom"));
  const JobId first = h.Submit(JobOf(1, 8));
  const JobId second = h.Submit(JobOf(1, 8));
  h.Step(0);
  // headroom packs racks (domain_pack): rack r0 is full, r1 has two free nodes.
  ASSERT_EQ(h.NodesOf(first), std::vector<std::string>{"n0"});
  ASSERT_EQ(h.NodesOf(second), std::vector<std::string>{"n1"});
  model::Job gang = JobOf(3, 8);
  gang.required_topology_level = "rack";
  const JobId id = h.Submit(std::move(gang));
  h.Step(1);
  const PendingStatus status = h.engine().Explain(id, ExplainDetail::kNodes);
  EXPECT_EQ(TalliedNodes(status), 4u);
  EXPECT_EQ(status.tasks_placeable, 2u);
  EXPECT_NE(status.message.find("2 with fewer than 8 free matching devices, 2 can take a task "
                                "(the best rack holds 2 of 3 tasks)."),
            std::string::npos)
      << status.message;
}

// 2 nodes of 8. Running: A (16 devices) until t=100. Pending, in order: B (8 devices, 50 s), C
// (16 devices, 10 s), D (8 devices, 30 s). The plan: B at 100 (the head's reservation); C
// needs both nodes, so after B ends, at 150; D fits beside B at 100 and ends before C starts.
TEST(ExplainTest, EveryPendingJobGetsTheStartThePlanGivesIt) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  testing::Harness h(cluster, testing::InArrivalOrder(testing::HeadroomWithReservations()));
  h.Submit(JobOf(2, 8, "", 0, 0, 100, 100));
  h.Step(0);
  const JobId b = h.Submit(JobOf(1, 8, "", 0, 0, 50, 50));
  const JobId c = h.Submit(JobOf(2, 8, "", 0, 0, 10, 10));
  const JobId d = h.Submit(JobOf(1, 8, "", 0, 0, 30, 30));
  h.Step(1);
  const PendingStatus head = h.engine().Explain(b);
  EXPECT_TRUE(head.reserved);
  EXPECT_EQ(head.expected_start_us, SecondsToUs(100));
  EXPECT_EQ(h.engine().ExpectedStarts().at(b.value()), SecondsToUs(100));
  const PendingStatus second = h.engine().Explain(c);
  EXPECT_FALSE(second.reserved);
  EXPECT_EQ(second.expected_start_us, SecondsToUs(150));
  EXPECT_NE(second.message.find("Expected to start in 2 min 29 s."), std::string::npos)
      << second.message;
  EXPECT_EQ(h.engine().Explain(d).expected_start_us, SecondsToUs(100));
}

// On random workloads, clusters, drains and policies: the plan never overbooks the state (the
// engine's own checks would abort), every expected start lies in [now, now + 1 day], and the
// reserved head's expected start is its reservation.
RC_GTEST_PROP(ExplainTest, ThePlanIsWithinTheHorizonAndAgreesWithTheReservation, ()) {
  const model::Cluster cluster = (*headroom::testing::GenClusterSpec()).Build();
  const auto jobs = headroom::testing::ToJobs(*headroom::testing::GenWorkload());
  const auto drains = *headroom::testing::GenDrains();
  // headroom-reserving: headroom's placement with EASY reservations (HeadroomWithReservations).
  const std::string preset =
      *rc::gen::element<std::string>("headroom", "headroom-reserving", "slurm-like", "spread");
  headroom::testing::EngineDriver driver(
      cluster,
      preset == "headroom-reserving" ? testing::HeadroomWithReservations() : *PresetPolicy(preset),
      jobs);
  for (const auto& drain : drains) {
    const NodeId node(drain.node % static_cast<uint32_t>(cluster.nodes().size()));
    driver.AddNodeEvent(SecondsToUs(static_cast<double>(drain.from_s)), node, true);
    driver.AddNodeEvent(SecondsToUs(static_cast<double>(drain.to_s)), node, false);
  }
  RC_ASSERT(driver.Run([&](const headroom::testing::StepInfo& step) {
    const Engine& engine = driver.engine();
    for (const auto& [job, start_us] : engine.ExpectedStarts()) {
      RC_ASSERT(engine.state(JobId(job)) == JobState::kPending);
      RC_ASSERT(start_us >= step.now_us);
      RC_ASSERT(start_us <= step.now_us + 24 * 3600 * kUsPerSecond);
    }
    for (uint32_t j = 0; j < jobs.size(); ++j) {
      if (engine.state(JobId(j)) != JobState::kPending) continue;
      const PendingStatus status = engine.Explain(JobId(j), ExplainDetail::kNodes);
      // headroom-reserving reserves at every pass, so the head's reservation is fresh: the plan,
      // made after the backfilled jobs started around it, finds the head a start no later.
      if (status.reserved && preset == "headroom-reserving") {
        const auto planned = engine.ExpectedStarts().find(j);
        RC_ASSERT(planned != engine.ExpectedStarts().end());
        RC_ASSERT(planned->second <= status.expected_start_us);
      }
      RC_ASSERT(TalliedNodes(status) == cluster.nodes().size());
      RC_ASSERT(status.tasks_placeable <= jobs[j].task_count);
    }
  }));
}

// The view the daemon publishes (SnapshotPending) says of every pending job exactly what
// Explain says of it: reasons, message with the node sentence and expected start, tallies,
// position; and lists each pending job once, no other.
RC_GTEST_PROP(ExplainTest, TheSnapshotSaysWhatExplainSays, ()) {
  const model::Cluster cluster = (*headroom::testing::GenClusterSpec()).Build();
  const auto jobs = headroom::testing::ToJobs(*headroom::testing::GenWorkload());
  const std::string preset = *rc::gen::element<std::string>("headroom", "slurm-like", "fifo");
  headroom::testing::EngineDriver driver(cluster, *PresetPolicy(preset), jobs);
  RC_ASSERT(driver.Run([&](const headroom::testing::StepInfo&) {
    const Engine& engine = driver.engine();
    const PendingSnapshot snapshot = engine.SnapshotPending({}, /*with_nodes=*/true);
    size_t pending = 0;
    for (uint32_t j = 0; j < jobs.size(); ++j)
      pending += engine.state(JobId(j)) == JobState::kPending;
    RC_ASSERT(snapshot.jobs.size() == pending);
    for (const PendingJob& job : snapshot.jobs) {
      RC_ASSERT(engine.state(job.job) == JobState::kPending);
      RC_ASSERT(job.group < snapshot.groups.size());
      const PendingGroup& group = snapshot.groups[job.group];
      const PendingStatus status = engine.Explain(job.job, ExplainDetail::kNodes);
      RC_ASSERT(group.status.reasons == status.reasons);
      RC_ASSERT(group.status.message + group.nodes_sentence +
                    ExpectedStartSentence(job.expected_start_us, job.reserved, snapshot.as_of_us) ==
                status.message);
      RC_ASSERT(job.expected_start_us == status.expected_start_us);
      RC_ASSERT(job.reserved == status.reserved);
      RC_ASSERT(job.queue_position == status.queue_position);
      RC_ASSERT(group.status.tasks_placeable == status.tasks_placeable);
      RC_ASSERT(group.status.nodes.size() == status.nodes.size());
      for (size_t i = 0; i < status.nodes.size(); ++i) {
        RC_ASSERT(group.status.nodes[i].constraint == status.nodes[i].constraint);
        RC_ASSERT(group.status.nodes[i].nodes == status.nodes[i].nodes);
      }
    }
    // Excluded jobs are left out.
    if (!snapshot.jobs.empty()) {
      const JobId first = snapshot.jobs.front().job;
      const PendingSnapshot without = engine.SnapshotPending({&first, 1}, false);
      RC_ASSERT(without.jobs.size() + 1 == snapshot.jobs.size());
      for (const PendingJob& job : without.jobs) RC_ASSERT(job.job != first);
    }
  }));
}

}  // namespace
}  // namespace headroom::engine
