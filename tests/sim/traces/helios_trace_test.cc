// Tests for the Helios slice loader (gen_parallel_trace.h): the published file loads with the
// README's counts, CPU-only jobs included, and CPUs split over a gang's tasks.
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/traces/gen_parallel_trace.h"
#include "sim/traces/workload_loader.h"
#include "testing/traces.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::TracePath;

TEST(HeliosTraceTest, LoadsPublishedSliceWithReadmeCounts) {
  const std::string path = TracePath("sensetime-helios/helios_data_training.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto loaded = LoadWorkload("helios:" + path, WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  EXPECT_EQ(loaded->workload.format, "helios");
  ASSERT_EQ(jobs.size(), 15'000u);
  EXPECT_TRUE(loaded->skipped.empty());

  std::map<uint64_t, size_t> gpu_mix;
  std::map<model::TraceOutcome, size_t> outcomes;
  std::set<std::string> tenants;
  int64_t cpu_milli = 0;
  uint64_t devices = 0;
  for (const model::Job& job : jobs) {
    ++gpu_mix[job.total_devices()];
    ++outcomes[job.trace_outcome];
    tenants.insert(job.tenant);
    cpu_milli += job.task.cpu_milli * job.task_count;
    devices += job.total_devices();
    EXPECT_GT(job.task.cpu_milli, 0);
    EXPECT_EQ(job.runtime_estimate_us, job.runtime_us);
    EXPECT_LE(job.task.devices, 8u);
  }
  // README: 4,204 CPU-only rows, kept; GPU mix incl. 8:2382, 16:579, 32:246, 24:112.
  EXPECT_EQ(gpu_mix[0], 4204u);
  EXPECT_EQ(gpu_mix[1], 5939u);
  EXPECT_EQ(gpu_mix[8], 2382u);
  EXPECT_EQ(gpu_mix[16], 579u);
  EXPECT_EQ(gpu_mix[24], 112u);
  EXPECT_EQ(gpu_mix[32], 246u);
  EXPECT_EQ(gpu_mix[160], 13u);
  EXPECT_EQ(gpu_mix.size(), 28u);
  EXPECT_EQ(devices, 69'582u);  // Every gang holds exactly the trace's gpu_num.
  // cpu_num is the job's total; splitting over tasks keeps the total (196,945 CPUs).
  EXPECT_EQ(cpu_milli, 196'945'000);
  // README: Pass 9316 / Killed 3452 / Failed 2232; 106 users.
  EXPECT_EQ(outcomes[model::TraceOutcome::kCompleted], 9316u);
  EXPECT_EQ(outcomes[model::TraceOutcome::kKilled], 3452u);
  EXPECT_EQ(outcomes[model::TraceOutcome::kFailed], 2232u);
  EXPECT_EQ(tenants.size(), 106u);
  // Sum of intervals: 1,744,281 s, about 20.2 days.
  EXPECT_EQ(jobs.back().submit_time_us, TimeUs{1'744'281} * kUsPerSecond);
  EXPECT_NEAR(UsToSeconds(jobs.back().submit_time_us) / 86400, 20.2, 0.02);
  EXPECT_EQ(jobs.back().name, "helios-14999");
}

TEST(HeliosTraceTest, CpuOnlyJobsSpanTheirNodes) {
  const std::string text =
      "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\r\n"
      "517,20,0,32,8,38,357315,0,Killed\r\n"
      "518,20,0,3,1,2,10,0,Pass\r\n"
      "519,20,160,800,20,2,10,0,Pass\r\n"
      "520,20,3,5,2,2,10,0,Pass\r\n";
  auto loaded = ParseHeliosTrace(text, "h.csv", WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].name, "helios-517");
  EXPECT_EQ(jobs[0].task_count, 8u);
  EXPECT_EQ(jobs[0].task.devices, 0u);
  EXPECT_EQ(jobs[0].task.cpu_milli, 4000);
  EXPECT_EQ(jobs[1].task.cpu_milli, 3000);
  EXPECT_EQ(jobs[2].task_count, 20u);
  EXPECT_EQ(jobs[2].task.devices, 8u);
  EXPECT_EQ(jobs[2].task.cpu_milli, 40'000);
  // 3 GPUs on 2 nodes does not divide: one task of 3 devices and all 5 CPUs.
  EXPECT_EQ(jobs[3].task_count, 1u);
  EXPECT_EQ(jobs[3].task.devices, 3u);
  EXPECT_EQ(jobs[3].task.cpu_milli, 5000);
}

TEST(HeliosTraceTest, CpuSharesRoundUp) {
  const std::string text =
      "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\n"
      "0,1,16,5,2,0,10,0,Pass\n";
  auto loaded = ParseHeliosTrace(text, "h.csv", WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->workload.jobs[0].task.cpu_milli, 2500);
  const std::string odd =
      "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\n"
      "0,1,0,1,3,0,10,0,Pass\n";
  loaded = ParseHeliosTrace(odd, "h.csv", WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->workload.jobs[0].task.cpu_milli, 334);
}

TEST(HeliosTraceTest, MalformedCpuNumIsAnError) {
  const std::string text =
      "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\r\n"
      "0,1,1,many,1,0,10,0,Pass\r\n";
  auto loaded = ParseHeliosTrace(text, "h.csv", WorkloadOptions{});
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().message,
            "h.csv:2: field 'cpu_num': expected a non-negative integer, got \"many\"");
}

}  // namespace
}  // namespace headroom::sim
