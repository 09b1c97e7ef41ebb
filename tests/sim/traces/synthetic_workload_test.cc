// Tests for synthetic workloads: presets, determinism per seed, the shape of the default mix,
// and every spec field's effect.
#include "sim/traces/synthetic_workload.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "sim/traces/load_scaling.h"
#include "sim/traces/synthetic_spec.h"

namespace headroom::sim {
namespace {

SyntheticSpec Spec(std::string_view yaml) {
  auto spec = ParseSyntheticSpec(yaml, "s.yaml");
  EXPECT_TRUE(spec.has_value()) << spec.error().message;
  return spec.value_or(SyntheticSpec{});
}

bool SameJob(const model::Job& a, const model::Job& b) {
  return a.name == b.name && a.tenant == b.tenant && a.priority == b.priority &&
         a.submit_time_us == b.submit_time_us && a.runtime_us == b.runtime_us &&
         a.runtime_estimate_us == b.runtime_estimate_us && a.task_count == b.task_count &&
         a.task.devices == b.task.devices && a.task.milli_per_device == b.task.milli_per_device &&
         a.task.cpu_milli == b.task.cpu_milli && a.task.memory_mib == b.task.memory_mib &&
         a.task.selector.text() == b.task.selector.text();
}

TEST(SyntheticWorkloadTest, PresetsHaveTheirSizes) {
  for (const auto& [name, jobs] : {std::pair{"small", 2'000u}, std::pair{"default", 20'000u}}) {
    auto loaded = LoadWorkload(std::string("synthetic:") + name, WorkloadOptions{});
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    EXPECT_EQ(loaded->workload.jobs.size(), jobs) << name;
    EXPECT_EQ(loaded->workload.format, "synthetic");
    EXPECT_EQ(loaded->workload.source, name);
    EXPECT_TRUE(loaded->skipped.empty());
  }
  // The million preset differs only in its count; generating it here would make this suite
  // slow under the sanitizers for no extra coverage (its speed is a benchmark's business).
  ASSERT_TRUE(SyntheticPreset("million").has_value());
  EXPECT_EQ(SyntheticPreset("million")->jobs, 1'000'000u);
  EXPECT_EQ(SyntheticPreset("million")->size_mix, SyntheticPreset("default")->size_mix);
  EXPECT_FALSE(SyntheticPreset("huge").has_value());
  EXPECT_EQ(SyntheticPreset("huge").error().code, ErrorCode::kNotFound);
}

TEST(SyntheticWorkloadTest, SameSeedSameJobsDifferentSeedDifferentJobs) {
  const SyntheticSpec spec = *SyntheticPreset("small");
  const model::Workload a = GenerateSyntheticWorkload(spec, WorkloadOptions{.seed = 7}, "a");
  const model::Workload b = GenerateSyntheticWorkload(spec, WorkloadOptions{.seed = 7}, "b");
  const model::Workload c = GenerateSyntheticWorkload(spec, WorkloadOptions{.seed = 8}, "c");
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  ASSERT_EQ(a.jobs.size(), c.jobs.size());
  size_t different = 0;
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_TRUE(SameJob(a.jobs[i], b.jobs[i])) << i;
    different += SameJob(a.jobs[i], c.jobs[i]) ? 0 : 1;
  }
  EXPECT_GT(different, a.jobs.size() * 9 / 10);
}

TEST(SyntheticWorkloadTest, FirstJobsOfSeedOneArePinned) {
  // Pins the generator's draw order: a change here changes every synthetic experiment.
  const model::Workload w =
      GenerateSyntheticWorkload(*SyntheticPreset("small"), WorkloadOptions{.seed = 1}, "small");
  ASSERT_GE(w.jobs.size(), 2u);
  EXPECT_EQ(w.jobs[0].name, "syn-0");
  EXPECT_EQ(w.jobs[1].name, "syn-1");
  EXPECT_EQ(fmt::format("{} {} {} {} {} {}", w.jobs[0].submit_time_us, w.jobs[0].runtime_us,
                        w.jobs[0].total_devices(), w.jobs[0].tenant, w.jobs[0].priority,
                        w.jobs[0].runtime_estimate_us),
            "54619199 237044210 1 team-a 0 567568424");
}

TEST(SyntheticWorkloadTest, DefaultMixLooksLikeThePublicTraces) {
  const model::Workload w =
      GenerateSyntheticWorkload(*SyntheticPreset("default"), WorkloadOptions{}, "default");
  std::map<uint64_t, size_t> sizes;
  std::map<int32_t, size_t> priorities;
  std::set<std::string> tenants;
  std::vector<TimeUs> runtimes;
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const model::Job& job = w.jobs[i];
    ++sizes[job.total_devices()];
    ++priorities[job.priority];
    tenants.insert(job.tenant);
    runtimes.push_back(job.runtime_us);
    if (i > 0) {
      EXPECT_LE(w.jobs[i - 1].submit_time_us, job.submit_time_us);
    }
    EXPECT_GE(job.runtime_us, kUsPerSecond);
    EXPECT_LE(job.runtime_us, TimeUs{30} * 24 * 3600 * kUsPerSecond);
    EXPECT_GE(job.runtime_estimate_us, job.runtime_us);
    EXPECT_LE(job.runtime_estimate_us, 3 * job.runtime_us + 1);
    EXPECT_LE(job.task.devices, 8u);
    EXPECT_TRUE(job.task.selector.MatchesAll());
    EXPECT_FALSE(job.task.fractional());
  }
  const double n = static_cast<double>(w.jobs.size());
  EXPECT_NEAR(sizes[1] / n, 0.75, 0.02);  // Mostly 1-device jobs.
  EXPECT_NEAR(sizes[8] / n, 0.10, 0.01);
  EXPECT_NEAR((sizes[16] + sizes[32] + sizes[64]) / n, 0.04, 0.01);  // A tail of gangs.
  EXPECT_GT(sizes[64], 0u);
  EXPECT_EQ(tenants.size(), 4u);
  EXPECT_EQ(priorities.size(), 3u);
  EXPECT_NEAR(priorities[0] / n, 0.6, 0.02);
  // Heavy tail: the median is ~30 min, the mean several times larger.
  std::sort(runtimes.begin(), runtimes.end());
  const double median_s = UsToSeconds(runtimes[runtimes.size() / 2]);
  EXPECT_NEAR(median_s, 1800, 120);
  double mean_s = 0;
  for (const TimeUs runtime : runtimes) mean_s += UsToSeconds(runtime) / n;
  EXPECT_GT(mean_s, 4 * median_s);
  // Offered to a 1,024-device cluster, the default is a busy but not hopeless load.
  const double load = OfferedLoad(w, 1024 * model::kMilliPerDevice);
  EXPECT_GT(load, 0.6);
  EXPECT_LT(load, 1.3);
}

