#include "agent/agent.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "agent/agent_log.h"

namespace headroom::agent {
namespace {

constexpr TimeUs kTickUs = 100'000;  // How often exits, stops and readiness are polled.

std::vector<int> DeviceIndices(const Inventory& inventory) {
  std::vector<int> indices;
  for (const InventoryDevice& device : inventory.devices) indices.push_back(device.index);
  return indices;
}

}  // namespace

TimeUs SteadyNowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Agent::Agent(AgentOptions options, DiscoveredNode node, DaemonClient client, TaskLauncher launcher,
             ReadinessCheck readiness, DeviceDiagnostics diagnostics, GangCheck gang_check,
             StopSignal& stop)
    : options_(std::move(options)),
      node_(std::move(node)),
      client_(std::move(client)),
      launcher_(std::move(launcher)),
      readiness_(std::move(readiness)),
      diagnostics_(std::move(diagnostics)),
      gang_check_(std::move(gang_check)),
      power_(node_.nvml.get(), DeviceIndices(node_.inventory),
             [](const std::string& line) { LogLine(line); }),
      stop_(stop),
      jitter_(static_cast<unsigned>(getpid()) ^
              static_cast<unsigned>(std::hash<std::string>{}(options_.node))) {}

void Agent::TickReadiness(TimeUs now_us) {
  readiness_.Tick(now_us);
  if (awaiting_check_ && readiness_.finished() != checks_finished_before_) {
    awaiting_check_ = false;
    next_heartbeat_us_ = now_us;  // Its verdict decides the waiting tasks: tell it at once.
  }
  if (!readiness_.has_verdict()) return;
  const Readiness& current = readiness_.current();
  if (current.ready != last_ready_ || current.message != last_readiness_message_) {
    if (current.ready) {
      Log("readiness check passed: new tasks are admitted");
    } else {
      Log("not ready, no new tasks start: {}", current.message);
    }
    last_ready_ = current.ready;
    last_readiness_message_ = current.message;
  }
}

void Agent::TickGangCheck(TimeUs now_us) {
  const GangCheck::Finished finished = gang_check_.Tick(now_us);
  for (const std::string& failure : finished.failures) {
    Log("{}; not ready until a readiness check passes", failure);
    readiness_.Fail(failure, now_us);
  }
  // Either verdict decides waiting tasks: tell headroomd and reconcile at once.
  if (finished.passed > 0 || !finished.failures.empty()) next_heartbeat_us_ = now_us;
}

void Agent::TickDiagnostics(TimeUs now_us) {
  if (!diagnostics_.enabled()) return;
  diagnostics_.Tick(now_us);
  for (model::DiagnosticsResult& result : diagnostics_.TakeResults()) {
    Log("diagnostics of device {} {}{}", result.index, result.passed ? "passed" : "failed",
        result.message.empty() ? "" : ": " + result.message);
    unreported_.push_back(std::move(result));
  }
  if (!registered_ || now_us < next_diagnostics_us_) return;
  // Every few heartbeats: diagnostics take minutes, and the heartbeat stays lean.
  next_diagnostics_us_ =
      now_us + std::clamp<TimeUs>(SecondsToUs(5 * interval_s_), kUsPerSecond, 30 * kUsPerSecond);
  if (!unreported_.empty()) {
    if (auto sent = client_.ReportDiagnostics(unreported_); !sent) {
      Log("diagnostics results not taken: {}; retrying", sent.error().message);
      return;
    }
    unreported_.clear();
  }
  if (diagnostics_.busy()) return;
  auto wanted = client_.Diagnose();
  if (!wanted) {
    Log("diagnostics request failed: {}", wanted.error().message);
    return;
  }
  if (!wanted->empty()) Log("diagnosing {} device(s) as headroomd asks", wanted->size());
  diagnostics_.Want(*wanted);
  diagnostics_.Tick(now_us);
}

int Agent::Run() {
  for (const std::string& note : node_.notes) Log("{}", note);
  Log("{} device(s) from {}, {} millicores, {} MiB; address {}", node_.inventory.devices.size(),
      node_.device_source, node_.inventory.cpu_milli, node_.inventory.memory_mib, options_.address);
  last_ready_ = true;
  while (!readiness_.has_verdict()) {
    if (stop_.requests() > 0) return Shutdown(0);
    TickReadiness(SteadyNowUs());
    if (!readiness_.has_verdict()) stop_.WaitFor(20'000);
  }
  TickReadiness(SteadyNowUs());
  while (stop_.requests() == 0) {
    const TimeUs now_us = SteadyNowUs();
    TickGangCheck(now_us);
    TickReadiness(now_us);
    TickDiagnostics(now_us);
    // A task exit is worth telling the daemon at once rather than at the next interval.
    if (launcher_.Poll(now_us) > 0) next_heartbeat_us_ = now_us;
    Step step = Step::kContinue;
    if (!registered_) {
      // An agent registers only when it runs no task (agent.h, promise 1).
      if (now_us >= next_register_us_ && !launcher_.HasRunningTasks()) step = TryRegister(now_us);
    } else if (now_us >= next_heartbeat_us_) {
      step = SendHeartbeat(now_us);
    }
    if (step == Step::kRefused) return Shutdown(1);
    const TimeUs due_us = registered_ ? next_heartbeat_us_ : next_register_us_;
    stop_.WaitFor(std::clamp<TimeUs>(due_us - SteadyNowUs(), 0, kTickUs));
  }
  return Shutdown(0);
}

Agent::Step Agent::TryRegister(TimeUs now_us) {
  const Readiness& readiness = readiness_.current();
  auto reply = client_.Register({.node = options_.node,
                                 .inventory = node_.inventory,
                                 .ready = readiness.ready,
                                 .readiness_message = readiness.message,
                                 .address = options_.address});
  if (reply) {
    registered_ = true;
    interval_s_ = options_.heartbeat_s.value_or(reply->heartbeat_interval_s);
    backoff_s_ = 0.5;
    last_failure_.clear();
    next_heartbeat_us_ = now_us;
    Log("registered; heartbeat every {} s (daemon grace {} s)", interval_s_, reply->grace_s);
    return Step::kContinue;
  }
  if (reply.error().kind == DaemonError::Kind::kRefused) {
    Log("register refused: {}; check --token (an agent token for node {})", reply.error().message,
        options_.node);
    return Step::kRefused;
  }
  std::uniform_real_distribution<double> spread(0.8, 1.2);
  const double wait_s = backoff_s_ * spread(jitter_);
  if (reply.error().message != last_failure_) {
    Log("register failed: {}; retrying (backoff up to {} s)", reply.error().message,
        options_.register_backoff_max_s);
    last_failure_ = reply.error().message;
  }
  next_register_us_ = now_us + SecondsToUs(wait_s);
  backoff_s_ = std::min(backoff_s_ * 2.0, options_.register_backoff_max_s);
  return Step::kContinue;
}

std::vector<LabelledTelemetry> Agent::Telemetry() {
  std::vector<LabelledTelemetry> out;
  auto readings = node_.telemetry->Sample();
  if (!readings) {
    if (readings.error().message != last_telemetry_error_) {
      Log("telemetry from {} failed: {}", node_.telemetry->name(), readings.error().message);
      last_telemetry_error_ = readings.error().message;
    }
    return out;
  }
  last_telemetry_error_.clear();
  const std::map<int, DeviceUser> users = launcher_.DeviceUsers();
  for (const DeviceTelemetry& reading : *readings) {
    LabelledTelemetry entry{.reading = reading};
    if (auto it = users.find(reading.index); it != users.end()) {
      entry.job = it->second.job;
      entry.tenant = it->second.tenant;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

Agent::Step Agent::SendHeartbeat(TimeUs now_us) {
  const Readiness& readiness = readiness_.current();
  const std::vector<TaskReport> reports = launcher_.Reports();
  auto reply = client_.Heartbeat({.ready = readiness.ready,
                                  .readiness_message = readiness.message,
                                  .tasks = reports,
                                  .telemetry = Telemetry()});
  next_heartbeat_us_ = now_us + SecondsToUs(interval_s_);
  if (!reply) {
    const DaemonError& error = reply.error();
    if (error.kind == DaemonError::Kind::kRefused) {
      Log("heartbeat refused: {}; check --token", error.message);
      return Step::kRefused;
    }
    if (error.kind == DaemonError::Kind::kUnknownNode) {
      if (launcher_.HasRunningTasks()) {
        Log("the daemon does not know this node ({}); stopping every task, then registering "
            "again",
            error.message);
        launcher_.StopAll(now_us);
      } else {
        Log("the daemon does not know this node ({}); registering again", error.message);
      }
      registered_ = false;
      next_register_us_ = now_us;
      return Step::kContinue;
    }
    if (error.message != last_failure_) {
      Log("heartbeat failed: {}; tasks keep running, retrying every {} s", error.message,
          interval_s_);
      last_failure_ = error.message;
    }
    return Step::kContinue;
  }
  if (!last_failure_.empty()) {
    Log("heartbeat answered again");
    last_failure_.clear();
  }
  launcher_.Acknowledge(reports);
  const TimeUs after_us = SteadyNowUs();
  Admission admission = readiness.ready ? Admission::kStartNew : Admission::kHoldNew;
  // A multi-node attempt's tasks wait for its check across the nodes, on a node that is ready.
  const std::vector<DesiredTask> admitted =
      admission == Admission::kHoldNew
          ? *reply
          : gang_check_.Admit(
                *reply, [&](const TaskKey& key) { return launcher_.Knows(key); }, after_us);
  if (admission == Admission::kStartNew && !readiness_.VerifiedAt(after_us) &&
      launcher_.HasNewTasks(admitted)) {
    if (!awaiting_check_) {
      Log("new work waits for a readiness check: none passed recently");
      readiness_.CheckNow(after_us);
      awaiting_check_ = true;
      checks_finished_before_ = readiness_.finished();
    }
    admission = Admission::kHoldNew;
  }
  launcher_.Reconcile(admitted, admission, after_us);
  // Caps follow the whole reply: a held task's devices are capped as the scheduler asks too.
  power_.Apply(*reply);
  return Step::kContinue;
}

int Agent::Shutdown(int exit_code) {
  diagnostics_.Stop();
  if (!launcher_.HasRunningTasks()) {
    Log("stopped");
    return exit_code;
  }
  Log("stopping tasks: SIGTERM now, SIGKILL after each task's stop grace (again to hurry)");
  const int requests_at_start = stop_.requests();
  launcher_.StopAll(SteadyNowUs());
  bool hurried = false;
  while (true) {
    launcher_.Poll(SteadyNowUs());
    if (!launcher_.HasRunningTasks()) break;
    if (!hurried && stop_.requests() > requests_at_start) {
      Log("second stop request: SIGKILL to every task");
      launcher_.KillAll();
      hurried = true;
    }
    stop_.WaitFor(20'000);
  }
  Log("all tasks stopped");
  return exit_code;
}

}  // namespace headroom::agent
