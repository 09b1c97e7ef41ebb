// TaskRecordFile: the agent's durable list of the task processes it started, in
// WORK_DIR/state/tasks.json, so that an agent restarted after a crash (kill -9, OOM, a bug) can
// find and stop what its predecessor left running before it registers (leftover_tasks.h).
//
// Promises:
//  1. Save replaces the file atomically: the new contents go to a temporary file in the same
//     directory, which is fsynced and renamed over the old one, and the directory is fsynced.
//     A crash at any point leaves either the old or the new list, never a torn one.
//  2. Load of a missing file is an empty list; a file that is too large (over 4 MiB), not JSON,
//     or has a field of the wrong type is an error naming the file and the field, so a corrupt
//     record is never read as "nothing left running".
//  3. A record names a process by (pid, start_ticks) — see proc_stat.h — so a pid reused by an
//     unrelated process is never taken for a task.
// Threading: single-threaded (the agent loop); one writer per work directory.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace headroom::agent {

struct TaskRecord {
  int64_t job = 0;
  int rank = 0;
  int64_t attempt = 1;
  pid_t pid = 0;             // The task's main process.
  pid_t pgid = 0;            // Its process group (the task leads it: equal to pid).
  uint64_t start_ticks = 0;  // Of the main process, from /proc/PID/stat.
  std::vector<int> devices;
  int64_t started_unix_s = 0;  // Wall clock, for the operator reading the file or the log.
  auto operator<=>(const TaskRecord&) const = default;
};

class TaskRecordFile {
 public:
  // `path` is the file; its directory is created by Save when missing.
  explicit TaskRecordFile(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  Result<std::vector<TaskRecord>> Load() const;
  Result<void> Save(const std::vector<TaskRecord>& records) const;

 private:
  std::string path_;
};

}  // namespace headroom::agent
