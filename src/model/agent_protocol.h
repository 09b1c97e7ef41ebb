// The headroomd v1 agent contract (docs/api.md "Agents"), defined once for both ends:
// headroom-agent encodes heartbeats and parses their replies, headroomd parses heartbeats and
// encodes their replies, with the structs and functions below. The register body is here too
// (the agent encodes it from its inventory; headroomd checks it field by field, as it checks a
// job spec, in control/api_agents.cc, and stores its devices in the same form), and its reply.
//
// Promises:
//  1. Bodies sent are exactly the documented fields; absent readings are JSON null.
//  2. Parsing is strict about what it reads: a wrong type or range is an error naming the field
//     path, e.g. "tasks[1].devices[0]: expected a device index 0..1023, got -1". A reply's
//     unknown fields are ignored (headroomd may add fields; docs/api.md changes are additive); a
//     heartbeat's are rejected (an agent sends only what the daemon reads).
//  3. Optional fields take documented defaults: a reply's attempt 1, env {}, rendezvous "",
//     stop_grace_s 30, tenant absent; a heartbeat's ready true, readiness_message "", an exit's
//     attempt 0 (not sent: the job's current one).
//  4. Encoding then parsing gives back what was encoded (tested both ways).
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

#include "base/result.h"

namespace headroom::model {

inline constexpr int kMaxDeviceIndex = 1023;
inline constexpr int64_t kDefaultStopGraceS = 30;
inline constexpr size_t kMaxReadinessMessageBytes = 1024;
// Bounds both readers of the heartbeat exchange apply (ParseHeartbeatRequest and
// ParseHeartbeatReply here, the fast ones of heartbeat_reader.h), so that they cannot drift.
inline constexpr int64_t kMaxWorldSize = 1'000'000;     // Tasks of a gang; ranks are below it.
inline constexpr size_t kMaxReportedTasks = 1'000'000;  // Tasks in one heartbeat.
inline constexpr size_t kMaxTenantLabelBytes = 256;     // A telemetry reading's tenant.
inline constexpr int64_t kMaxStopGraceS = 86400;
inline constexpr int64_t kMaxCheckpointIntervalS = 366 * 86400;
inline constexpr int64_t kMaxPowerCapW = 100'000;  // Far above any accelerator's limit.

// One device of a node as the agent registers it and headroomd stores it.
struct RegisteredDevice {
  uint32_t index = 0;  // The agent's device index, 0..kMaxDeviceIndex, unique on the node.
  std::string uuid;    // "GPU-..." as NVML reports it; "" when unknown. Unique on the node.
  std::string model;   // "NVIDIA H100 80GB HBM3".
  int64_t memory_mib = 0;
  // The NVLink domain, "<cluster uuid>.<clique id>" from NVML's fabric info; "" (sent as null)
  // on systems without a multi-node NVLink fabric.
  std::string clique_id;
  friend bool operator==(const RegisteredDevice&, const RegisteredDevice&) = default;
};

// POST /v1/agents/register: what a node offers the scheduler.
struct Registration {
  std::string node;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  bool ready = true;  // The agent's readiness check passed.
  std::string readiness_message;
  std::vector<RegisteredDevice> devices;  // Ordered by index.
  std::string address;  // Where the node's tasks reach each other (rendezvous host); may be "".
};

// A task is one attempt of a job's rank on a node. The attempt (the daemon's start count of the
// job) tells a rank restarted after a requeue from a process left over from an earlier run:
// they are different tasks.
struct TaskKey {
  int64_t job = 0;
  int rank = 0;
  int64_t attempt = 1;
  auto operator<=>(const TaskKey&) const = default;
};

// DESIRED: one task the daemon wants running on the node.
struct DesiredTask {
  TaskKey key;
  int world_size = 1;
  std::vector<int> devices;  // The agent's device indices.
  std::vector<std::string> command;
  std::map<std::string, std::string> env;
  std::string rendezvous;  // "host:port", "[v6]:port" or "" when the job has none.
  int64_t stop_grace_s = kDefaultStopGraceS;
  std::optional<std::string> tenant;  // For labelling telemetry.
  // How often the scheduler tells the task to checkpoint (HEADROOM_CHECKPOINT_INTERVAL_S);
  // 0: it does not (null or absent in JSON).
  int64_t checkpoint_interval_s = 0;
  // The power limit the scheduler set for each of its devices, watts (decision.h CapJob); 0: the
  // device's default (null or absent in JSON). The agent applies it (agent/power_limiter.h).
  int64_t power_cap_w = 0;
  friend bool operator==(const DesiredTask&, const DesiredTask&) = default;
};

enum class TaskState { kRunning, kExited };

struct TaskReport {
  TaskKey key;  // attempt 0 in a parsed heartbeat: the agent did not send one.
  TaskState state = TaskState::kRunning;
  std::optional<int> exit_code;  // When exited.
  pid_t pid = 0;                 // 0 when the task never started.
  std::string message;           // Why a task failed to start; empty otherwise.
  friend bool operator==(const TaskReport&, const TaskReport&) = default;
};

// One sample of one device's health readings. Units are in the names: degrees Celsius, watts,
// utilization as a fraction in [0, 1]. A reading the source cannot give is absent (null in
// JSON), never a made-up zero.
struct DeviceTelemetry {
  int index = 0;  // The device index (NVML's, which CUDA_VISIBLE_DEVICES uses).
  std::optional<double> temp_c;
  std::optional<double> power_w;
  std::optional<double> util;  // Fraction of time a kernel ran, in [0, 1].
  // The last XID error the device raised, 0 for none (DCGM_FI_DEV_XID_ERRORS' meaning).
  std::optional<int64_t> xid_errors;
  // Health counters (model/exporter_readings.h names their sources): uncorrectable ECC errors
  // since the driver loaded, rows remapped for uncorrectable errors, whether a row remap failed,
  // and NVLink errors (CRC, replay, recovery) since the driver loaded.
  std::optional<int64_t> ecc_uncorrectable;
  std::optional<int64_t> remapped_rows;
  std::optional<bool> row_remap_failure;
  std::optional<int64_t> nvlink_errors;

