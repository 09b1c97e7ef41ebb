#include "cli/commands/fill_run.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "engine/share_scorers.h"
#include "model/cluster_source.h"
#include "sim/fill/fill_experiment.h"
#include "sim/report/fill_report.h"
#include "sim/traces/workload_loader.h"

namespace headroom::cli {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "headroom sim: %s\n", message.c_str());
  return 2;
}

std::optional<uint64_t> ParseCount(std::string_view text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

Result<std::vector<engine::SharePolicy>> ParsePolicies(const std::string& text) {
  const std::string list =
      text == "all" ? "random,dotprod,clustering,packing,bestfit,fgd,headroom" : text;
  std::vector<engine::SharePolicy> policies;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    auto policy = engine::SharePolicyByName(std::string_view(list).substr(start, comma - start));
    if (!policy)
      return MakeError(ErrorCode::kInvalidArgument, "--policy: {}", policy.error().message);
    policies.push_back(*policy);
    start = comma + 1;
  }
  return policies;
}

}  // namespace

Result<void> WriteReportFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return MakeError(ErrorCode::kIo, "{}: cannot open for writing", path);
  out << text;
  out.close();
  if (!out) return MakeError(ErrorCode::kIo, "{}: write failed", path);
  return {};
}

Result<std::vector<uint64_t>> ParseSeeds(const std::string& text) {
  std::vector<uint64_t> seeds;
  const size_t dash = text.find('-');
  if (dash != std::string::npos) {
    auto first = ParseCount(std::string_view(text).substr(0, dash));
    auto last = ParseCount(std::string_view(text).substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first >= 10000) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--seeds: expected FIRST-LAST with FIRST <= LAST (at most 10000 seeds), "
                       "got \"{}\"",
                       text);
    }
    for (uint64_t s = *first; s <= *last; ++s) seeds.push_back(s);
    return seeds;
  }
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    auto seed = ParseCount(std::string_view(text).substr(start, comma - start));
    if (!seed) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--seeds: expected a range like 42-51 or a list like 42,43, got \"{}\"",
                       text);
    }
    seeds.push_back(*seed);
    start = comma + 1;
  }
  return seeds;
}

int RunFillCommand(const FillFlags& flags) {
  auto seeds = ParseSeeds(flags.seeds);
  if (!seeds) return Fail(seeds.error().message);
  auto policies = ParsePolicies(flags.policies);
  if (!policies) return Fail(policies.error().message);
  auto cluster = model::LoadCluster(flags.cluster);
  if (!cluster) return Fail(cluster.error().message);
  if (cluster->device_count() == 0)
    return Fail(flags.cluster + ": expected a cluster with devices, got none");
  sim::WorkloadOptions workload_options;
  workload_options.ignore_times = true;
  auto loaded = sim::LoadWorkload(flags.workload, workload_options);
  if (!loaded) return Fail(loaded.error().message);
  if (loaded->workload.jobs.empty())
    return Fail(flags.workload + ": expected at least one pod, got none");

  sim::FillOptions options;
  options.tune = flags.tune;
  options.seeds = std::move(*seeds);
  options.policies = std::move(*policies);
  options.threads =
      flags.threads > 0 ? flags.threads : std::max(1u, std::thread::hardware_concurrency());
  auto report = sim::RunFillExperiment(*cluster, loaded->workload, options);
  if (!report) return Fail(report.error().message);
  report->cluster_source = flags.cluster;

  const std::string table = sim::WriteFillTextTable(*report);
  std::fwrite(table.data(), 1, table.size(), stdout);
  std::error_code error;
  std::filesystem::create_directories(flags.out, error);
  if (error) return Fail(flags.out + ": cannot create directory: " + error.message());
  const std::filesystem::path out(flags.out);
  if (auto w = WriteReportFile(out / "report.json", sim::WriteFillJsonReport(*report)); !w) {
    return Fail(w.error().message);
  }
  if (auto w = WriteReportFile(out / "report.html", sim::WriteFillHtmlReport(*report)); !w) {
    return Fail(w.error().message);
  }
  std::printf("report: %s and %s\n", (out / "report.json").c_str(), (out / "report.html").c_str());
  return 0;
}

}  // namespace headroom::cli
