// The agent's side of the headroomd v1 contract (docs/api.md "Agents"): the register and
// heartbeat bodies it sends and the replies it accepts, as plain structs with JSON conversion.
//
// Promises:
//  1. Bodies sent are exactly the documented fields; absent readings are JSON null.
//  2. Replies are checked strictly: a wrong type or range is an error naming the field path,
//     e.g. "tasks[1].devices[0]: expected a device index 0..1023, got -1"; unknown fields are
//     ignored (the daemon may add fields; docs/api.md changes are additive).
//  3. Optional reply fields take documented defaults: attempt 1, env {}, rendezvous "",
//     stop_grace_s 30, tenant absent.
// Threading: pure functions.
#pragma once

#include <sys/types.h>

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/device_telemetry.h"
#include "agent/inventory.h"
#include "base/result.h"

namespace headroom::agent {

inline constexpr int64_t kDefaultStopGraceS = 30;

// A task is one attempt of a job's rank on this node. The attempt (the daemon's start count
// of the job) tells a rank restarted here after a requeue from a process left over from an
// earlier run: they are different tasks.
struct TaskKey {
  int64_t job = 0;
  int rank = 0;
  int64_t attempt = 1;
  auto operator<=>(const TaskKey&) const = default;
};

// DESIRED: one task the daemon wants running here.
struct DesiredTask {
  TaskKey key;
  int world_size = 1;
  std::vector<int> devices;
  std::vector<std::string> command;
  std::map<std::string, std::string> env;
  std::string rendezvous;  // "host:port", "[v6]:port" or "" when the job has none.
  int64_t stop_grace_s = kDefaultStopGraceS;
  std::optional<std::string> tenant;  // For labelling telemetry.
};

enum class TaskState { kRunning, kExited };

struct TaskReport {
  TaskKey key;
  TaskState state = TaskState::kRunning;
  std::optional<int> exit_code;  // When exited.
  pid_t pid = 0;                 // 0 when the task never started.
  std::string message;           // Why a task failed to start; empty otherwise.
};

struct RegisterRequest {
  std::string node;
  Inventory inventory;
  bool ready = false;
  std::string readiness_message;
  std::string address;
};

struct RegisterReply {
  double heartbeat_interval_s = 2.0;
  double grace_s = 10.0;
};

// One device's telemetry with the job and tenant using it.
struct LabelledTelemetry {
  DeviceTelemetry reading;
  std::optional<int64_t> job;
  std::optional<std::string> tenant;
};

struct HeartbeatRequest {
  bool ready = false;
  std::string readiness_message;
  std::vector<TaskReport> tasks;
  std::vector<LabelledTelemetry> telemetry;
};

nlohmann::json DeviceJson(const InventoryDevice& device);
nlohmann::json TelemetryJson(const LabelledTelemetry& telemetry);
nlohmann::json RegisterJson(const RegisterRequest& request);
nlohmann::json HeartbeatJson(const HeartbeatRequest& request);

// Parses the register reply {"heartbeat_interval_s": 2, "grace_s": 10}.
Result<RegisterReply> ParseRegisterReply(std::string_view body);
// Parses the heartbeat reply {"tasks": [DESIRED, ...]}; keys must be unique.
Result<std::vector<DesiredTask>> ParseHeartbeatReply(std::string_view body);

}  // namespace headroom::agent
