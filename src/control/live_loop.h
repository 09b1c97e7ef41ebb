// LiveLoop: the one thread that owns the Engine. It drains what happened — submissions from
// the API, cancels and drains (run as calls on this thread), completions and lost nodes from
// the backend, timers — into Engine::Step(now), journals the decisions (durable before they are
// applied), updates the daemon's state and hands the starts to the backend. It sleeps until an
// input arrives or the next deadline (engine wake-up, backend completion, series sample).
//
// Recovery and engine rebuild are one path (Rebuild): a fresh Engine on the backend's current
// cluster is fed every pending job (JobSubmitted) and every running job with its placement
// (JobRestored). A placement that no longer fits (a node re-registered with fewer devices) is
// requeued instead. Daemon job ids are stable; engine ids are dense per engine, and a requeued
// job gets a new one.
//
// Invariants: a job's lifecycle (start, finish, cancel, requeue) changes only on this thread,
// and only after the journal committed it. Threading: the public methods are thread-safe; the
// calls block until the loop has run them.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "control/api_error.h"
#include "control/backend.h"
#include "control/clock.h"
#include "control/daemon_state.h"
#include "control/event_log.h"
#include "control/journal.h"
#include "control/metrics.h"
#include "control/records.h"
#include "engine/autoscaler.h"
#include "engine/engine.h"
#include "engine/policy_config.h"

namespace headroom::control {

struct LoopOptions {
  engine::PolicyConfig policy;
  std::string policy_text;  // The YAML the policy was read from, for GET /v1/policy.
  TimeUs series_interval_us = 5 * kUsPerSecond;  // Of the loop's clock.
  size_t series_capacity = 2000;
  // Real time between the starts of two iterations at most once per this interval: under a
  // burst, arrivals batch into fewer engine steps (a step walks the whole queue), bounding the
  // loop's CPU at the cost of at most this much submit-to-start latency.
  std::chrono::microseconds min_iteration_interval{2000};
  // Finished jobs (completed, failed, cancelled) are forgotten — by the state, the API and the
  // store — once they ended keep_finished_us ago, and the oldest beyond the newest max_finished
  // at once, so a daemon that runs for months holds bounded state. Their ids are never reused.
  TimeUs keep_finished_us = 24 * 3600 * kUsPerSecond;
  size_t max_finished = 100'000;
  // The engine log (engine_log.h) gets a snapshot — the engine is built anew from the daemon's
  // state, carrying what it learned — at least this often, and keeps the records needed to
  // replay the last engine_log_keep_us from its newest snapshot at or before then.
  TimeUs engine_snapshot_interval_us = 3600 * kUsPerSecond;
  // ... and once this many events were logged since the last one, which bounds the tail a
  // restart follows (daemon.cc): about 1 s per 100,000 events on a 2-core VM.
  uint64_t engine_snapshot_events = 250'000;
  TimeUs engine_log_keep_us = 7 * 24 * 3600 * kUsPerSecond;
  // What the engine before this daemon's start had learned: the store's newest build record and
  // the records after it, followed (daemon.cc).
  engine::CarriedState carried;
  // How often autoscaled services are synced with their reported load, and how old a report may
  // be to count: an older one holds the count, as the HPA does when its metric is missing.
  TimeUs autoscale_interval_us = 15 * kUsPerSecond;
  TimeUs load_report_max_age_us = 60 * kUsPerSecond;
};

// The store's meta key under which retention keeps the next job id (ids are never reused, even
// when the newest jobs have been forgotten).
inline constexpr const char* kNextJobIdKey = "next_job_id";
// The store's meta key under which the policy in force is kept as YAML: the last one set, by
// headroomd --policy at a start or by PUT /v1/policy.
inline constexpr const char* kPolicyKey = "policy";

struct PendingInfo {
  std::string code;                  // The first PendingCode's name.
  std::vector<std::string> reasons;  // Every blocking constraint's code, most severe first.
  std::string message;
  TimeUs expected_start_us = kNever;
  // With nodes asked for: the engine's tallies (pending_reason.h, NodeTally).
  std::optional<std::vector<std::pair<std::string, uint32_t>>> nodes;
  uint64_t tasks_placeable = 0;
};

struct ServiceScaled {
  ServiceRecord service;            // With the new count.
  std::vector<uint64_t> added;      // New replicas, pending.
  std::vector<uint64_t> cancelled;  // Replicas cancelled.
};

class LiveLoop {
 public:
  LiveLoop(DaemonState& state, Journal& journal, EventLog& events, Backend& backend,
           const Clock& clock, Histogram& cycle_seconds, LoopOptions options);
  ~LiveLoop();
  LiveLoop(const LiveLoop&) = delete;
  LiveLoop& operator=(const LiveLoop&) = delete;

