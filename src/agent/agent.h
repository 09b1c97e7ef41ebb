// Agent: headroom-agent's main loop (docs/agent.md). It waits for the first readiness verdict,
// registers the node (retrying with capped, jittered exponential backoff while the daemon is
// unreachable), then heartbeats every interval with its tasks, labelled telemetry and readiness,
// and reconciles the tasks it runs against the desired set each reply carries.
//
// Promises:
//  1. A 404 on heartbeat (the daemon forgot the node, or took it for down and requeued its jobs)
//     stops every task (SIGTERM, SIGKILL after its stop_grace_s) and registers again once none
//     runs: a registration tells the daemon this node runs nothing; 401/403 on either
//     call stops all tasks and ends Run with exit code 1; any other failure keeps the tasks
//     running and retries at the next interval (the daemon decides whether to requeue).
//  2. No new task starts while the readiness check fails; running tasks are left alone. With
//     ReadinessOptions::verified_for_us, a new task also waits for a check on a node that has
//     not passed one within it; the check's verdict is sent at once, and a failing one leaves
//     the task unstarted (headroomd requeues its job elsewhere).
//  3. A task exit triggers an early heartbeat, so the daemon hears of it promptly.
//  6. With a gang check command, a task of an attempt that spans several nodes starts only once
//     the attempt's check across them passed here (gang_check.h); a failed one makes the node
//     not ready, saying so, until a readiness check passes (or, without one, for a readiness
//     interval), so headroomd requeues the job; either verdict is sent at once.
//  7. Each heartbeat reply's power caps are applied to the devices (power_limiter.h): through
//     NVML where present, recorded and logged otherwise.
//  5. With a diagnostics command, it asks headroomd which devices to diagnose every few
//     heartbeat intervals while none is being diagnosed, runs them (device_diagnostics.h) and
//     reports each result until headroomd took it.
//  4. A stop request (SIGINT/SIGTERM) sends SIGTERM to every task's group, waits for each up to
//     its stop_grace_s, SIGKILLs the rest — at once on a second request — reaps them all and
//     ends Run with exit code 0. No final heartbeat is sent: the daemon's grace period decides
//     what happens to the node's jobs.
// Threading: single-threaded; Run owns the calling thread until it returns.
#pragma once

#include <optional>
#include <random>
#include <string>

#include "agent/daemon_client.h"
#include "agent/device_diagnostics.h"
#include "agent/gang_check.h"
#include "agent/node_discovery.h"
#include "agent/power_limiter.h"
#include "agent/readiness_check.h"
#include "agent/stop_signal.h"
#include "agent/task_launcher.h"

namespace headroom::agent {

struct AgentOptions {
  std::string node;
  std::string address;                   // Registered address.
  std::optional<double> heartbeat_s;     // Overrides the daemon's heartbeat_interval_s.
  double register_backoff_max_s = 30.0;  // Cap of the register retry backoff.
};

class Agent {
 public:
  Agent(AgentOptions options, DiscoveredNode node, DaemonClient client, TaskLauncher launcher,
        ReadinessCheck readiness, DeviceDiagnostics diagnostics, GangCheck gang_check,
        StopSignal& stop);

  // Runs until stopped; returns the process exit code.
  int Run();

 private:
  enum class Step { kContinue, kRefused };

  Step TryRegister(TimeUs now_us);
  Step SendHeartbeat(TimeUs now_us);
  std::vector<LabelledTelemetry> Telemetry();
  void TickReadiness(TimeUs now_us);
  void TickDiagnostics(TimeUs now_us);
  void TickGangCheck(TimeUs now_us);
  int Shutdown(int exit_code);

  AgentOptions options_;
  DiscoveredNode node_;
  DaemonClient client_;
  TaskLauncher launcher_;
  ReadinessCheck readiness_;
  DeviceDiagnostics diagnostics_;
  GangCheck gang_check_;
  PowerLimiter power_;
  std::vector<model::DiagnosticsResult> unreported_;  // Results headroomd has not taken yet.
  TimeUs next_diagnostics_us_ = 0;
  StopSignal& stop_;
  std::minstd_rand jitter_;

  bool registered_ = false;
  double interval_s_ = 2.0;
  double backoff_s_ = 0.5;
  TimeUs next_register_us_ = 0;
  TimeUs next_heartbeat_us_ = 0;
  std::string last_failure_;  // The last daemon failure logged, to log each outage once.
  std::string last_telemetry_error_;
  bool last_ready_ = true;
  // A check was asked for before new tasks start; the count of finished checks then.
  bool awaiting_check_ = false;
  uint64_t checks_finished_before_ = 0;
  std::string last_readiness_message_;
};

// Steady-clock microseconds.
TimeUs SteadyNowUs();

}  // namespace headroom::agent
