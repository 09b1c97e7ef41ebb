// Replay benchmarks: whole simulator runs (sim/simulator.h Simulate) — the engine plus the
// simulator's event loop, speed model and metrics — measured in simulator events per second.
// An event is one arrival or one completion handed to the engine (PolicyMetrics::events, about
// two per job); engine_steps counts the Step calls (one per distinct event time or wake-up).
//
// BM_ReplayItp/<policy>
//   Measures: replaying the largest shipped trace, Microsoft ITP (ElasticFlow) cluster04,
//   15,802 jobs, as published (no load scaling), on a generated building of 1,024 devices
//   (128 nodes of 8, NVLink domains of 72). The trace is read from $HEADROOM_TRACES, else
//   ../shared/traces relative to the current directory (run from the repository root); the
//   benchmark is skipped with an error when the file is absent. Loading is not timed.
//
// BM_ReplayMillion/<policy>/load:<percent>
//   Measures: replaying the synthetic "million" preset (1,000,000 jobs, seed 1; mix and
//   runtimes in sim/traces/synthetic_spec.h) on a generated building of 100,000 devices
//   (12,500 nodes of 8, NVLink domains of 72). load:0 replays it as generated: its arrivals
//   (every 45 s on average) were sized for a 1,024-device building, so on 100,000 devices it
//   offers a load of about 1% and nothing queues. load:90 first rescales the arrival times
//   (sim/traces/load_scaling.h ScaleToLoad) to an offered load of 0.9 on this building, so the
//   queue and backfill really work. Generating and scaling the workload are not timed.
//   One iteration each (a run takes seconds to minutes).
//
// Both report: events_per_s (events ÷ wall seconds of the Simulate call), events_per_cpu_s
// (events ÷ the thread's CPU seconds in it: the rate an unshared core would give), events,
// engine_steps, jobs_unplaced, and peak_rss_mb: the process's peak resident set during the
// replay (VmHWM from /proc/self/status, reset before the replay through /proc/self/clear_refs;
// it includes the workload already in memory and whatever earlier benchmarks left resident).
// Goals (DESIGN.md "Scale it is built for": traces of a million jobs replayed in seconds on
// two cores): >= 5,000,000 events/s, and a million-job replay within 2 GB (peak_rss_mb <= 2048).
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include <benchmark/benchmark.h>

#include "base/check.h"
#include "engine/presets.h"
#include "model/cluster.h"
#include "model/cluster_generator.h"
#include "model/workload.h"
#include "sim/simulator.h"
#include "sim/traces/load_scaling.h"
#include "sim/traces/workload_loader.h"

namespace headroom::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kDevicesPerNode = 8;

model::Cluster Building(int64_t devices) {
  auto cluster = model::GenerateCluster(
      {.devices = devices, .devices_per_node = kDevicesPerNode, .nvlink_domain = 72});
  HR_CHECK(cluster.has_value());
  return std::move(*cluster);
}

// CPU time of the calling thread: unlike wall time, it does not grow while other processes on
// a shared machine hold the cores.
double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::string TracePath(const std::string& relative) {
  const char* root = std::getenv("HEADROOM_TRACES");
  const std::string base = root != nullptr && *root != '\0' ? root : "../shared/traces";
  return base + "/" + relative;
}

// Starts a new peak-RSS window ("5" resets VmHWM to the current RSS; Linux >= 4.0).
void ResetPeakRss() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
}

// VmHWM in MiB, or -1 when /proc is unavailable.
double PeakRssMib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB.
  }
  return -1;
}

// Runs Simulate once per iteration and reports the replay counters described above.
void Replay(benchmark::State& state, const model::Cluster& cluster, const model::Workload& workload,
            const char* preset) {
  auto policy = engine::PresetPolicy(preset);
  HR_CHECK(policy.has_value());
  const sim::SimOptions options;
  ResetPeakRss();
  double seconds = 0;
  double cpu_seconds = 0;
  sim::PolicyMetrics metrics;
  for (auto _ : state) {
    const Clock::time_point begin = Clock::now();
    const double cpu_begin = ThreadCpuSeconds();
    sim::PolicyRun run = sim::Simulate(cluster, workload, *policy, options);
    cpu_seconds += ThreadCpuSeconds() - cpu_begin;
    seconds += std::chrono::duration<double>(Clock::now() - begin).count();
    metrics = run.metrics;
    benchmark::DoNotOptimize(run);
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["events_per_s"] = static_cast<double>(metrics.events) * iterations / seconds;
  state.counters["events_per_cpu_s"] =
      static_cast<double>(metrics.events) * iterations / cpu_seconds;
  state.counters["events"] = static_cast<double>(metrics.events);
  state.counters["engine_steps"] = static_cast<double>(metrics.engine_steps);
  state.counters["jobs"] = static_cast<double>(workload.jobs.size());
  state.counters["jobs_unplaced"] = static_cast<double>(metrics.jobs_unplaced);
  state.counters["peak_rss_mb"] = PeakRssMib();
}

void BM_ReplayItp(benchmark::State& state, const char* preset) {
  static const std::optional<model::Workload> workload = []() -> std::optional<model::Workload> {
    const std::string path = TracePath("microsoft-itp-elasticflow/cluster04.csv");
    if (!std::filesystem::is_regular_file(path)) return std::nullopt;
    auto loaded = sim::LoadWorkload("itp:" + path, {.max_devices_per_node = kDevicesPerNode});
    HR_CHECK(loaded.has_value());
    return std::move(loaded->workload);
  }();
  if (!workload) {
    state.SkipWithError(("missing " + TracePath("microsoft-itp-elasticflow/cluster04.csv") +
                         " (set HEADROOM_TRACES)")
                            .c_str());
    return;
  }
  static const model::Cluster cluster = Building(1'024);
  Replay(state, cluster, *workload, preset);
}

void BM_ReplayMillion(benchmark::State& state, const char* preset) {
  static const model::Cluster cluster = Building(100'000);
  auto loaded =
      sim::LoadWorkload("synthetic:million", {.max_devices_per_node = kDevicesPerNode, .seed = 1});
  HR_CHECK(loaded.has_value());
  model::Workload& workload = loaded->workload;
  const int64_t load_percent = state.range(0);
  if (load_percent > 0) {
    uint64_t capacity_milli = uint64_t{1000} * cluster.device_count();
    sim::ScaleToLoad(workload, static_cast<double>(load_percent) / 100.0, capacity_milli);
  }
  Replay(state, cluster, workload, preset);
}

BENCHMARK_CAPTURE(BM_ReplayItp, headroom, "headroom")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayItp, slurm_like, "slurm-like")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayItp, spread, "spread")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayItp, fifo, "fifo")->UseRealTime()->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(BM_ReplayMillion, headroom, "headroom")
    ->ArgName("load")
    ->Arg(0)
    ->Arg(90)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_ReplayMillion, slurm_like, "slurm-like")
    ->ArgName("load")
    ->Arg(0)
    ->Arg(90)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace headroom::bench
