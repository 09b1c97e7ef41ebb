#include "agent/device_diagnostics.h"

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "agent/readiness_check.h"

namespace headroom::agent {

void DeviceDiagnostics::Want(const std::vector<uint32_t>& devices) {
  for (uint32_t device : devices) {
    const bool known = (running_ && running_device_ == device) ||
                       std::find(queue_.begin(), queue_.end(), device) != queue_.end();
    if (!known) queue_.push_back(device);
  }
}

void DeviceDiagnostics::Tick(TimeUs now_us) {
  if (running_) {
    if (const std::optional<int> code = running_->Poll()) {
      const std::string last = LastOutputLine(options_.output_path);
      std::string message;
      if (*code != 0) {
        message = last.empty() ? fmt::format("diagnostics exited {}", *code)
                               : fmt::format("diagnostics exited {}: {}", *code, last);
      }
      results_.push_back({running_device_, *code == 0, std::move(message)});
      running_.reset();
    } else if (now_us - started_us_ >= options_.timeout_us) {
      running_->SignalGroup(SIGKILL);
      running_->Wait();
      running_.reset();
      results_.push_back(
          {running_device_, false,
           fmt::format("diagnostics timed out after {:g} s", UsToSeconds(options_.timeout_us))});
    } else {
      return;
    }
  }
  if (!queue_.empty()) {
    const uint32_t device = queue_.front();
    queue_.pop_front();
    Start(device, now_us);
  }
}

void DeviceDiagnostics::Start(uint32_t device, TimeUs now_us) {
  std::string command = options_.command;
  const std::string index = std::to_string(device);
  for (size_t at = command.find("{device}"); at != std::string::npos;
       at = command.find("{device}", at + index.size())) {
    command.replace(at, 8, index);
  }
  std::vector<std::string> env = options_.env;
  env.push_back("HEADROOM_DEVICE=" + index);
  std::ofstream(options_.output_path, std::ios::trunc).close();
  auto child = ChildProcess::Spawn({.argv = {"/bin/sh", "-c", command},
                                    .env = std::move(env),
                                    .stdout_path = options_.output_path,
                                    .stderr_path = options_.output_path});
  if (!child) {
    results_.push_back(
        {device, false, fmt::format("diagnostics cannot start: {}", child.error().message)});
    return;
  }
  running_.emplace(std::move(*child));
  running_device_ = device;
  started_us_ = now_us;
}

std::vector<model::DiagnosticsResult> DeviceDiagnostics::TakeResults() {
  return std::exchange(results_, {});
}

void DeviceDiagnostics::Stop() {
  if (!running_) return;
  running_->SignalGroup(SIGKILL);
  running_->Wait();
  running_.reset();
}

}  // namespace headroom::agent
