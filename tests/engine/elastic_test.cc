// Elastic jobs in the engine (model/job.h): a gang that may run with fewer tasks starts at the
// widest width that fits, plans with its estimate stretched to that width, keeps EASY's promise
// to a reserved head, is tried at its full width again after a preemption, and is followed at any
// width its range allows and no other. With ElasticConfig (engine_elastic.cc), a blocked job
// shrinks an elastic one before it requeues anyone, and the job grows back when nothing waits.
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using testing::Harness;
using testing::MakeCluster;
using testing::MakeJob;

model::Job Elastic(uint32_t tasks, uint32_t min_tasks, uint32_t devices, double runtime_s,
                   uint32_t step = 1) {
  model::Job job = MakeJob(tasks, devices, runtime_s);
  job.min_task_count = min_tasks;
  job.task_count_step = step;
  return job;
}

TEST(ElasticJob, WidthsAreTheRangeInStepsAndStretchTheWork) {
  const model::Job job = Elastic(8, 2, 8, 100, /*step=*/3);
  EXPECT_TRUE(job.elastic());
  EXPECT_TRUE(job.AllowsWidth(8));
  EXPECT_TRUE(job.AllowsWidth(5));
  EXPECT_TRUE(job.AllowsWidth(2));
  EXPECT_FALSE(job.AllowsWidth(4));
  EXPECT_FALSE(job.AllowsWidth(1));
  EXPECT_FALSE(job.AllowsWidth(9));
  EXPECT_EQ(job.AtWidth(SecondsToUs(100), 2), SecondsToUs(400));
  EXPECT_EQ(job.AtWidth(SecondsToUs(100), 8), SecondsToUs(100));
  const model::Job rigid = MakeJob(8, 8, 100);
  EXPECT_FALSE(rigid.elastic());
  EXPECT_TRUE(rigid.AllowsWidth(8));
  EXPECT_FALSE(rigid.AllowsWidth(4));
}

TEST(ElasticJob, StartsAtTheWidestWidthThatFitsWhereARigidGangWaits) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}, {"r1", {{"n2"}, {"n3"}}}});
  Harness h(cluster, testing::InArrivalOrder(testing::HeadroomWithReservations()));
  const JobId busy = h.Submit(MakeJob(2, 8, 100));
  h.Step(0);
  ASSERT_EQ(h.engine().state(busy), JobState::kRunning);
  const JobId elastic = h.Submit(Elastic(4, 1, 8, 500));
  const JobId rigid = h.Submit(MakeJob(4, 8, 500));
  const Decisions decisions = h.Step(1);
  EXPECT_EQ(h.engine().state(rigid), JobState::kPending);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(decisions.starts[0].job, elastic);
  EXPECT_EQ(decisions.starts[0].tasks.size(), 2u);  // The other rack, whole.
  EXPECT_EQ(h.NodesOf(elastic).size(), 2u);
  // Half as wide, it runs twice as long: the rigid gang is reserved for its end at 1 + 1000 s.
  EXPECT_EQ(h.engine().Explain(rigid).expected_start_us, SecondsToUs(1001));
}

// Pending, it waits for its narrowest width, and its reasons say so.
TEST(ElasticJob, WaitsForItsNarrowestWidthAndSaysSo) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  Harness h(cluster, testing::InArrivalOrder("fifo"));
  h.Submit(MakeJob(2, 8, 100));
  const JobId elastic = h.Submit(Elastic(4, 2, 8, 100));
  h.Step(0);
  const PendingStatus status = h.engine().Explain(elastic);
  EXPECT_EQ(status.reasons.front(), PendingCode::kCapacity);
  EXPECT_NE(status.message.find("Elastic, it may start with as few as 2 of its 4 tasks."),
            std::string::npos)
      << status.message;
  EXPECT_NE(status.message.find("needs 16 matching device(s)"), std::string::npos)
      << status.message;
}

TEST(ElasticJob, AStepSkipsWidthsOutsideTheRange) {
  const model::Cluster cluster =
      MakeCluster({{"r0", {{"n0"}, {"n1"}, {"n2"}}}, {"r1", {{"n3"}, {"n4"}}}});
  Harness h(cluster, testing::InArrivalOrder(testing::HeadroomWithReservations()));
  h.Submit(MakeJob(2, 8, 100));
  h.Step(0);
  // Three nodes are free; widths 5, 3 and 1 are allowed: it takes 3.
  const JobId elastic = h.Submit(Elastic(5, 1, 8, 100, /*step=*/2));
  h.Step(1);
  EXPECT_EQ(h.NodesOf(elastic).size(), 3u);
}

