#include "agent/emulated_node.h"

#include <charconv>
#include <set>

#include <fmt/format.h>

namespace headroom::agent {

TimeUs EmulatedDurationUs(const std::vector<std::string>& command, TimeUs default_us) {
  if (command.size() != 2) return default_us;
  const std::string& program = command[0];
  if (program != "sleep" && program != "/bin/sleep" && program != "/usr/bin/sleep") {
    return default_us;
  }
  const std::string& text = command[1];
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || value < 0) return default_us;
  const std::string_view suffix(end, static_cast<size_t>(text.data() + text.size() - end));
  double scale = 1;
  if (suffix == "m") {
    scale = 60;
  } else if (suffix == "h") {
    scale = 3600;
  } else if (!suffix.empty() && suffix != "s") {
    return default_us;
  }
  return SecondsToUs(value * scale);
}

EmulatedNode::EmulatedNode(std::string name, int devices, TimeUs default_task_us)
    : name_(std::move(name)), devices_(devices), default_task_us_(default_task_us) {}

RegisterRequest EmulatedNode::Registration(const std::string& address) const {
  RegisterRequest request{.node = name_, .ready = true, .address = address};
  request.inventory.cpu_milli = 64'000;
  request.inventory.memory_mib = 512 * 1024;
  for (int i = 0; i < devices_; ++i) {
    request.inventory.devices.push_back({.index = i,
                                         .uuid = fmt::format("GPU-{}-{}", name_, i),
                                         .model = "H100",
                                         .memory_mib = 80 * 1024});
  }
  return request;
}

HeartbeatRequest EmulatedNode::Heartbeat(TimeUs now_us) {
  HeartbeatRequest request{.ready = true};
  std::map<int, const std::pair<const TaskKey, Task>*> users;
  for (auto& entry : tasks_) {
    auto& [key, task] = entry;
    if (!task.exit_code && now_us >= task.end_us) {
      task.exit_code = 0;
      ++exits_pending_;
      ++version_;
    }
    TaskReport report{.key = key, .pid = static_cast<pid_t>(1000 + key.job % 1'000'000)};
    if (task.exit_code) {
      report.state = TaskState::kExited;
      report.exit_code = task.exit_code;
    } else {
      for (const int device : task.devices) users.emplace(device, &entry);
    }
    request.tasks.push_back(std::move(report));
  }
  for (int i = 0; i < devices_; ++i) {
    LabelledTelemetry reading{
        .reading = {
            .index = i, .temp_c = 40.0 + i, .power_w = 120.0, .util = 0.0, .xid_errors = 0}};
    if (auto it = users.find(i); it != users.end()) {
      reading.reading.power_w = 650.0;
      reading.reading.util = 0.95;
      reading.job = it->second->first.job;
      reading.tenant = it->second->second.tenant;
    }
    request.telemetry.push_back(std::move(reading));
  }
  return request;
}

void EmulatedNode::Answered(const HeartbeatRequest& sent, const std::vector<DesiredTask>& desired,
                            TimeUs now_us, EmulatedTaskCounts& counts) {
  counts.exited += exits_pending_;
  exits_pending_ = 0;
  for (const TaskReport& report : sent.tasks) {
    if (report.state != TaskState::kExited) continue;
    if (auto it = tasks_.find(report.key); it != tasks_.end() && it->second.exit_code) {
      it->second.acknowledged = true;
    }
  }
  std::set<TaskKey> wanted;
  for (const DesiredTask& spec : desired) {
    wanted.insert(spec.key);
    if (tasks_.contains(spec.key)) continue;
    tasks_.emplace(spec.key,
                   Task{.end_us = now_us + EmulatedDurationUs(spec.command, default_task_us_),
                        .devices = spec.devices,
                        .tenant = spec.tenant});
    ++counts.started;
    ++version_;
  }
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    Task& task = it->second;
    if (!wanted.contains(it->first)) {
      if (task.exit_code && task.acknowledged) {
        it = tasks_.erase(it);
        ++version_;
        continue;
      }
      if (!task.exit_code) {
        task.exit_code = 128 + 15;  // Stopped: SIGTERM, as a task that does not trap it.
        task.acknowledged = false;
        ++counts.stopped;
        ++version_;
      }
    }
    ++it;
  }
}

TimeUs EmulatedNode::NextExitUs() const {
  TimeUs next = kNever;
  for (const auto& [key, task] : tasks_) {
    if (!task.exit_code) next = std::min(next, task.end_us);
  }
  return next;
}

}  // namespace headroom::agent
