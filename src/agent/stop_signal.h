// StopSignal: SIGINT and SIGTERM turned into something the agent loop can wait on. The handler
// counts the signal and writes a byte to a non-blocking self-pipe; WaitFor sleeps in poll() on
// that pipe, so a stop request ends any wait at once. SIGPIPE is ignored (a daemon closing a
// connection must not kill the agent); tasks get every signal back at its default (ChildProcess).
// Threading: Install once from main before other threads exist; the rest from the agent's thread.
#pragma once

#include "base/time.h"

namespace headroom::agent {

class StopSignal {
 public:
  // Installs the handlers (idempotent) and returns the process's one StopSignal.
  static StopSignal& Install();

  // How many stop signals arrived so far.
  int requests() const;
  // Sleeps up to `timeout_us` or until a stop signal arrives; true when one arrived since the
  // last WaitFor.
  bool WaitFor(TimeUs timeout_us);

 private:
  StopSignal() = default;
};

}  // namespace headroom::agent
