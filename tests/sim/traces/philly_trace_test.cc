// Tests for the Philly slice loader (gen_parallel_trace.h): the published file loads with the
// README's counts, and gang splitting, CRLF handling and error messages hold on small inputs.
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

constexpr std::string_view kHeader =
    "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\r\n";

std::string ParseError(std::string_view text) {
  auto loaded = ParsePhillyTrace(text, "p.csv", WorkloadOptions{});
  EXPECT_FALSE(loaded.has_value());
  return loaded.has_value() ? "" : loaded.error().message;
}

TEST(PhillyTraceTest, LoadsPublishedSliceWithReadmeCounts) {
  const std::string path = TracePath("microsoft-philly/philly_data_training.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto loaded = LoadWorkload("philly:" + path, WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  EXPECT_EQ(loaded->workload.format, "philly");
  ASSERT_EQ(jobs.size(), 15'000u);
  EXPECT_TRUE(loaded->skipped.empty());

  std::map<uint64_t, size_t> gpu_mix;
  std::map<model::TraceOutcome, size_t> outcomes;
  std::set<std::string> tenants;
  for (const model::Job& job : jobs) {
    ++gpu_mix[job.total_devices()];
    ++outcomes[job.trace_outcome];
    tenants.insert(job.tenant);
    EXPECT_EQ(job.task.cpu_milli, 0);
    EXPECT_EQ(job.runtime_estimate_us, job.runtime_us);
    EXPECT_GT(job.runtime_us, 0);
    EXPECT_LE(job.task.devices, 8u);
  }
  // README: GPU mix 1:11963, 8:1477, 4:905, 2:375, 16:243, 32:33, 48:3, 28:1.
  EXPECT_EQ(gpu_mix,
            (std::map<uint64_t, size_t>{
                {1, 11963}, {2, 375}, {4, 905}, {8, 1477}, {16, 243}, {28, 1}, {32, 33}, {48, 3}}));
  // README: new_status Pass 8538 / Failed 4509 / Killed 1953; 136 users.
  EXPECT_EQ(outcomes[model::TraceOutcome::kCompleted], 8538u);
  EXPECT_EQ(outcomes[model::TraceOutcome::kFailed], 4509u);
  EXPECT_EQ(outcomes[model::TraceOutcome::kKilled], 1953u);
  EXPECT_EQ(tenants.size(), 136u);
  EXPECT_TRUE(tenants.contains("user-1"));
  // Sum of intervals: 4,977,039 s, about 57.6 days.
  EXPECT_EQ(jobs.front().submit_time_us, 0);
  EXPECT_EQ(jobs.back().submit_time_us, TimeUs{4'977'039} * kUsPerSecond);
  EXPECT_NEAR(UsToSeconds(jobs.back().submit_time_us) / 86400, 57.6, 0.01);
  EXPECT_EQ(jobs.front().name, "philly-0");
  EXPECT_EQ(jobs.back().name, "philly-14999");
}

TEST(PhillyTraceTest, GangsFollowNodeNumWhenItDividesAndFits) {
  const std::string path = TracePath("microsoft-philly/philly_data_training.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto loaded = LoadWorkload("philly:" + path, WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  std::map<std::pair<uint32_t, uint32_t>, size_t> shapes;
  for (const model::Job& job : loaded->workload.jobs) ++shapes[{job.task_count, job.task.devices}];
  // (gpu_num, node_num) pairs from the file: (28, 7) -> 7 x 4, (8, 8) -> 8 x 1,
  // (32, 16) -> 16 x 2, (48, 6) -> 6 x 8.
  EXPECT_EQ(shapes[(std::pair<uint32_t, uint32_t>{7, 4})], 1u);
  EXPECT_EQ(shapes[(std::pair<uint32_t, uint32_t>{8, 1})], 9u);
  EXPECT_EQ(shapes[(std::pair<uint32_t, uint32_t>{16, 2})], 1u);
  EXPECT_EQ(shapes[(std::pair<uint32_t, uint32_t>{6, 8})], 3u);
  EXPECT_EQ(shapes[(std::pair<uint32_t, uint32_t>{1, 8})], 1363u);
}

TEST(PhillyTraceTest, MapsRowsAndAccumulatesIntervals) {
  const std::string text = std::string(kHeader) +
                           "0,1,1,0,1,0,100,0,Killed\r\n"
                           "1,2,8,0,4,50,200,0,Failed\r\n"
                           "2,3,16,0,0,25,300,0,Pass\r\n"
                           "3,3,0,0,0,5,10,0,Pass\r\n";
  auto loaded = ParsePhillyTrace(text, "p.csv", WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].submit_time_us, 0);
  EXPECT_EQ(jobs[1].submit_time_us, 50 * kUsPerSecond);
  EXPECT_EQ(jobs[2].submit_time_us, 75 * kUsPerSecond);
  EXPECT_EQ(jobs[3].submit_time_us, 80 * kUsPerSecond);
  EXPECT_EQ(jobs[0].trace_outcome, model::TraceOutcome::kKilled);
  EXPECT_EQ(jobs[1].trace_outcome, model::TraceOutcome::kFailed);
  EXPECT_EQ(jobs[2].trace_outcome, model::TraceOutcome::kCompleted);
  EXPECT_EQ(jobs[1].tenant, "user-2");
  EXPECT_EQ(jobs[1].runtime_us, 200 * kUsPerSecond);
  EXPECT_EQ(jobs[1].runtime_estimate_us, 200 * kUsPerSecond);
  // 8 GPUs on 4 nodes: 4 tasks of 2.
  EXPECT_EQ(jobs[1].task_count, 4u);
  EXPECT_EQ(jobs[1].task.devices, 2u);
  // node_num 0: ceil(16 / 8) = 2 tasks of 8.
  EXPECT_EQ(jobs[2].task_count, 2u);
  EXPECT_EQ(jobs[2].task.devices, 8u);
  // gpu_num 0: one CPU-only task.
  EXPECT_EQ(jobs[3].task_count, 1u);
  EXPECT_EQ(jobs[3].task.devices, 0u);
  EXPECT_EQ(jobs[3].total_milli(), 0u);
}

TEST(PhillyTraceTest, SplitsForSmallerNodes) {
  const std::string text = std::string(kHeader) +
                           "0,1,8,0,1,0,100,0,Pass\r\n"
                           "1,1,16,0,2,0,100,0,Pass\r\n"
                           "2,1,6,0,4,0,100,0,Pass\r\n";
  auto loaded = ParsePhillyTrace(text, "p.csv", WorkloadOptions{.max_devices_per_node = 4});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].task_count, 2u);  // 8 on 1 node does not fit a 4-device node: 2 x 4.
  EXPECT_EQ(jobs[0].task.devices, 4u);
  EXPECT_EQ(jobs[1].task_count, 4u);  // 16 on 2 nodes = 8 per node > 4: 4 x 4.
  EXPECT_EQ(jobs[1].task.devices, 4u);
  EXPECT_EQ(jobs[2].task_count, 2u);  // 6 on 4 nodes does not divide: ceil(6 / 4) = 2 x 3.
  EXPECT_EQ(jobs[2].task.devices, 3u);
}

