// Engine step benchmark: the cost of one Engine::Step (engine/engine.h) with a deep queue on
// the 100,000-device building (12,500 nodes of 8, NVLink domains of 72 devices).
//
// BM_EngineStep/<policy>
//   Set-up (untimed): an Engine with the named preset on the generated building. Every 30
//   simulated seconds (so slurm-like backfills each time) the jobs that have ended by then
//   finish and 1,000 new jobs arrive — while fewer than 99% of the devices are allocated, only
//   once fewer than 1,000 wait — until at least 10,000 wait: the building is then full (the
//   `allocated` counter) and the rest wait. Job sizes follow the synthetic workload's mix
//   (1: 75%, 2: 4%, 4: 7%, 8: 10%, 16: 2.5%, 32: 1%, 64: 0.5% of jobs; above 8 devices, tasks of
//   8 whole devices), with CPU and memory per device as the synthetic workload asks, tenants
//   team-a..d (40/30/20/10), priorities 0/1/2 (60/30/10), runtimes lognormal (median 30 min,
//   sigma 2, 1 min to 30 days) and estimates 1-3 x the runtime. A job runs exactly its runtime
//   (no speed model). Ids are dense and new; everything is drawn from a generator seeded with 1.
//   One iteration (timed: the Step call only): the clock moves to the earliest end of a running
//   job (about every 0.4 simulated seconds at this size), and Step receives two events —
//   JobFinished for that job and JobSubmitted for one new job drawn as above — then runs its
//   pass: the main pass over the queue, plus backfill where the preset does it at that time
//   (headroom: every step, every job that fits, blocked jobs preempting by priority and attained
//   service; slurm-like: main pass of 100 jobs every step, EASY backfill over 500 jobs when 30
//   simulated seconds have passed, multifactor reordering of the whole queue every 5 simulated
//   minutes). Jobs the step starts
//   run until their runtime is up. One in, one out: the queue stays near 10,000.
//   Reports: the mean step time (wall clock, manual time); p50_ms, p99_ms and max_ms of single
//   steps (wall clock); cpu_ms, p99_cpu_ms and max_cpu_ms: the same steps in the thread's CPU
//   time, which other processes on a shared machine do not inflate;
//   pending and running jobs at the end, starts = jobs started per step, and simulated_s =
//   the simulated time the iterations covered.
//   Goal: <= 50 ms per step (DESIGN.md "Scale it is built for": 100,000 devices with 10,000
//   pending jobs); checked against the mean and, separately, the max.
// BM_EngineStep/headroom_queues: the same with preemption on and the tenants in queues
//   (QueuesFor: guarantees 40/30/20/10% of the devices, team-a may borrow 10% more), so that
//   admission checks quotas, held jobs reclaim, and priority preempts inside a queue (issue 12's
//   goal for quotas and preemption).
// BM_EngineStep/headroom_model_queues: the same queues with quotas of the building's device
//   model instead (every job then runs on a device-model option, engine_model_quota.cc).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
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
// Set-up steps are 30 simulated seconds apart, so slurm-like's backfill runs in each.
constexpr TimeUs kSetupStepUs = 30 * kUsPerSecond;
constexpr double kFull = 0.99;  // Allocated fraction from which the building counts as full.

const model::Cluster& Building() {
  static const model::Cluster building = [] {
    auto cluster = model::GenerateCluster(
        {.devices = kDevices, .devices_per_node = kDevicesPerNode, .nvlink_domain = 72});
    HR_CHECK(cluster.has_value());
    return std::move(*cluster);
  }();
  return building;
}

// CPU time of the calling thread: unlike wall time, it does not grow while other processes on
// a shared machine hold the cores.
double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
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

// The engine plus what its caller knows: the clock, the next id, and when each running job
// ends (start + runtime, as the simulator has it; runtimes never exceed the estimates).
class Driver {
 public:
  explicit Driver(const engine::PolicyConfig& policy) : engine_(Building(), policy), rng_(1) {}

  engine::Engine& engine() { return engine_; }
  size_t running() const { return ends_.size(); }
  TimeUs now_us() const { return now_us_; }

  void Submit(std::vector<engine::Event>& events) {
    const uint32_t id = next_id_++;
    model::Job job = DrawJob(rng_, id, now_us_);
    runtime_us_.push_back(job.runtime_us);
    events.push_back(engine::JobSubmitted{JobId(id), std::move(job)});
  }

  void SubmitBigHead(std::vector<engine::Event>& events) {
    const uint32_t id = next_id_++;
    model::Job job = DrawJob(rng_, id, now_us_);
    job.name = "big-head";
    job.priority = 3;
    job.task_count = 32;
    job.task.devices = kDevicesPerNode;
    job.task.cpu_milli = int64_t{8000} * kDevicesPerNode;
    job.task.memory_mib = int64_t{65536} * kDevicesPerNode;
    runtime_us_.push_back(job.runtime_us);
    events.push_back(engine::JobSubmitted{JobId(id), std::move(job)});
  }

