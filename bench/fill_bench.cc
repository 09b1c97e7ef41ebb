// Fill benchmark: one whole run of FGD's fill experiment (sim/fill/fill_experiment.h) on the
// openb trace as the paper ran it — the 1,213 GPU nodes (6,212 GPUs) of
// openb_node_list_gpu_node.csv, the default pod list tuned to 1.3 × capacity (about 10,400
// pods), seed 42, on one thread — per packing policy. The FGD artifact's Go simulator needs
// about ten minutes for one such run on 2 vCPUs (its experiments/README.md); the goal here is a
// few seconds. Loading the trace is not timed. Reports pods_per_s and cpu_s (the thread's CPU
// seconds for the run). Traces come from $HEADROOM_TRACES, else ../shared/traces (run from the
// repository root); the benchmark is skipped with an error when they are absent.
#include <time.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <benchmark/benchmark.h>

#include "engine/packing_values.h"
#include "engine/share_scorers.h"
#include "model/cluster_source.h"
#include "sim/fill/fill_experiment.h"
#include "sim/traces/workload_loader.h"

namespace headroom::bench {
namespace {

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::string OpenbPath(const std::string& file) {
  const char* root = std::getenv("HEADROOM_TRACES");
  return std::string(root != nullptr && *root != '\0' ? root : "../shared/traces") +
         "/alibaba-gpu-v2023-openb/" + file;
}

struct Openb {
  model::Cluster cluster;
  sim::LoadedWorkload loaded;
};

// The GPU nodes and the default pod list, or nullopt with the benchmark skipped.
std::optional<Openb> LoadOpenb(benchmark::State& state) {
  const std::string nodes = OpenbPath("openb_node_list_gpu_node.csv");
  const std::string pods = OpenbPath("openb_pod_list_default.csv");
  if (!std::filesystem::exists(nodes) || !std::filesystem::exists(pods)) {
    state.SkipWithError(("missing " + nodes + " or " + pods + " (set HEADROOM_TRACES)").c_str());
    return std::nullopt;
  }
  auto cluster = model::LoadCluster("openb:" + nodes);
  sim::WorkloadOptions options;
  options.ignore_times = true;
  auto loaded = sim::LoadWorkload("openb:" + pods, options);
  if (!cluster || !loaded) {
    state.SkipWithError("cannot load the openb trace");
    return std::nullopt;
  }
  return Openb{std::move(*cluster), std::move(*loaded)};
}

void BM_FillOpenb(benchmark::State& state, engine::SharePolicy policy) {
  auto openb = LoadOpenb(state);
  if (!openb) return;
  const model::Cluster& cluster = openb->cluster;
  const sim::LoadedWorkload& loaded = openb->loaded;
  uint64_t pods_placed = 0;
  double cpu_s = 0;
  for (auto _ : state) {
    const double begin = ThreadCpuSeconds();
    auto curve = sim::RunFill(cluster, loaded.workload, policy, 42, 1.3, 0.95);
    cpu_s += ThreadCpuSeconds() - begin;
    if (!curve) {
      state.SkipWithError(curve.error().message.c_str());
      return;
    }
    pods_placed += curve->tasks;
    benchmark::DoNotOptimize(curve->allocated_pct.data());
  }
  state.counters["pods_per_s"] =
      benchmark::Counter(static_cast<double>(pods_placed), benchmark::Counter::kIsRate);
  state.counters["cpu_s"] = cpu_s / static_cast<double>(state.iterations());
}

BENCHMARK_CAPTURE(BM_FillOpenb, random, engine::SharePolicy::kRandom)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FillOpenb, bestfit, engine::SharePolicy::kBestFit)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FillOpenb, fgd, engine::SharePolicy::kFgd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FillOpenb, headroom, engine::SharePolicy::kHeadroom)
    ->Unit(benchmark::kMillisecond);

// The cutting-stock prices headroom's fill policy computes once per run (engine/
// packing_values.h), over the default trace's typical shapes (95% coverage: eleven demands that
// share a GPU).
void BM_PackingValuesOpenb(benchmark::State& state) {
  auto openb = LoadOpenb(state);
  if (!openb) return;
  std::vector<engine::PodShape> shapes;
  for (const model::Job& job : openb->loaded.workload.jobs) {
    shapes.push_back({.cpu_milli = job.task.cpu_milli,
                      .milli_per_gpu = job.task.devices == 0 ? 0 : job.task.milli_per_device,
                      .gpus = job.task.devices});
  }
  const std::vector<engine::TypicalShape> typical = engine::TypicalShapes(shapes, 0.95);
  for (auto _ : state) {
    const engine::PackingValues values(typical);
    benchmark::DoNotOptimize(values.FreeValue(1000));
  }
}

BENCHMARK(BM_PackingValuesOpenb)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace headroom::bench
