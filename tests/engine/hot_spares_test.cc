// recovery.hot_spares (engine_spares.cc): idle nodes kept in each domain of the spare level for
// the jobs faults requeue. New work never takes them; a requeued job takes them only where it
// fits no other way, and so restarts at once where without them it waits; a freed node
// becomes a spare before the queue sees it; a drained spare, or one whose device health
// withdraws, is a spare no more; a following engine keeps the same spares.
#include <map>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/event.h"
#include "engine/policy_yaml.h"
#include "engine/presets.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::JobOf;
using testing::NodesOf;
using testing::TinyCluster;

constexpr TimeUs kSecond = kUsPerSecond;

// fifo with every job that fits started and interrupted jobs first, keeping `spares` nodes per
// rack.
PolicyConfig WithSpares(uint32_t spares) {
  auto policy = PresetPolicy("fifo");
  EXPECT_TRUE(policy.has_value());
  policy->backfill = BackfillMode::kSkip;
  policy->recovery.expedite = true;
  policy->recovery.spare_nodes = spares;
  policy->recovery.spare_level = spares > 0 ? "rack" : "";
  return *policy;
}

std::set<uint32_t> Spares(const Engine& engine, const model::Cluster& cluster) {
  std::set<uint32_t> out;
  for (const model::Node& node : cluster.nodes()) {
    if (engine.spare(node.id)) out.insert(node.id.value());
  }
  return out;
}

// Two racks of three four-device nodes (n0-n2, n3-n5). Job 0 (two nodes) and job 1 (two nodes)
// start; jobs 2 and 3 (one node each) arrive behind them. Then n0, under job 0, fails.
struct Scenario {
  explicit Scenario(uint32_t spares)
      : cluster(TinyCluster()
                    .Rack("r0", {{"n0", 4}, {"n1", 4}, {"n2", 4}})
                    .Rack("r1", {{"n3", 4}, {"n4", 4}, {"n5", 4}})
                    .Build()),
        engine(cluster, WithSpares(spares)) {
    std::vector<Event> submit = {
        JobSubmitted{JobId(0), JobOf(2, 4)}, JobSubmitted{JobId(1), JobOf(2, 4)},
        JobSubmitted{JobId(2), JobOf(1, 4)}, JobSubmitted{JobId(3), JobOf(1, 4)}};
    first = engine.Step(submit, 0);
    std::vector<Event> fault = {NodeDrained{NodeId(0), true}, JobInterrupted{JobId(0), NodeId(0)}};
    after_fault = engine.Step(fault, 10 * kSecond);
  }
  model::Cluster cluster;
  Engine engine;
  Decisions first;
  Decisions after_fault;
};

TEST(HotSparesTest, NewWorkLeavesTheSparesAndARequeuedJobRestartsOnOneAtOnce) {
  Scenario spared(1);
  // The highest node of each rack is kept; jobs 2 and 3 fit only there and wait.
  ASSERT_EQ(spared.first.starts.size(), 2u);
  EXPECT_EQ(NodesOf(spared.first.starts[0]), (std::set<uint32_t>{0, 1}));
  EXPECT_EQ(NodesOf(spared.first.starts[1]), (std::set<uint32_t>{3, 4}));
  // The fault: job 0 comes back at once on its surviving node and its rack's spare.
  ASSERT_EQ(spared.after_fault.starts.size(), 1u);
  EXPECT_EQ(spared.after_fault.starts[0].job, JobId(0));
  EXPECT_EQ(NodesOf(spared.after_fault.starts[0]), (std::set<uint32_t>{1, 2}));
  EXPECT_EQ(Spares(spared.engine, spared.cluster), std::set<uint32_t>{5});
  EXPECT_EQ(spared.engine.state(JobId(2)), JobState::kPending);
  EXPECT_EQ(spared.engine.CheckInvariants(), "");
  // Job 2's explanation counts the spare apart from the busy and the drained nodes.
  const PendingStatus why = spared.engine.Explain(JobId(2), ExplainDetail::kNodes);
  bool counted = false;
  for (const NodeTally& tally : why.nodes) {
    if (tally.constraint == "hot spares kept for jobs a fault requeues") {
      EXPECT_EQ(tally.nodes, 1u);
      counted = true;
    }
  }
  EXPECT_TRUE(counted);

  // Without spares jobs 2 and 3 took n2 and n5 at once, and job 0, its node gone, waits.
  Scenario plain(0);
  ASSERT_EQ(plain.first.starts.size(), 4u);
  EXPECT_TRUE(plain.after_fault.starts.empty());
  EXPECT_EQ(plain.engine.state(JobId(0)), JobState::kPending);
  EXPECT_EQ(plain.engine.spare_count(), 0u);
}

