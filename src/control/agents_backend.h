// AgentsBackend: real nodes run by headroom-agent (docs/api.md "Agents"). Nodes appear when
// agents register; the cluster the engine sees is every registered node, one flat domain.
// What a node must run is declarative: the running jobs placed on it (DesiredTasks), handed
// out in each heartbeat reply. Agents report exits; a gang completes when every rank exited
// 0 and fails as soon as one rank exits non-zero. A node silent for `grace` becomes unknown
// (no new work); silent for twice that it is down and its jobs are requeued; it comes back by
// registering again.
// Threading: Registered/Reported are called by API threads (internally locked); the Backend
// methods by the live loop's thread. Node health lives in DaemonState under its mutex.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "control/backend.h"
#include "control/daemon_state.h"
#include "control/event_log.h"

namespace headroom::control {

struct AgentsOptions {
  TimeUs heartbeat_interval_us = 2 * kUsPerSecond;
  TimeUs grace_us = 10 * kUsPerSecond;
};

struct ReportedExit {
  uint64_t job = 0;
  uint32_t rank = 0;
  int32_t exit_code = 0;
};

// One task a node must run, as a heartbeat reply carries it.
struct DesiredTask {
  uint64_t job = 0;
  uint32_t rank = 0;
  uint32_t world_size = 1;
  std::vector<uint32_t> devices;  // The agent's device indices.
  std::vector<std::string> command;
  std::vector<std::pair<std::string, std::string>> env;
  std::string rendezvous;  // "address:port" of rank 0.
  std::string tenant;      // The agent labels the task's devices' telemetry with it.
};

// The desired set of `node`. Caller holds state.mu.
std::vector<DesiredTask> DesiredTasks(const DaemonState& state, const std::string& node);

// The cluster of registered nodes (nullptr when there is none). Caller holds state.mu.
std::shared_ptr<const model::Cluster> ClusterOfRegisteredNodes(const DaemonState& state);

class AgentsBackend : public Backend {
 public:
  AgentsBackend(DaemonState& state, EventLog& events, AgentsOptions options);

  const AgentsOptions& options() const { return options_; }
  // A node's inventory changed (a first or different registration).
  void Registered();
  void Reported(std::vector<ReportedExit> exits);

  std::shared_ptr<const model::Cluster> CurrentCluster() override;
  void OnStart(const JobRecord& job, const std::vector<engine::TaskAllocation>& tasks,
               const model::Cluster& cluster) override;
  void OnStop(uint64_t job) override;
  BackendReport Poll(TimeUs now_us) override;
  TimeUs NextPollUs(TimeUs now_us) const override;

 private:
  DaemonState& state_;
  EventLog& events_;
  AgentsOptions options_;

  std::mutex mu_;
  bool cluster_changed_ = true;
  std::vector<ReportedExit> exits_;

  // Loop thread only: per running job, its world size and the exit codes seen per rank.
  struct Gang {
    uint32_t world_size = 1;
    std::map<uint32_t, int32_t> exits;
  };
  std::map<uint64_t, Gang> gangs_;
};

}  // namespace headroom::control
