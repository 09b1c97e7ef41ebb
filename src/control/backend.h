// Backend: where the live loop's decisions are carried out and where their outcomes come
// from — the simulated digital twin (simulated_backend.h) or node agents (agents_backend.h).
// The loop hands a backend every engine decision (one method per kind; the loop visits each
// step's decisions exhaustively, engine/decision.h) and what must stop; Poll reports what
// ended, which nodes were lost (their work is requeued) and whether the cluster itself changed
// (the loop rebuilds the engine). tests/control/backend_contract_test.cc holds every backend
// to the same scenarios.
// Threading: every method is called on the live loop's thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/time.h"
#include "control/records.h"
#include "engine/decision.h"
#include "model/cluster.h"

namespace headroom::control {

struct Completion {
  uint64_t job = 0;
  int32_t exit_code = 0;
  std::string message;
  TimeUs end_us = 0;  // When it ended, where the backend knows exactly; 0: when reported.
};

// A running job a fault ended, and the node where it was (empty: not known): the policy's
// recovery.hold_after counts the different nodes (engine/event.h JobInterrupted).
struct EndedJob {
  uint64_t job = 0;
  std::string node;
};

struct BackendReport {
  std::vector<Completion> completions;
  std::vector<std::string> lost_nodes;  // Their running jobs go back to the queue.
  // Running jobs whose tasks are gone (their agent restarted): back to the queue.
  std::vector<EndedJob> lost_jobs;
  // Running jobs a task of which exited as its device failed: requeued as an interruption.
  std::vector<EndedJob> faulted_jobs;
  // Running jobs placed on a node that failed its readiness check before their tasks there
  // started: requeued as an interruption on that node.
  std::vector<EndedJob> unstarted_jobs;
  bool cluster_changed = false;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // The cluster the engine should run on now (nullptr: no node known yet).
  virtual std::shared_ptr<const model::Cluster> CurrentCluster() = 0;
  // `job` started (or was restored after a restart) at `job.start_us` with these tasks. A
  // restore of the attempt the backend already runs (the loop rebuilt its engine) changes
  // nothing: progress and exits seen so far are kept.
  virtual void OnStart(const JobRecord& job, const std::vector<engine::TaskAllocation>& tasks,
                       const model::Cluster& cluster) = 0;
  // `job` moves at `now_us`: its earlier attempt gets the checkpoint signal and stops, and it
  // restarts as attempt `job.starts` on `move.tasks`, continuing its remaining work after
  // `move.pause_us` (checkpoint + restart). Its time limit still counts from `job.start_us`.
  virtual void OnMigrate(const JobRecord& job, const engine::MigrateJob& move, TimeUs now_us,
                         const model::Cluster& cluster) = 0;
  // `job` was preempted at `now_us` and is pending again: its attempt gets the checkpoint
  // signal and stops, and nothing is reported for it; its next start (OnStart) resumes from
  // its last checkpoint (every `preemption.checkpoint_interval_us` of work) after
  // `preemption.restart_us`.
  virtual void OnPreempt(const JobRecord& job, const engine::PreemptJob& preemption,
                         TimeUs now_us) = 0;
  // `job` runs on from `now_us` with its devices under `cap`'s limits (`job.placement` carries
  // them too): slower, by `cap.speed` as the engine projects it, and drawing less.
  virtual void OnCap(const JobRecord& job, const engine::CapJob& cap, TimeUs now_us,
                     const model::Cluster& cluster) = 0;
  // `job` must stop (cancelled or requeued); nothing is reported for it afterwards.
  virtual void OnStop(uint64_t job) = 0;
  virtual BackendReport Poll(TimeUs now_us) = 0;
  // When Poll has something to report at the latest, absent new input (kNever: nothing).
  virtual TimeUs NextPollUs(TimeUs now_us) const = 0;
};

}  // namespace headroom::control
