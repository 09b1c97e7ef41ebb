#include "agent/gang_check.h"

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "agent/readiness_check.h"
#include "agent/task_environment.h"

namespace headroom::agent {

std::vector<DesiredTask> GangCheck::Admit(const std::vector<DesiredTask>& desired,
                                          const std::function<bool(const TaskKey&)>& started,
                                          TimeUs now_us) {
  if (options_.command.empty()) return desired;
  // Each attempt's ranks here, the lowest first (the daemon lists them in rank order, but the
  // check must not depend on it).
  std::map<AttemptKey, std::vector<const DesiredTask*>> here;
  for (const DesiredTask& task : desired) here[{task.key.job, task.key.attempt}].push_back(&task);
  std::set<AttemptKey> held;
  for (auto& [key, tasks] : here) {
    const DesiredTask& first = **std::min_element(
        tasks.begin(), tasks.end(),
        [](const DesiredTask* a, const DesiredTask* b) { return a->key.rank < b->key.rank; });
    const bool on_several_nodes = static_cast<int>(tasks.size()) < first.world_size;
    const bool all_started = std::all_of(
        tasks.begin(), tasks.end(), [&](const DesiredTask* task) { return started(task->key); });
    if (!on_several_nodes || all_started) continue;
    Attempt& attempt = attempts_[key];
    if (attempt.passed) continue;
    held.insert(key);
    if (!attempt.failed && !attempt.running) Start(key, attempt, first, now_us);
  }
  // What is no longer desired here is no longer checked.
  for (auto it = attempts_.begin(); it != attempts_.end();) {
    if (here.contains(it->first)) {
      ++it;
      continue;
    }
    if (it->second.running) {
      it->second.running->SignalGroup(SIGKILL);
      it->second.running->Wait();
    }
    it = attempts_.erase(it);
  }
  std::vector<DesiredTask> admitted;
  for (const DesiredTask& task : desired) {
    if (!held.contains({task.key.job, task.key.attempt}) || started(task.key)) {
      admitted.push_back(task);
    }
  }
  return admitted;
}

void GangCheck::Start(const AttemptKey& key, Attempt& attempt, const DesiredTask& lowest_rank,
                      TimeUs now_us) {
  attempt.output_path =
      fmt::format("{}/gang-check-{}-{}.out", options_.work_dir, key.first, key.second);
  std::ofstream(attempt.output_path, std::ios::trunc).close();
  auto child = ChildProcess::Spawn({.argv = {"/bin/sh", "-c", options_.command},
                                    .env = TaskEnvironment(lowest_rank, options_.agent_env),
                                    .stdout_path = attempt.output_path,
                                    .stderr_path = attempt.output_path});
  if (!child) {
    // Tick reports it: a check that cannot run cannot pass.
    std::ofstream(attempt.output_path) << child.error().message << "\n";
    attempt.failed = true;
    pending_failures_.push_back(
        fmt::format("gang communication check of job {} attempt {} cannot start: {}", key.first,
                    key.second, child.error().message));
    return;
  }
  attempt.running.emplace(std::move(*child));
  attempt.started_us = now_us;
}

GangCheck::Finished GangCheck::Tick(TimeUs now_us) {
  Finished finished;
  finished.failures = std::move(pending_failures_);
  pending_failures_.clear();
  for (auto& [key, attempt] : attempts_) {
    if (!attempt.running) continue;
    std::optional<int> code = attempt.running->Poll();
    std::string ended;
    if (!code && now_us - attempt.started_us >= options_.timeout_us) {
      attempt.running->SignalGroup(SIGKILL);
      attempt.running->Wait();
      ended = fmt::format("timed out after {:g} s", UsToSeconds(options_.timeout_us));
    } else if (!code) {
      continue;
    } else if (*code == 0) {
      attempt.running.reset();
      attempt.passed = true;
      ++finished.passed;
      continue;
    } else {
      ended = fmt::format("exited {}", *code);
    }
    attempt.running.reset();
    attempt.failed = true;
    const std::string last = LastOutputLine(attempt.output_path);
    finished.failures.push_back(fmt::format("gang communication check of job {} attempt {} {}{}",
                                            key.first, key.second, ended,
                                            last.empty() ? "" : ": " + last));
  }
  return finished;
}

}  // namespace headroom::agent
