// Helpers for the agent's tests: a scratch directory removed at the end, whole-file reads, and a
// bounded wait for a condition (each test states its own deadline; none asserts on wall time).
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace headroom::agent::testing {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "headroom-agent-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline bool FileExists(const std::string& path) { return std::filesystem::exists(path); }

// Polls `done` every 10 ms until it holds or `limit` passes; returns whether it held.
inline bool WaitUntil(const std::function<bool()>& done,
                      std::chrono::milliseconds limit = std::chrono::milliseconds(10'000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// Whether a process with this pid still exists (a zombie counts).
inline bool ProcessExists(pid_t pid) { return pid > 0 && kill(pid, 0) == 0; }

// At scope exit, kills the process groups led by the pids written in `files` (by tasks that run
// `echo $$ > FILE`), so a test failing midway leaves no task running after its agent is gone.
class GroupKiller {
 public:
  explicit GroupKiller(std::vector<std::string> files) : files_(std::move(files)) {}
  ~GroupKiller() {
    for (const std::string& file : files_) {
      std::ifstream in(file);
      pid_t pid = 0;
      if (in >> pid && pid > 1 && getpgid(pid) == pid) kill(-pid, SIGKILL);
    }
  }
  GroupKiller(const GroupKiller&) = delete;
  GroupKiller& operator=(const GroupKiller&) = delete;

 private:
  std::vector<std::string> files_;
};

}  // namespace headroom::agent::testing
