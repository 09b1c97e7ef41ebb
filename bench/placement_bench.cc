// Placement benchmarks: the Placer (engine/placement.h) on a bare ClusterState, without the
// engine around it, on generated buildings of 8-device nodes in NVLink domains of 72 devices
// (9 nodes per rack), held at about 70% of their devices allocated.
//
// BM_PlaceOneDevice/<policy>/<devices>
//   Measures: one single-device placement — Placer::Place plus ClusterState::Allocate of the
//   result, which is what the engine does per started job — with the placement options of the
//   named preset (headroom: topology block, best fit; slurm-like: topology block over every
//   switch; spread: per task, LeastAllocated over every node; fifo: per task, first fit).
//   Steady state: the building is first filled to 70% by single-device jobs placed by the same
//   policy; before each timed placement, if 70% or more is allocated, one running job chosen
//   at random (seeded) ends, untimed. So every timed placement finds the building at ~70% with
//   the holes the policy's own churn leaves.
//   Reports: items_per_second = placements per second of placement time (wall clock, each
//   placement timed on its own with steady_clock: manual time); per_cpu_s = iterations per
//   second of the thread's CPU time over the whole loop, which also counts the untimed churn
//   (a conservative rate that other processes on a shared machine do not disturb); p50_us,
//   p99_us and max_us of single placements (wall clock).
//   Goal: >= 20,000 placements/s on the 5,000-node building (40,000 devices), the scale of
//   kube-scheduler's published 5,000-node throughput of 680-810 pods/s (DESIGN.md "Scale it is
//   built for"); the 100,000-device building shows how the cost grows with the building.
//
// BM_PlaceGang/<policy>/<gang devices>
//   Measures: the placement latency of one whole-node gang — 8 devices (1 task of 8) or 64
//   devices (8 tasks of 8) — on the 100,000-device building at ~70%.
//   Steady state: the building is filled to 70% by a mix of jobs drawn like the synthetic
//   workload's (1: 75%, 2: 4%, 4: 7%, 8: 10%, 16: 2.5%, 32: 1%, 64: 0.5% of jobs; above 8
//   devices, tasks of 8), placed by the same policy. Each iteration, untimed: one random job
//   ends and new mixed jobs start until 70% is allocated again; timed: the gang is placed and
//   allocated; untimed: the gang is released, so the mix stays the background's.
//   Reports: p50_us, p99_us, max_us per gang placement, and placed = the fraction of attempts
//   that found room (a gang that does not fit is still a measured, complete search).
//   Goal: none of its own; the per-step budget (<= 50 ms for the whole queue, see
//   engine_step_bench.cc) is what large-gang placements must fit into.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "base/check.h"
#include "base/rng.h"
#include "engine/cluster_state.h"
#include "engine/decision.h"
#include "engine/placement.h"
#include "engine/presets.h"
#include "engine/request.h"
#include "engine/scorer.h"
#include "model/cluster.h"
#include "model/cluster_generator.h"
#include "model/job.h"

namespace headroom::bench {
namespace {

using Clock = std::chrono::steady_clock;
using engine::ClusterState;
using engine::PlacementRequest;
using engine::TaskAllocation;

constexpr double kTargetFill = 0.70;
constexpr int64_t kDevicesPerNode = 8;
constexpr int64_t kNvlinkDomain = 72;

// Generated once per size and kept for the whole run.
const model::Cluster& Building(int64_t devices) {
  static std::map<int64_t, std::unique_ptr<model::Cluster>> buildings;
  std::unique_ptr<model::Cluster>& slot = buildings[devices];
  if (!slot) {
    auto cluster = model::GenerateCluster(
        {.devices = devices, .devices_per_node = kDevicesPerNode, .nvlink_domain = kNvlinkDomain});
    HR_CHECK(cluster.has_value());
    slot = std::make_unique<model::Cluster>(std::move(*cluster));
  }
  return *slot;
}

// The placement options the engine derives from a preset (as engine.cc does).
engine::PlacementOptions OptionsOf(const std::string& preset) {
  auto policy = engine::PresetPolicy(preset);
  HR_CHECK(policy.has_value());
  return engine::PlacementOptionsOf(*policy);
}

// Whole devices per task, with the synthetic workload's CPU and memory per device.
model::TaskShape TaskOf(uint32_t devices) {
  model::TaskShape shape;
  shape.devices = devices;
  shape.cpu_milli = int64_t{8000} * devices;
  shape.memory_mib = int64_t{65536} * devices;
  return shape;
}

// A gang of `devices` devices as the workloads split it: tasks of at most one node.
struct Gang {
  model::TaskShape task;
  uint32_t tasks = 1;
};

Gang GangOf(uint32_t devices) {
  const uint32_t per_task = std::min<uint32_t>(devices, kDevicesPerNode);
  return Gang{TaskOf(per_task), devices / per_task};
}

// A building held at a fill level by starting and ending jobs through one policy's Placer.
class Churn {
 public:
  Churn(const model::Cluster& cluster, const std::string& preset, uint64_t seed)
      : state_(cluster), placer_(OptionsOf(preset)), rng_(seed) {
    for (const model::DeviceClass& device_class : cluster.device_classes()) {
      any_device_.matches.push_back(1);
      any_device_.classes.push_back(device_class.id);
    }
  }