  // Moves the clock to the earliest end (if later than now) and finishes that job.
  void FinishNext(std::vector<engine::Event>& events) {
    if (ends_.empty()) return;
    now_us_ = std::max(now_us_, ends_.top().first);
    events.push_back(engine::JobFinished{JobId(ends_.top().second)});
    ends_.pop();
  }

  // Finishes every job that has ended by now.
  void FinishDue(std::vector<engine::Event>& events) {
    while (!ends_.empty() && ends_.top().first <= now_us_) FinishNext(events);
  }

  void Advance(TimeUs us) { now_us_ += us; }

  // Steps at the current time; returns the wall seconds the Step call took, and its thread CPU
  // seconds in `cpu_seconds`.
  double Step(std::vector<engine::Event>& events, size_t* starts, double* cpu_seconds = nullptr) {
    const Clock::time_point begin = Clock::now();
    const double cpu_begin = ThreadCpuSeconds();
    const engine::Decisions decisions = engine_.Step(events, now_us_);
    if (cpu_seconds != nullptr) *cpu_seconds = ThreadCpuSeconds() - cpu_begin;
    const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    for (const engine::StartJob& start : decisions.starts) {
      ends_.push({now_us_ + runtime_us_[start.job.value()], start.job.value()});
    }
    *starts = decisions.starts.size();
    events.clear();
    return seconds;
  }

 private:
  using End = std::pair<TimeUs, uint32_t>;  // (end time, job id)

  engine::Engine engine_;
  Rng rng_;
  TimeUs now_us_ = 0;
  uint32_t next_id_ = 0;
  std::vector<TimeUs> runtime_us_;  // By job id.
  std::priority_queue<End, std::vector<End>, std::greater<>> ends_;
};

// Fills the building to kPendingTarget pending jobs (and, with `big_head`, submits the draining
// head: one gang of 256 devices, 32 whole nodes, at a priority above every other job's, so it
// heads the queue and holds a reservation while capacity drains to it).
void FillBuilding(Driver& driver, bool big_head) {
  std::vector<engine::Event> events;
  size_t starts = 0;
  const engine::ClusterState& cluster_state = driver.engine().cluster_state();
  auto allocated = [&] {
    return static_cast<double>(cluster_state.allocated_milli()) /
           static_cast<double>(cluster_state.capacity_milli());
  };
  while (driver.engine().pending_count() < kPendingTarget) {
    driver.Advance(kSetupStepUs);
    driver.FinishDue(events);
    // Until the building is full, a new batch only once the last is mostly placed: slurm-like
    // starts at most 600 jobs per 30 s (queue depth 100 plus 500 backfilled), fewer than 1,000.
    if (driver.engine().pending_count() < kSubmitBatch || allocated() >= kFull) {
      for (uint32_t i = 0; i < kSubmitBatch; ++i) driver.Submit(events);
    }
    driver.Step(events, &starts);
  }
  if (big_head) {
    driver.SubmitBigHead(events);
    driver.Step(events, &starts);
  }
}

// The bench's four tenants as queues over `devices`; `by_model`: quotas of the building's
// device model rather than of devices of any model.
std::vector<engine::QueueConfig> QueuesFor(int64_t devices, bool by_model) {
  std::vector<engine::QueueConfig> queues;
  const std::pair<const char*, int64_t> shares[] = {
      {"team-a", 40}, {"team-b", 30}, {"team-c", 20}, {"team-d", 10}};
  const std::string& model = Building().device_classes().front().model;
  for (const auto& [name, percent] : shares) {
    engine::QueueConfig queue;
    queue.name = name;
    if (by_model) {
      queue.device_models[model].guaranteed = devices * 1000 * percent / 100;
    } else {
      queue.stated[0] = true;
      queue.guaranteed[0] = devices * 1000 * percent / 100;
    }
    queues.push_back(queue);
  }
  if (by_model) {
    queues[0].device_models[model].borrowing_limit = devices * 1000 / 10;
  } else {
    queues[0].borrowing_limit[0] = devices * 1000 / 10;
  }
  HR_CHECK(engine::ValidateQueues(queues).has_value());
  return queues;
}

// What the preset runs with: as shipped, with preemption on, or with preemption and queues
// (of devices, or of the building's device model).
enum class Sharing { kPreset, kPreemption, kQueues, kModelQueues };

