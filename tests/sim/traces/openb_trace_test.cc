// Tests for the openb pod-list loader: every published file loads with the README's counts,
// and the mapping, quirks and error messages hold on small hand-written inputs.
#include "sim/traces/openb_trace.h"

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/traces/workload_loader.h"
#include "testing/traces.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::TracePath;

LoadedWorkload ParseOk(std::string_view text) {
  auto loaded = ParseOpenbTrace(text, "t.csv", WorkloadOptions{});
  EXPECT_TRUE(loaded.has_value()) << loaded.error().message;
  return loaded.has_value() ? *loaded : LoadedWorkload{};
}

std::string ParseError(std::string_view text) {
  auto loaded = ParseOpenbTrace(text, "t.csv", WorkloadOptions{});
  EXPECT_FALSE(loaded.has_value());
  return loaded.has_value() ? "" : loaded.error().message;
}

constexpr std::string_view kHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

struct OpenbFile {
  const char* variant;
  size_t rows;                         // Data rows in the file (README).
  size_t jobs;                         // Loaded jobs: rows minus zero-runtime pods.
  uint64_t skipped;                    // Pods with deletion_time == creation_time.
  size_t shares;                       // One-GPU pods with gpu_milli < 1000.
  size_t constrained;                  // Pods with a gpu_spec.
  uint64_t total_milli;                // Sum of device demand.
  std::map<uint32_t, size_t> gpu_mix;  // num_gpu -> pods.
};

class OpenbTraceFileTest : public ::testing::TestWithParam<OpenbFile> {};

TEST_P(OpenbTraceFileTest, LoadsWithPublishedCounts) {
  const OpenbFile& file = GetParam();
  const std::string path =
      TracePath(fmt::format("alibaba-gpu-v2023-openb/openb_pod_list_{}.csv", file.variant));
  HEADROOM_SKIP_IF_MISSING(path);
  auto loaded = LoadWorkload("openb:" + path, WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  EXPECT_EQ(loaded->workload.format, "openb");
  EXPECT_EQ(jobs.size(), file.jobs);
  EXPECT_EQ(jobs.size() + (file.skipped), file.rows);
  if (file.skipped == 0) {
    EXPECT_TRUE(loaded->skipped.empty());
  } else {
    ASSERT_EQ(loaded->skipped.size(), 1u);
    EXPECT_EQ(loaded->skipped[0].first, "zero runtime");
    EXPECT_EQ(loaded->skipped[0].second, file.skipped);
  }
  std::map<uint32_t, size_t> mix;
  size_t shares = 0, constrained = 0;
  uint64_t total_milli = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const model::Job& job = jobs[i];
    ++mix[job.task.devices];
    shares += job.task.fractional() ? 1 : 0;
    constrained += job.task.selector.MatchesAll() ? 0 : 1;
    total_milli += job.total_milli();
    EXPECT_EQ(job.task_count, 1u);
    EXPECT_GT(job.runtime_us, 0);
    EXPECT_EQ(job.runtime_estimate_us, job.runtime_us);
    if (i > 0) {
      EXPECT_LE(jobs[i - 1].submit_time_us, job.submit_time_us);
    }
  }
  EXPECT_EQ(mix, file.gpu_mix);
  EXPECT_EQ(shares, file.shares);
  EXPECT_EQ(constrained, file.constrained);
  EXPECT_EQ(total_milli, file.total_milli);
}

