// Required and preferred topology levels (Job::required_topology_level /
// preferred_topology_level): exact placements on small hand-built clusters, the pending reason
// a required level gives, and how unknown level names are reported.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "model/job_topology.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using testing::Harness;
using testing::InArrivalOrder;
using testing::MakeCluster;
using testing::MakeJob;

model::Cluster TwoRacksOfTwo() {
  return MakeCluster({{"r0", {{"n0"}, {"n1"}}}, {"r1", {{"n2"}, {"n3"}}}});
}

model::Job WithLevels(model::Job job, std::string required, std::string preferred) {
  job.required_topology_level = std::move(required);
  job.preferred_topology_level = std::move(preferred);
  return job;
}

// n0 and n2 busy: one free node in each rack (n1, n3).
struct OneFreeNodePerRack {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h;
  JobId blocker_r0;
  explicit OneFreeNodePerRack(std::string_view policy) : h(cluster, InArrivalOrder(policy)) {
    blocker_r0 = h.Submit(MakeJob(1, 8, 1000));
    h.Submit(MakeJob(1, 8, 1000));
    h.Submit(MakeJob(1, 8, 1000));
    h.Step(0);
    h.Finish(JobId(1));  // The middle one sat on n1.
    h.Step(1);
  }
};

TEST(TopologyLevelScenario, RequiredRackWaitsRatherThanSpanRacks) {
  for (std::string_view policy : {"headroom", "slurm-like", "fifo", "spread"}) {
    SCOPED_TRACE(policy);
    OneFreeNodePerRack setup(policy);
    Harness& h = setup.h;
    ASSERT_EQ(h.NodesOf(setup.blocker_r0), std::vector<std::string>{"n0"});
    const JobId gang = h.Submit(WithLevels(MakeJob(2, 8, 100), "rack", ""));
    h.Step(2);
    EXPECT_TRUE(h.NodesOf(gang).empty());
    const PendingStatus status = h.engine().Explain(gang);
    ASSERT_FALSE(status.reasons.empty());
    EXPECT_EQ(status.reasons.front(), PendingCode::kTopology);
    EXPECT_NE(status.message.find("no single rack holds 2 task(s) of 8"), std::string::npos)
        << status.message;
    EXPECT_NE(status.message.find("topology level 'rack'"), std::string::npos) << status.message;
    // Once r0 empties, the gang takes it whole.
    h.Finish(setup.blocker_r0);
    h.Step(3);
    EXPECT_EQ(h.NodesOf(gang), (std::vector<std::string>{"n0", "n1"}));
  }
}

TEST(TopologyLevelScenario, PreferredRackFallsBackToTheCluster) {
  for (std::string_view policy : {"headroom", "fifo"}) {
    SCOPED_TRACE(policy);
    OneFreeNodePerRack setup(policy);
    Harness& h = setup.h;
    const JobId gang = h.Submit(WithLevels(MakeJob(2, 8, 100), "", "rack"));
    h.Step(2);
    EXPECT_EQ(h.NodesOf(gang), (std::vector<std::string>{"n1", "n3"}));
  }
}

// Spread (per task, least allocated) scatters a gang over racks; a required rack keeps it in
// one, still choosing the least allocated nodes inside it.
TEST(TopologyLevelScenario, PerTaskPlacementStaysInsideTheRequiredRack) {
  const model::Cluster cluster = TwoRacksOfTwo();
  {
    Harness h(cluster, InArrivalOrder("spread"));
    h.Submit(MakeJob(1, 1, 1000));
    h.Step(0);
    const JobId gang = h.Submit(MakeJob(2, 4, 100));
    h.Step(1);
    EXPECT_EQ(h.NodesOf(gang), (std::vector<std::string>{"n1", "n2"}));
  }
  for (const char* level : {"rack", ""}) {
    Harness h(cluster, InArrivalOrder("spread"));
    h.Submit(MakeJob(1, 1, 1000));
    h.Step(0);
    // Required, or preferred alone: rack r0 holds both tasks, so both stay there.
    const JobId gang = h.Submit(WithLevels(MakeJob(2, 4, 100), level, *level ? "" : "rack"));
    h.Step(1);
    EXPECT_EQ(h.NodesOf(gang), (std::vector<std::string>{"n1", "n0"}))
        << "required '" << level << "'";
  }
}

TEST(TopologyLevelScenario, RequiredLevelLargerThanAnyDomainNeverFits) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, "headroom");
  const JobId gang = h.Submit(WithLevels(MakeJob(3, 8, 100), "rack", ""));
  const JobId loose = h.Submit(MakeJob(3, 8, 100));
  h.Step(0);
  EXPECT_TRUE(h.NodesOf(gang).empty());
  EXPECT_EQ(h.NodesOf(loose).size(), 3u);
  const PendingStatus status = h.engine().Explain(gang);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(status.reasons.front(), PendingCode::kUnschedulable);
  EXPECT_NE(status.message.find("inside one rack"), std::string::npos) << status.message;
}

TEST(TopologyLevelScenario, UnknownLevelIsUnschedulableInTheEngine) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, "headroom");
  const JobId gang = h.Submit(WithLevels(MakeJob(1, 8, 100), "nvl72", ""));
  h.Step(0);
  EXPECT_TRUE(h.NodesOf(gang).empty());
  const PendingStatus status = h.engine().Explain(gang);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(status.reasons.front(), PendingCode::kUnschedulable);
  EXPECT_NE(status.message.find("'nvl72'"), std::string::npos) << status.message;
}

TEST(JobTopologyTest, ResolvesLevelNames) {
  const model::Cluster cluster = TwoRacksOfTwo();
  EXPECT_EQ(model::LevelIndex(cluster, "cluster"), 0u);
  EXPECT_EQ(model::LevelIndex(cluster, "rack"), 1u);
  EXPECT_EQ(model::LevelIndex(cluster, "leaf"), std::nullopt);
}

TEST(JobTopologyTest, ValidationNamesTheJobFieldAndKnownLevels) {
  const model::Cluster cluster = TwoRacksOfTwo();
  std::vector<model::Job> jobs = {MakeJob(1, 8, 1), WithLevels(MakeJob(2, 8, 1), "rack", "")};
  jobs[1].name = "train-7";
  EXPECT_TRUE(model::ValidateTopologyLevels(cluster, jobs, "w.yaml").has_value());
  jobs[1].preferred_topology_level = "nvl72";
  auto bad = model::ValidateTopologyLevels(cluster, jobs, "w.yaml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message,
            "w.yaml: job 'train-7': field 'preferred_topology_level': expected one of the "
            "cluster's levels (cluster, rack), got \"nvl72\"");
  jobs[1].preferred_topology_level = "cluster";  // Above the required rack.
  bad = model::ValidateTopologyLevels(cluster, jobs, "w.yaml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("expected the required level 'rack' or one below it"),
            std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace headroom::engine