void BM_EngineStep(benchmark::State& state, const char* preset, Sharing sharing) {
  auto policy = engine::PresetPolicy(preset);
  HR_CHECK(policy.has_value());
  if (sharing != Sharing::kPreset) policy->preemption.enabled = true;
  if (sharing == Sharing::kQueues || sharing == Sharing::kModelQueues) {
    policy->queues = QueuesFor(kDevices, sharing == Sharing::kModelQueues);
  }
  Driver driver(*policy);
  std::vector<engine::Event> events;
  size_t starts = 0;
  const engine::ClusterState& cluster_state = driver.engine().cluster_state();
  auto allocated = [&] {
    return static_cast<double>(cluster_state.allocated_milli()) /
           static_cast<double>(cluster_state.capacity_milli());
  };
  FillBuilding(driver, state.range(0) != 0);
  const TimeUs start_us = driver.now_us();

  std::vector<double> step_ms;
  std::vector<double> step_cpu_ms;
  size_t total_starts = 0;
  for (auto _ : state) {
    driver.FinishNext(events);
    driver.Submit(events);
    double cpu_seconds = 0;
    const double seconds = driver.Step(events, &starts, &cpu_seconds);
    state.SetIterationTime(seconds);
    step_ms.push_back(seconds * 1e3);
    step_cpu_ms.push_back(cpu_seconds * 1e3);
    total_starts += starts;
  }
  auto quantile = [](std::vector<double>& values, double q) {
    std::sort(values.begin(), values.end());
    return values[std::min(values.size() - 1,
                           static_cast<size_t>(q * static_cast<double>(values.size())))];
  };
  double cpu_total_ms = 0;
  for (double ms : step_cpu_ms) cpu_total_ms += ms;
  state.counters["cpu_ms"] = cpu_total_ms / static_cast<double>(step_cpu_ms.size());
  state.counters["p50_ms"] = quantile(step_ms, 0.50);
  state.counters["p99_ms"] = quantile(step_ms, 0.99);
  state.counters["max_ms"] = step_ms.back();
  state.counters["p99_cpu_ms"] = quantile(step_cpu_ms, 0.99);
  state.counters["max_cpu_ms"] = step_cpu_ms.back();
  state.counters["pending"] = static_cast<double>(driver.engine().pending_count());
  state.counters["running"] = static_cast<double>(driver.running());
  state.counters["simulated_s"] = UsToSeconds(driver.now_us() - start_us);
  state.counters["allocated"] = allocated();
  state.counters["starts"] =
      static_cast<double>(total_starts) / static_cast<double>(step_ms.size());
}

// 300 steps cover about two simulated minutes: four slurm-like backfill passes.
BENCHMARK_CAPTURE(BM_EngineStep, headroom, "headroom", Sharing::kPreset)
    ->ArgName("big_head")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(300)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineStep, slurm_like, "slurm-like", Sharing::kPreset)
    ->ArgName("big_head")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(300)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineStep, headroom_preemption, "headroom", Sharing::kPreemption)
    ->ArgName("big_head")
    ->Arg(0)
    ->Iterations(300)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineStep, headroom_model_queues, "headroom", Sharing::kModelQueues)
    ->ArgName("big_head")
    ->Arg(0)
    ->Iterations(300)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineStep, headroom_queues, "headroom", Sharing::kQueues)
    ->ArgName("big_head")
    ->Arg(0)
    ->Iterations(300)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The start plan that gives every pending job an expected start (engine_start_plan.cc), made
// once after each step on the same building: 10,000 pending jobs on 100,000 devices.
// With queues, the plan follows their books as well (the bench's four tenants' queues).
void BM_ExpectedStarts(benchmark::State& state, const char* preset, Sharing sharing) {
  auto policy = engine::PresetPolicy(preset);
  HR_CHECK(policy.has_value());
  if (sharing == Sharing::kQueues || sharing == Sharing::kModelQueues) {
    policy->queues = QueuesFor(kDevices, sharing == Sharing::kModelQueues);
  }
  Driver driver(*policy);
  FillBuilding(driver, state.range(0) != 0);
  std::vector<engine::Event> events;
  size_t starts = 0;
  size_t planned = 0;
  for (auto _ : state) {
    driver.FinishNext(events);
    driver.Submit(events);
    driver.Step(events, &starts);
    const Clock::time_point begin = Clock::now();
    planned += driver.engine().ExpectedStarts().size();
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - begin).count());
  }
  state.counters["planned"] =
      static_cast<double>(planned) / static_cast<double>(state.iterations());
}

BENCHMARK_CAPTURE(BM_ExpectedStarts, headroom, "headroom", Sharing::kPreset)
    ->ArgName("big_head")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(50)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExpectedStarts, headroom_queues, "headroom", Sharing::kQueues)
    ->ArgName("big_head")
    ->Arg(0)
    ->Iterations(50)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace headroom::bench
