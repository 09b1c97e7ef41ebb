// StopLeftoverTasks: at start, before registering, the agent stops every task process an
// earlier run of itself left behind (an agent killed with -9 cannot stop its tasks, and they
// would go on holding their devices while the daemon starts the job again). The earlier run's
// tasks come from its TaskRecordFile.
//
// Promises:
//  1. A recorded group is taken for the task's only while it is provably the same: its leader
//     (pid == pgid) is alive with the recorded start time, or — the leader having exited — live
//     members of that group started no earlier than the leader did. A leader pid alive with
//     another start time means the pid was reused, which Linux does only once the whole group
//     is gone: nothing of the task is left and nothing is signalled.
//  2. Each group still alive gets SIGTERM (the task's checkpoint signal), then SIGKILL once
//     `term_grace_us` has passed; all groups share one grace period.
//  3. The result lists what was found and stopped. It is an error, naming the processes, when a
//     group still has live members `kill_wait_us` after SIGKILL (e.g. stuck in the GPU driver,
//     state D): the node's devices may still be held, so the agent must not register.
// Zombies count as gone: they hold no device, and only their new parent can reap them.
// Threading: blocks the calling thread (up to term_grace_us + kill_wait_us); call before the
// agent loop starts.
#pragma once

#include <string>
#include <vector>

#include "agent/task_record_file.h"
#include "base/result.h"
#include "base/time.h"

namespace headroom::agent {

struct LeftoverOptions {
  TimeUs term_grace_us = 5 * kUsPerSecond;
  TimeUs kill_wait_us = 10 * kUsPerSecond;
};

struct StoppedLeftover {
  TaskRecord record;
  bool needed_kill = false;  // Still alive after the grace period: SIGKILLed.
};

Result<std::vector<StoppedLeftover>> StopLeftoverTasks(const std::vector<TaskRecord>& records,
                                                       const LeftoverOptions& options);

}  // namespace headroom::agent