  friend bool operator==(const DeviceTelemetry&, const DeviceTelemetry&) = default;
};

// One device's telemetry with the job and tenant using it.
struct LabelledTelemetry {
  DeviceTelemetry reading;
  std::optional<int64_t> job;
  std::optional<std::string> tenant;
  friend bool operator==(const LabelledTelemetry&, const LabelledTelemetry&) = default;
};

struct HeartbeatRequest {
  bool ready = true;
  std::string readiness_message;
  std::vector<TaskReport> tasks;
  std::vector<LabelledTelemetry> telemetry;
  friend bool operator==(const HeartbeatRequest&, const HeartbeatRequest&) = default;
};

struct RegisterReply {
  double heartbeat_interval_s = 2.0;
  double grace_s = 10.0;
};

nlohmann::json TelemetryJson(const LabelledTelemetry& telemetry);
nlohmann::json HeartbeatJson(const HeartbeatRequest& request);
// A heartbeat body as headroomd reads it. Names in it (tenants) are the daemon's to judge.
Result<HeartbeatRequest> ParseHeartbeatRequest(const nlohmann::json& body);

nlohmann::json HeartbeatReplyJson(const std::vector<DesiredTask>& tasks);
// Parses the heartbeat reply {"tasks": [DESIRED, ...]}; (job, rank) must be unique.
Result<std::vector<DesiredTask>> ParseHeartbeatReply(std::string_view body);

// A device as the register body and headroomd's store write it (clique_id "" as null).
nlohmann::json RegisteredDeviceJson(const RegisteredDevice& device);
nlohmann::json RegistrationJson(const Registration& registration);

nlohmann::json RegisterReplyJson(const RegisterReply& reply);
// Parses the register reply {"heartbeat_interval_s": 2, "grace_s": 10}.
Result<RegisterReply> ParseRegisterReply(std::string_view body);

}  // namespace headroom::model
