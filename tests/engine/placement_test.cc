// The Placer (placement.h) on small hand-built clusters, with exact expectations: a gang goes
// into the smallest domain that holds it, best fit among domains; per-task placement follows
// the scorers; a required level is never crossed; filters and reservations are respected; and
// a failed search leaves the state as it was; a spread group's gangs go to the rack with fewest
// of the group's tasks.
#include "engine/placement.h"

#include <gtest/gtest.h>

#include "tests/engine/role_fixtures.h"

namespace headroom::engine {
namespace {

using headroom::testing::JobOf;
using headroom::testing::TinyCluster;

// r0: n0, n1 (8 devices each); r1: n2, n3, n4 (8 each).
model::Cluster TwoRacks() {
  return TinyCluster()
      .Rack("r0", {{"n0", 8}, {"n1", 8}})
      .Rack("r1", {{"n2", 8}, {"n3", 8}, {"n4", 8}})
      .Build();
}

std::vector<uint32_t> Nodes(const std::vector<TaskAllocation>& tasks) {
  std::vector<uint32_t> nodes;
  for (const TaskAllocation& task : tasks) nodes.push_back(task.node.value());
  return nodes;
}

PolicyConfig Policy(GangPlacement gang, std::vector<NamedWeight> scorers) {
  PolicyConfig policy;
  policy.gang_placement = gang;
  policy.node_scorers = std::move(scorers);
  return *ValidatePolicy(std::move(policy));
}

TEST(PlacementTest, AGangGoesIntoTheSmallestRackThatHoldsIt) {
  const model::Cluster cluster = TwoRacks();
  ClusterState state(cluster);
  const Placer placer(PlacementOptionsOf(Policy(GangPlacement::kTopologyBlock, {{"best_fit", 1}})));
  // Two whole nodes: both racks hold it; best fit picks r0 (fewer free devices).
  const testing::OwnedRequest two = testing::RequestFor(cluster, JobOf(2, 8));
  auto placed = placer.Place(state, two.request(), nullptr);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(Nodes(*placed), (std::vector<uint32_t>{0, 1}));
  // Three whole nodes: only r1 holds them.
  const testing::OwnedRequest three = testing::RequestFor(cluster, JobOf(3, 8));
  placed = placer.Place(state, three.request(), nullptr);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(Nodes(*placed), (std::vector<uint32_t>{2, 3, 4}));
  EXPECT_EQ(state.allocated_milli(), 0u);  // Place only searches.
}

TEST(PlacementTest, PerTaskPlacementFollowsTheScorers) {
  const model::Cluster cluster = TwoRacks();
  ClusterState state(cluster);
  const testing::OwnedRequest one = testing::RequestFor(cluster, JobOf(1, 2));
  TaskAllocation busy{NodeId(3), {DeviceId(24), DeviceId(25), DeviceId(26)}, 1000, 0, 0};
  state.Allocate(busy);
  const Placer first_fit(PlacementOptionsOf(Policy(GangPlacement::kPerTask, {{"first_fit", 1}})));
  EXPECT_EQ(Nodes(*first_fit.Place(state, one.request(), nullptr)), std::vector<uint32_t>{0});
  const Placer best_fit(PlacementOptionsOf(Policy(GangPlacement::kPerTask, {{"best_fit", 1}})));
  EXPECT_EQ(Nodes(*best_fit.Place(state, one.request(), nullptr)), std::vector<uint32_t>{3});
}

TEST(PlacementTest, ARequiredRackIsNeverCrossedAndDrainedNodesAreSkipped) {
  const model::Cluster cluster = TwoRacks();
  ClusterState state(cluster);
  state.SetDrained(NodeId(3), true);
  const Placer placer(PlacementOptionsOf(Policy(GangPlacement::kTopologyBlock, {{"best_fit", 1}})));
  model::Job job = JobOf(3, 8);
  testing::OwnedRequest three = testing::RequestFor(cluster, job);
  PlacementRequest request = three.request();
  request.required_level = 1;  // rack
  // r1 has only two schedulable nodes now, r0 two: no rack holds three.
  EXPECT_FALSE(placer.Place(state, request, nullptr).has_value());
  // Without the requirement the gang spans racks, and avoids the drained node.
  request.required_level = kNoLevel;
  auto placed = placer.Place(state, request, nullptr);
  ASSERT_TRUE(placed.has_value());
  for (uint32_t node : Nodes(*placed)) EXPECT_NE(node, 3u);
  EXPECT_EQ(state.CheckInvariants(), "");
}

TEST(PlacementTest, ReservedDevicesAreAvoided) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  ClusterState state(cluster);
  ReservedCapacity reserved;
  reserved.Resize(cluster.nodes().size(), cluster.devices().size());
  std::vector<DeviceId> n0_devices;
  for (uint32_t d = 0; d < 8; ++d) n0_devices.push_back(DeviceId(d));
  reserved.Reserve(NodeId(0), n0_devices, 0, 0);
  const Placer placer(PlacementOptionsOf(Policy(GangPlacement::kPerTask, {{"first_fit", 1}})));
  const testing::OwnedRequest one = testing::RequestFor(cluster, JobOf(1, 4));
  EXPECT_EQ(Nodes(*placer.Place(state, one.request(), &reserved)), std::vector<uint32_t>{1});
  const testing::OwnedRequest two = testing::RequestFor(cluster, JobOf(2, 8));
  EXPECT_FALSE(placer.Place(state, two.request(), &reserved).has_value());
}

// A gang counted across a large domain: its capacity is summed over the child domains that can
// hold a task (a full rack is passed over whole), and the gang spans what is left.
TEST(PlacementTest, AGangSpansTheDomainsThatHaveRoomAndSkipsTheFullOnes) {
  const model::Cluster cluster = TinyCluster()
                                     .Leaf("l0")
                                     .Rack("r0", {{"n0", 8}})
                                     .Rack("r1", {{"n1", 8}})
                                     .Leaf("l1")
                                     .Rack("r2", {{"n2", 8}})
                                     .Build();
  ClusterState state(cluster);
  auto take = [&](uint32_t node, uint32_t first, uint32_t count) {
    TaskAllocation task{NodeId(node), {}, 1000, 0, 0};
    for (uint32_t d = first; d < first + count; ++d) task.devices.push_back(DeviceId(d));
    state.Allocate(task);
  };
  take(0, 0, 4);   // n0 (r0, l0): 4 free.
  take(1, 8, 8);   // n1 (r1, l0): full.
  take(2, 16, 4);  // n2 (r2, l1): 4 free.
  const Placer placer(PlacementOptionsOf(Policy(GangPlacement::kTopologyBlock, {{"best_fit", 1}})));
  // Two tasks of 4: no rack and no leaf holds both; the cluster does, with n0 and n2.
  const testing::OwnedRequest two = testing::RequestFor(cluster, JobOf(2, 4));
  auto placed = placer.Place(state, two.request(), nullptr);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(Nodes(*placed), (std::vector<uint32_t>{0, 2}));
  // Three tasks of 4: eight free devices in all, on two nodes: no fit.
  const testing::OwnedRequest three = testing::RequestFor(cluster, JobOf(3, 4));
  EXPECT_FALSE(placer.Place(state, three.request(), nullptr).has_value());
  // Two whole nodes' worth once n1 is free again: r1 holds one task of 8, n0 and n2 none.
  state.Release(TaskAllocation{NodeId(1),
                               {DeviceId(8), DeviceId(9), DeviceId(10), DeviceId(11), DeviceId(12),
                                DeviceId(13), DeviceId(14), DeviceId(15)},
                               1000,
                               0,
                               0});
  const testing::OwnedRequest whole = testing::RequestFor(cluster, JobOf(1, 8));
  placed = placer.Place(state, whole.request(), nullptr);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(Nodes(*placed), std::vector<uint32_t>{1});
}

// A spread group's one-task gangs (a service's replicas): each to the rack with fewest of the
// group's tasks, best fit among equals and the scorers inside; a full rack is passed over, and a
// gang that fits only in a crowded rack still goes there.
TEST(PlacementTest, ASpreadGroupsGangGoesToTheRackWithFewestOfItsTasks) {
  const model::Cluster cluster = TwoRacks();  // r0: n0, n1; r1: n2, n3, n4.
  ClusterState state(cluster);
  const Placer placer(PlacementOptionsOf(Policy(GangPlacement::kTopologyBlock, {{"best_fit", 1}})));
  SpreadCounts spread;
  const DomainId r0 = cluster.node(NodeId(0)).domain;
  const DomainId r1 = cluster.node(NodeId(2)).domain;
  const testing::OwnedRequest replica = testing::RequestFor(cluster, JobOf(1, 4));
  PlacementRequest request = replica.request();
  request.spread = &spread;
  request.spread_group = 7;
  // Both racks empty of the group: best fit picks r0 (fewer free devices), as without it.
  EXPECT_EQ(Nodes(*placer.Place(state, request, nullptr)), std::vector<uint32_t>{0});
  // One in r0: r1, though best fit alone would stay in r0.
  spread.Add(7, r0, 1);
  EXPECT_EQ(Nodes(*placer.Place(state, replica.request(), nullptr)), std::vector<uint32_t>{0});
  EXPECT_EQ(Nodes(*placer.Place(state, request, nullptr)), std::vector<uint32_t>{2});
  // Another group's tasks do not count.
  request.spread_group = 8;
  EXPECT_EQ(Nodes(*placer.Place(state, request, nullptr)), std::vector<uint32_t>{0});
  request.spread_group = 7;
  // One in each: r0 again, on the node the scorers prefer (n1, partly used, by best fit).
  spread.Add(7, r1, 1);
  TaskAllocation used{NodeId(1), {DeviceId(8), DeviceId(9)}, 1000, 0, 0};
  state.Allocate(used);
  EXPECT_EQ(Nodes(*placer.Place(state, request, nullptr)), std::vector<uint32_t>{1});
  // r1 full: the gang goes to r0 though r0 holds more of the group.
  spread.Add(7, r0, 2);
  for (uint32_t node = 2; node <= 4; ++node) {
    TaskAllocation whole{NodeId(node), {}, 1000, 0, 0};
    for (uint32_t d = 0; d < 8; ++d) whole.devices.push_back(DeviceId(node * 8 + d));
    state.Allocate(whole);
  }
  EXPECT_EQ(Nodes(*placer.Place(state, request, nullptr)), std::vector<uint32_t>{1});
  // A gang of two tasks is placed as any gang: spreading is between a group's gangs.
  const testing::OwnedRequest pair = testing::RequestFor(cluster, JobOf(2, 2));
  PlacementRequest pair_request = pair.request();
  pair_request.spread = &spread;
  pair_request.spread_group = 7;
  EXPECT_EQ(Nodes(*placer.Place(state, pair_request, nullptr)), (std::vector<uint32_t>{1, 1}));
  EXPECT_EQ(state.CheckInvariants(), "");
}

}  // namespace
}  // namespace headroom::engine