  void Start();
  // The policy the engine runs, and the YAML it was read from.
  engine::PolicyConfig policy() const;
  std::string policy_text() const;
  // Journals `text` as the policy in force, then rebuilds the engine on `policy` (parsed from
  // `text`): pending jobs are ordered and placed by it from the next step; running jobs stay.
  ApiResult<void> SetPolicy(std::string text, engine::PolicyConfig policy);
  // Replaces the policy's queues with those of `queues_text` (a queues file, quota_yaml.h) and
  // puts the result in force as SetPolicy does; the policy's text is read and rewritten on the
  // loop thread, so two changes never lose one another. 400 naming the body's line and field.
  ApiResult<void> SetQueues(const std::string& queues_text);
  // Finishes the calls already queued, then joins the thread.
  void Stop();

  // `job` is durable and pending in the state: schedule it. `spec_json`: its spec's canonical
  // text where the caller made it (JobRecord::spec_json), for the engine log.
  void Submitted(uint64_t job, std::shared_ptr<const std::string> spec_json = nullptr);
  // Something the backend will report on its next Poll arrived: run an iteration soon.
  void Wake();
  // Returns once the loop has run every input queued before this call (a no-op call queued
  // behind them): a barrier for callers that must see the loop past a point.
  void Barrier();

  ApiResult<JobRecord> Cancel(uint64_t job);
  // Holds a pending job (`reason` says why; it starts only once released) or releases a held
  // one, whoever held it (the engine's recovery.hold_after, or an operator): journaled, then
  // told to the engine. 409 for a job that is not pending.
  ApiResult<JobRecord> Hold(uint64_t job, bool held, std::string reason);
  // Cancels the service: no replica replaces an ended one any more, and every live replica is
  // cancelled, in one journaled transaction. Returns the replicas it cancelled.
  ApiResult<std::vector<JobRecord>> CancelService(uint64_t service);
  // Sets the service's replica count (0 keeps the service with nothing running): new replicas
  // are submitted, or the surplus is cancelled — pending replicas first, then the most recently
  // started — together with the new count, in one journaled transaction. Ended replicas are
  // replaced as before, so the count holds.
  // An autoscaled service (spec.autoscaling) only within its [minReplicas, maxReplicas]: 409.
  ApiResult<ServiceScaled> ScaleService(uint64_t service, uint32_t replicas);
  ApiResult<NodeRecord> SetDrain(const std::string& node, bool drained, std::string reason);
  // An operator moves a device to diagnosing, in repair or back to healthy; 404 for an unknown
  // node or device, 409 for a move its state does not allow. Returns the device's health.
  ApiResult<DeviceHealth> OperateDevice(const std::string& node, uint32_t index,
                                        OperatorAction action, std::string reason);
  // Resets a tripped storm guard: the withdrawals it held back apply at the next step. Returns
  // whether it was tripped.
  bool ResumeHealth();
  // Why `jobs` wait, as the loop last published it (after steps, at a bounded cost: see
  // PublishPending), without waiting for the loop; a job the publication does not know yet is
  // not_considered. `with_nodes`: also the node tallies.
  std::map<uint64_t, PendingInfo> Explain(const std::vector<uint64_t>& jobs,
                                          bool with_nodes = false) const;
  // Pending jobs by the reason they wait, as the loop last published them (each step, or less
  // often when counting takes long: see PublishPending), so that a scrape never waits for a
  // step; jobs submitted since count as not_considered.
  std::map<std::string, uint64_t> PendingByReason();
  // Each tenant's fair share as the engine had it at its last step, published with the pending
  // view (empty without an engine).
  std::vector<engine::Engine::TenantFairShare> TenantFairShares() const;
  // Each queue's fair-share level, published likewise (empty without queues).
  std::vector<engine::Engine::QueueFairShare> QueueFairShares() const;
  // The queues' books as the engine had them at its last step, published with the pending view
  // (empty without queues or an engine).
  engine::QuotaTree Queues() const;

