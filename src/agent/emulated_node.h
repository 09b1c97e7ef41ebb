// EmulatedNode: one node of the agent emulator (agent_emulator.h) — an inventory of fake GPUs and
// tasks that "run" without a process: a desired task is reported running from the heartbeat
// reply that hands it out, and exited 0 once its duration has passed; a task no longer desired
// while it runs is reported exited 143 (stopped by SIGTERM). It follows the same reporting rules
// as TaskLauncher (docs/api.md "Agents"), so the daemon cannot tell it from a real agent.
//
// Promises:
//  1. A task's duration is N seconds when its command is `sleep N` (N a number, optionally with
//     an s, m or h suffix, as sleep(1) reads it); otherwise the emulator's default.
//  2. An exit is reported in every heartbeat until the task is no longer desired and a reply
//     acknowledged that exit; a desired task is never started twice.
//  3. NextExitUs is the earliest time a running task ends (kNever: none), so the driver can send
//     a heartbeat at once when a task exits, as the real agent does.
//  4. version() changes whenever the body Heartbeat returns would change (a task handed out,
//     exited, stopped or forgotten), so the driver may keep an encoded body until it does.
// Threading: plain data; owned by one emulator worker thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent_protocol.h"
#include "base/time.h"

namespace headroom::agent {

struct EmulatedTaskCounts {
  int64_t started = 0;
  int64_t exited = 0;   // Ran their duration and exited 0.
  int64_t stopped = 0;  // No longer desired while running.
};

class EmulatedNode {
 public:
  EmulatedNode(std::string name, int devices, TimeUs default_task_us);

  const std::string& name() const { return name_; }
  // The registration body: `devices` H100s of 80 GiB, 64 cores, 512 GiB.
  RegisterRequest Registration(const std::string& address) const;
  // Marks every task whose duration has passed as exited; then the heartbeat body.
  HeartbeatRequest Heartbeat(TimeUs now_us);
  // The daemon answered `sent` (the body of Heartbeat) with `desired`.
  void Answered(const HeartbeatRequest& sent, const std::vector<DesiredTask>& desired,
                TimeUs now_us, EmulatedTaskCounts& counts);
  TimeUs NextExitUs() const;
  uint64_t version() const { return version_; }

 private:
  struct Task {
    TimeUs end_us = kNever;
    std::vector<int> devices;
    std::optional<std::string> tenant;
    std::optional<int> exit_code;
    bool acknowledged = false;
  };

  std::string name_;
  int devices_;
  TimeUs default_task_us_;
  std::map<TaskKey, Task> tasks_;
  int64_t exits_pending_ = 0;  // Exits found by Heartbeat not yet counted.
  uint64_t version_ = 0;
};

// The duration of a task running `command` (promise 1).
TimeUs EmulatedDurationUs(const std::vector<std::string>& command, TimeUs default_us);

}  // namespace headroom::agent
