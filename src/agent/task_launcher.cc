#include "agent/task_launcher.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "agent/agent_log.h"
#include "agent/proc_stat.h"
#include "agent/task_environment.h"

namespace headroom::agent {

Result<TaskLauncher> TaskLauncher::Create(LauncherOptions options) {
  const std::filesystem::path dir = std::filesystem::path(options.work_dir) / "tasks";
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return MakeError(ErrorCode::kIo, "cannot create the task directory {}: {} (check --work-dir)",
                     dir.string(), error.message());
  }
  return TaskLauncher(std::move(options));
}

std::string TaskLauncher::StdoutPath(const TaskKey& key) const {
  return fmt::format("{}/tasks/job-{}-rank-{}-attempt-{}.out", options_.work_dir, key.job, key.rank,
                     key.attempt);
}

std::string TaskLauncher::StderrPath(const TaskKey& key) const {
  return fmt::format("{}/tasks/job-{}-rank-{}-attempt-{}.err", options_.work_dir, key.job, key.rank,
                     key.attempt);
}

void TaskLauncher::Reconcile(const std::vector<DesiredTask>& desired, Admission admission,
                             TimeUs now_us) {
  std::set<TaskKey> wanted;
  for (const DesiredTask& spec : desired) wanted.insert(spec.key);
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    Task& task = it->second;
    task.desired = wanted.contains(it->first);
    if (!task.desired) {
      if (task.exit_code && task.exit_acknowledged) {
        it = tasks_.erase(it);
        continue;
      }
      if (!task.exit_code && !task.stopping) BeginStop(task, now_us);
    }
    ++it;
  }
  if (admission == Admission::kHoldNew) return;
  // A task not started yet waits while a process of another task (one being stopped: an
  // earlier attempt, a cancelled job) still holds one of its devices.
  std::set<int> held;
  for (const auto& [key, task] : tasks_) {
    if (!task.exit_code) held.insert(task.spec.devices.begin(), task.spec.devices.end());
  }
  for (const DesiredTask& spec : desired) {
    if (tasks_.contains(spec.key)) continue;
    bool free = true;
    for (const int device : spec.devices) free = free && !held.contains(device);
    if (free) Start(spec);
  }
}

void TaskLauncher::Start(const DesiredTask& spec) {
  Task task;
  task.spec = spec;
  for (const int device : spec.devices) {
    if (!options_.device_indices.contains(device)) {
      task.exit_code = kCannotStartExitCode;
      task.message = fmt::format("this node has no device {}", device);
      tasks_.emplace(spec.key, std::move(task));
      return;
    }
  }
  const std::string stderr_path = StderrPath(spec.key);
  auto process = ChildProcess::Spawn({.argv = spec.command,
                                      .env = TaskEnvironment(spec, options_.agent_env),
                                      .stdout_path = StdoutPath(spec.key),
                                      .stderr_path = stderr_path});
  if (!process) {
    task.exit_code = kCannotStartExitCode;
    task.message = process.error().message;
    std::ofstream(stderr_path, std::ios::app) << "headroom-agent: " << task.message << '\n';
    tasks_.emplace(spec.key, std::move(task));
    return;
  }
  task.pid = process->pid();
  task.process.emplace(std::move(*process));
  // The child is unreaped until Poll sees it exit, so its /proc entry is there to read.
  const std::optional<ProcStat> stat = ReadProcStat(task.pid);
  task.record =
      TaskRecord{.job = spec.key.job,
                 .rank = spec.key.rank,
                 .attempt = spec.key.attempt,
                 .pid = task.pid,
                 .pgid = task.pid,
                 .start_ticks = stat ? stat->start_ticks : 0,
                 .devices = spec.devices,
                 .started_unix_s = std::chrono::duration_cast<std::chrono::seconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count()};
  tasks_.emplace(spec.key, std::move(task));
  SaveRecords();
}

void TaskLauncher::SaveRecords() {
  if (options_.record_path.empty()) return;
  std::vector<TaskRecord> records;
  for (const auto& [key, task] : tasks_) {
    if (task.process && !task.exit_code) records.push_back(task.record);
  }
  auto saved = TaskRecordFile(options_.record_path).Save(records);
  if (!saved && saved.error().message != last_record_error_) {
    Log("cannot record the running tasks ({}); after a crash of this agent they would not be "
        "stopped at its restart",
        saved.error().message);
    last_record_error_ = saved.error().message;
  } else if (saved) {
    last_record_error_.clear();
  }
}

void TaskLauncher::BeginStop(Task& task, TimeUs now_us) {
  task.stopping = true;
  task.kill_at_us = now_us + task.spec.stop_grace_s * kUsPerSecond;
  if (task.process) task.process->SignalGroup(SIGTERM);
}

int TaskLauncher::Poll(TimeUs now_us) {
  int exited = 0;
  for (auto& [key, task] : tasks_) {
    if (task.exit_code || !task.process) continue;
    if (const std::optional<int> code = task.process->Poll()) {
      task.exit_code = *code;
      task.exit_acknowledged = false;
      ++exited;
      continue;
    }
    if (task.stopping && now_us >= task.kill_at_us) {
      task.process->SignalGroup(SIGKILL);
      task.kill_at_us = kNever;
    }
  }
  if (exited > 0) SaveRecords();
  return exited;
}

void TaskLauncher::StopAll(TimeUs now_us) {
  for (auto& [key, task] : tasks_) {
    if (!task.exit_code && !task.stopping) BeginStop(task, now_us);
  }
}

void TaskLauncher::KillAll() {
  for (auto& [key, task] : tasks_) {
    if (!task.exit_code && task.process) task.process->SignalGroup(SIGKILL);
  }
}

std::vector<TaskReport> TaskLauncher::Reports() const {
  std::vector<TaskReport> reports;
  for (const auto& [key, task] : tasks_) {
    TaskReport report{.key = key, .pid = task.pid, .message = task.message};
    if (task.exit_code) {
      report.state = TaskState::kExited;
      report.exit_code = task.exit_code;
    } else {
      report.state = TaskState::kRunning;
    }
    reports.push_back(std::move(report));
  }
  return reports;
}

void TaskLauncher::Acknowledge(const std::vector<TaskReport>& reports) {
  for (const TaskReport& report : reports) {
    if (report.state != TaskState::kExited) continue;
    if (auto it = tasks_.find(report.key); it != tasks_.end() && it->second.exit_code) {
      it->second.exit_acknowledged = true;
    }
  }
}

std::map<int, DeviceUser> TaskLauncher::DeviceUsers() const {
  std::map<int, DeviceUser> users;
  for (const auto& [key, task] : tasks_) {  // Ordered by job: the lowest job id wins.
    if (task.exit_code) continue;
    for (const int device : task.spec.devices) {
      users.emplace(device, DeviceUser{.job = key.job, .tenant = task.spec.tenant});
    }
  }
  return users;
}

bool TaskLauncher::HasNewTasks(const std::vector<DesiredTask>& desired) const {
  return std::any_of(desired.begin(), desired.end(),
                     [&](const DesiredTask& spec) { return !tasks_.contains(spec.key); });
}

bool TaskLauncher::HasRunningTasks() const {
  for (const auto& [key, task] : tasks_) {
    if (!task.exit_code) return true;
  }
  return false;
}

}  // namespace headroom::agent