TEST(SyntheticWorkloadTest, GangsFollowDevicesPerNode) {
  const SyntheticSpec spec = Spec("jobs: 300\nsize_mix: {32: 1}\n");
  const model::Workload on_eight = GenerateSyntheticWorkload(spec, WorkloadOptions{}, "s");
  const model::Workload on_four =
      GenerateSyntheticWorkload(spec, WorkloadOptions{.max_devices_per_node = 4}, "s");
  EXPECT_EQ(on_eight.jobs[0].task_count, 4u);
  EXPECT_EQ(on_eight.jobs[0].task.devices, 8u);
  EXPECT_EQ(on_four.jobs[0].task_count, 8u);
  EXPECT_EQ(on_four.jobs[0].task.devices, 4u);
  const model::Workload spec_wins = GenerateSyntheticWorkload(
      Spec("jobs: 3\nsize_mix: {32: 1}\ndevices_per_node: 16\n"), WorkloadOptions{}, "s");
  EXPECT_EQ(spec_wins.jobs[0].task_count, 2u);
  EXPECT_EQ(spec_wins.jobs[0].task.devices, 16u);
}

TEST(SyntheticWorkloadTest, SpecFieldsShapeTheJobs) {
  const SyntheticSpec spec = Spec(
      "jobs: 4000\n"
      "seed: 11\n"
      "mean_interarrival_s: 10\n"
      "size_mix: {0: 1, 1: 3}\n"
      "runtime_median_s: 100\n"
      "runtime_sigma: 0\n"
      "estimate_factor: 2\n"
      "tenants: 2\n"
      "priority_classes: {5: 1}\n"
      "models: {H100: 1, \"A\\\"B\": 1}\n"
      "fractional_share: 0.5\n"
      "cpu_milli_per_device: 1000\n"
      "memory_mib_per_device: 2000\n"
      "checkpoint_interval_s: 1800\n"
      "checkpoint_cost_s: 6.3\n");
  EXPECT_EQ(spec.seed, 11u);
  const model::Workload w = GenerateSyntheticWorkload(spec, WorkloadOptions{.seed = 99}, "s");
  ASSERT_EQ(w.jobs.size(), 4000u);
  size_t cpu_only = 0, shares = 0;
  std::map<std::string, size_t> selectors;
  std::set<std::string> tenants;
  for (const model::Job& job : w.jobs) {
    EXPECT_EQ(job.runtime_us, 100 * kUsPerSecond);
    EXPECT_EQ(job.runtime_estimate_us, 200 * kUsPerSecond);
    EXPECT_EQ(job.priority, 5);
    EXPECT_EQ(job.checkpoint_interval_us, 1800 * kUsPerSecond);
    EXPECT_EQ(job.checkpoint_cost_us, 6'300'000);
    tenants.insert(job.tenant);
    ++selectors[job.task.selector.text()];
    if (job.task.devices == 0) {
      ++cpu_only;
      EXPECT_EQ(job.task.cpu_milli, 1000);
      EXPECT_EQ(job.task.memory_mib, 2000);
    } else if (job.task.fractional()) {
      ++shares;
      EXPECT_EQ(job.task.milli_per_device % 100, 0u);
      EXPECT_EQ(job.task.cpu_milli, job.task.milli_per_device);
      EXPECT_EQ(job.task.memory_mib, 2 * job.task.milli_per_device);
    } else {
      EXPECT_EQ(job.task.cpu_milli, 1000);
    }
  }
  EXPECT_EQ(tenants, (std::set<std::string>{"tenant-0", "tenant-1"}));
  EXPECT_NEAR(cpu_only / 4000.0, 0.25, 0.03);
  EXPECT_NEAR(shares / 3000.0, 0.5, 0.04);
  ASSERT_EQ(selectors.size(), 2u);
  EXPECT_GT(selectors["model == \"H100\""], 1500u);
  EXPECT_GT(selectors["model == \"A\\\"B\""], 1500u);
  // Mean gap of 10 s: the last of 4,000 arrivals near 40,000 s.
  EXPECT_NEAR(UsToSeconds(w.jobs.back().submit_time_us), 40'000, 2'000);
  // The spec's seed wins over the options' seed.
  const model::Workload again = GenerateSyntheticWorkload(spec, WorkloadOptions{.seed = 1}, "s");
  EXPECT_TRUE(SameJob(w.jobs[17], again.jobs[17]));
}

