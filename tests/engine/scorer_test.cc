// Each built-in scorer's exact values on a small hand-built state, and the pieces no preset
// uses (most_allocated, worst-fit domain order) placing work as they promise.
#include "engine/scorer.h"

#include <gtest/gtest.h>

#include "tests/engine/role_fixtures.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using headroom::testing::JobOf;
using headroom::testing::TinyCluster;

class ScorerTest : public ::testing::Test {
 protected:
  // r0: n0, n1; r1: n2, n3; 8 devices each. n0 has 6 devices and half its CPU and memory in use.
  ScorerTest()
      : cluster_(TinyCluster()
                     .Rack("r0", {{"n0", 8}, {"n1", 8}})
                     .Rack("r1", {{"n2", 8}, {"n3", 8}})
                     .Build()),
        state_(cluster_),
        request_(testing::RequestFor(cluster_, JobOf(1, 1))) {
    TaskAllocation busy{NodeId(0), {}, 1000, 32'000, 128 * 1024};
    for (uint32_t d = 0; d < 6; ++d) busy.devices.push_back(DeviceId(d));
    state_.Allocate(busy);
  }

  double Score(std::string_view scorer, uint32_t node) {
    auto made = Scorers().Make(scorer);
    EXPECT_TRUE(made.has_value());
    return (*made)->Score(state_, NodeId(node), request_.request(), 1);
  }

  model::Cluster cluster_;
  ClusterState state_;
  testing::OwnedRequest request_;
};

TEST_F(ScorerTest, BestFitPrefersTheNodeLeftFullest) {
  EXPECT_DOUBLE_EQ(Score("best_fit", 0), 1.0 - 1.0 / 8);
  EXPECT_DOUBLE_EQ(Score("best_fit", 1), 1.0 - 7.0 / 8);
}

TEST_F(ScorerTest, LeastAllocatedSpreadsAndMostAllocatedPacks) {
  // CPU and memory are zero for the task, so: n0 keeps 1/2, 1/2 and 1/8 free; n1 all, 7/8.
  const double n0_free = (0.5 + 0.5 + 1.0 / 8) / 3;
  const double n1_free = (1.0 + 1.0 + 7.0 / 8) / 3;
  EXPECT_DOUBLE_EQ(Score("least_allocated", 0), n0_free);
  EXPECT_DOUBLE_EQ(Score("least_allocated", 1), n1_free);
  EXPECT_DOUBLE_EQ(Score("most_allocated", 0), 1 - n0_free);
  EXPECT_DOUBLE_EQ(Score("most_allocated", 1), 1 - n1_free);
}

TEST_F(ScorerTest, FirstFitPrefersTheLowestId) {
  EXPECT_DOUBLE_EQ(Score("first_fit", 0), 1.0);
  EXPECT_DOUBLE_EQ(Score("first_fit", 3), 0.25);
}

TEST_F(ScorerTest, KeepWholeNodesAvoidsBreakingAnUntouchedNode) {
  EXPECT_DOUBLE_EQ(Score("keep_whole_nodes", 0), 1.0);
  EXPECT_DOUBLE_EQ(Score("keep_whole_nodes", 1), 0.0);
}

TEST_F(ScorerTest, DomainPackPrefersTheBusierRack) {
  EXPECT_DOUBLE_EQ(Score("domain_pack", 1), 6.0 / 16);
  EXPECT_DOUBLE_EQ(Score("domain_pack", 2), 0.0);
}

// A 6-device job lands on n0 first; then a 2-task gang goes where each policy's pieces say.
std::vector<std::string> SecondJobNodes(const PolicyConfig& policy) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Rack("r1", {{"n2", 8}, {"n3", 8}}).Build();
  testing::Harness harness(cluster, policy);
  const JobId first = harness.Submit(JobOf(1, 6));
  harness.Step(0);
  EXPECT_EQ(harness.NodesOf(first), std::vector<std::string>{"n0"});
  const JobId second = harness.Submit(JobOf(2, 1));
  harness.Step(1);
  return harness.NodesOf(second);
}

TEST(ScorerPlacementTest, WorstFitDomainsAndMostAllocatedNodesPlaceAsPromised) {
  PolicyConfig best = testing::InArrivalOrder("headroom");
  best.node_scorers = {{"best_fit", 1}};
  EXPECT_EQ(SecondJobNodes(best), (std::vector<std::string>{"n0", "n0"}));

  PolicyConfig worst = best;
  worst.domain_order = FitOrder::kWorstFit;
  const std::vector<std::string> in_emptier_rack = SecondJobNodes(worst);
  ASSERT_EQ(in_emptier_rack.size(), 2u);
  for (const std::string& node : in_emptier_rack) EXPECT_TRUE(node == "n2" || node == "n3");

  PolicyConfig pack = testing::InArrivalOrder("spread");
  pack.node_scorers = {{"most_allocated", 1}};
  EXPECT_EQ(SecondJobNodes(pack), (std::vector<std::string>{"n0", "n0"}));
  // LeastAllocated, task by task: the first to the emptiest node (n1 by id), the second to the
  // node that is now emptier than n1.
  PolicyConfig spread = testing::InArrivalOrder("spread");
  EXPECT_EQ(SecondJobNodes(spread), (std::vector<std::string>{"n1", "n2"}));
}

}  // namespace
}  // namespace headroom::engine
