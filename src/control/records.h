// Records: the daemon's durable state, one struct per row kind — jobs (with their placement),
// services, nodes, tokens. The store persists exactly these; the daemon keeps the same structs
// in memory as its authoritative view, so recovery is "load the rows".
// Threading: plain values.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/time.h"
#include "control/job_spec.h"
#include "model/agent_protocol.h"
#include "model/job_state.h"

namespace headroom::control {

using model::IsFinal;
using model::JobState;
using model::JobStateByName;
using model::JobStateName;

// One task's place: the node by name and the devices by the node's own indices, so a placement
// survives an engine rebuild that renumbers nodes and devices.
struct TaskPlacement {
  uint32_t rank = 0;
  std::string node;
  std::vector<uint32_t> device_indices;
  uint32_t milli_per_device = 1000;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  uint32_t power_cap_w = 0;  // Each of its devices' power limit, watts; 0: their default.
  friend bool operator==(const TaskPlacement&, const TaskPlacement&) = default;
};

struct JobRecord {
  uint64_t id = 0;
  uint64_t service_id = 0;  // 0: not a service replica.
  JobSpec spec;             // spec.tenant is always the effective tenant.
  JobState state = JobState::kPending;
  TimeUs submit_us = 0;
  TimeUs start_us = 0;  // 0: not started (in its current attempt).
  TimeUs end_us = 0;    // 0: not ended.
  std::vector<TaskPlacement> placement;
  std::optional<int32_t> exit_code;
  uint32_t requeues = 0;
  // Of its requeues, the preemptions: the engine's per-job budget counts them. Carried across
  // engine rebuilds by the engine log's build records and recovered from the log, not a row.
  uint32_t preemptions = 0;
  // When it was last requeued (0: never), carried the same way: the reclaim hysteresis counts
  // from it.
  TimeUs requeued_us = 0;
  // Device-µs it ran since its submission or last promotion before its current run, as its
  // last engine counted it (the las order's attained service), carried the same way.
  int64_t attained_device_us = 0;
  // Non-empty: held, and why (the engine's recovery.hold_after, or an operator); carried the
  // same way. A held job is pending and starts only once released.
  std::string hold_reason;
  // A fault interrupted it and it has not started since (the engine's recovery.expedite puts it
  // ahead of the queue, and it may take recovery.hot_spares); carried the same way.
  bool expedited = false;
  // The checkpoint interval its current attempt was told at its start (the engine's
  // recovery.direct_checkpoints; HEADROOM_CHECKPOINT_INTERVAL_S); 0: none. Carried by the
  // engine log's start decisions and restore events and recovered from the log, not a row.
  TimeUs checkpoint_interval_us = 0;
  uint32_t starts = 0;  // Start decisions journaled for this job, all attempts.
  std::string message;  // Why it ended, or why it was requeued.
  // JobSpecToJson(spec), when made: a new submission's text is made once, on the request's
  // thread, and shared by the store's row and the engine log's submit event, which would
  // otherwise each write it again (two of the daemon's costliest steps per job). Null: not made
  // (the daemon's state never keeps it); SpecJson makes it.
  std::shared_ptr<const std::string> spec_json;
};

// The job's spec as canonical JSON: its spec_json, or JobSpecToJson(spec) where that is null.
std::string SpecJson(const JobRecord& job);

// The job as an engine sees it: its spec (ToModelJob), the preemptions it has had and when it
// last became pending.
model::Job EngineJobOf(const JobRecord& job);

struct ServiceRecord {
  uint64_t id = 0;
  JobSpec spec;  // kind Service; spec.tenant is the effective tenant.
  TimeUs submit_us = 0;
};

// A new pending replica of `service`: a one-task job of the service's spec.
JobRecord NewReplica(const ServiceRecord& service, uint64_t id, TimeUs submit_us);

// A node's durable part: drain state and, for agent-registered nodes, the inventory it
// registered with (nodes of a cluster file have `registered` false).
struct NodeRecord {
  std::string name;
  bool drained = false;
  std::string drain_reason;
  bool registered = false;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  std::vector<model::RegisteredDevice> devices;
  std::string address;
};

enum class Role : uint8_t { kAdmin = 0, kUser, kAgent };
std::string_view RoleName(Role role);
std::optional<Role> RoleByName(std::string_view name);

struct TokenRecord {
  std::string hash_hex;  // SHA-256 of the token, lowercase hex; the token itself is never kept.
  Role role = Role::kUser;
  std::string tenant;  // Users.
  std::string node;    // Agents.
};

struct MetaRecord {
  std::string key;
  std::string value;
};

// What changes over a job's life after it was submitted (its spec never does): an update of
// the job's row, which must exist, without writing the spec again. Starts, ends, requeues and
// cancels are written so; 12,500 nodes' worth of starts made rewriting specs a cost.
struct JobProgress {
  uint64_t id = 0;
  JobState state = JobState::kPending;
  TimeUs start_us = 0;
  TimeUs end_us = 0;
  std::vector<TaskPlacement> placement;
  std::optional<int32_t> exit_code;
  uint32_t requeues = 0;
  uint32_t starts = 0;
  std::string message;
};

JobProgress ProgressOf(const JobRecord& job);

// A finished job forgotten by retention (LoopOptions::keep_finished_us): its row is deleted.
struct JobRemoval {
  uint64_t id = 0;
};

// A cancelled service: its row is deleted (its replicas stay, as cancelled jobs).
struct ServiceRemoval {
  uint64_t id = 0;
};

// A record of the engine log (engine_log.h), appended in the same transaction as the writes it
// explains; the store numbers records in order (EngineLogRecord::seq).
struct EngineLogAppend {
  TimeUs time_us = 0;
  std::string body;    // One JSON object.
  bool build = false;  // A build record: retention may drop the records before it.
};

// Engine log retention: drops every record before the newest build record at or before
// `keep_from_us`, so that the log still replays everything from that time on.
struct EngineLogTrim {
  TimeUs keep_from_us = 0;
};

// One row to insert or replace, a job's row to update, a row to delete, or a log record.
using StoreWrite =
    std::variant<JobRecord, JobProgress, ServiceRecord, NodeRecord, TokenRecord, MetaRecord,
                 JobRemoval, ServiceRemoval, EngineLogAppend, EngineLogTrim>;

// Everything a store holds, as loaded at start.
struct StoreSnapshot {
  std::vector<JobRecord> jobs;  // By id.
  std::vector<ServiceRecord> services;
  std::vector<NodeRecord> nodes;
  std::vector<TokenRecord> tokens;
  std::vector<MetaRecord> meta;
};

}  // namespace headroom::control
