// ServiceDriver: the inference services of a simulation, run beside its training workload
// through the same engine. Each service replays its request trace against its replicas
// (ReplicaPool) and autoscales them (engine::Autoscaler, Kubernetes' HPA with headroom's
// forecast) every sync period; a replica is a one-task job of the service's devices that the
// engine places as it places any job (and may preempt, if the policy lets a higher priority
// take devices). A replica never completes: it runs until the autoscaler removes it.
//  - Scale up: a replica job is submitted; it serves `startup` after the engine starts it.
//  - Scale down: pending replicas are withdrawn first, then the newest running ones, which
//    drain (finish what they hold, take nothing new); their devices are released at once.
//  - Preempted, or interrupted by a node fault: what it held goes back to the service's queue,
//    and the engine requeues the job.
// The HPA's metric is the request rate over the last sync period; a replica's capacity is what
// it sustains for the trace's mean request (model::ServingCapacity::SustainedRequestsPerS),
// as an operator's load test would measure it. With the policy's `autoscaling.forecast`, the
// autoscaler also projects the rate one replica start-up and one sync period ahead; with
// `autoscaling.fixed_at_peak` there is no autoscaling: each service runs, from the origin to
// its trace's end, the replicas its trace's busiest sync period needs at its target utilisation
// (with a daily curve, the trace is the curve's peak: thinning only lowers it).
// A trace is a slice of a service already running: at the run's origin each service has, loaded
// and serving, the replicas the HPA would hold there, those of its busiest sync period within
// one scale-down window (placed by the engine like any others, but with no model load to wait
// for).
// A service with a replica schedule (ServiceLoad::replica_schedule) is not autoscaled: it runs
// the count its schedule says, changed at the schedule's times, and serves no requests.
// Promises: replica job ids are dense from `first_job_id`; every request of every trace is
// counted once by Finish; deterministic. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/ids.h"
#include "base/time.h"
#include "engine/autoscaler.h"
#include "engine/event.h"
#include "engine/policy_config.h"
#include "model/service.h"
#include "sim/request_replay.h"
#include "sim/request_stream.h"
#include "sim/run_result.h"
#include "sim/traces/load_curve.h"
#include "sim/traces/request_trace.h"

namespace headroom::sim {

// One service and the requests it serves, arrivals counted from the run's origin: its trace,
// or, with a daily load curve or a span, the trace repeated over the span and thinned by the
// curve (RequestStream).
struct ServiceLoad {
  model::Service service;
  RequestTrace trace;  // The driver moves it into the service's RequestStream.
  // A service replayed by its replica count instead of its requests (a trace of instances, as
  // Alibaba's DLRM trace is): (time from the origin, replicas wanted from then on), by time, the
  // first at 0 (what runs at the origin, loaded), the last at the schedule's end with none. Its
  // replicas follow the count at each change, not an autoscaler; it has no requests. Empty:
  // replayed by requests.
  std::vector<std::pair<TimeUs, uint32_t>> replica_schedule;
  int64_t replica_cpu_milli = 0;  // Each replica's, beside its devices.
  int64_t replica_memory_mib = 0;
  std::optional<LoadCurve> curve;
  TimeUs span_us = 0;                   // 0: the trace's own.
  uint64_t seed = 1;                    // Of the repetitions' shifts and the curve's thinning.
  engine::AutoscalerConfig autoscaler;  // Replica bounds are taken from the service.
};

class ServiceDriver {
 public:
  static constexpr TimeUs kSyncPeriodUs = 15 * kUsPerSecond;  // The HPA's default sync period.

  // Preconditions: each service validates (model::ValidateService).
  ServiceDriver(std::vector<ServiceLoad> loads, const engine::AutoscalingConfig& policy,
                TimeUs origin_us, uint32_t first_job_id);