TEST(HotSparesTest, AFreedNodeBecomesASpareBeforeTheQueueSeesIt) {
  Scenario spared(1);
  // Rack r0 has no spare left. n0's repair brings one back: it goes to the spares, not to the
  // waiting job 2; job 1's end frees n3 and n4 in r1, which has its spare, so jobs 2 and 3 start
  // there.
  std::vector<Event> repair = {NodeDrained{NodeId(0), false}};
  EXPECT_TRUE(spared.engine.Step(repair, 20 * kSecond).starts.empty());
  EXPECT_EQ(Spares(spared.engine, spared.cluster), (std::set<uint32_t>{0, 5}));
  std::vector<Event> end = {JobFinished{JobId(1)}};
  const Decisions decisions = spared.engine.Step(end, 30 * kSecond);
  ASSERT_EQ(decisions.starts.size(), 2u);
  EXPECT_EQ(decisions.starts[0].job, JobId(2));
  EXPECT_EQ(decisions.starts[1].job, JobId(3));
  EXPECT_EQ(Spares(spared.engine, spared.cluster), (std::set<uint32_t>{0, 5}));
  EXPECT_EQ(spared.engine.CheckInvariants(), "");
}

TEST(HotSparesTest, ARequeuedJobTakesASpareOnlyWhereItFitsNoOtherWay) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}, {"n2", 4}, {"n3", 4}}).Build();
  Engine engine(cluster, WithSpares(1));
  std::vector<Event> submit = {JobSubmitted{JobId(0), JobOf(1, 4)}};
  ASSERT_EQ(engine.Step(submit, 0).starts.size(), 1u);
  EXPECT_EQ(Spares(engine, cluster), std::set<uint32_t>{3});
  std::vector<Event> fault = {NodeDrained{NodeId(0), true}, JobInterrupted{JobId(0), NodeId(0)}};
  const Decisions decisions = engine.Step(fault, 10 * kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_NE(NodesOf(decisions.starts[0]).count(3), 1u);
  EXPECT_EQ(Spares(engine, cluster), std::set<uint32_t>{3});
  EXPECT_EQ(engine.CheckInvariants(), "");
}

TEST(HotSparesTest, ADrainedSpareOrOneHealthWithdrawsIsASpareNoMore) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}, {"n2", 4}, {"n3", 4}}).Build();
  Engine engine(cluster, WithSpares(2));
  engine.Step({}, 0);
  EXPECT_EQ(Spares(engine, cluster), (std::set<uint32_t>{2, 3}));
  // n3 drained and a device of n2 withdrawn: both are spares no more, and the rack takes its two
  // from the idle nodes left.
  std::vector<Event> events = {NodeDrained{NodeId(3), true},
                               DeviceWithdrawn{DeviceId(cluster.node(NodeId(2)).first_device)}};
  engine.Step(events, 10 * kSecond);
  EXPECT_EQ(Spares(engine, cluster), (std::set<uint32_t>{0, 1}));
  EXPECT_EQ(engine.cluster_state().whole_free(NodeId(2), DeviceClassId(0)), 3u);
  EXPECT_EQ(engine.CheckInvariants(), "");
  // Returned, n3 is idle again but the rack has its spares: it takes work.
  std::vector<Event> back = {NodeDrained{NodeId(3), false}, JobSubmitted{JobId(0), JobOf(1, 4)}};
  const Decisions decisions = engine.Step(back, 20 * kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(NodesOf(decisions.starts[0]), std::set<uint32_t>{3});
  EXPECT_EQ(engine.CheckInvariants(), "");
}

