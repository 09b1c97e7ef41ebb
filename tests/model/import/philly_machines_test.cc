#include "model/import/philly_machines.h"

#include <string>

#include <gtest/gtest.h>

#include "testing/traces.h"

namespace headroom::model {
namespace {

// From /work/shared/traces/microsoft-philly/README.md: "552 machines ... 321 × 2-GPU/12GB +
// 231 × 8-GPU/24GB = 2,490 GPUs".
TEST(PhillyMachinesTest, LoadsTheMachineList) {
  const std::string path = testing::TracePath("microsoft-philly/cluster_machine_list");
  HEADROOM_SKIP_IF_MISSING(path);
  auto cluster = LoadPhillyMachines(path);
  ASSERT_TRUE(cluster) << cluster.error().message;
  EXPECT_EQ(cluster->nodes().size(), 552u);
  EXPECT_EQ(cluster->device_count(), 2490u);
  EXPECT_EQ(cluster->level_names(), std::vector<std::string>{"cluster"});
  int small = 0;
  int large = 0;
  for (const Node& node : cluster->nodes()) {
    const std::string& model =
        cluster->device_class(cluster->device(DeviceId(node.first_device)).device_class).model;
    if (node.device_count == 2 && model == "philly-12GB") ++small;
    if (node.device_count == 8 && model == "philly-24GB") ++large;
  }
  EXPECT_EQ(small, 321);
  EXPECT_EQ(large, 231);
  ASSERT_EQ(cluster->device_classes().size(), 2u);
  EXPECT_EQ(ToString(cluster->device_classes()[0].attributes),
            "memory_gib=12, model=\"philly-12GB\"");
  const Node* m0 = cluster->FindNode("m0");
  ASSERT_NE(m0, nullptr);
  EXPECT_EQ(m0->cpu_milli, 16'000);
  EXPECT_EQ(m0->memory_mib, 128 * 1024);
}

TEST(PhillyMachinesTest, ParsesThePublishedSpacing) {
  auto cluster = ParsePhillyMachines(
      "machineId, number of GPUs, single GPU mem\nm0,2, 12GB\nm1,8, 24gb\r\nm2,0, 12GB", "inline",
      {.cpu_milli_per_gpu = 1000, .memory_mib_per_gpu = 10});
  ASSERT_TRUE(cluster) << cluster.error().message;
  ASSERT_EQ(cluster->nodes().size(), 3u);
  EXPECT_EQ(cluster->device_count(), 10u);
  EXPECT_EQ(cluster->nodes()[1].cpu_milli, 8000);
  EXPECT_EQ(cluster->nodes()[1].memory_mib, 80);
  EXPECT_EQ(cluster->nodes()[2].device_count, 0u);
}

std::string ErrorOf(std::string_view rows) {
  auto cluster = ParsePhillyMachines(
      std::string("machineId, number of GPUs, single GPU mem\n") + std::string(rows), "machines");
  return cluster ? "" : cluster.error().message;
}

TEST(PhillyMachinesTest, MalformedRowsNameFileLineAndField) {
  EXPECT_EQ(ErrorOf("m0,2, 12GB\nm1,2, 12\n"),
            "machines:3: field 'single GPU mem': expected a positive whole number of GB such as "
            "\"12GB\", got \"12\"");
  EXPECT_EQ(ErrorOf("m0,2, 0GB\n"),
            "machines:2: field 'single GPU mem': expected a positive whole number of GB such as "
            "\"12GB\", got \"0GB\"");
  EXPECT_EQ(ErrorOf("m0,two, 12GB\n"),
            "machines:2: field 'number of GPUs': expected an integer from 0 to 1024, got \"two\"");
  EXPECT_EQ(ErrorOf("m0,-1, 12GB\n"),
            "machines:2: field 'number of GPUs': expected an integer from 0 to 1024, got \"-1\"");
  EXPECT_EQ(ErrorOf("m0,2, 12GB\nm0,2, 12GB\n"),
            "machines:3: field 'machineId': expected unique machine ids, got a second \"m0\"");
  EXPECT_EQ(ErrorOf(",2, 12GB\n"),
            "machines:2: field 'machineId': expected a machine id, got \"\"");
  auto wrong_header = ParsePhillyMachines("machine,gpus,mem\n", "machines");
  ASSERT_FALSE(wrong_header);
  EXPECT_EQ(wrong_header.error().message,
            "machines:1: expected a column 'machineId', got columns: machine, gpus, mem");
}

TEST(PhillyMachinesTest, RejectsNegativeDefaults) {
  EXPECT_FALSE(ParsePhillyMachines("machineId, number of GPUs, single GPU mem\n", "m",
                                   {.cpu_milli_per_gpu = -1}));
}

}  // namespace
}  // namespace headroom::model