  double fill() const {
    return static_cast<double>(state_.allocated_milli()) /
           static_cast<double>(state_.capacity_milli());
  }

  // Placer::Place then ClusterState::Allocate, as the engine starts a job; nullopt when the gang
  // does not fit. The allocations are applied; Keep or Release them afterwards.
  std::optional<std::vector<TaskAllocation>> PlaceAndAllocate(const Gang& gang) {
    const PlacementRequest request{&gang.task, gang.tasks, &any_device_};
    auto placement = placer_.Place(state_, request, nullptr);
    if (placement) {
      for (const TaskAllocation& task : *placement) state_.Allocate(task);
    }
    return placement;
  }

  // Untimed bookkeeping after PlaceAndAllocate.
  void Keep(std::vector<TaskAllocation> tasks) {
    live_.push_back(std::move(tasks));
    state_.Commit(0);  // The engine empties the undo log once per step.
  }
  void Release(const std::vector<TaskAllocation>& tasks) {
    for (const TaskAllocation& task : tasks) state_.Release(task);
    state_.Commit(0);
  }

  // Ends one running job chosen uniformly at random.
  void EndRandom() {
    HR_CHECK(!live_.empty());
    const size_t i = rng_.Below(live_.size());
    Release(live_[i]);
    std::swap(live_[i], live_.back());
    live_.pop_back();
  }

  // Starts jobs drawn by `draw` until `fill` is reached; a job that does not fit is skipped.
  template <typename Draw>
  void FillTo(double target, Draw draw) {
    uint32_t misses = 0;
    while (fill() < target && misses < 1000) {
      auto placement = PlaceAndAllocate(draw(rng_));
      if (!placement) {
        ++misses;
        continue;
      }
      Keep(std::move(*placement));
    }
  }