TEST(ElasticJob, ANarrowStartThatWouldOverrunTheReservationKeepsOffItsDevices) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  for (const double runtime_s : {40.0, 60.0}) {
    SCOPED_TRACE(runtime_s);
    Harness h(cluster, testing::InArrivalOrder(testing::HeadroomWithReservations()));
    h.Submit(MakeJob(1, 8, 100));
    const JobId head = h.Submit(MakeJob(2, 8, 50));
    h.Step(0);
    ASSERT_EQ(h.engine().Explain(head).expected_start_us, SecondsToUs(100));
    // On one node it runs twice its full-width time: 80 s ends before the head's start, 120 s
    // would hold n1 past it.
    const JobId elastic = h.Submit(Elastic(2, 1, 8, runtime_s));
    h.Step(1);
    if (runtime_s == 40.0) {
      EXPECT_EQ(h.NodesOf(elastic), std::vector<std::string>{"n1"});
    } else {
      EXPECT_EQ(h.engine().state(elastic), JobState::kPending);
    }
  }
}

TEST(ElasticJob, APreemptedElasticJobIsTriedAtItsFullWidthAgain) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  Harness h(cluster, "k8s-preemption");
  model::Job held = MakeJob(1, 8, 1000);
  held.priority = 5;
  const JobId first = h.Submit(held);
  h.Step(0);
  const JobId elastic = h.Submit(Elastic(2, 1, 8, 1000));
  h.Step(1);
  ASSERT_EQ(h.NodesOf(elastic).size(), 1u);
  model::Job urgent = MakeJob(1, 8, 10);
  urgent.priority = 10;
  const JobId preemptor = h.Submit(urgent);
  const Decisions decisions = h.Step(2);
  EXPECT_EQ(testing::Victims(decisions), std::vector<JobId>{elastic});
  EXPECT_EQ(h.engine().state(preemptor), JobState::kRunning);
  EXPECT_EQ(h.engine().state(elastic), JobState::kPending);
  h.Finish(first);
  h.Finish(preemptor);
  h.Step(12);
  EXPECT_EQ(h.NodesOf(elastic).size(), 2u);
}

TEST(ElasticJob, AFollowerTakesAnAllowedWidthAndRefusesAnyOther) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0", 4}, {"n1", 4}, {"n2", 4}}}});
  Engine follower(cluster, testing::Preset("headroom"));
  std::vector<Event> submitted = {JobSubmitted{JobId(0), Elastic(3, 2, 4, 100)}};
  const auto on_nodes = [&](std::vector<uint32_t> nodes) {
    Decisions decisions;
    StartJob start{.job = JobId(0)};
    for (uint32_t n : nodes) {
      TaskAllocation task{.node = NodeId(n)};
      for (uint32_t d = 0; d < 4; ++d) task.devices.push_back(DeviceId(n * 4 + d));
      start.tasks.push_back(task);
    }
    decisions.starts.push_back(start);
    return decisions;
  };
  EXPECT_NE(follower.Follow(submitted, on_nodes({0}), SecondsToUs(1)), "");
  EXPECT_EQ(follower.state(JobId(0)), JobState::kPending);
  std::vector<Event> none;
  EXPECT_EQ(follower.Follow(none, on_nodes({0, 2}), SecondsToUs(2)), "");
  EXPECT_EQ(follower.state(JobId(0)), JobState::kRunning);
  EXPECT_EQ(follower.allocations(JobId(0))->size(), 2u);
  EXPECT_EQ(follower.CheckInvariants(), "");
}

// Priority preemption (Kubernetes' default) with elastic jobs shrunk and grown.
PolicyConfig Resizing(bool shrink, bool grow) {
  PolicyConfig policy = testing::Preset("k8s-preemption");
  policy.elastic.shrink = shrink;
  policy.elastic.grow = grow;
  policy.preemption.restart_us = SecondsToUs(600);
  return policy;
}

model::Job Urgent(uint32_t tasks, double runtime_s) {
  model::Job job = MakeJob(tasks, 8, runtime_s);
  job.priority = 5;
  return job;
}