  bool Owns(JobId job) const { return job.value() >= first_job_id_; }
  // When it must act next (an autoscaler sync); kNever once every trace is replayed and no
  // replica is left.
  TimeUs NextEventUs() const;
  // Replays requests up to `now_us` and, at a sync, autoscales: appends the replica jobs to
  // submit or withdraw to `events`.
  void Step(TimeUs now_us, std::vector<engine::Event>& events);
  void Started(JobId job, TimeUs now_us);
  // A fault's interruption counts as no preemption.
  void Preempted(JobId job, TimeUs now_us, bool by_fault = false);
  // Migrated (defragmentation): it loads its model again on its new devices, and what it held
  // starts over; not a preemption.
  void Moved(JobId job, TimeUs now_us);
  // Replays what is left (withdrawing every replica once the traces end) and sums up.
  ServiceMetrics Finish(TimeUs now_us);

  uint64_t replica_devices() const;  // Held by running replicas now.
  // Replica jobs submitted so far: their ids are [first job id, first job id + this).
  uint32_t replicas_submitted() const { return static_cast<uint32_t>(replicas_.size()); }
  // When the last trace ends (its span from the origin): no request arrives after it.
  TimeUs traces_end_us() const { return traces_end_us_; }

 private:
  enum class ReplicaState : uint8_t { kPending, kRunning, kGone };
  struct Replica {
    size_t service;
    ReplicaState state = ReplicaState::kPending;
    TimeUs decided_us = 0;  // When the autoscaler asked for it.
    bool warm = false;      // Loaded before the run began (its first start serves at once).
    bool served = false;    // Its first start has been counted toward scale-up to serving.
  };
  struct Running {
    ServiceLoad load;
    ReplicaPool pool;
    engine::Autoscaler autoscaler;
    model::Job replica_job;
    double capacity_per_s = 0;
    uint32_t fixed_replicas = 0;  // 0: autoscaled.
    uint32_t warm_replicas = 0;   // Loaded and serving at the origin,
    double warm_rate_per_s = 0;   // for this rate.
    RequestStream stream;
    ServingTally settled;
    size_t arrivals_since_sync = 0;
    std::vector<uint32_t> replicas;  // Its live replicas' indices into replicas_, oldest first.
    size_t schedule_next = 0;        // Its replica schedule's next change.
  };
  bool scheduled(const Running& service) const { return !service.load.replica_schedule.empty(); }

  void Replay(Running& service, TimeUs until_us);
  // The most requests a second of any sync period of `requests` (sorted) before `within_us`.
  static double BusiestRatePerS(const std::vector<InferenceRequest>& requests, TimeUs within_us);
  // The replicas a rate needs at the service's target utilisation, within its bounds.
  uint32_t ReplicasFor(const Running& service, double rate_per_s) const;
  void Sync(size_t index, TimeUs now_us, std::vector<engine::Event>& events);
  // Submits or withdraws replicas until the service runs `desired`.
  void Reconcile(size_t index, uint32_t desired, TimeUs now_us, std::vector<engine::Event>& events);
  // Follows a replica schedule's changes up to `now_us`.
  void FollowSchedule(size_t index, TimeUs now_us, std::vector<engine::Event>& events);
  void Submit(size_t index, TimeUs now_us, bool warm, std::vector<engine::Event>& events);
  void Withdraw(uint32_t replica, TimeUs now_us, std::vector<engine::Event>& events);
  void HoldDevices(TimeUs now_us);

  std::vector<Running> services_;
  std::vector<Replica> replicas_;
  TimeUs origin_us_;
  uint32_t first_job_id_;
  TimeUs next_sync_us_;
  bool warmed_ = false;
  TimeUs traces_end_us_ = 0;
  std::vector<double> scale_up_s_;
  uint64_t replica_preemptions_ = 0;
  uint64_t replicas_started_ = 0;
  uint64_t held_devices_ = 0;  // By replicas the engine runs.
  TimeUs held_since_us_ = 0;
  double held_device_us_ = 0;
};

}  // namespace headroom::sim
