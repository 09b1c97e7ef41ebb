// ReadinessCheck: the short health check a node passes before expensive work is admitted to it
// (DESIGN.md "Health", after DCGM's `dcgmi diag -r 1` run level). The operator's command runs
// through /bin/sh -c with a timeout, at start and then periodically; exit status 0 means ready.
// The agent reports the verdict in every heartbeat and starts no new task while not ready.
//
// Promises:
//  1. Without a command the node is always ready with an empty message.
//  2. A failing check's message names the exit code (or the timeout) and the last line the
//     command wrote, e.g. "readiness check exited 1: GPU 3 failed memory test"; a passing
//     check's message is empty.
//  3. A check past its timeout is killed with its whole process group; at most one runs at a
//     time; Tick never blocks.
//  4. Until the first check finishes the node is not ready ("readiness check running").
//  5. With verified_for_us, VerifiedAt says whether a check passed within that long; CheckNow
//     runs one at the next Tick (unless one runs already). While it runs the node keeps its
//     last verdict: work is held back by the caller, not reported as not ready.
//  6. Fail (a check across a gang's nodes failed) makes the node not ready with the caller's
//     message until a check passes, the next one interval on; without a command, for one
//     interval.
// Threading: single-threaded; owned by the agent loop. Times are steady-clock microseconds the
// caller passes in.
#pragma once

#include <optional>
#include <string>

#include "agent/child_process.h"
#include "base/time.h"

namespace headroom::agent {

struct ReadinessOptions {
  std::string command;  // Empty: no check.
  TimeUs timeout_us = 60 * kUsPerSecond;
  TimeUs interval_us = 300 * kUsPerSecond;
  // A new task starts only on a node that passed a check within this long (DCGM's run level 1
  // before work is admitted); 0: the periodic checks suffice.
  TimeUs verified_for_us = 0;
  std::string output_path;  // The check's stdout and stderr go here (truncated per run).
  std::vector<std::string> env;
};

struct Readiness {
  bool ready = false;
  std::string message;
};

// The last non-blank line a check wrote to `path` (read from its last 64 KiB), at most 200
// characters; "" when none.
std::string LastOutputLine(const std::string& path);

class ReadinessCheck {
 public:
  explicit ReadinessCheck(ReadinessOptions options);

  // Starts a check when one is due, finishes a running one that has ended or timed out.
  void Tick(TimeUs now_us);
  // Whether a verdict exists (always true without a command).
  bool has_verdict() const { return has_verdict_; }
  const Readiness& current() const { return current_; }
  // Whether a new task may start at `now_us`: the node is ready and, with verified_for_us, a
  // check passed within it.
  bool VerifiedAt(TimeUs now_us) const;
  // Runs a check at the next Tick, unless one is running.
  void CheckNow(TimeUs now_us);
  // The node is not ready, saying `message` (a check across a gang's nodes failed), until a
  // readiness check passes; the next runs one interval on. Without a command: for one interval.
  void Fail(std::string message, TimeUs now_us);
  // Checks finished so far (passed, failed or timed out).
  uint64_t finished() const { return finished_; }

 private:
  void Start(TimeUs now_us);
  void Finish(int exit_code);

  ReadinessOptions options_;
  Readiness current_;
  bool has_verdict_ = false;
  std::optional<ChildProcess> running_;
  TimeUs started_us_ = 0;
  TimeUs next_us_ = 0;           // When the next check is due.
  TimeUs passed_us_ = -1;        // When a check last passed; -1: never.
  TimeUs failed_until_us_ = -1;  // Without a command: Fail's verdict holds until then.
  uint64_t finished_ = 0;
};

}  // namespace headroom::agent