 private:
  // On the loop thread: journals `text` as the policy in force and rebuilds the engine on it.
  ApiResult<void> ApplyPolicy(std::string text, engine::PolicyConfig policy);
  struct Input {
    uint64_t submitted = 0;                        // A job id, or 0 for a call.
    std::shared_ptr<const std::string> spec_json;  // The submitted job's, when made.
    std::function<void()> call;                    // Runs on the loop thread.
  };

  void Run();
  void RunCall(std::function<void()> call);
  void Iterate(TimeUs now);
  TimeUs NextDeadline(TimeUs now) const;
  TimeUs Now();

  // Loop-thread helpers.
  void Rebuild(TimeUs now);
  // Commits `writes`; once they are durable, runs `apply` (if any) under the state's lock. When
  // the store refuses them nothing is applied: the error is logged ("journal: WHAT not
  // committed") and the loop rebuilds from the state a second later. Returns whether committed.
  bool CommitThenApply(std::vector<StoreWrite> writes, std::string_view what, TimeUs now,
                       const std::function<void()>& apply = nullptr);
  JobId NewEngineId(uint64_t job);
  void EnqueueSubmit(const JobRecord& job);
  void ApplyCompletions(const std::vector<Completion>& completions, TimeUs now);
  void RequeueFrom(const std::vector<std::string>& lost_nodes, TimeUs now);
  void Requeue(std::vector<EndedJob> jobs, const std::string& why, TimeUs now);
  // A copy of the job's record; 404 when there is none.
  ApiResult<JobRecord> CopyOfJob(uint64_t id) const;
  // The jobs interrupted since the last step that the engine held (recovery.hold_after): held
  // in the state and the store too, with the engine's reason as their message.
  void NoteHolds(TimeUs now);
  // Brings the engine's drains and device withdrawals up to the nodes' gates and device health,
  // requeues the jobs a failed device ended and stores the health books that moved on
  // (live_loop_health.cc).
  void SyncDrains(TimeUs now);
  // Whether health may take a device of `node` out of use now (the storm guard); trips the
  // guard, logging why, when it may not. Caller holds state_.mu.
  bool StormAllows(const std::string& node, TimeUs wall);
  // Queues `event` for the next step, with its engine log form.
  void AddEvent(engine::Event event, nlohmann::json logged);
  void ClearEvents();
  // Records a step (its events as logged, its decisions) in the engine log.
  void LogStep(TimeUs now, nlohmann::json events, const engine::Decisions& decisions);
  // Turns the idle steps gathered so far into one engine log record.
  void CloseIdleRecord(TimeUs now);
  // Takes the engine log's pending records (with a record of the idle steps since the last).
  std::vector<StoreWrite> TakeEngineLog(TimeUs now);
  // Commits the pending engine log when a second has passed since the last flush, or `force`.
  void FlushEngineLog(TimeUs now, bool force);
  // Journals a step's decisions in one commit, then hands each to the backend.
  void ApplyDecisions(const engine::Decisions& decisions, TimeUs now);
  void Sample(TimeUs now);
  // Publishes the engine's hot spares to the state when they changed.
  void PublishSpares();
  void ForgetFinished(TimeUs now);
  // `cancelled` (each was running or pending, now journaled as cancelled): into the state, out
  // of the backend and the engine.
  void ApplyCancelled(const std::vector<JobRecord>& cancelled, const std::vector<bool>& was_running,
                      TimeUs now);
  // Sets a service's count on the loop thread (ScaleService without the bounds check).
  ApiResult<ServiceScaled> ApplyScale(uint64_t service, uint32_t replicas, TimeUs now,
                                      std::string_view why);
  // Every autoscale_interval_us: each autoscaled service's count from its reported load
  // (live_loop_autoscale.cc).
  void Autoscale(TimeUs now);
  // The engine's allocations for `placement`, or nullopt when it does not fit `used_milli`.
  std::optional<std::vector<engine::TaskAllocation>> ToAllocations(
      const std::vector<TaskPlacement>& placement, std::vector<uint32_t>& used_milli,
      std::vector<int64_t>& used_cpu, std::vector<int64_t>& used_memory) const;
  // Publishes why the engine's pending jobs wait (published_). Skipped while less than ten times
  // the last publication's cost has passed since it, so that a queue of 200,000 jobs spends at
  // most a tenth of the loop on it.
  void PublishPending();
  void Log(std::string type, std::optional<uint64_t> job, std::optional<std::string> node,
           std::string message, TimeUs now);