// A successor engine (the daemon's rebuild or restart) is told that a pending job was requeued by
// a fault (model::Job::expedited, from requeued_by_fault, whatever the policy's expedite): it
// may still take the spares there, and a job that was not may not. Three nodes, one rack; job 0
// on n0 and n1; both fail, so it cannot come back before the successor takes over.
TEST(HotSparesTest, ASuccessorEngineLetsARequeuedJobTakeTheSpares) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}, {"n2", 4}}).Build();
  PolicyConfig policy = WithSpares(1);
  policy.recovery.expedite = false;
  Engine first(cluster, policy);
  std::vector<Event> submit = {JobSubmitted{JobId(0), JobOf(2, 4)}};
  ASSERT_EQ(first.Step(submit, 0).starts.size(), 1u);
  std::vector<Event> faults = {NodeDrained{NodeId(0), true}, NodeDrained{NodeId(1), true},
                               JobInterrupted{JobId(0), NodeId(0)}};
  EXPECT_TRUE(first.Step(faults, 10 * kSecond).starts.empty());
  ASSERT_TRUE(first.requeued_by_fault(JobId(0)));
  EXPECT_FALSE(first.expedited(JobId(0)));  // The policy does not expedite.

  for (const bool told : {true, false}) {
    SCOPED_TRACE(told);
    Engine successor(cluster, policy);
    model::Job carried = JobOf(2, 4);
    carried.expedited = told && first.requeued_by_fault(JobId(0));
    std::vector<Event> rebuild = {NodeDrained{NodeId(0), true}, NodeDrained{NodeId(1), true},
                                  JobSubmitted{JobId(0), carried},
                                  JobSubmitted{JobId(1), JobOf(1, 4)}};
    EXPECT_TRUE(successor.Step(rebuild, 20 * kSecond).starts.empty());
    EXPECT_EQ(Spares(successor, cluster), std::set<uint32_t>{2});
    std::vector<Event> repair = {NodeDrained{NodeId(1), false}};
    const Decisions decisions = successor.Step(repair, 30 * kSecond);
    ASSERT_EQ(decisions.starts.size(), 1u);
    if (told) {
      EXPECT_EQ(decisions.starts[0].job, JobId(0));
      EXPECT_EQ(NodesOf(decisions.starts[0]), (std::set<uint32_t>{1, 2}));
    } else {
      EXPECT_EQ(decisions.starts[0].job, JobId(1));
      EXPECT_EQ(NodesOf(decisions.starts[0]), std::set<uint32_t>{1});
    }
    EXPECT_EQ(successor.CheckInvariants(), "");
  }
}

TEST(HotSparesTest, PolicyFilesNameTheSparesAndAnUnknownLevelIsAnError) {
  auto policy = ParsePolicyYaml(
      "name: p\nrecovery:\n  expedite: true\n  hot_spares: {nodes: 2, level: rack}\n", "p.yaml");
  ASSERT_TRUE(policy.has_value()) << policy.error().message;
  EXPECT_EQ(policy->recovery.spare_nodes, 2u);
  EXPECT_EQ(policy->recovery.spare_level, "rack");
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 4}}).Build();
  EXPECT_EQ(SpareLevel(policy->recovery, cluster), 1u);
  policy->recovery.spare_level = "";
  EXPECT_EQ(SpareLevel(policy->recovery, cluster), cluster.deepest_level());
  policy->recovery.spare_level = "pod";
  const auto unknown = SpareLevel(policy->recovery, cluster);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("no level \"pod\" (its levels: cluster, rack)"),
            std::string::npos)
      << unknown.error().message;

  const auto negative =
      ParsePolicyYaml("name: p\nrecovery:\n  hot_spares: {nodes: -1}\n", "p.yaml");
  ASSERT_FALSE(negative.has_value());
  EXPECT_NE(negative.error().message.find("p.yaml:3"), std::string::npos)
      << negative.error().message;
  const auto stray = ParsePolicyYaml("name: p\nrecovery:\n  hot_spares: {count: 1}\n", "p.yaml");
  ASSERT_FALSE(stray.has_value());
  EXPECT_NE(stray.error().message.find("count"), std::string::npos) << stray.error().message;
}

