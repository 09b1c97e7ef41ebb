// The register body the agent builds from its inventory (docs/api.md "Agents").
#include <gtest/gtest.h>

#include "agent/agent_protocol.h"

namespace headroom::agent {
namespace {

using nlohmann::json;

TEST(AgentProtocol, RegisterBodyHasTheDocumentedFields) {
  RegisterRequest request{.node = "n1",
                          .inventory = {.cpu_milli = 64000,
                                        .memory_mib = 524288,
                                        .devices = {{.index = 0,
                                                     .uuid = "GPU-a",
                                                     .model = "H100",
                                                     .memory_mib = 81559,
                                                     .clique_id = std::nullopt}}},
                          .ready = true,
                          .readiness_message = "",
                          .address = "10.0.0.11"};
  EXPECT_EQ(RegisterJson(request),
            json::parse(R"({"node": "n1", "cpu_milli": 64000, "memory_mib": 524288,
                "ready": true, "readiness_message": "", "address": "10.0.0.11",
                "devices": [{"index": 0, "uuid": "GPU-a", "model": "H100",
                             "memory_mib": 81559, "clique_id": null}]})"));
}

// The agent's inventory device and the contract's device agree field for field; a clique is
// sent as its id, its absence as null.
TEST(AgentProtocol, InventoryDevicesBecomeTheContractsDevices) {
  const InventoryDevice device{
      .index = 7, .uuid = "GPU-b", .model = "B200", .memory_mib = 183359, .clique_id = "u.3"};
  EXPECT_EQ(
      RegisteredDeviceOf(device),
      (model::RegisteredDevice{
          .index = 7, .uuid = "GPU-b", .model = "B200", .memory_mib = 183359, .clique_id = "u.3"}));
  EXPECT_EQ(DeviceJson(device)["clique_id"], "u.3");
  InventoryDevice without = device;
  without.clique_id.reset();
  EXPECT_EQ(DeviceJson(without)["clique_id"], nullptr);
}

}  // namespace
}  // namespace headroom::agent
