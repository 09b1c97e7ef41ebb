// Fake inventory files: a full example read exactly, and each mistake reported on one line with
// file, line and field.
#include "agent/inventory_yaml.h"

#include <gtest/gtest.h>

namespace headroom::agent {
namespace {

constexpr const char* kInventory = R"(cpu: 64
memory: 512Gi
devices:
- index: 1
  uuid: GPU-bbbb
  model: H100
  memory: 80Gi
  clique_id: "6d7f-cluster.3"
  telemetry: {temp_c: 41.5, power_w: 312.5, util: 0.93, xid_errors: 0}
- {index: 0, uuid: GPU-aaaa, model: H100, memory: 81559Mi}
)";

TEST(AgentInventoryYaml, ReadsAFullInventory) {
  auto inventory = ParseInventoryYaml(kInventory, "n1.yaml");
  ASSERT_TRUE(inventory.has_value()) << inventory.error().message;
  EXPECT_EQ(inventory->cpu_milli, 64000);
  EXPECT_EQ(inventory->memory_mib, 512 * 1024);
  ASSERT_EQ(inventory->devices.size(), 2u);
  const InventoryDevice& first = inventory->devices[0];  // Ordered by index.
  EXPECT_EQ(first.index, 0);
  EXPECT_EQ(first.uuid, "GPU-aaaa");
  EXPECT_EQ(first.memory_mib, 81559);
  EXPECT_FALSE(first.clique_id.has_value());
  EXPECT_FALSE(first.fake_telemetry.has_value());
  const InventoryDevice& second = inventory->devices[1];
  EXPECT_EQ(second.index, 1);
  EXPECT_EQ(second.model, "H100");
  EXPECT_EQ(second.memory_mib, 80 * 1024);
  EXPECT_EQ(second.clique_id, "6d7f-cluster.3");
  ASSERT_TRUE(second.fake_telemetry.has_value());
  EXPECT_EQ(second.fake_telemetry->index, 1);
  EXPECT_EQ(second.fake_telemetry->temp_c, 41.5);
  EXPECT_EQ(second.fake_telemetry->power_w, 312.5);
  EXPECT_EQ(second.fake_telemetry->util, 0.93);
  EXPECT_EQ(second.fake_telemetry->xid_errors, 0);
}

TEST(AgentInventoryYaml, MillicoresAndEmptyDeviceList) {
  auto inventory = ParseInventoryYaml("cpu: 500m\nmemory: 1Ti\ndevices: []\n", "x");
  ASSERT_TRUE(inventory.has_value()) << inventory.error().message;
  EXPECT_EQ(inventory->cpu_milli, 500);
  EXPECT_EQ(inventory->memory_mib, 1024 * 1024);
  EXPECT_TRUE(inventory->devices.empty());
}

struct BadCase {
  const char* text;
  const char* message;
};

TEST(AgentInventoryYaml, ErrorsNameFileLineAndField) {
  const std::string head = "cpu: 8\nmemory: 64Gi\ndevices:\n";
  const std::string ok0 = "- {index: 0, uuid: G0, model: H100, memory: 80Gi}\n";
  const std::string ok1 = "- {index: 1, uuid: G1, model: H100, memory: 80Gi}\n";
  const BadCase cases[] = {
      {"- {index: 2, uuid: G2, model: [H100], memory: 80Gi}\n",
       "n1.yaml:6: field 'devices[2].model': expected a name, got a list"},
      {"- {index: 2, uuid: G2, model: H100, memory: 80GB}\n",
       "n1.yaml:6: field 'devices[2].memory': expected an amount like 512Gi (units Mi, Gi or "
       "Ti), got \"80GB\""},
      {"- {index: 1, uuid: G2, model: H100, memory: 80Gi}\n",
       "n1.yaml:6: field 'devices[2]': expected a device index not used by an earlier device, "
       "got index 1 again"},
      {"- {index: 2, uuid: G1, model: H100, memory: 80Gi}\n",
       "n1.yaml:6: field 'devices[2]': expected a UUID not used by an earlier device, got \"G1\""},
      {"- {index: 2000, uuid: G2, model: H100, memory: 80Gi}\n",
       "n1.yaml:6: field 'devices[2].index': expected a device index in 0..1023, got \"2000\""},
      {"- {index: 2, uuid: G2, model: H100}\n",
       "n1.yaml:6: field 'devices[2].memory': expected an amount like 512Gi (units Mi, Gi or Ti), "
       "got nothing"},
      {"- {index: 2, uuid: G2, model: H100, memory: 8Gi, colour: red}\n",
       "n1.yaml:6: field 'devices[2].colour': expected one of the keys index, uuid, model, "
       "memory, clique_id, telemetry, got unknown key \"colour\""},
      {"- {index: 2, uuid: G2, model: H100, memory: 8Gi, telemetry: {util: 93}}\n",
       "n1.yaml:6: field 'devices[2].telemetry.util': expected a fraction in 0..1, got \"93\""},
  };
  for (const BadCase& bad : cases) {
    auto inventory = ParseInventoryYaml(head + ok0 + ok1 + bad.text, "n1.yaml");
    ASSERT_FALSE(inventory.has_value()) << bad.text;
    EXPECT_EQ(inventory.error().message, bad.message) << bad.text;
  }
  EXPECT_EQ(ParseInventoryYaml("cpu: eight\nmemory: 1Gi\ndevices: []\n", "n1.yaml").error().message,
            "n1.yaml:1: field 'cpu': expected CPU cores as an integer >= 1 or millicores like "
            "\"500m\", got \"eight\"");
  EXPECT_EQ(ParseInventoryYaml("cpu: 8\nmemory: 1Gi\n", "n1.yaml").error().message,
            "n1.yaml:1: field 'devices': expected a list of devices (may be empty: []), got "
            "nothing");
  EXPECT_EQ(ParseInventoryYaml("cpu: [8\n", "n1.yaml").error().message.rfind("n1.yaml:", 0), 0u);
}

TEST(AgentInventoryYaml, MissingFileIsNotFound) {
  auto inventory = LoadInventoryYaml("/nonexistent/inventory.yaml");
  ASSERT_FALSE(inventory.has_value());
  EXPECT_EQ(inventory.error().code, ErrorCode::kNotFound);
  EXPECT_NE(inventory.error().message.find("/nonexistent/inventory.yaml"), std::string::npos);
}

}  // namespace
}  // namespace headroom::agent
