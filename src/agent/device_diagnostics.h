// DeviceDiagnostics: the agent's side of active diagnostics (DCGM's `dcgmi diag -r 3`: about
// 15 minutes of memory, PCIe, GEMM, NCCL and power tests). headroomd names the devices it wants
// diagnosed (model/diagnostics_protocol.h); the operator's command runs for each of them in turn
// through /bin/sh -c, with "{device}" in it replaced by the device index and HEADROOM_DEVICE set,
// e.g. `dcgmi diag -r 3 -i {device}`. Exit status 0 passes the device.
//
// Promises: one device at a time, never one twice in the queue; a run past its timeout is killed
// with its process group and fails; a failing result's message names the exit code (or the
// timeout) and the last line the command wrote; Tick never blocks.
// Threading: single-threaded; owned by the agent loop. Times are steady-clock microseconds.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "agent/child_process.h"
#include "base/time.h"
#include "model/diagnostics_protocol.h"

namespace headroom::agent {

struct DiagnosticsOptions {
  std::string command;  // Empty: the agent runs no diagnostics (and does not poll for them).
  TimeUs timeout_us = 1800 * kUsPerSecond;
  std::string output_path;  // Each run's stdout and stderr (truncated per run).
  std::vector<std::string> env;
};

class DeviceDiagnostics {
 public:
  explicit DeviceDiagnostics(DiagnosticsOptions options) : options_(std::move(options)) {}

  bool enabled() const { return !options_.command.empty(); }
  // Whether a run is going on or devices wait for one.
  bool busy() const { return running_.has_value() || !queue_.empty(); }
  // Queues the devices that are neither queued nor running.
  void Want(const std::vector<uint32_t>& devices);
  // Finishes a run that ended or timed out, starts the next; never blocks.
  void Tick(TimeUs now_us);
  // The results finished since the last call.
  std::vector<model::DiagnosticsResult> TakeResults();
  // Kills a running command (the agent is stopping).
  void Stop();

 private:
  void Start(uint32_t device, TimeUs now_us);

  DiagnosticsOptions options_;
  std::deque<uint32_t> queue_;
  std::optional<ChildProcess> running_;
  uint32_t running_device_ = 0;
  TimeUs started_us_ = 0;
  std::vector<model::DiagnosticsResult> results_;
};

}  // namespace headroom::agent
