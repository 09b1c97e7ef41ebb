// Tests for the ITP (ElasticFlow) loader: all eight published clusters load with the README's
// counts, arrivals start at 0, large jobs become gangs, and the file quirks are handled.
#include "sim/traces/itp_trace.h"

#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/traces/workload_loader.h"
#include "testing/traces.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::TracePath;

struct ItpCluster {
  const char* number;
  size_t jobs;
  int64_t span_s;    // Last submission minus first.
  uint64_t devices;  // Sum of num_gpu.
  std::map<uint64_t, size_t> gpu_mix;
};

class ItpTraceClusterTest : public ::testing::TestWithParam<ItpCluster> {};

TEST_P(ItpTraceClusterTest, LoadsWithPublishedCounts) {
  const ItpCluster& cluster = GetParam();
  const std::string path =
      TracePath(fmt::format("microsoft-itp-elasticflow/cluster{}.csv", cluster.number));
  HEADROOM_SKIP_IF_MISSING(path);
  auto loaded = LoadWorkload("itp:" + path, WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  EXPECT_EQ(loaded->workload.format, "itp");
  ASSERT_EQ(jobs.size(), cluster.jobs);
  EXPECT_TRUE(loaded->skipped.empty());
  EXPECT_EQ(jobs.front().submit_time_us, 0);  // Shifted: the raw times do not start at 0.
  EXPECT_EQ(jobs.back().submit_time_us, cluster.span_s * kUsPerSecond);
  std::map<uint64_t, size_t> mix;
  uint64_t devices = 0;
  for (const model::Job& job : jobs) {
    ++mix[job.total_devices()];
    devices += job.total_devices();
    EXPECT_LE(job.task.devices, 8u);
    EXPECT_GE(job.runtime_us, 600 * kUsPerSecond);  // README: no job shorter than 10 min.
    EXPECT_EQ(job.runtime_estimate_us, job.runtime_us);
    EXPECT_EQ(job.trace_outcome, model::TraceOutcome::kUnknown);
  }
  EXPECT_EQ(mix, cluster.gpu_mix);
  EXPECT_EQ(devices, cluster.devices);
}

INSTANTIATE_TEST_SUITE_P(
    AllClusters, ItpTraceClusterTest,
    ::testing::Values(
        ItpCluster{"01",
                   1595,
                   2916375,
                   3728,
                   {{1, 1530}, {2, 11}, {4, 6}, {8, 5}, {16, 6}, {32, 11}, {64, 26}}},
        ItpCluster{"02",
                   5778,
                   5161376,
                   11785,
                   {{1, 4937}, {2, 102}, {4, 301}, {8, 352}, {16, 36}, {32, 36}, {64, 14}}},
        ItpCluster{"04",
                   15802,
                   5136817,
                   47958,
                   {{1, 11924}, {2, 125}, {4, 532}, {8, 2779}, {16, 182}, {32, 254}, {64, 6}}},
        ItpCluster{"05", 3629, 5120458, 4329, {{1, 3465}, {2, 50}, {4, 37}, {8, 77}}},
        ItpCluster{"06",
                   2396,
                   5151898,
                   12429,
                   {{1, 1073}, {2, 6}, {4, 148}, {8, 1082}, {16, 59}, {32, 20}, {64, 8}}},
        ItpCluster{"08", 13047, 3663365, 14336, {{1, 12558}, {2, 217}, {4, 262}, {8, 1}, {32, 9}}},
        ItpCluster{"09", 11134, 4531199, 11134, {{1, 11134}}},
        ItpCluster{"10", 260, 2837918, 383, {{1, 193}, {2, 51}, {4, 14}, {16, 2}}}),
    [](const ::testing::TestParamInfo<ItpCluster>& param_info) {
      return std::string("cluster") + param_info.param.number;
    });

TEST(ItpTraceTest, AllEightClustersHoldTheReadmeTotal) {
  size_t total = 0;
  for (const char* number : {"01", "02", "04", "05", "06", "08", "09", "10"}) {
    const std::string path =
        TracePath(fmt::format("microsoft-itp-elasticflow/cluster{}.csv", number));
    HEADROOM_SKIP_IF_MISSING(path);
    auto loaded = LoadWorkload("itp:" + path, WorkloadOptions{});
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    total += loaded->workload.jobs.size();
  }
  EXPECT_EQ(total, 53'641u);
}

TEST(ItpTraceTest, ShiftsToZeroSplitsLargeJobsAndNeedsNoTrailingNewline) {
  const std::string text =
      "job_id,submission_time,duration,num_gpu\n"
      "a,1932025,2429,64\n"
      "b,1932030,1532,1\n"
      "c,1932030,100,16";
  auto loaded = ParseItpTrace(text, "c.csv", WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].name, "a");
  EXPECT_EQ(jobs[0].submit_time_us, 0);
  EXPECT_EQ(jobs[0].task_count, 8u);
  EXPECT_EQ(jobs[0].task.devices, 8u);
  EXPECT_EQ(jobs[0].runtime_us, 2429 * kUsPerSecond);
  EXPECT_EQ(jobs[1].submit_time_us, 5 * kUsPerSecond);
  EXPECT_EQ(jobs[1].task_count, 1u);
  EXPECT_EQ(jobs[1].task.devices, 1u);
  EXPECT_EQ(jobs[2].name, "c");  // The last line, without a newline, is read whole.
  EXPECT_EQ(jobs[2].task_count, 2u);
  EXPECT_EQ(jobs[2].task.devices, 8u);
  EXPECT_EQ(jobs[2].tenant, "default");

  // With 4-device nodes a 64-GPU job is 16 tasks of 4.
  loaded = ParseItpTrace(text, "c.csv", WorkloadOptions{.max_devices_per_node = 4});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->workload.jobs[0].task_count, 16u);
  EXPECT_EQ(loaded->workload.jobs[0].task.devices, 4u);
}

TEST(ItpTraceTest, ShiftsFromTheEarliestLoadedJob) {
  const std::string text =
      "job_id,submission_time,duration,num_gpu\n"
      "early-but-empty,100,0,1\n"
      "late,500,10,1\n"
      "early,300,10,2\n";
  auto loaded = ParseItpTrace(text, "c.csv", WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "early");
  EXPECT_EQ(jobs[0].submit_time_us, 0);
  EXPECT_EQ(jobs[1].submit_time_us, 200 * kUsPerSecond);
  using Skips = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(loaded->skipped, (Skips{{"zero runtime", 1}}));
}

TEST(ItpTraceTest, MalformedCellsNameFileLineAndField) {
  auto loaded =
      ParseItpTrace("job_id,submission_time,duration,num_gpu\na,1,2,x", "c.csv", WorkloadOptions{});
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().message,
            "c.csv:2: field 'num_gpu': expected a non-negative integer, got \"x\"");
  loaded = ParseItpTrace("job_id,submission_time,duration,num_gpu\na,,2,1\n", "c.csv",
                         WorkloadOptions{});
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().message,
            "c.csv:2: field 'submission_time': expected a non-negative integer, got \"\"");
}

}  // namespace
}  // namespace headroom::sim