// Counts computed from the files with Python's csv module; they match the README where it
// gives them (default: num_gpu {1: 6989, 0: 1088, 8: 44, 2: 16, 4: 15}, less one skipped pod).
// clang-format off
const std::vector<OpenbFile> kOpenbFiles = {
  // variant     rows  jobs  skip shares constr milli    num_gpu -> pods
  {"default",    8152, 8151, 1, 3077, 0,    6086570, {{0,1088},{1,6988},{2,16},{4,15},{8,44}}},
  {"cpu0",       7064, 7063, 1, 3077, 0,    6086570, {{1,6988},{2,16},{4,15},{8,44}}},
  {"cpu037",     7336, 7335, 1, 3077, 0,    6086570, {{0,272},{1,6988},{2,16},{4,15},{8,44}}},
  {"cpu050",     7439, 7438, 1, 3077, 0,    6086570, {{0,375},{1,6988},{2,16},{4,15},{8,44}}},
  {"cpu072",     7608, 7607, 1, 3077, 0,    6086570, {{0,544},{1,6988},{2,16},{4,15},{8,44}}},
  {"cpu100",     7853, 7852, 1, 3077, 0,    6086570, {{0,789},{1,6988},{2,16},{4,15},{8,44}}},
  {"cpu200",     8832, 8831, 1, 3077, 0,    6086570, {{0,1768},{1,6988},{2,16},{4,15},{8,44}}},
  {"cpu235",     9240, 9239, 1, 3077, 0,    6086570, {{0,2176},{1,6988},{2,16},{4,15},{8,44}}},
  {"cpu250",     9420, 9419, 1, 3077, 0,    6086570, {{0,2356},{1,6988},{2,16},{4,15},{8,44}}},
  {"cpu300",    10094,10093, 1, 3077, 0,    6086570, {{0,3030},{1,6988},{2,16},{4,15},{8,44}}},
  {"gpushare20", 8152, 8151, 1, 2323, 0,    6531270, {{0,1088},{1,6976},{2,12},{4,13},{8,62}}},
  {"gpushare40", 8152, 8150, 2, 3999, 0,    5640790, {{0,1088},{1,7000},{2,12},{4,11},{8,39}}},
  {"gpushare60", 8152, 8152, 0, 5233, 0,    4908340, {{0,1088},{1,7034},{2,7},{4,9},{8,14}}},
  {"gpushare80", 8152, 8151, 1, 6278, 0,    4407960, {{0,1088},{1,7046},{2,2},{4,3},{8,12}}},
  {"gpushare100", 8152, 8149, 3, 7061, 0,    3951980, {{0,1088},{1,7061}}},
  {"gpuspec05",  8152, 8151, 1, 3077, 369,  6086570, {{0,1088},{1,6988},{2,16},{4,15},{8,44}}},
  {"gpuspec10",  8152, 8151, 1, 3077, 732,  6086570, {{0,1088},{1,6988},{2,16},{4,15},{8,44}}},
  {"gpuspec20",  8152, 8151, 1, 3077, 1444, 6086570, {{0,1088},{1,6988},{2,16},{4,15},{8,44}}},
  {"gpuspec25",  8152, 8151, 1, 3077, 1758, 6086570, {{0,1088},{1,6988},{2,16},{4,15},{8,44}}},
  {"gpuspec33",  8152, 8151, 1, 3077, 2388, 6086570, {{0,1088},{1,6988},{2,16},{4,15},{8,44}}},
  {"multigpu20", 8324, 8324, 0, 3078, 0,    7086800, {{0,1088},{1,6989},{2,54},{4,52},{8,141}}},
  {"multigpu30", 8508, 8508, 0, 3078, 0,    8086800, {{0,1088},{1,6989},{2,112},{4,83},{8,236}}},
  {"multigpu40", 8746, 8746, 0, 3078, 0,    9442800, {{0,1088},{1,6989},{2,156},{4,154},{8,359}}},
  {"multigpu50", 9061, 9061, 0, 3078, 0,    11358800, {{0,1088},{1,6989},{2,222},{4,206},{8,556}}},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(AllPodLists, OpenbTraceFileTest, ::testing::ValuesIn(kOpenbFiles),
                         [](const ::testing::TestParamInfo<OpenbFile>& param_info) {
                           return std::string(param_info.param.variant);
                         });

TEST(OpenbTraceTest, DefaultFileTimesAndPhases) {
  const std::string path = TracePath("alibaba-gpu-v2023-openb/openb_pod_list_default.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto loaded = LoadWorkload("openb:" + path, WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  // README: creation_time 0..12,901,761 s; deletion_time up to 12,902,960 s.
  EXPECT_EQ(jobs.front().submit_time_us, 0);
  EXPECT_EQ(jobs.front().name, "openb-pod-0000");
  EXPECT_EQ(jobs.back().submit_time_us, TimeUs{12'901'761} * kUsPerSecond);
  TimeUs last_end = 0;
  std::map<int32_t, size_t> priorities;
  std::map<model::TraceOutcome, size_t> outcomes;
  for (const model::Job& job : jobs) {
    last_end = std::max(last_end, job.submit_time_us + job.runtime_us);
    ++priorities[job.priority];
    ++outcomes[job.trace_outcome];
  }
  EXPECT_EQ(last_end, TimeUs{12'902'960} * kUsPerSecond);
  // README qos {LS 4647, BE 3398, Burstable 100, Guaranteed 7}; the skipped pod was BE.
  EXPECT_EQ(priorities, (std::map<int32_t, size_t>{{0, 3397}, {1, 100}, {2, 4647}, {3, 7}}));
  // README phases {Running 5193, Failed 1870, Pending 897, Succeeded 192}; skipped: Pending.
  EXPECT_EQ(outcomes[model::TraceOutcome::kCompleted], 192u);
  EXPECT_EQ(outcomes[model::TraceOutcome::kFailed], 1870u);
  EXPECT_EQ(outcomes[model::TraceOutcome::kUnknown], 5193u + 896u);
}

TEST(OpenbTraceTest, GpuSpecBecomesModelSelector) {
  const std::string path = TracePath("alibaba-gpu-v2023-openb/openb_pod_list_gpuspec33.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto loaded = LoadWorkload("openb:" + path, WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  std::map<std::string, size_t> selectors;
  std::map<std::string, const model::Selector*> by_text;
  for (const model::Job& job : loaded->workload.jobs) {
    ++selectors[job.task.selector.text()];
    by_text[job.task.selector.text()] = &job.task.selector;
  }
  // "V100M16|V100M32|V100M32" (22 pods) and "V100M16|V100M32" (141) accept the same devices but
  // stay apart as written: FGD's typical shapes tell them apart (docs/fill.md, "Fidelity").
  const std::string two = "model in [\"V100M16\", \"V100M32\"]";
  const std::string repeated = "model in [\"V100M16\", \"V100M32\", \"V100M32\"]";
  EXPECT_EQ(selectors[two], 141u);
  EXPECT_EQ(selectors[repeated], 22u);
  ASSERT_TRUE(by_text[two] != nullptr && by_text[repeated] != nullptr);
  for (const char* model : {"V100M16", "V100M32", "T4", "P100"}) {
    model::Attributes attributes;
    attributes.Set("model", std::string(model));
    EXPECT_EQ(by_text[two]->Matches(attributes), by_text[repeated]->Matches(attributes)) << model;
  }
  EXPECT_EQ(selectors["model in [\"T4\"]"], 1291u);
  EXPECT_EQ(selectors[""], 8151u - 2388u);
}

TEST(OpenbTraceTest, MultigpuVariantsArriveAtZeroInFileOrderAndNeverLeave) {
  const std::string path = TracePath("alibaba-gpu-v2023-openb/openb_pod_list_multigpu50.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto loaded = LoadWorkload("openb:" + path, WorkloadOptions{});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const auto& jobs = loaded->workload.jobs;
  ASSERT_EQ(jobs.size(), 9061u);
  EXPECT_EQ(jobs[0].name, "openb-pod-0000");
  EXPECT_EQ(jobs[1].name, "openb-pod-0001");
  for (const model::Job& job : jobs) {
    EXPECT_EQ(job.submit_time_us, 0);
    EXPECT_EQ(job.runtime_us, kOpenbUntimedRuntimeUs);
    EXPECT_EQ(job.runtime_estimate_us, kOpenbUntimedRuntimeUs);
    EXPECT_EQ(job.priority, 0);
  }
}

TEST(OpenbTraceTest, MapsOnePodToOneTask) {
  const std::string text = std::string(kHeader) +
                           "share,6000,12288,1,460,,LS,Running,30,130,30\n"
                           "whole,8000,30000,4,1000,T4|A10,Guaranteed,Succeeded,10,20,12\n"
                           "cpu,4000,8192,0,0,,BE,Failed,10,15,10\n"
                           "pending,1000,1024,1,1000,,Burstable,Pending,5,9,\n";
  const LoadedWorkload loaded = ParseOk(text);
  ASSERT_EQ(loaded.workload.jobs.size(), 4u);
  EXPECT_EQ(loaded.workload.source, "t.csv");
  // Sorted by creation_time: pending(5), whole(10), cpu(10, file order), share(30).
  const auto& jobs = loaded.workload.jobs;
  EXPECT_EQ(jobs[0].name, "pending");
  EXPECT_EQ(jobs[1].name, "whole");
  EXPECT_EQ(jobs[2].name, "cpu");
  EXPECT_EQ(jobs[3].name, "share");

  const model::Job& share = jobs[3];
  EXPECT_EQ(share.task.devices, 1u);
  EXPECT_EQ(share.task.milli_per_device, 460u);
  EXPECT_TRUE(share.task.fractional());
  EXPECT_EQ(share.task.cpu_milli, 6000);
  EXPECT_EQ(share.task.memory_mib, 12288);
  EXPECT_EQ(share.submit_time_us, 30 * kUsPerSecond);
  EXPECT_EQ(share.runtime_us, 100 * kUsPerSecond);
  EXPECT_EQ(share.runtime_estimate_us, 100 * kUsPerSecond);
  EXPECT_EQ(share.priority, 2);
  EXPECT_EQ(share.tenant, "default");

  const model::Job& whole = jobs[1];
  EXPECT_EQ(whole.task_count, 1u);
  EXPECT_EQ(whole.task.devices, 4u);
  EXPECT_EQ(whole.task.milli_per_device, model::kMilliPerDevice);
  EXPECT_EQ(whole.total_milli(), 4000u);
  EXPECT_EQ(whole.task.selector.text(), "model in [\"T4\", \"A10\"]");
  EXPECT_EQ(whole.priority, 3);
  EXPECT_EQ(whole.trace_outcome, model::TraceOutcome::kCompleted);

  const model::Job& cpu = jobs[2];
  EXPECT_EQ(cpu.task.devices, 0u);
  EXPECT_EQ(cpu.total_milli(), 0u);
  EXPECT_EQ(cpu.trace_outcome, model::TraceOutcome::kFailed);
  EXPECT_EQ(cpu.priority, 0);

  EXPECT_EQ(jobs[0].priority, 1);
  EXPECT_EQ(jobs[0].trace_outcome, model::TraceOutcome::kUnknown);
}

TEST(OpenbTraceTest, SkipsZeroAndNegativeRuntimesAndCountsThem) {
  const std::string text = std::string(kHeader) +
                           "a,1,1,1,1000,,LS,Running,10,10,10\n"
                           "b,1,1,1,1000,,LS,Running,10,9,10\n"
                           "c,1,1,1,1000,,LS,Running,10,11,10\n"
                           "d,1,1,1,1000,,LS,Running,7,7,7\n";
  const LoadedWorkload loaded = ParseOk(text);
  ASSERT_EQ(loaded.workload.jobs.size(), 1u);
  EXPECT_EQ(loaded.workload.jobs[0].name, "c");
  using Skips = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(loaded.skipped, (Skips{{"zero runtime", 2}, {"negative runtime", 1}}));
}

TEST(OpenbTraceTest, AcceptsCrlfAndMissingTrailingNewline) {
  const LoadedWorkload loaded =
      ParseOk("name,cpu_milli,memory_mib,num_gpu,gpu_milli\r\na,1000,10,2,1000\r\nb,1000,10,1,250");
  ASSERT_EQ(loaded.workload.jobs.size(), 2u);
  EXPECT_EQ(loaded.workload.jobs[1].task.milli_per_device, 250u);
}

TEST(OpenbTraceTest, MalformedCellsNameFileLineAndField) {
  EXPECT_EQ(ParseError(std::string(kHeader) + "a,1,1,1,1000,,LS,Running,1,2,1\n"
                                              "b,1,1,x,1000,,LS,Running,1,2,1\n"),
            "t.csv:3: field 'num_gpu': expected a non-negative integer, got \"x\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "a,-5,1,1,1000,,LS,Running,1,2,1\n"),
            "t.csv:2: field 'cpu_milli': expected a non-negative integer, got \"-5\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "a,1,1,1,0,,LS,Running,1,2,1\n"),
            "t.csv:2: field 'gpu_milli': expected an integer from 1 to 1000 for a one-GPU pod, "
            "got \"0\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "a,1,1,1,1000,,XX,Running,1,2,1\n"),
            "t.csv:2: field 'qos': expected one of LS, BE, Burstable, Guaranteed, got \"XX\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "a,1,1,1,1000,A||B,LS,Running,1,2,1\n"),
            "t.csv:2: field 'gpu_spec': expected GPU model names separated by '|', got \"A||B\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "a,1,1,1,1000,,LS,Running,1,2,z\n"),
            "t.csv:2: field 'scheduled_time': expected a non-negative integer, got \"z\"");
  EXPECT_EQ(ParseError("name,cpu_milli,memory_mib,num_gpu\na,1,1,1\n"),
            "t.csv:1: expected a column 'gpu_milli', got columns: name, cpu_milli, memory_mib, "
            "num_gpu");
  EXPECT_EQ(ParseError("name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,99999999,1000\n"),
            "t.csv:2: field 'num_gpu': expected a non-negative integer at most 1000000, got "
            "\"99999999\"");
}

TEST(OpenbTraceTest, QuotesInModelNamesAreEscaped) {
  const LoadedWorkload loaded =
      ParseOk(std::string(kHeader) + "a,1,1,1,1000,\"x\"\"y|z\\\\w\",LS,Running,1,2,1\n");
  ASSERT_EQ(loaded.workload.jobs.size(), 1u);
  EXPECT_EQ(loaded.workload.jobs[0].task.selector.text(), "model in [\"x\\\"y\", \"z\\\\\\\\w\"]");
}

}  // namespace
}  // namespace headroom::sim
