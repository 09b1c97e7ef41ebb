// GangCheck: the check across a multi-node attempt's nodes before its tasks start on this node
// (issue "device health", part 4): a bad cable or NIC shows only in traffic between nodes, which
// a node's own readiness check never sends, so NVIDIA NVSentinel's preflight runs an NCCL
// all-reduce across a gang's nodes before its work. The operator's command runs through
// /bin/sh -c once per attempt, with the environment of the attempt's lowest rank here
// (task_environment.h: HEADROOM_RANK, HEADROOM_WORLD_SIZE, HEADROOM_RENDEZVOUS, MASTER_ADDR and
// MASTER_PORT, CUDA_VISIBLE_DEVICES), so that each node's run can meet the others' as the job's
// ranks would; exit status 0 passes. An attempt spans several nodes when this node is given
// fewer of its ranks than its world size.
//
// Promises:
//  1. Without a command nothing is held: Admit returns what it is given.
//  2. A check runs at most once per attempt; a task of a multi-node attempt that has not started
//     here is held back until its attempt's check passed, and for good once it failed.
//  3. A failure's message names the job, the attempt, the exit code (or the timeout) and the
//     last line the command wrote.
//  4. A check past its timeout is killed with its process group; Tick never blocks; the check of
//     an attempt no longer desired here is killed and forgotten.
// Threading: single-threaded; owned by the agent loop. Times are steady-clock microseconds the
// caller passes in.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/agent_protocol.h"
#include "agent/child_process.h"
#include "base/time.h"

namespace headroom::agent {

struct GangCheckOptions {
  std::string command;  // Empty: no check.
  TimeUs timeout_us = 120 * kUsPerSecond;
  std::string work_dir;                // Output in work_dir/gang-check-JOB-ATTEMPT.out.
  std::vector<std::string> agent_env;  // The base of the check's environment, as a task's.
};

class GangCheck {
 public:
  explicit GangCheck(GangCheckOptions options) : options_(std::move(options)) {}

  // The desired tasks Reconcile may act on: all but those of multi-node attempts that have not
  // started here (`started`) and whose check has not passed. Starts the checks they wait for.
  std::vector<DesiredTask> Admit(const std::vector<DesiredTask>& desired,
                                 const std::function<bool(const TaskKey&)>& started, TimeUs now_us);
  // Finishes checks that ended or timed out.
  struct Finished {
    int passed = 0;
    std::vector<std::string> failures;  // Their messages.
  };
  Finished Tick(TimeUs now_us);

 private:
  struct Attempt {
    std::optional<ChildProcess> running;
    TimeUs started_us = 0;
    bool passed = false;
    bool failed = false;
    std::string output_path;
  };
  using AttemptKey = std::pair<int64_t, int64_t>;  // (job, attempt)

  void Start(const AttemptKey& key, Attempt& attempt, const DesiredTask& lowest_rank,
             TimeUs now_us);

  GangCheckOptions options_;
  std::map<AttemptKey, Attempt> attempts_;
  std::vector<std::string> pending_failures_;  // Checks that could not start, for Tick.
};

}  // namespace headroom::agent
