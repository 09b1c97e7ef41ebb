// RunResult: everything one simulated run of one policy measured — the numbers the report
// writers print and plot. Pure data; the simulator fills it, report/ renders it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/time.h"
#include "sim/service_options.h"

namespace headroom::sim {

struct Distribution {
  double mean = 0;
  double p50 = 0;
  double p95 = 0;
  double p99 = 0;
  double max = 0;
  uint64_t count = 0;
};

// One point of a time series, sampled on a fixed grid of simulated time.
struct SeriesPoint {
  double time_s = 0;
  double allocation = 0;     // Allocated ÷ total device capacity, in [0, 1].
  double fragmentation = 0;  // Free devices the queue head cannot use ÷ total devices.
  uint64_t pending_jobs = 0;
  uint64_t running_jobs = 0;
  // By topology level (index = level, root first): the most whole free devices (any class, on
  // nodes not drained) in any one domain of that level — the largest block a gang could get.
  std::vector<uint32_t> largest_free_block_by_level;
  // With queues (PolicyRun::queues' order): devices each queue's running jobs hold.
  std::vector<double> queue_usage_devices;
  // With queues (same order): each queue's decayed usage over its parent's, U.
  std::vector<double> queue_usage_share;
  // With services: devices their replicas hold (the rest of `allocation` is training's).
  uint64_t service_devices = 0;
  // With a failure model: devices on nodes out of service (faulted, not yet repaired).
  uint64_t down_devices = 0;
  // The devices' draw, in all and per top power domain (FacilitySummary::feed_names' order).
  double power_kw = 0;
  std::vector<double> feed_power_kw;
};

struct PolicyMetrics {
  // Time-weighted mean of allocated ÷ capacity over the arrival window (first to last
  // arrival), the window the offered load is defined over; the drain after the last arrival,
  // when no new work is offered, is left out so the two numbers compare.
  double allocation_rate = 0;
  // Time pending of every started job: submission to first start, and each requeue after a
  // preemption to the next start (a preemptive policy's jobs wait again after each).
  Distribution wait_s;
  Distribution jct_s;
  // Bounded slowdown: max(1, (wait + run) / max(run, 10 s)) (Feitelson et al.), run the time it
  // held devices (its JCT less its wait).
  Distribution bounded_slowdown;
  // Time-weighted mean of fragmented ÷ total devices (see SeriesPoint::fragmentation).
  double fragmentation_rate = 0;
  uint64_t jobs_completed = 0;
  uint64_t jobs_unplaced = 0;  // Never started by the end of the run (unplaceable or starved).
  double makespan_s = 0;       // First arrival to last completion.
  // Mean runtime stretch from the speed model: actual ÷ compact runtime, over completed jobs.
  double mean_slowdown_from_placement = 0;
  uint64_t engine_steps = 0;
  uint64_t events = 0;
  // Started jobs whose tasks landed on more than one node (counted at their first start).
  uint64_t multi_node_jobs = 0;
  // Of those, the share placed inside one domain of the deepest level (rack / NVLink domain);
  // 0 when there were none.
  double multi_node_within_one_block = 0;
  // The same share for every level (index = level; the root's is 1 when any ran).
  std::vector<double> multi_node_within_one_block_by_level;
  // Defragmentation by migration: jobs moved, and their checkpoint + restart cost, summed as
  // (checkpoint + restart) × devices.
  uint64_t migrations = 0;
  double migration_cost_device_hours = 0;
  // Preemption: jobs requeued, and the device-time it lost — work done since each victim's
  // last checkpoint plus its restart pause, × its devices.
  uint64_t preemptions = 0;
  double preemption_lost_device_hours = 0;
  // Elastic jobs shrunk to make room or grown back into idle capacity (ElasticConfig); each
  // resize's restart pause × its devices is counted in preemption_lost_device_hours.
  uint64_t elastic_resizes = 0;
  // Power caps set, lowered or lifted on running jobs (PowerCapConfig; starts under a cap are
  // not counted).
  uint64_t power_caps = 0;
  // Useful device-hours: the completed jobs' runtimes at full speed × their devices (work lost
  // to preemption and pauses is not in it). With services, counted up to the end of their
  // traces, the unfinished jobs' work kept by then included (the span the floor is shared).
  double goodput_device_hours = 0;
};

// With a failure model (SimOptions::failures): what node faults cost the run.
struct FailureMetrics {
  uint64_t node_faults = 0;    // Faults begun during the run.
  uint64_t interruptions = 0;  // Running attempts a fault ended, replicas' included.
  // Jobs the policy's recovery.hold_after held as failing too often; they stay held.
  uint64_t jobs_held = 0;
  // Of the workload's jobs: the work each interrupted attempt did since its last checkpoint,
  // plus its restart pause, × its devices.
  double lost_device_hours = 0;
  // Interruption to working again (its next start and restart pause), of workload jobs that
  // started again; its mean is the jobs' mean time to recovery.
  Distribution recovery_s;
  double mean_repair_s = 0;  // Of the faults begun: the node out of service.
  // Latent faults (failure_model.h): attempts started on a node with an undetected fault, and
  // the policy's readiness checks (ReadinessConfig): node checks run, those (and gang checks)
  // that found a fault, and the time of both × the devices checked.
  uint64_t jobs_started_on_faulty = 0;
  uint64_t checks = 0;
  uint64_t checks_failed = 0;
  uint64_t gang_checks = 0;  // Checks across a multi-node job's nodes (gang_check_us).
  // Warning signs (FailureModel::warned_share, false_warnings_per_day) and what the policy's
  // recovery.evacuate made of them: diagnoses of suspect nodes, and those that found a fault.
  uint64_t warnings = 0;
  uint64_t false_warnings = 0;
  uint64_t diagnoses = 0;
  uint64_t diagnoses_found = 0;
  double check_device_hours = 0;
  // Jobs of at least SimOptions::large_job_devices devices that completed, and their effective
  // training time: the share of their first start to completion spent making progress that was
  // kept (not redoing lost work, pausing to restart or pending after a requeue), pooled (Meta's
  // effective training time ratio for Llama 3); -1 when none completed.
  uint64_t large_jobs_completed = 0;
  double effective_training_time = -1;
  std::vector<std::pair<std::string, uint64_t>> faults_by_class;  // In the model's class order.
};

// One device model's quota of a queue (quota_config.h) and its peak use over the series'
// samples.
struct QueueModelRun {
  std::string model;
  double guaranteed_devices = 0;
  double limit_devices = -1;  // Guarantee + borrowing limit; -1: none.
  double peak_usage_devices = 0;
};

// One queue's share of a run with queues (engine/quota.h). Waits, JCTs and preemptions count
// the jobs of the queue's own tenants (a leaf's); usage counts everything below it.
struct QueueRun {
  std::string name;
  std::string parent;  // Empty for a top-level queue.
  double guaranteed_devices = 0;
  double limit_devices = -1;  // Guarantee + borrowing limit; -1: none.
  // Fair share (engine/fair_share_tree.h): S, its share among its siblings, and the devices the
  // product of S down its path comes to; -1: no fair tree.
  double fair_share = -1;
  double fair_share_devices = -1;
  uint64_t jobs_started = 0;
  uint64_t jobs_completed = 0;
  Distribution wait_s;
  Distribution jct_s;
  double mean_usage_devices = 0;  // Over the series' samples.
  double peak_usage_devices = 0;
  uint64_t preemptions = 0;  // Of its jobs.
  double preemption_lost_device_hours = 0;
  std::vector<QueueModelRun> device_models;  // With quotas by device model, in name order.
};

// One job's course in a replay, kept when SimOptions::job_outcomes asks (`sim --jobs-csv`).
struct JobOutcome {
  TimeUs first_start_us = -1;  // -1: never started.
  TimeUs end_us = -1;          // -1: never completed.
  TimeUs wait_us = 0;          // Pending: to its first start, and each requeue to its next.
  uint32_t preemptions = 0;
  uint32_t migrations = 0;
};

// What operators watch of a service's requests: the share within the SLO, and latencies in
// seconds over the served requests (failed ones count against attainment only).
struct ServingSummary {
  uint64_t requests = 0;
  uint64_t failed = 0;
  uint64_t restarted = 0;  // Requests a preempted replica sent back at least once.
  double slo_attainment = 0;
  Distribution ttft_s;     // Arrival to first token.
  Distribution latency_s;  // Arrival to last token.
};

// Every inference service of a run, pooled (sim/service_driver.h).
struct ServiceMetrics {
  ServingSummary requests;
  Distribution scale_up_to_serving_s;  // From the autoscaler's decision to the replica serving.
  uint64_t replicas_started = 0;
  uint64_t replica_preemptions = 0;
  double replica_device_hours = 0;  // Devices held by replicas, model loads included.
};

// What the building metered over a run (sim/facility_meter.h, docs/facility.md).
struct FacilitySummary {
  double energy_kwh = 0;  // Devices' draw (IT), integrated.
  // Busy device-hours spent in thermal slowdown (software or hardware) or shut down by heat.
  double throttled_device_h = 0;
  double cooling_energy_kwh = 0;  // The cooling's electrical energy (Moore's CoP).
  uint64_t power_violations = 0;  // Times a power domain's mean load went past its limit.
  double power_violation_kw_s = 0;
  double peak_power_kw = 0;  // Highest draw of all devices together (mean over phases).
  // Highest rack inlet of any cooling zone (NaN without zones), and zone-seconds above the A1
  // allowable inlet.
  double max_inlet_c = 0;
  double inlet_over_limit_zone_s = 0;
  // Devices per kW of the top power domains' limits (0 without power domains).
  double devices_per_feed_kw = 0;
  // Full-speed device-hours of the jobs completed per kWh of the devices' draw.
  double useful_device_h_per_kwh = 0;
  // Names of the top power domains, the order of SeriesPoint::feed_power_kw.
  std::vector<std::string> feed_names;
};

struct PolicyRun {
  std::string name;
  std::string description;  // One line: queue order, backfill, placement.
  PolicyMetrics metrics;
  std::vector<SeriesPoint> series;
  // Sorted waits in seconds of every started job, for the CDF plot (downsampled by the
  // writer when long).
  std::vector<double> sorted_wait_s;
  std::vector<QueueRun> queues;  // Empty without queues.
  // By the job's index in the workload; empty unless SimOptions::job_outcomes.
  std::vector<JobOutcome> jobs;
  std::optional<ServiceMetrics> services;  // With SimOptions::services.
  std::optional<FailureMetrics> failures;  // With SimOptions::failures.
  FacilitySummary facility;
};

struct ClusterSummary {
  std::string source;
  uint64_t devices = 0;
  uint64_t nodes = 0;
  std::vector<std::string> levels;
  std::vector<std::pair<std::string, uint64_t>> devices_by_model;  // Sorted by model.
};

struct WorkloadSummary {
  std::string format;
  std::string source;
  uint64_t jobs = 0;
  double offered_load = 0;  // Device-time demanded ÷ (capacity × arrival span).
  double load_scale = 1;    // The --load factor applied to arrival times (1 = as published).
  double arrival_span_s = 0;
  uint64_t elastic_jobs = 0;  // Jobs that may run with fewer tasks (model/job.h, --elastic).
  uint64_t skipped_rows = 0;  // Rows the loader dropped, with reasons counted below.
  std::vector<std::pair<std::string, uint64_t>> skipped_reasons;
};

// What `--services` loaded: the traces named, as given, and the options that shaped the request
// traces' services, so that a report says what its service figures were measured on. Services
// replayed by replica count (a DLRM trace's) take their replicas' shape from their trace.
struct ServicesSummary {
  std::string traces;  // FORMAT:PATH, comma-separated.
  uint64_t services = 0;
  uint64_t replayed_by_count = 0;  // Of them, those with a replica schedule.
  ServiceOptions options;
};

// What `--failures` loaded: the catalogue and the rate its faults came at.
struct FailuresSummary {
  std::string trace;                 // FORMAT:PATH, as given.
  double node_failures_per_day = 0;  // Per 8 devices.
  uint64_t classes = 0;
  double latent_share = 0;   // Of faults, those latent on an idle node (failure_model.h).
  double check_catches = 0;  // Share of latent faults a readiness check finds.
  double warned_share = 0;   // Of faults, those that warn first (failure_model.h).
  double warning_lead_s = 0;
  double false_warnings_per_day = 0;  // Per 8 devices.
  uint64_t large_job_devices = 0;     // Jobs this large count in effective_training_time.
};

struct RunReport {
  ClusterSummary cluster;
  WorkloadSummary workload;
  std::optional<ServicesSummary> services;  // With --services.
  std::optional<FailuresSummary> failures;  // With --failures.
  std::vector<std::string> incidents;       // With --incident, as given.
  uint64_t seed = 0;
  std::vector<PolicyRun> policies;
};

}  // namespace headroom::sim
