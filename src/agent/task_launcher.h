// TaskLauncher: the tasks running on this node, reconciled against the daemon's declarative
// desired set (docs/api.md "Agents"). Each task is a ChildProcess with the environment of
// task_environment.h and its stdout/stderr in
// WORK_DIR/tasks/job-<job>-rank-<rank>-attempt-<attempt>.{out,err}.
//
// Promises:
//  1. Reconcile starts every desired task it does not know — only with Admission::kStartNew
//     (the node is ready), only on devices the node has, and only once no process of another
//     task holds one of its devices — and stops every running task that is not desired: SIGTERM to
//     its process group (the checkpoint signal), SIGKILL to the group once its stop_grace_s has
//     passed (Poll escalates).
//  2. A desired task that exits is reported `exited` with its exit code in every report until
//     it is no longer desired and that exit has been acknowledged; it is never restarted while
//     desired. A task stopped because it was no longer desired is reported `running` until it
//     exits, then `exited` until one report carrying that exit is acknowledged.
//  3. A desired task that cannot start (an unknown device, a program that cannot be executed)
//     is reported `exited` with exit code 127 and a message saying why.
//  4. Every started process is reaped; destroying the launcher kills and reaps what still runs.
//  5. With a record_path, every started process that has not been reaped yet is listed in that
//     TaskRecordFile, rewritten (atomically) after each start and each exit, so that an agent
//     restarted after a crash can stop what this one left (leftover_tasks.h). A failed write is
//     logged once per distinct error; the task runs regardless.
// Threading: single-threaded; owned by the agent loop. Times are steady-clock microseconds the
// caller passes in.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/agent_protocol.h"
#include "agent/child_process.h"
#include "agent/task_record_file.h"
#include "base/time.h"

namespace headroom::agent {

inline constexpr int kCannotStartExitCode = 127;

struct LauncherOptions {
  std::string work_dir;                // Task output goes to work_dir/tasks/.
  std::vector<std::string> agent_env;  // The base of every task's environment.
  std::set<int> device_indices;        // The devices this node has.
  std::string record_path;             // The TaskRecordFile; empty: none is kept.
};

// Whether Reconcile may start tasks: the node's readiness verdict.
enum class Admission { kStartNew, kHoldNew };

// Who uses a device, for labelling its telemetry.
struct DeviceUser {
  int64_t job = 0;
  std::optional<std::string> tenant;
};

class TaskLauncher {
 public:
  // Creates work_dir/tasks; an error says which directory could not be made.
  static Result<TaskLauncher> Create(LauncherOptions options);

  void Reconcile(const std::vector<DesiredTask>& desired, Admission admission, TimeUs now_us);
  // Reaps tasks that exited and sends SIGKILL to stopping tasks past their grace; returns how
  // many tasks exited in this call. Never blocks.
  int Poll(TimeUs now_us);
  // Begins stopping every task (SIGTERM now, SIGKILL after each one's grace via Poll).
  void StopAll(TimeUs now_us);
  // Sends SIGKILL to every task still running (a second stop request).
  void KillAll();

  // The tasks to put in the next heartbeat, ordered by key.
  std::vector<TaskReport> Reports() const;
  // Records that `reports` reached the daemon (its 200 reply).
  void Acknowledge(const std::vector<TaskReport>& reports);

  // The running task using each device; on a shared device the lowest job id.
  std::map<int, DeviceUser> DeviceUsers() const;
  bool HasRunningTasks() const;
  // Whether the launcher started (or tried to start) the task.
  bool Knows(const TaskKey& key) const { return tasks_.contains(key); }
  // Whether `desired` holds a task this launcher has not started (Reconcile would start it).
  bool HasNewTasks(const std::vector<DesiredTask>& desired) const;
  // The work-dir paths of a task's output.
  std::string StdoutPath(const TaskKey& key) const;
  std::string StderrPath(const TaskKey& key) const;

 private:
  struct Task {
    DesiredTask spec;
    std::optional<ChildProcess> process;  // Absent when the task could not start.
    pid_t pid = 0;
    std::optional<int> exit_code;
    std::string message;
    bool desired = true;
    bool stopping = false;
    TimeUs kill_at_us = kNever;
    bool exit_acknowledged = false;
    TaskRecord record;  // Valid while process holds an unreaped program.
  };

  explicit TaskLauncher(LauncherOptions options) : options_(std::move(options)) {}
  void Start(const DesiredTask& spec);
  void BeginStop(Task& task, TimeUs now_us);
  void SaveRecords();

  LauncherOptions options_;
  std::map<TaskKey, Task> tasks_;
  std::string last_record_error_;
};

}  // namespace headroom::agent
