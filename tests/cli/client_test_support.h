// Test support for the client-side tests (CLI verbs, dashboard, Prometheus scrape): running
// the `headroom` binary and capturing its output, starting long-lived programs (headroomd,
// chromium, prometheus) as child processes that are always stopped again, free loopback ports,
// and a headroomd started on a small generated cluster with the simulated backend.
// Single-threaded: each test owns its processes; nothing outlives the test that started it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace headroom::testing {

struct CommandOutcome {
  int status = -1;  // exit status, -1 when it did not exit normally
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `argv` to completion with `env` added to the environment; captures both streams.
CommandOutcome RunProgram(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env = {},
                          const std::string& stdin_text = "");

// Runs the `headroom` binary with these arguments.
CommandOutcome RunHeadroom(const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env = {});

// The full path of a program on PATH (or in /usr/bin, /usr/sbin), if there is one.
std::optional<std::filesystem::path> FindProgram(const std::string& name);

// A loopback TCP port nobody listens on right now.
int FreePort();

// A process started in its own process group, stdout and stderr into `log`; Stop() (and the
// destructor) sends SIGTERM to the group, waits up to `grace`, then SIGKILL, and reaps it.
class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  // Returns false (with the reason in `error`) when the program could not be started.
  bool Start(const std::vector<std::string>& argv, const std::filesystem::path& log,
             std::string* error);
  // True while the process has not exited.
  bool Running();
  void Stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

// GET http://127.0.0.1:port/path until it answers 200 or the deadline passes.
bool WaitForHttp(int port, const std::string& path, std::chrono::milliseconds timeout);

std::string ReadText(const std::filesystem::path& path);

// A fresh temporary directory named after the running test, removed by the destructor.
class TestDir {
 public:
  TestDir();
  ~TestDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// headroomd on 127.0.0.1:<free port> with the simulated backend on a generated cluster of
// `devices` GPUs (8 per node, 16 per rack). Start() returns "" on success or why it failed.
class Daemon {
 public:
  struct Options {
    int devices = 32;
    std::vector<std::string> flags;  // Added to headroomd's.
  };
  explicit Daemon(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::string Start(const Options& options);
  void Stop() { process_.Stop(); }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  const std::string& admin_token() const { return admin_token_; }
  std::string Log() const { return ReadText(dir_ / "headroomd.log"); }
  // HEADROOM_SERVER and HEADROOM_TOKEN for `headroom` runs against this daemon.
  std::map<std::string, std::string> ClientEnv() const {
    return {{"HEADROOM_SERVER", url()}, {"HEADROOM_TOKEN", admin_token_}};
  }

 private:
  std::filesystem::path dir_;
  ChildProcess process_;
  int port_ = 0;
  std::string admin_token_;
};

// True when $HEADROOM_BIN/headroomd exists (the daemon is built in this tree).
bool DaemonBuilt();

}  // namespace headroom::testing
