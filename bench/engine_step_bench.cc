// Engine step benchmark: the cost of one Engine::Step (engine/engine.h) with a deep queue on
// the 100,000-device building (12,500 nodes of 8, NVLink domains of 72 devices).
//
// BM_EngineStep/<policy>
//   Set-up (untimed): an Engine with the named preset on the generated building. Jobs are
//   submitted 1,000 per step, one simulated second apart, until at least 10,000 are pending;
//   by then the building is full and the rest wait. Job sizes follow the synthetic workload's
//   mix (1: 75%, 2: 4%, 4: 7%, 8: 10%, 16: 2.5%, 32: 1%, 64: 0.5% of jobs; above 8 devices,
//   tasks of 8 whole devices), with CPU and memory per device as the synthetic workload asks,
//   tenants team-a..d (40/30/20/10), priorities 0/1/2 (60/30/10) and lognormal runtime
//   estimates (median 30 min, sigma 2, at least a minute, at most 30 days, times 1-3). Each
//   job's id is dense and new; everything is drawn from a generator seeded with 1.
//   One iteration (timed: the Step call only): the clock advances by one simulated second,
//   then Step receives two events — JobFinished for one running job chosen uniformly at random
//   and JobSubmitted for one new job drawn as above — and runs its pass: the main pass over
//   the queue, plus backfill where the preset does it at that time (headroom: every step, EASY
//   with a reservation for the blocked head; slurm-like: main pass of 100 jobs every step, EASY
//   backfill over 500 jobs every 30 simulated seconds, multifactor reordering of the whole
//   queue every 5 simulated minutes). Jobs the step starts join the running set. The queue
//   stays near 10,000 because about as many jobs start as arrive.
//   Reports: the mean step time (manual time), p50_ms, p99_ms and max_ms of single steps,
//   pending and running jobs at the end, and starts = jobs started per step.
//   Goal: <= 50 ms per step (DESIGN.md "Scale it is built for": 100,000 devices with 10,000
//   pending jobs); checked against the mean and, separately, the max.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "base/check.h"
#include "base/rng.h"
#include "base/time.h"
#include "engine/decision.h"
#include "engine/engine.h"
#include "engine/event.h"
#include "engine/presets.h"
#include "model/cluster.h"
#include "model/cluster_generator.h"
#include "model/job.h"

namespace headroom::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kDevices = 100'000;
constexpr uint32_t kDevicesPerNode = 8;
constexpr size_t kPendingTarget = 10'000;
constexpr uint32_t kSubmitBatch = 1'000;
constexpr uint32_t kNoSlot = UINT32_MAX;

const model::Cluster& Building() {
  static const model::Cluster building = [] {
    auto cluster = model::GenerateCluster(
        {.devices = kDevices, .devices_per_node = kDevicesPerNode, .nvlink_domain = 72});
    HR_CHECK(cluster.has_value());
    return std::move(*cluster);
  }();
  return building;
}

template <typename T, size_t N>
const T& Pick(Rng& rng, const std::pair<T, double> (&choices)[N]) {
  double total = 0;
  for (const auto& choice : choices) total += choice.second;
  double u = rng.Uniform() * total;
  for (const auto& choice : choices) {
    if (u < choice.second) return choice.first;
    u -= choice.second;
  }
  return choices[N - 1].first;
}

// One job drawn like the synthetic workload's default spec (sim/traces/synthetic_spec.h).
model::Job DrawJob(Rng& rng, uint32_t id, TimeUs now_us) {
  static constexpr std::pair<uint32_t, double> kSizes[] = {{1, 75},   {2, 4},  {4, 7},   {8, 10},
                                                           {16, 2.5}, {32, 1}, {64, 0.5}};
  static constexpr std::pair<const char*, double> kTenants[] = {
      {"team-a", 40}, {"team-b", 30}, {"team-c", 20}, {"team-d", 10}};
  static constexpr std::pair<int32_t, double> kPriorities[] = {{0, 60}, {1, 30}, {2, 10}};
  const uint32_t devices = Pick(rng, kSizes);
  const uint32_t per_task = std::min(devices, kDevicesPerNode);
  model::Job job;
  job.name = "bench-" + std::to_string(id);
  job.tenant = Pick(rng, kTenants);
  job.priority = Pick(rng, kPriorities);
  job.submit_time_us = now_us;
  const double runtime_s = std::clamp(rng.LogNormal(1800, 2.0), 60.0, 30.0 * 24 * 3600);
  job.runtime_us = SecondsToUs(runtime_s);
  job.runtime_estimate_us = SecondsToUs(runtime_s * (1.0 + 2.0 * rng.Uniform()));
  job.task_count = devices / per_task;
  job.task.devices = per_task;
  job.task.cpu_milli = int64_t{8000} * per_task;
  job.task.memory_mib = int64_t{65536} * per_task;
  return job;
}

