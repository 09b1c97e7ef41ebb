// AgentsBackend: real nodes run by headroom-agent (docs/api.md "Agents"). Nodes appear when
// agents register; the cluster the engine sees is every registered node, one flat domain.
// What a node must run is declarative: the running jobs placed on it (DesiredTasks), handed
// out in each heartbeat reply, each task with its attempt (the job's start count), so a task
// left over from an earlier attempt is told apart from the current one on both sides. Agents
// report exits; a gang completes when every rank of the current attempt exited 0 and fails as
// soon as one exits non-zero; exits of other attempts are ignored. A moved job is a new
// attempt on its new devices: the old attempt's tasks leave their nodes' desired sets, so
// their agents send them the checkpoint signal (SIGTERM, SIGKILL after stop_grace_s), and the
// new attempt's tasks start once the devices they take are free. A gang still running at its
// start + timeLimit fails with exit code 124 (as timeout(1)), and its tasks are stopped.
// A node silent for `grace` becomes unknown
// (no new work); silent for twice that it is down and its jobs are requeued; its heartbeats get
// 404 and it comes back by registering again.
// An agent registers only when it runs no task (at its start, after stopping every task an
// earlier run of it left, leftover_tasks.h; after a 404, once it stopped its tasks), so a
// registration requeues every job placed on the node before it (NodeStatus::abandoned_attempts)
// and hands none of their tasks out meanwhile: no new attempt, and no second copy of an attempt,
// starts on a device that an earlier process may still hold. Likewise a job placed on a node
// whose agent then reports it not ready, its tasks there never started (the agent holds new
// work while its readiness check fails, and checks before a start where asked to), is
// requeued as an interruption on that node (NodeStatus::unstarted_attempts).
// Threading: Registered/Reported are called by API threads (internally locked); the Backend
// methods by the live loop's thread. Node health lives in DaemonState under its mutex.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "control/backend.h"
#include "control/clock.h"
#include "control/daemon_state.h"
#include "control/event_log.h"

namespace headroom::control {

struct AgentsOptions {
  TimeUs heartbeat_interval_us = 2 * kUsPerSecond;
  TimeUs grace_us = 10 * kUsPerSecond;
  // Handed to agents with each task: SIGTERM (the checkpoint signal) to SIGKILL when stopped.
  int64_t stop_grace_s = 30;
};

struct ReportedExit {
  uint64_t job = 0;
  uint32_t rank = 0;
  int32_t exit_code = 0;
  std::optional<uint32_t> attempt;  // Absent: an agent that does not send it; taken as current.
  // A device of the task had failed when the exit was reported (ExitsPlacedOn sets it, and the
  // node that reported it).
  bool device_failed = false;
  std::string node;
};

// The desired set of `node`, as a heartbeat reply carries it (model/agent_protocol.h): each
// task's attempt is the job's start count, its devices the agent's indices, its rendezvous
// rank 0's "address:port", its tenant what the agent labels the devices' telemetry with.
// Caller holds state.mu.
std::vector<model::DesiredTask> DesiredTasks(const DaemonState& state, const std::string& node,
                                             int64_t stop_grace_s);

// (job, attempt) of every running job with a task on `node`. Caller holds state.mu.
std::vector<std::pair<uint64_t, uint32_t>> RunningAttemptsOn(const DaemonState& state,
                                                             const std::string& node);

// While the node is not `ready`, moves each running attempt placed on `node` whose tasks its
// heartbeat's `tasks` do not report to status.unstarted_attempts (the agent held them back as
// its readiness check failed; the backend requeues it). An agent reports every task of a
// desired attempt it started, an exited one included (task_launcher.h, promise 2), so an
// attempt it does not report never started there. Returns whether it moved any.
bool NoteUnstartedAttempts(const DaemonState& state, const std::string& node, NodeStatus& status,
                           const std::vector<model::TaskReport>& tasks, bool ready);

// The exits of `exits` that `node` may report: its job runs and its placement puts the rank
// on `node`, at the reported attempt (a report without one counts as the current attempt).
// Exits of an earlier attempt or of a job no longer running are dropped quietly (an agent
// reports what it stopped); an exit of a task placed on another node is dropped with a warning
// and counted in state.foreign_reports_total — an agent token acts for its own node only.
// Marks device_failed on the exits of tasks with a device the node's health book has failed.
// Caller holds state.mu.
std::vector<ReportedExit> ExitsPlacedOn(DaemonState& state, const std::string& node,
                                        std::vector<ReportedExit> exits);

// The cluster of registered nodes (nullptr when there is none). Caller holds state.mu.
std::shared_ptr<const model::Cluster> ClusterOfRegisteredNodes(const DaemonState& state);

class AgentsBackend : public Backend {
 public:
  AgentsBackend(DaemonState& state, EventLog& events, const Clock& clock, AgentsOptions options);

  const AgentsOptions& options() const { return options_; }
  // A node's inventory changed (a first or different registration).
  void Registered();
  void Reported(std::vector<ReportedExit> exits);
  // A registration or a failed readiness check left attempts to requeue
  // (NodeStatus::abandoned_attempts, unstarted_attempts): the next Poll walks the nodes,
  // whenever it last did.
  void Abandoned();

  std::shared_ptr<const model::Cluster> CurrentCluster() override;
  void OnStart(const JobRecord& job, const std::vector<engine::TaskAllocation>& tasks,
               const model::Cluster& cluster) override;
  void OnMigrate(const JobRecord& job, const engine::MigrateJob& move, TimeUs now_us,
                 const model::Cluster& cluster) override;
  void OnCap(const JobRecord& job, const engine::CapJob& cap, TimeUs now_us,
             const model::Cluster& cluster) override;
  void OnPreempt(const JobRecord& job, const engine::PreemptJob& preemption,
                 TimeUs now_us) override;
  void OnStop(uint64_t job) override;
  BackendReport Poll(TimeUs now_us) override;
  TimeUs NextPollUs(TimeUs now_us) const override;

 private:
  DaemonState& state_;
  EventLog& events_;
  const Clock& clock_;  // Silence is measured in its wall time.
  AgentsOptions options_;

  std::mutex mu_;
  bool cluster_changed_ = true;
  bool scan_nodes_ = false;
  std::vector<ReportedExit> exits_;

  // Loop thread only: per running job, its attempt, world size and deadline, and the exit
  // codes seen per rank.
  struct Gang {
    uint32_t attempt = 1;
    uint32_t world_size = 1;
    TimeUs deadline_us = kNever;
    std::map<uint32_t, int32_t> exits;
  };
  std::map<uint64_t, Gang> gangs_;
  std::set<std::pair<TimeUs, uint64_t>> deadlines_;  // (deadline, job) of every gang.
  TimeUs next_node_scan_wall_us_ = 0;

  void EraseGang(uint64_t job);
};

}  // namespace headroom::control
