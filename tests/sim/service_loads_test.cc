// LoadServices (service_loads.h) on Alibaba's DLRM instance trace: one service per app with GPU
// instances, its replica count following the instances' lives exactly, CPU instances left out;
// and the published trace's count at the origin.
#include "sim/service_loads.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "testing/cluster_fixtures.h"
#include "testing/traces.h"

namespace headroom::sim {
namespace {

using Schedule = std::vector<std::pair<TimeUs, uint32_t>>;

constexpr std::string_view kHeader =
    "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,"
    "rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,"
    "creation_time,scheduled_time,deletion_time\n";

std::string WriteTrace(std::string_view name, std::string_view rows) {
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("headroom-{}-{}.csv", name, getpid()))
          .string();
  std::ofstream(path) << kHeader << rows;
  return path;
}

TEST(DlrmServices, EachAppsReplicasFollowItsGpuInstances) {
  const std::string path =
      WriteTrace("dlrm", R"(i0,HN,app_b,12,12,1,1,25,25,120.0,120.0,640,800,8,,,
i1,HN,app_b,16,16,1,1,25,25,100.0,100.0,640,800,8,,,300
i2,HN,app_b,8,8,1,1,25,25,90.0,90.0,640,800,8,100,110,200
i3,CN,app_b,32,32,0,0,0,0,64.0,64.0,100,100,-1,50,60,
i4,HN,app_a,4,4,1,1,0,0,30.0,30.0,100,100,-1,50,55,
i5,CN,app_c,4,4,0,0,0,0,30.0,30.0,100,100,-1,,,400
)");
  const model::Cluster cluster = testing::TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  ServiceOptions options;
  options.device_model = "H100";
  auto loads = LoadServices("dlrm:" + path, options, cluster, 0);
  std::filesystem::remove(path);
  ASSERT_TRUE(loads.has_value()) << loads.error().message;
  // app_c has only CPU instances; the trace ends at its last time, 400 s.
  ASSERT_EQ(loads->size(), 2u);
  const ServiceLoad& a = (*loads)[0];
  const ServiceLoad& b = (*loads)[1];
  EXPECT_EQ(a.service.name, "dlrm-app_a");
  EXPECT_EQ(a.replica_schedule, (Schedule{{0, 0}, {SecondsToUs(50), 1}, {SecondsToUs(400), 0}}));
  EXPECT_EQ(b.service.name, "dlrm-app_b");
  EXPECT_EQ(b.replica_schedule, (Schedule{{0, 2},
                                          {SecondsToUs(100), 3},
                                          {SecondsToUs(200), 2},
                                          {SecondsToUs(300), 1},
                                          {SecondsToUs(400), 0}}));
  // The largest instance's resources, GPU instances only.
  EXPECT_EQ(b.service.devices_per_replica, 1u);
  EXPECT_EQ(b.replica_cpu_milli, 16000);
  EXPECT_EQ(b.replica_memory_mib, 120 * 1024);
  EXPECT_EQ(b.service.device_model, "H100");
  EXPECT_TRUE(b.trace.requests.empty());
}

TEST(DlrmServices, ATraceWithoutGpuInstancesIsAnError) {
  const std::string path =
      WriteTrace("dlrm-cpu", "i5,CN,app_c,4,4,0,0,0,0,30.0,30.0,100,100,-1,,,400\n");
  const model::Cluster cluster = testing::TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  auto loads = LoadServices("dlrm:" + path, ServiceOptions{}, cluster, 0);
  std::filesystem::remove(path);
  ASSERT_FALSE(loads.has_value());
  EXPECT_NE(loads.error().message.find("no GPU instance"), std::string::npos)
      << loads.error().message;
  EXPECT_FALSE(LoadServices("dlrm:/nonexistent/trace.csv", ServiceOptions{}, cluster, 0));
}

// The published trace: 156 services, 3,123 GPU instances running at its start.
TEST(DlrmServices, ThePublishedTraceStartsWithItsRunningInstances) {
  const std::string path =
      testing::TracePath("alibaba-gpu-v2025-dlrm/disaggregated_DLRM_trace.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  const model::Cluster cluster = testing::TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  auto loads = LoadServices("dlrm:" + path, ServiceOptions{}, cluster, 0);
  ASSERT_TRUE(loads.has_value()) << loads.error().message;
  EXPECT_EQ(loads->size(), 156u);
  uint64_t at_origin = 0;
  for (const ServiceLoad& load : *loads) {
    at_origin += load.replica_schedule.front().second;
    EXPECT_EQ(load.replica_schedule.back().second, 0u) << load.service.name;
    EXPECT_GT(load.replica_schedule.back().first, SecondsToUs(30 * 86400)) << load.service.name;
  }
  EXPECT_EQ(at_origin, 3123u);
}

}  // namespace
}  // namespace headroom::sim