// The engine plus the caller's view of it: which jobs run, the clock, the next id.
class Driver {
 public:
  explicit Driver(const engine::PolicyConfig& policy) : engine_(Building(), policy), rng_(1) {}

  engine::Engine& engine() { return engine_; }
  size_t running() const { return running_.size(); }

  void Submit(std::vector<engine::Event>& events) {
    const uint32_t id = next_id_++;
    events.push_back(engine::JobSubmitted{JobId(id), DrawJob(rng_, id, now_us_)});
  }

  void FinishRandom(std::vector<engine::Event>& events) {
    if (running_.empty()) return;
    const uint32_t job = running_[rng_.Below(running_.size())];
    Forget(job);
    events.push_back(engine::JobFinished{JobId(job)});
  }

  // Advances the clock by one second and steps; returns the seconds the Step call took.
  double Step(std::vector<engine::Event>& events, size_t* starts) {
    now_us_ += kUsPerSecond;
    const Clock::time_point begin = Clock::now();
    const engine::Decisions decisions = engine_.Step(events, now_us_);
    const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    for (const engine::StartJob& start : decisions.starts) Remember(start.job.value());
    *starts = decisions.starts.size();
    events.clear();
    return seconds;
  }

 private:
  void Remember(uint32_t job) {
    if (slot_.size() <= job) slot_.resize(job + 1, kNoSlot);
    slot_[job] = static_cast<uint32_t>(running_.size());
    running_.push_back(job);
  }
  void Forget(uint32_t job) {
    const uint32_t slot = slot_[job];
    HR_CHECK(slot != kNoSlot);
    slot_[running_.back()] = slot;
    running_[slot] = running_.back();
    running_.pop_back();
    slot_[job] = kNoSlot;
  }

  engine::Engine engine_;
  Rng rng_;
  TimeUs now_us_ = 0;
  uint32_t next_id_ = 0;
  std::vector<uint32_t> running_;  // Job ids, in no particular order.
  std::vector<uint32_t> slot_;     // By job id: index in running_, or kNoSlot.
};

void BM_EngineStep(benchmark::State& state, const char* preset) {
  auto policy = engine::PresetPolicy(preset);
  HR_CHECK(policy.has_value());
  Driver driver(*policy);
  std::vector<engine::Event> events;
  size_t starts = 0;
  while (driver.engine().pending_count() < kPendingTarget) {
    for (uint32_t i = 0; i < kSubmitBatch; ++i) driver.Submit(events);
    driver.Step(events, &starts);
  }

  std::vector<double> step_ms;
  size_t total_starts = 0;
  for (auto _ : state) {
    driver.FinishRandom(events);
    driver.Submit(events);
    const double seconds = driver.Step(events, &starts);
    state.SetIterationTime(seconds);
    step_ms.push_back(seconds * 1e3);
    total_starts += starts;
  }
  std::sort(step_ms.begin(), step_ms.end());
  auto quantile = [&](double q) {
    return step_ms[std::min(step_ms.size() - 1,
                            static_cast<size_t>(q * static_cast<double>(step_ms.size())))];
  };
  state.counters["p50_ms"] = quantile(0.50);
  state.counters["p99_ms"] = quantile(0.99);
  state.counters["max_ms"] = step_ms.back();
  state.counters["pending"] = static_cast<double>(driver.engine().pending_count());
  state.counters["running"] = static_cast<double>(driver.running());
  state.counters["starts"] =
      static_cast<double>(total_starts) / static_cast<double>(step_ms.size());
}

// 300 steps = 5 simulated minutes: ten slurm-like backfill passes and one multifactor reorder.
BENCHMARK_CAPTURE(BM_EngineStep, headroom, "headroom")
    ->Iterations(300)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineStep, slurm_like, "slurm-like")
    ->Iterations(300)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace headroom::bench