 private:
  ClusterState state_;
  engine::Placer placer_;
  engine::ClassMask any_device_;
  Rng rng_;
  std::vector<std::vector<TaskAllocation>> live_;
};

// One steady building per (benchmark family, policy, size), filled on first use and kept, so
// Google Benchmark's repeated runs of one benchmark continue the same churn.
Churn& SteadyBuilding(const std::string& family, const std::string& preset, int64_t devices,
                      Gang (*draw)(Rng&)) {
  static std::map<std::string, std::unique_ptr<Churn>> buildings;
  std::unique_ptr<Churn>& slot = buildings[family + "/" + preset + "/" + std::to_string(devices)];
  if (!slot) {
    slot = std::make_unique<Churn>(Building(devices), preset, /*seed=*/1);
    slot->FillTo(kTargetFill, draw);
  }
  return *slot;
}

Gang DrawOneDevice(Rng&) { return GangOf(1); }

// The synthetic workload's default size mix (sim/traces/synthetic_spec.h).
Gang DrawMixed(Rng& rng) {
  static constexpr std::pair<uint32_t, double> kMix[] = {{1, 75},   {2, 4},  {4, 7},   {8, 10},
                                                         {16, 2.5}, {32, 1}, {64, 0.5}};
  double u = rng.Uniform() * 100.0;
  for (const auto& [devices, weight] : kMix) {
    if (u < weight) return GangOf(devices);
    u -= weight;
  }
  return GangOf(1);
}

// p50, p99 and max of the collected latencies, in microseconds.
void ReportLatency(benchmark::State& state, std::vector<double>& latency_ns) {
  if (latency_ns.empty()) return;
  auto quantile = [&](double q) {
    const size_t k = std::min(latency_ns.size() - 1,
                              static_cast<size_t>(q * static_cast<double>(latency_ns.size())));
    std::nth_element(latency_ns.begin(), latency_ns.begin() + static_cast<std::ptrdiff_t>(k),
                     latency_ns.end());
    return latency_ns[k] / 1000.0;
  };
  state.counters["p50_us"] = quantile(0.50);
  state.counters["p99_us"] = quantile(0.99);
  state.counters["max_us"] = *std::max_element(latency_ns.begin(), latency_ns.end()) / 1000.0;
}

// CPU time of the calling thread: unlike wall time, it does not grow while other processes on
// a shared machine hold the cores.
double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double SecondsSince(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

void BM_PlaceOneDevice(benchmark::State& state, const char* preset) {
  const int64_t devices = state.range(0);
  Churn& building = SteadyBuilding("one", preset, devices, &DrawOneDevice);
  const Gang one = GangOf(1);
  std::vector<double> latency_ns;
  uint64_t failed = 0;
  const double cpu_begin = ThreadCpuSeconds();
  for (auto _ : state) {
    while (building.fill() >= kTargetFill) building.EndRandom();
    const Clock::time_point start = Clock::now();
    auto placement = building.PlaceAndAllocate(one);
    const double seconds = SecondsSince(start, Clock::now());
    state.SetIterationTime(seconds);
    latency_ns.push_back(seconds * 1e9);
    if (placement) {
      building.Keep(std::move(*placement));
    } else {
      ++failed;
    }
  }
  const double cpu_seconds = ThreadCpuSeconds() - cpu_begin;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["per_cpu_s"] = static_cast<double>(state.iterations()) / cpu_seconds;
  ReportLatency(state, latency_ns);
  state.counters["fill"] = building.fill();
  state.counters["failed"] = static_cast<double>(failed);
}

void BM_PlaceGang(benchmark::State& state, const char* preset) {
  const int64_t kBuildingDevices = 100'000;
  Churn& building = SteadyBuilding("mixed", preset, kBuildingDevices, &DrawMixed);
  const Gang gang = GangOf(static_cast<uint32_t>(state.range(0)));
  std::vector<double> latency_ns;
  uint64_t placed = 0;
  for (auto _ : state) {
    building.EndRandom();
    building.FillTo(kTargetFill, &DrawMixed);
    const Clock::time_point start = Clock::now();
    auto placement = building.PlaceAndAllocate(gang);
    const double seconds = SecondsSince(start, Clock::now());
    state.SetIterationTime(seconds);
    latency_ns.push_back(seconds * 1e9);
    if (placement) {
      ++placed;
      building.Release(*placement);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  ReportLatency(state, latency_ns);
  state.counters["placed"] =
      static_cast<double>(placed) / static_cast<double>(std::max<int64_t>(state.iterations(), 1));
}

// 40,000 devices = 5,000 nodes (the throughput goal); 100,000 = 12,500 nodes (DESIGN.md scale).
BENCHMARK_CAPTURE(BM_PlaceOneDevice, headroom, "headroom")
    ->Arg(40'000)
    ->Arg(100'000)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PlaceOneDevice, slurm_like, "slurm-like")
    ->Arg(40'000)
    ->Arg(100'000)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PlaceOneDevice, spread, "spread")
    ->Arg(40'000)
    ->Arg(100'000)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PlaceOneDevice, fifo, "fifo")
    ->Arg(40'000)
    ->Arg(100'000)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Gang sizes in devices: one whole node, and 8 whole nodes.
BENCHMARK_CAPTURE(BM_PlaceGang, headroom, "headroom")
    ->Arg(8)
    ->Arg(64)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PlaceGang, slurm_like, "slurm-like")
    ->Arg(8)
    ->Arg(64)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PlaceGang, spread, "spread")
    ->Arg(8)
    ->Arg(64)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PlaceGang, fifo, "fifo")
    ->Arg(8)
    ->Arg(64)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace headroom::bench