  DaemonState& state_;
  Journal& journal_;
  EventLog& events_log_;
  Backend& backend_;
  const Clock& clock_;
  Histogram& cycle_seconds_;
  LoopOptions options_;

  std::mutex inbox_mu_;
  std::condition_variable inbox_cv_;
  std::vector<Input> inbox_;
  bool stopping_ = false;
  bool exited_ = false;  // The thread left its loop: calls run on the caller's thread.
  std::thread thread_;
  std::thread::id loop_thread_id_;

  // Owned by the loop thread.
  std::shared_ptr<const model::Cluster> cluster_;
  bool spares_shown_ = false;  // The state shows hot spares (PublishSpares).
  std::unique_ptr<engine::Engine> engine_;
  std::vector<uint64_t> daemon_of_engine_;
  std::unordered_map<uint64_t, JobId> engine_of_daemon_;
  std::vector<uint8_t> drained_in_engine_;  // By NodeId.
  // By DeviceId, what the engine was told: 0 in use, 1 withdrawn, 2 degraded (withdrawn but for
  // jobs that accept degraded devices).
  std::vector<uint8_t> withdrawn_in_engine_;
  // Per node name, the health_version of its book last stored.
  std::map<std::string, uint64_t> stored_health_version_;
  // (wall time, node) of each node health took a device of out of use, within the storm window.
  std::deque<std::pair<TimeUs, std::string>> health_withdrawals_;
  // state_.node_gates_version when drained_in_engine_ was last brought up to date.
  std::optional<uint64_t> synced_gates_version_;
  // By NodeId: the node's entry in state_.nodes (nullptr: none); read under state_.mu.
  std::vector<const NodeStatus*> status_of_node_;
  // For the next step, and each as the engine log records it (engine_log.h).
  std::vector<engine::Event> events_;
  std::vector<uint64_t> interrupted_since_step_;  // Daemon ids, for NoteHolds.
  std::vector<nlohmann::json> logged_events_;
  // Engine log records not committed yet, and idle steps not in a record yet.
  std::vector<StoreWrite> engine_log_;
  std::vector<TimeUs> idle_steps_us_;
  std::chrono::steady_clock::time_point engine_log_flushed_;
  bool rebuild_ = true;
  TimeUs retry_at_us_ = 0;  // After a failed commit: rebuild from the store's view then.
  TimeUs last_now_us_ = 0;
  TimeUs next_sample_us_ = 0;
  TimeUs next_forget_us_ = 0;
  TimeUs next_snapshot_us_ = kNever;
  // Events logged since the last snapshot, not counting the restores and resubmissions that the
  // rebuild queued (snapshot_events_: they are the snapshot, not its tail).
  uint64_t events_since_snapshot_ = 0;
  size_t snapshot_events_ = 0;
  // Autoscaled services' HPA state (engine/autoscaler.h), from the first sync after the daemon
  // started or the service was submitted, and when each began.
  struct AutoscaledService {
    engine::Autoscaler autoscaler;
    TimeUs since_us;
  };
  std::map<uint64_t, AutoscaledService> autoscalers_;
  TimeUs next_autoscale_us_ = 0;
  // What the last engine learned, for the next one while there is none (an empty cluster).
  engine::CarriedState carried_;
  std::chrono::steady_clock::time_point last_iteration_;
  std::chrono::steady_clock::time_point last_publish_;
  std::chrono::steady_clock::duration last_publish_cost_{};

  // Why the pending jobs wait, as last published: immutable once published, so readers on
  // other threads use it without waiting for the loop.
  struct PendingView {
    bool engine = false;  // Without an engine every pending job is unschedulable.
    std::map<std::string, uint64_t> counts;  // By first reason, for /metrics.
    uint64_t explained = 0;                  // Their sum.
    engine::PendingSnapshot snapshot;
    std::vector<std::pair<uint64_t, uint32_t>> by_job;  // (daemon job id, index in jobs), sorted.
    std::vector<engine::Engine::TenantFairShare> tenants;
    std::vector<engine::Engine::QueueFairShare> queue_shares;
    engine::QuotaTree queues;
  };
  std::shared_ptr<const PendingView> Published() const;
  mutable std::mutex published_mu_;
  std::shared_ptr<const PendingView> published_;  // Swapped under published_mu_.
  // Guards options_.policy and policy_text against readers on other threads; the loop thread
  // alone writes them (SetPolicy) and reads them without it.
  mutable std::mutex policy_mu_;
};

}  // namespace headroom::control