TEST(ElasticJob, ABlockedJobShrinksAnElasticJobInsteadOfRequeuingIt) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}, {"r1", {{"n2"}, {"n3"}}}});
  Harness h(cluster, Resizing(/*shrink=*/true, /*grow=*/false));
  const JobId elastic = h.Submit(Elastic(4, 1, 8, 100'000));
  h.Step(0);
  const std::vector<std::string> before = h.NodesOf(elastic);
  ASSERT_EQ(before.size(), 4u);
  const JobId urgent = h.Submit(Urgent(2, 1000));
  const Decisions decisions = h.Step(10);
  EXPECT_TRUE(decisions.preemptions.empty());
  ASSERT_EQ(decisions.migrations.size(), 1u);
  const MigrateJob& shrink = decisions.migrations[0];
  EXPECT_EQ(shrink.job, elastic);
  EXPECT_EQ(shrink.tasks.size(), 2u);  // It gives up just what the urgent gang needs.
  EXPECT_EQ(shrink.pause_us, SecondsToUs(600));
  EXPECT_EQ(shrink.cost_device_us, SecondsToUs(600) * 16);
  // It keeps its lowest ranks where they were.
  EXPECT_EQ(h.NodesOf(elastic), (std::vector<std::string>{before[0], before[1]}));
  EXPECT_EQ(h.engine().state(urgent), JobState::kRunning);
  EXPECT_EQ(h.NodesOf(urgent), (std::vector<std::string>{before[2], before[3]}));

  // Without shrinking, the same blocked job requeues it.
  Harness requeues(cluster, Resizing(/*shrink=*/false, /*grow=*/false));
  const JobId victim = requeues.Submit(Elastic(4, 1, 8, 100'000));
  requeues.Step(0);
  requeues.Submit(Urgent(2, 1000));
  const Decisions requeued = requeues.Step(10);
  EXPECT_EQ(testing::Victims(requeued), std::vector<JobId>{victim});
  EXPECT_TRUE(requeued.migrations.empty());
}

TEST(ElasticJob, AShrunkJobGrowsBackOnlyWhenNothingWaits) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}, {"r1", {{"n2"}, {"n3"}}}});
  Harness h(cluster, Resizing(/*shrink=*/true, /*grow=*/true));
  const JobId elastic = h.Submit(Elastic(4, 1, 8, 100'000));
  h.Step(0);
  const JobId urgent = h.Submit(Urgent(2, 1000));
  ASSERT_EQ(h.Step(10).migrations.size(), 1u);
  ASSERT_EQ(h.NodesOf(elastic).size(), 2u);
  // A rigid gang of three waits: the free nodes stay free for it, nothing grows.
  h.Finish(urgent);
  const JobId waiting = h.Submit(MakeJob(3, 8, 1000));
  EXPECT_TRUE(h.Step(1010).migrations.empty());
  EXPECT_EQ(h.engine().state(waiting), JobState::kPending);
  EXPECT_EQ(h.NodesOf(elastic).size(), 2u);
  // Once it is withdrawn, nothing waits: the elastic job takes its two nodes back.
  h.Cancel(waiting);
  const Decisions grown = h.Step(1020);
  ASSERT_EQ(grown.migrations.size(), 1u);
  EXPECT_EQ(grown.migrations[0].job, elastic);
  EXPECT_EQ(grown.migrations[0].tasks.size(), 4u);
  EXPECT_EQ(h.NodesOf(elastic).size(), 4u);
  // At its full width it has nothing left to grow into.
  EXPECT_TRUE(h.Step(1030).migrations.empty());
}

TEST(ElasticJob, AFollowerExecutesResizesAsTheEngineDecidedThem) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}, {"r1", {{"n2"}, {"n3"}}}});
  const PolicyConfig policy = Resizing(/*shrink=*/true, /*grow=*/true);
  Engine leader(cluster, policy);
  Engine follower(cluster, policy);
  const auto step = [&](std::vector<Event> events, double now_s) {
    std::vector<Event> copy = events;
    const Decisions decisions = leader.Step(events, SecondsToUs(now_s));
    EXPECT_EQ(follower.Follow(copy, decisions, SecondsToUs(now_s)), "");
    EXPECT_EQ(follower.CheckInvariants(), "");
    for (uint32_t j = 0; j < 2; ++j) {
      const auto* led = leader.allocations(JobId(j));
      const auto* followed = follower.allocations(JobId(j));
      EXPECT_EQ(led == nullptr, followed == nullptr);
      if (led != nullptr && followed != nullptr) {
        EXPECT_EQ(*led, *followed);
      }
    }
    return decisions;
  };
  step({JobSubmitted{JobId(0), Elastic(4, 1, 8, 100'000)}}, 0);
  EXPECT_EQ(step({JobSubmitted{JobId(1), Urgent(2, 1000)}}, 10).migrations.size(), 1u);
  EXPECT_EQ(step({JobFinished{JobId(1)}}, 1010).migrations.size(), 1u);
  EXPECT_EQ(follower.allocations(JobId(0))->size(), 4u);
}

}  // namespace
}  // namespace headroom::engine