// Random faults, repairs, health withdrawals, submissions and ends under fifo and the headroom
// preset, each keeping a spare per rack: the books hold after every step (spares idle and whole,
// never more than the policy keeps), no job a fault did not requeue starts on a node that was a
// spare, and an engine following the decisions agrees and keeps the same spares.
TEST(HotSparesTest, PropertySparesGoOnlyToRequeuedJobsAndAFollowerKeepsTheSame) {
  const model::Cluster cluster = TinyCluster()
                                     .Rack("r0", {{"n0", 4}, {"n1", 4}, {"n2", 4}})
                                     .Rack("r1", {{"n3", 4}, {"n4", 4}, {"n5", 4}})
                                     .Build();
  auto headroom = PresetPolicy("headroom");
  ASSERT_TRUE(headroom.has_value());
  headroom->recovery.spare_nodes = 1;
  headroom->recovery.spare_level = "rack";
  uint32_t restarts_on_spares = 0;  // The case did happen.
  for (const PolicyConfig& policy : {WithSpares(1), *headroom}) {
    for (uint32_t seed = 0; seed < 30; ++seed) {
      SCOPED_TRACE(::testing::Message() << policy.name << " seed " << seed);
      std::mt19937 rng(seed);
      Engine engine(cluster, policy);
      Engine follower(cluster, policy);
      std::set<uint32_t> live;
      std::map<uint32_t, std::set<uint32_t>> running_on;  // Job → its nodes, while it runs.
      std::set<uint32_t> requeued;
      std::set<uint32_t> down;
      std::set<uint32_t> withdrawn;
      uint32_t next_job = 0;
      for (int step = 0; step < 60; ++step) {
        std::vector<Event> events;
        std::set<uint32_t> touched;  // Nodes this step's events drain or withdraw on.
        const NodeId node(rng() % 6);
        if (rng() % 4 == 0) {
          const bool fail = down.count(node.value()) == 0;
          events.push_back(NodeDrained{node, fail});
          touched.insert(node.value());
          if (fail) {
            down.insert(node.value());
            for (auto it = running_on.begin(); it != running_on.end();) {
              if (it->second.count(node.value()) == 0) {
                ++it;
                continue;
              }
              events.push_back(JobInterrupted{JobId(it->first), node});
              requeued.insert(it->first);
              it = running_on.erase(it);
            }
          } else {
            down.erase(node.value());
          }
        }
        if (rng() % 8 == 0) {
          const uint32_t device = rng() % 24;
          const bool withdraw = withdrawn.insert(device).second;
          if (!withdraw) withdrawn.erase(device);
          events.push_back(DeviceWithdrawn{DeviceId(device), withdraw});
          touched.insert(device / 4);
        }
        model::Job job = JobOf(1 + rng() % 3, 1 + rng() % 4);
        job.runtime_us = (5 + rng() % 40) * kSecond;
        job.runtime_estimate_us = job.runtime_us;
        events.push_back(JobSubmitted{JobId(next_job), std::move(job)});
        live.insert(next_job++);
        if (rng() % 2 == 0) {
          auto it = live.begin();
          std::advance(it, rng() % live.size());
          if (running_on.erase(*it) != 0) {
            events.push_back(JobFinished{JobId(*it)});
          } else {
            events.push_back(JobCancelled{JobId(*it)});
          }
          live.erase(it);
        }
        const std::set<uint32_t> spares_before = Spares(engine, cluster);
        std::vector<Event> followed = events;
        const Decisions decisions = engine.Step(events, step * 10 * kSecond);
        for (const PreemptJob& preemption : decisions.preemptions) {
          running_on.erase(preemption.job.value());
          requeued.erase(preemption.job.value());
        }
        for (const MigrateJob& move : decisions.migrations) {
          std::set<uint32_t>& nodes = running_on[move.job.value()];
          nodes.clear();
          for (const TaskAllocation& task : move.tasks) nodes.insert(task.node.value());
        }
        // A spare a requeued job starts on is open to the jobs after it.
        std::set<uint32_t> opened;
        for (const StartJob& start : decisions.starts) {
          if (requeued.count(start.job.value()) == 0) continue;
          for (uint32_t n : NodesOf(start)) opened.insert(n);
        }
        for (const StartJob& start : decisions.starts) {
          const std::set<uint32_t> nodes = NodesOf(start);
          for (uint32_t n : nodes) {
            if (spares_before.count(n) == 0 || touched.count(n) != 0) continue;
            if (requeued.count(start.job.value()) == 0 && opened.count(n) != 0) continue;
            EXPECT_EQ(requeued.count(start.job.value()), 1u)
                << "job " << start.job.value() << " took spare n" << n;
            ++restarts_on_spares;
          }
          requeued.erase(start.job.value());
          running_on[start.job.value()] = nodes;
        }
        ASSERT_EQ(engine.CheckInvariants(), "");
        ASSERT_EQ(follower.Follow(followed, decisions, step * 10 * kSecond), "");
        ASSERT_EQ(Spares(follower, cluster), Spares(engine, cluster));
      }
    }
  }
  EXPECT_GT(restarts_on_spares, 0u);
}

}  // namespace
}  // namespace headroom::engine
