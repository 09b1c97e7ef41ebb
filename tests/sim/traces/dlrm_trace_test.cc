// Tests for the Alibaba GPU-disaggregated DLRM trace loader: the published file loads with its
// README's counts (roles, services, instances alive before and after the trace), times are read
// to the microsecond, and malformed cells are errors naming file, line and field.
#include "sim/traces/dlrm_trace.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "testing/traces.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::TracePath;

constexpr const char* kHeader =
    "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,"
    "rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,"
    "creation_time,scheduled_time,deletion_time\n";

TEST(DlrmTrace, ThePublishedTraceLoadsWithItsReadmeCounts) {
  const std::string path = TracePath("alibaba-gpu-v2025-dlrm/disaggregated_DLRM_trace.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto trace = LoadDlrmTrace(path);
  ASSERT_TRUE(trace.has_value()) << trace.error().message;
  ASSERT_EQ(trace->instances.size(), 23'871u);
  size_t gpu_nodes = 0, from_before = 0, to_after = 0;
  std::set<std::string> services;
  TimeUs last_deletion_us = 0;
  for (const ServiceInstance& instance : trace->instances) {
    gpu_nodes += instance.gpu_node ? 1 : 0;
    EXPECT_EQ(instance.gpus, instance.gpu_node ? 1u : 0u);
    from_before += instance.created_us ? 0 : 1;
    to_after += instance.deleted_us ? 0 : 1;
    if (instance.deleted_us) last_deletion_us = std::max(last_deletion_us, *instance.deleted_us);
    services.insert(instance.service);
  }
  EXPECT_EQ(gpu_nodes, 7386u);
  EXPECT_EQ(trace->instances.size() - gpu_nodes, 16'485u);
  EXPECT_EQ(from_before, 7280u);
  EXPECT_EQ(to_after, 8878u);
  EXPECT_EQ(services.size(), 156u);
  EXPECT_EQ(last_deletion_us, 2'677'541 * kUsPerSecond);
}

TEST(DlrmTrace, AnInstanceIsReadFieldByField) {
  const std::string text = std::string(kHeader) +
                           "instance_7281,CN,app_88,64,64,0,0,1,1,320.0,320.0,255.0,300.0,-1,"
                           "475.00000000000006,683.0,91730.0\n"
                           "instance_0,HN,app_0,12,12,1,1,25,25,120.5,120.0,640.0,800.0,8,,,";
  auto trace = ParseDlrmTrace(text, "dlrm.csv");
  ASSERT_TRUE(trace.has_value()) << trace.error().message;
  ASSERT_EQ(trace->instances.size(), 2u);
  const ServiceInstance& cpu = trace->instances[0];
  EXPECT_EQ(cpu.name, "instance_7281");
  EXPECT_EQ(cpu.service, "app_88");
  EXPECT_FALSE(cpu.gpu_node);
  EXPECT_EQ(cpu.cpus, 64);
  EXPECT_EQ(cpu.rdma_percent, 1u);
  EXPECT_EQ(cpu.disk_gib, 255);
  EXPECT_EQ(cpu.max_per_node, 0u);  // -1: no limit.
  EXPECT_EQ(cpu.created_us, 475 * kUsPerSecond);
  EXPECT_EQ(cpu.scheduled_us, 683 * kUsPerSecond);
  EXPECT_EQ(cpu.deleted_us, 91'730 * kUsPerSecond);
  const ServiceInstance& gpu = trace->instances[1];
  EXPECT_TRUE(gpu.gpu_node);
  EXPECT_EQ(gpu.gpus, 1u);
  EXPECT_EQ(gpu.memory_gib, 120.5);
  EXPECT_EQ(gpu.max_per_node, 8u);
  EXPECT_FALSE(gpu.created_us.has_value());
  EXPECT_FALSE(gpu.scheduled_us.has_value());
  EXPECT_FALSE(gpu.deleted_us.has_value());
}

TEST(DlrmTrace, MalformedCellsNameFileLineAndField) {
  struct Case {
    const char* row;
    const char* message;
  };
  const Case cases[] = {
      {"i,GN,app,1,1,0,0,1,1,1,1,1,1,-1,,,",
       "dlrm.csv:2: field 'role': expected CN or HN, got \"GN\""},
      {"i,CN,,1,1,0,0,1,1,1,1,1,1,-1,,,",
       "dlrm.csv:2: field 'app_name': expected a service name, got nothing"},
      {"i,CN,app,-1,1,0,0,1,1,1,1,1,1,-1,,,",
       "dlrm.csv:2: field 'cpu_request': expected a non-negative number at most 1000000, got "
       "\"-1\""},
      {"i,CN,app,1,1,0,0,101,1,1,1,1,1,-1,,,",
       "dlrm.csv:2: field 'rdma_request': expected a non-negative integer at most 100, got "
       "\"101\""},
      {"i,CN,app,1,1,0,0,1,1,1,1,1,1,0,,,",
       "dlrm.csv:2: field 'max_instance_per_node': expected -1 (no limit) or a positive "
       "integer, got \"0\""},
      {"i,CN,app,1,1,0,0,1,1,1,1,1,1,-1,soon,,",
       "dlrm.csv:2: field 'creation_time': expected seconds from the trace's start (0 to "
       "10000000000) or nothing, got \"soon\""},
      {"i,CN,app,1,1,0,0,1,1,1,1,1,1,-1,10,5,",
       "dlrm.csv:2: expected creation_time <= scheduled_time <= deletion_time, the first two "
       "both given or both empty, got \"10\", \"5\", \"\""},
      {"i,CN,app,1,1,0,0,1,1,1,1,1,1,-1,10,,",
       "dlrm.csv:2: expected creation_time <= scheduled_time <= deletion_time, the first two "
       "both given or both empty, got \"10\", \"\", \"\""},
  };
  for (const Case& c : cases) {
    auto trace = ParseDlrmTrace(std::string(kHeader) + c.row, "dlrm.csv");
    ASSERT_FALSE(trace.has_value()) << c.row;
    EXPECT_EQ(trace.error().message, c.message);
  }
}

}  // namespace
}  // namespace headroom::sim
