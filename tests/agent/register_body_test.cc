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

}  // namespace
}  // namespace headroom::agent
