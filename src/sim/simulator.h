// Simulator: replays a workload through the engine on a virtual clock. Arrivals come from the
// workload, completions from the engine's start decisions (runtime × the speed model's
// stretch), wake-ups from the engine (backfill intervals, priority recalculation), node faults
// and repairs from the failure model. Events at
// one instant are handed to the engine together, ordered (time, sequence), so a run is a pure
// function of (cluster, workload, policy, options): the same inputs give the same result.
// Threading: one simulator per thread; RunPolicies runs independent policies in parallel.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/policy_config.h"
#include "model/cluster.h"
#include "model/workload.h"
#include "sim/facility_incident.h"
#include "sim/failure_model.h"
#include "sim/run_result.h"
#include "sim/service_driver.h"
#include "sim/speed_model.h"

namespace headroom::sim {

struct SimOptions {
  // Target number of points in the time series (allocation, fragmentation).
  uint32_t series_points = 1000;
  // Check every engine invariant after every step (slow; tests and debugging).
  bool paranoid = false;
  // Stop (and count the rest as unplaced) after this much simulated time past the last
  // arrival; guards replays of workloads that overload the cluster forever.
  double max_drain_s = 365.0 * 24 * 3600;
  // Keep every job's start, end, preemptions and moves in PolicyRun::jobs.
  bool job_outcomes = false;
  // Inference services run beside the workload through the same engine (service_driver.h);
  // their replicas take job ids after the workload's.
  std::vector<ServiceLoad> services;
  // Node faults and repairs (failure_model.h); none when it has no classes. A fault drains its
  // node and interrupts the jobs on it (engine JobInterrupted): they resume from their last
  // checkpoint after a restart pause, as preempted jobs do.
  FailureModel failures;
  // Cooling zones and power domains that lose part of their capacity for a while
  // (facility_incident.h).
  std::vector<FacilityIncident> incidents;
  // Jobs of at least this many devices count in FailureMetrics::effective_training_time.
  uint64_t large_job_devices = 1024;
};

// What an observer sees after each step.
struct SimView {
  const engine::Engine& engine;
  TimeUs now_us;
  const engine::Decisions& decisions;
};

// Called after every step, for tests that check properties along the way.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void AfterStep(const SimView& view) = 0;
};

PolicyRun Simulate(const model::Cluster& cluster, const model::Workload& workload,
                   const engine::PolicyConfig& policy, const SimOptions& options,
                   Observer* observer = nullptr);

// Runs every policy (in parallel, at most `threads` at a time; 0 = hardware concurrency) and
// returns the runs in the order given.
std::vector<PolicyRun> RunPolicies(const model::Cluster& cluster, const model::Workload& workload,
                                   const std::vector<engine::PolicyConfig>& policies,
                                   const SimOptions& options, unsigned threads = 0);

}  // namespace headroom::sim
