#include "agent/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "base/check.h"

namespace headroom::agent {
namespace {

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

std::vector<char*> Pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

Result<ChildProcess> ChildProcess::Spawn(const SpawnOptions& options) {
  if (options.argv.empty() || options.argv[0].empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "cannot start a process: the command is empty");
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  HR_CHECK(posix_spawn_file_actions_init(&actions) == 0);
  HR_CHECK(posix_spawnattr_init(&attributes) == 0);
  HR_CHECK(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) == 0);
  HR_CHECK(posix_spawn_file_actions_addopen(&actions, 1, options.stdout_path.c_str(),
                                            O_WRONLY | O_CREAT | O_APPEND, 0644) == 0);
  HR_CHECK(posix_spawn_file_actions_addopen(&actions, 2, options.stderr_path.c_str(),
                                            O_WRONLY | O_CREAT | O_APPEND, 0644) == 0);
  HR_CHECK(posix_spawn_file_actions_addclosefrom_np(&actions, 3) == 0);
  sigset_t all;
  sigset_t none;
  sigfillset(&all);
  sigemptyset(&none);
  HR_CHECK(posix_spawnattr_setsigdefault(&attributes, &all) == 0);
  HR_CHECK(posix_spawnattr_setsigmask(&attributes, &none) == 0);
  HR_CHECK(posix_spawnattr_setpgroup(&attributes, 0) == 0);
  HR_CHECK(posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
                                                     POSIX_SPAWN_SETPGROUP) == 0);
  std::vector<char*> argv = Pointers(options.argv);
  std::vector<char*> envp = Pointers(options.env);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    return MakeError(ErrorCode::kIo, "cannot start '{}': {}", options.argv[0],
                     std::strerror(error));
  }
  return ChildProcess(pid);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), exit_code_(other.exit_code_) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0 && !exit_code_) {
      SignalGroup(SIGKILL);
      Wait();
    }
    pid_ = std::exchange(other.pid_, -1);
    exit_code_ = other.exit_code_;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_code_) {
    SignalGroup(SIGKILL);
    Wait();
  }
}

int ChildProcess::exit_code() const {
  HR_CHECK(exit_code_.has_value());
  return *exit_code_;
}

std::optional<int> ChildProcess::Poll() {
  if (exit_code_) return exit_code_;
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  // WNOWAIT leaves the leader a zombie, which keeps its pid (the group id) from being reused
  // while the rest of the group is killed.
  int rc = 0;
  do {
    rc = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc != 0 && errno == EINTR);
  HR_CHECK(rc == 0);
  if (info.si_pid == 0) return std::nullopt;
  return Reap();
}

int ChildProcess::Wait() {
  if (exit_code_) return *exit_code_;
  siginfo_t info;
  int rc = 0;
  do {
    rc = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT);
  } while (rc != 0 && errno == EINTR);
  HR_CHECK(rc == 0);
  return Reap();
}

int ChildProcess::Reap() {
  kill(-pid_, SIGKILL);  // What is left of the group; ESRCH when nothing is.
  int status = 0;
  pid_t reaped = 0;
  do {
    reaped = waitpid(pid_, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  HR_CHECK(reaped == pid_);
  exit_code_ = ExitCodeOf(status);
  return *exit_code_;
}

void ChildProcess::SignalGroup(int signal) {
  if (pid_ <= 0 || exit_code_) return;
  kill(-pid_, signal);
}

}  // namespace headroom::agent
