// ChildProcess: one program the agent started (a task, a readiness check), leading its own
// process group, so that a signal reaches everything it spawned. The agent's only way to start,
// signal and reap processes.
//
// Promises:
//  1. Spawn starts `argv` (PATH-searched) with exactly `env`, stdin from /dev/null, stdout and
//     stderr appended to the given files, every signal at its default disposition and none
//     blocked, no descriptor of the agent's beyond 0-2 inherited, in a new process group whose
//     id is the child's pid. A program that cannot be executed is an error from Spawn (the
//     child never runs), not a later exit.
//  2. Poll() never blocks. When the leader has exited it kills what is left of its group
//     (SIGKILL, while the unreaped leader still pins the group id, so no unrelated process can
//     be hit), then reaps the leader: no zombies, no orphans left in the group.
//  3. The exit code is the program's status, or 128 + the signal that ended it (the shell's
//     convention).
//  4. Destroying a ChildProcess whose program still runs kills its group and reaps it.
// Processes that leave their group (setsid) escape signals and the final kill; containing
// those needs cgroups, which the agent does not manage.
// Threading: single-threaded; the owner is the only caller of waitpid for this pid.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace headroom::agent {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'.
  std::vector<std::string> env;   // "NAME=value" entries: the whole environment.
  std::string stdout_path;        // Created (0644) or appended to.
  std::string stderr_path;
};

class ChildProcess {
 public:
  static Result<ChildProcess> Spawn(const SpawnOptions& options);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  bool exited() const { return exit_code_.has_value(); }
  // Precondition: exited().
  int exit_code() const;

  // The exit code once the program has ended (then also exit_code()); nullopt while it runs.
  std::optional<int> Poll();
  // Blocks until the program ends; returns its exit code.
  int Wait();
  // Sends `signal` to the whole group; a no-op once exited.
  void SignalGroup(int signal);

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  // Kills the rest of the group and reaps the (already exited) leader.
  int Reap();

  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

}  // namespace headroom::agent