TEST(SyntheticWorkloadTest, EstimateFactorRange) {
  const model::Workload w = GenerateSyntheticWorkload(
      Spec("jobs: 1000\nestimate_factor: [1.5, 2]\n"), WorkloadOptions{}, "s");
  for (const model::Job& job : w.jobs) {
    const double factor =
        static_cast<double>(job.runtime_estimate_us) / static_cast<double>(job.runtime_us);
    EXPECT_GE(factor, 1.5 - 1e-6);
    EXPECT_LE(factor, 2.0 + 1e-6);
  }
}

TEST(SyntheticWorkloadTest, LoadsASpecFile) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / fmt::format("headroom-spec-{}.yaml", ::getpid());
  {
    std::ofstream out(path);
    out << "jobs: 12\nsize_mix: {2: 1}\n";
  }
  auto loaded = LoadWorkload("synthetic:" + path.string(), WorkloadOptions{});
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->workload.jobs.size(), 12u);
  EXPECT_EQ(loaded->workload.jobs[0].total_devices(), 2u);
  EXPECT_EQ(loaded->workload.source, path.string());
}

TEST(SyntheticSpecTest, EmptyMapKeepsTheDefaultPreset) {
  const SyntheticSpec spec = Spec("{}");
  const SyntheticSpec preset = *SyntheticPreset("default");
  EXPECT_EQ(spec.jobs, preset.jobs);
  EXPECT_EQ(spec.size_mix, preset.size_mix);
  EXPECT_FALSE(spec.seed.has_value());
}