TEST(PhillyTraceTest, SkipsNonPositiveRuntimesButKeepsTheirIntervals) {
  const std::string text = std::string(kHeader) +
                           "0,1,1,0,1,10,0,0,Pass\r\n"
                           "1,1,1,0,1,20,-3,0,Pass\r\n"
                           "2,1,1,0,1,30,5,0,Pass\r\n"
                           "3,1,1,0,1,40,0,0,Pass";
  auto loaded = ParsePhillyTrace(text, "p.csv", WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  ASSERT_EQ(loaded->workload.jobs.size(), 1u);
  EXPECT_EQ(loaded->workload.jobs[0].submit_time_us, 60 * kUsPerSecond);
  using Skips = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(loaded->skipped, (Skips{{"zero runtime", 2}, {"negative runtime", 1}}));
}

TEST(PhillyTraceTest, CrlfLfAndNoTrailingNewlineReadTheSame) {
  const std::string crlf =
      std::string(kHeader) + "0,1,2,0,1,0,100,0,Pass\r\n1,4,1,0,1,9,7,0,Failed\r\n";
  std::string lf = crlf;
  std::erase(lf, '\r');
  std::string bare = lf;
  bare.pop_back();
  for (const std::string& text : {crlf, lf, bare}) {
    auto loaded = ParsePhillyTrace(text, "p.csv", WorkloadOptions{});
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    ASSERT_EQ(loaded->workload.jobs.size(), 2u);
    EXPECT_EQ(loaded->workload.jobs[1].trace_outcome, model::TraceOutcome::kFailed);
    EXPECT_EQ(loaded->workload.jobs[1].submit_time_us, 9 * kUsPerSecond);
  }
}

TEST(PhillyTraceTest, MalformedCellsNameFileLineAndField) {
  EXPECT_EQ(ParseError(std::string(kHeader) + "0,1,1,0,1,0,100,0,Pass\r\n1,1,x,0,1,0,1,0,Pass\r\n"),
            "p.csv:3: field 'gpu_num': expected a non-negative integer, got \"x\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "0,1,1,0,1,-4,100,0,Pass\r\n"),
            "p.csv:2: field 'interval': expected a non-negative integer, got \"-4\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "0,1,1,0,1,0,1.5,0,Pass\r\n"),
            "p.csv:2: field 'run_time': expected an integer, got \"1.5\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "0,1,1,0,1,0,5,0,Done\r\n"),
            "p.csv:2: field 'new_status': expected one of Pass, Failed, Killed, got \"Done\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "0,1,1,0,1,0,5,0\r\n"),
            "p.csv:2: expected 9 fields as in the header, got 8");
  EXPECT_EQ(ParseError("u_id,user\r\n"),
            "p.csv:1: expected a column 'gpu_num', got columns: u_id, user");
  EXPECT_EQ(ParseError(""), "p.csv: expected a header line, got an empty file");
}

TEST(PhillyTraceTest, IntervalSumsBeyondTheTimeLimitAreErrors) {
  std::string text(kHeader);
  for (int i = 0; i < 3; ++i) text += fmt::format("{},1,1,0,1,9000000000,5,0,Pass\r\n", i);
  EXPECT_EQ(ParseError(text),
            "p.csv:3: field 'interval': expected intervals summing to at most 10000000000 s, got a "
            "sum of 18000000000 s");
}

}  // namespace
}  // namespace headroom::sim
