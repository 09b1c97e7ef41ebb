// The agents backend builds its cluster from what the agents report: nodes whose GPUs share an
// NVLink fabric clique form one "nvlink" domain; a node without one is a domain of its own.
#include <gtest/gtest.h>

#include "control/agents_backend.h"
#include "control/daemon_state.h"

namespace headroom::control {
namespace {

NodeStatus Registered(std::string name, std::string clique) {
  NodeStatus status;
  status.record.name = std::move(name);
  status.record.registered = true;
  status.record.cpu_milli = 64000;
  status.record.memory_mib = 1 << 20;
  for (uint32_t g = 0; g < 4; ++g) {
    status.record.devices.push_back(
        {g, "GPU-" + status.record.name + std::to_string(g), "H100", 81920, clique});
  }
  return status;
}

TEST(AgentsTopologyTest, NodesSharingAFabricCliqueShareAnNvlinkDomain) {
  DaemonState state;
  state.nodes.emplace("a", Registered("a", "uuid-1.7"));
  state.nodes.emplace("b", Registered("b", ""));
  state.nodes.emplace("c", Registered("c", "uuid-1.7"));
  state.nodes.emplace("d", Registered("d", "uuid-1.8"));
  const auto cluster = ClusterOfRegisteredNodes(state);
  ASSERT_NE(cluster, nullptr);
  ASSERT_EQ(cluster->level_names(), (std::vector<std::string>{"cluster", "nvlink"}));
  const auto domain_of = [&](const char* node) {
    return cluster->domain(cluster->FindNode(node)->domain).name;
  };
  EXPECT_EQ(domain_of("a"), domain_of("c"));
  EXPECT_EQ(domain_of("a"), "clique-uuid-1.7");
  EXPECT_EQ(domain_of("d"), "clique-uuid-1.8");
  EXPECT_EQ(domain_of("b"), "host-b");
  EXPECT_EQ(cluster->device_count(), 16u);
}

TEST(AgentsTopologyTest, NoRegisteredNodesNoCluster) {
  DaemonState state;
  NodeStatus from_file = Registered("x", "");
  from_file.record.registered = false;
  state.nodes.emplace("x", from_file);
  EXPECT_EQ(ClusterOfRegisteredNodes(state), nullptr);
}

}  // namespace
}  // namespace headroom::control