std::string SpecError(std::string_view yaml) {
  auto spec = ParseSyntheticSpec(yaml, "s.yaml");
  EXPECT_FALSE(spec.has_value());
  return spec.has_value() ? "" : spec.error().message;
}

TEST(SyntheticSpecTest, ErrorsNameFileLineAndField) {
  EXPECT_EQ(SpecError("jobs: 10\nsize_mix: {1: 1, x: 2}\n"),
            "s.yaml:2: field 'size_mix.x': expected a device count from 0 to 65536, got \"x\"");
  EXPECT_EQ(SpecError("jobs: many\n"),
            "s.yaml:1: field 'jobs': expected a job count from 1 to 10000000, got \"many\"");
  EXPECT_EQ(SpecError("jobs: 10\nmean_interarrival_s: 0\n"),
            "s.yaml:2: field 'mean_interarrival_s': expected a number of seconds above 0 and at "
            "most 3600, got \"0\"");
  EXPECT_EQ(SpecError("size_mix: {1: 0}\n"),
            "s.yaml:1: field 'size_mix': expected a map with a positive total weight, got all "
            "weights 0");
  EXPECT_EQ(SpecError("size_mix: {1: -2}\n"),
            "s.yaml:1: field 'size_mix.1': expected a non-negative weight, got \"-2\"");
  EXPECT_EQ(SpecError("estimate_factor: 0.5\n"),
            "s.yaml:1: field 'estimate_factor': expected a factor from 1 to 1000, or a list [min, "
            "max] of such factors, got \"0.5\"");
  EXPECT_EQ(SpecError("estimate_factor: [3, 2]\n"),
            "s.yaml:1: field 'estimate_factor[1]': expected a factor from min to 1000, got \"2\"");
  EXPECT_EQ(SpecError("runtime_min_s: 50\nruntime_max_s: 10\n"),
            "s.yaml:1: field 'runtime_min_s': expected runtime_min_s (50) at most runtime_max_s "
            "(10), got \"50\"");
  EXPECT_EQ(SpecError("checkpoint_cost_s: 4000\n"),
            "s.yaml:1: field 'checkpoint_cost_s': expected a number of seconds from 0 to 3600, "
            "got \"4000\"");
  EXPECT_EQ(SpecError("jobs: 1\njobz: 2\n"),
            "s.yaml:2: field 'jobz': expected one of the keys jobs, seed, mean_interarrival_s, "
            "size_mix, runtime_median_s, runtime_sigma, runtime_min_s, runtime_max_s, "
            "estimate_factor, tenants, priority_classes, devices_per_node, models, "
            "fractional_share, cpu_milli_per_device, memory_mib_per_device, required_topology, "
            "preferred_topology, checkpoint_interval_s, checkpoint_cost_s, got unknown key "
            "\"jobz\"");
  EXPECT_EQ(SpecError("priority_classes: {1: 1, 01: 2}\n"),
            "s.yaml:1: field 'priority_classes.01': expected each key once, got the same key "
            "again");
  EXPECT_EQ(SpecError("tenants: 0\n"),
            "s.yaml:1: field 'tenants': expected a tenant count from 1 to 10000 or a map of "
            "tenant names to weights, got \"0\"");
  EXPECT_EQ(SpecError(""), "s.yaml:1: document: expected a map of top-level keys, got nothing");
  EXPECT_EQ(SpecError("jobs: [1\n"), SpecError("jobs: [1\n"));
  EXPECT_TRUE(SpecError("jobs: [1\n").starts_with("s.yaml:")) << SpecError("jobs: [1\n");
  EXPECT_NE(SpecError("jobs: [1\n").find("YAML syntax error"), std::string::npos);
  // The loader every YAML input shares: one document, UTF-8, nesting bounded.
  EXPECT_EQ(SpecError("jobs: 10\n---\njobs: 20\n"),
            "s.yaml:2: document: expected one YAML document, got a second one");
  EXPECT_EQ(SpecError("jobs: 10\n# caf\xe9\n"),
            "s.yaml:2: expected UTF-8 text, got byte 0xE9 at column 6; save the file as UTF-8");
  EXPECT_NE(SpecError(std::string(100, '[')).find("nest"), std::string::npos);
}

TEST(SyntheticSpecTest, MissingFileIsNotFound) {
  auto loaded = LoadWorkload("synthetic:/nonexistent/spec.yaml", WorkloadOptions{});
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(loaded.error().message, "/nonexistent/spec.yaml: cannot open file");
}

}  // namespace
}  // namespace headroom::sim

namespace headroom::sim {
namespace {

TEST(SyntheticSpecTest, TopologyStatementsGoToMultiNodeJobsOnly) {
  auto spec = ParseSyntheticSpec(
      "jobs: 3000\n"
      "size_mix: {1: 1, 16: 1}\n"
      "required_topology: {level: rack, share: 0.5}\n"
      "preferred_topology: {level: leaf, share: 1}\n",
      "s.yaml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->required_topology_level, "rack");
  EXPECT_DOUBLE_EQ(spec->required_topology_share, 0.5);
  const model::Workload w = GenerateSyntheticWorkload(*spec, WorkloadOptions{}, "s");
  size_t gangs = 0, required = 0;
  for (const model::Job& job : w.jobs) {
    if (job.task_count == 1) {
      EXPECT_TRUE(job.required_topology_level.empty());
      EXPECT_TRUE(job.preferred_topology_level.empty());
      continue;
    }
    ++gangs;
    EXPECT_EQ(job.preferred_topology_level, "leaf");
    if (!job.required_topology_level.empty()) {
      EXPECT_EQ(job.required_topology_level, "rack");
      ++required;
    }
  }
  EXPECT_NEAR(static_cast<double>(required) / static_cast<double>(gangs), 0.5, 0.05);
}

TEST(SyntheticSpecTest, TopologyShareZeroLeavesTheJobsAsTheyWere) {
  auto plain = ParseSyntheticSpec("jobs: 500\n", "a.yaml");
  auto zero = ParseSyntheticSpec("jobs: 500\nrequired_topology: {level: rack, share: 0}\n", "b");
  ASSERT_TRUE(plain.has_value() && zero.has_value());
  const model::Workload a = GenerateSyntheticWorkload(*plain, WorkloadOptions{}, "s");
  const model::Workload b = GenerateSyntheticWorkload(*zero, WorkloadOptions{}, "s");
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].submit_time_us, b.jobs[i].submit_time_us);
    EXPECT_EQ(a.jobs[i].task_count, b.jobs[i].task_count);
    EXPECT_TRUE(b.jobs[i].required_topology_level.empty());
  }
}

TEST(SyntheticSpecTest, TopologyErrorsNameTheField) {
  auto missing = ParseSyntheticSpec("required_topology: {level: rack}\n", "s.yaml");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("required_topology"), std::string::npos)
      << missing.error().message;
  auto share = ParseSyntheticSpec("preferred_topology: {level: rack, share: 2}\n", "s.yaml");
  ASSERT_FALSE(share.has_value());
  EXPECT_NE(share.error().message.find("preferred_topology.share"), std::string::npos)
      << share.error().message;
}

}  // namespace
}  // namespace headroom::sim
