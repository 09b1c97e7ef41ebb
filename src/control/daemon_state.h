// DaemonState: the daemon's in-memory view — every job, service and node as last made
// durable, plus what is observed but not stored (heartbeats, readiness, telemetry) and the
// topology of the cluster the engine runs on. API threads read it; the live loop is the only
// writer of a job's lifecycle after its submission (see live_loop.h).
//
// Invariants (under `mu`): a job's record here never runs ahead of the store: it is changed
// only after the journal committed the change. `topology` describes the engine's current
// cluster (nullptr before the first node is known).
// Threading: every field is guarded by `mu`.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/time.h"
#include "control/admission.h"
#include "control/device_health.h"
#include "control/job_table.h"
#include "control/records.h"
#include "model/agent_protocol.h"
#include "model/cluster.h"

namespace headroom::control {

enum class NodeHealth : uint8_t { kUp, kUnknown, kDown };
std::string_view NodeHealthName(NodeHealth health);  // "up", "unknown", "down"

struct NodeStatus {
  NodeRecord record;
  NodeHealth health = NodeHealth::kUp;
  bool ready = true;
  std::string readiness_message;
  TimeUs last_heartbeat_us = 0;                     // 0: never.
  std::vector<model::LabelledTelemetry> telemetry;  // As the agent last reported it.
  // (job, attempt) of the running jobs placed here when the agent last registered. An agent
  // registers only when it runs no task (at its start, after stopping what an earlier run left;
  // after a 404), so those attempts' tasks are gone: they are handed out no more and the agents
  // backend has them requeued; entries leave once the job no longer runs that attempt.
  std::vector<std::pair<uint64_t, uint32_t>> abandoned_attempts;
  // Attempts placed here that never started while the agent said the node was not ready (its
  // readiness check failed, at a start or periodically): handed out no more, requeued by the
  // agents backend as an interruption on this node, like abandoned_attempts.
  std::vector<std::pair<uint64_t, uint32_t>> unstarted_attempts;
  // Each device's health, judged from the telemetry and moved by operators (device_health.h).
  // health_version counts its changes; the loop stores the book as the meta row
  // HealthKey(name) whenever it moved on.
  DeviceHealthBook health_book;
  uint64_t health_version = 0;
  // Its agent asked for diagnostics work (GET /v1/agents/{node}/diagnostics): it has a command.
  bool runs_diagnostics = false;
};

struct HealthStormState {
  bool tripped = false;
  TimeUs since_us = 0;
  std::string message;
};

// The meta row that holds a node's device health book.
std::string HealthKey(std::string_view node);
inline constexpr std::string_view kHealthKeyPrefix = "device_health/";

// Static facts of the engine's cluster for the API: per node, its place and devices.
struct TopologyNode {
  std::string name;
  uint32_t devices = 0;
  std::string device_model;
  std::vector<std::string> path;  // Domain names from the root to the node's own domain.
};

struct Topology {
  std::shared_ptr<const model::Cluster> cluster;
  std::vector<TopologyNode> nodes;  // In the cluster's node order.
};
Topology MakeTopology(std::shared_ptr<const model::Cluster> cluster);

struct SeriesPoint {
  TimeUs time_us = 0;
  uint64_t allocated_milli = 0;
  uint64_t devices = 0;
  uint64_t pending = 0;
  uint64_t running = 0;
};

// A service's load as reported to POST /v1/services/{id}/load, and what its autoscaler made of
// it. Observed, not stored: after a restart a service keeps its count until the next report.
struct ServiceLoad {
  double requests_per_s = 0;
  TimeUs reported_us = -1;  // -1: never reported.
  // The autoscaler's last count (live_loop_autoscale.cc) and when it decided it; -1: none yet.
  uint32_t desired_replicas = 0;
  TimeUs decided_us = -1;
  // Why the service's Prometheus query last failed (prometheus_load.h); empty when it answered.
  std::string query_error;
};

struct DaemonState {
  std::mutex mu;
  JobTable jobs;  // Changed only through Put and Erase, which keep its counts.
  PendingAdmission admission;
  std::map<uint64_t, ServiceRecord> services;
  std::map<uint64_t, ServiceLoad> service_loads;  // By service id; only services that exist.
  std::map<std::string, NodeStatus> nodes;
  // Bumped whenever a node's drained, ready or health changes, so that the loop looks for
  // changes to apply to the engine only then, not at every step over 12,500 nodes.
  uint64_t node_gates_version = 0;
  HealthRules health_rules;  // Set at start, then read only.
  // Stored device health of nodes not known at start, for when their agents register.
  std::map<std::string, DeviceHealthBook> parked_health_books;
  // The storm guard (HealthRules::storm_share): tripped, health takes no device out of use
  // until an operator resumes it (POST /v1/health/resume). Not stored: a restart resumes.
  HealthStormState health_storm;
  std::shared_ptr<const Topology> topology;
  // The engine's hot spares (recovery.hot_spares) by node name, as of its last step.
  std::set<std::string> hot_spares;
  std::deque<SeriesPoint> series;
  uint64_t next_job_id = 1;
  uint64_t next_service_id = 1;
  uint64_t submissions_total = 0;
  uint64_t placements_total = 0;
  uint64_t requeues_total = 0;
  uint64_t migrations_total = 0;
  uint64_t resizes_total = 0;  // Elastic jobs shrunk or grown (engine_elastic.cc).
  uint64_t preemptions_total = 0;
  uint64_t power_caps_total = 0;  // Caps set, lowered or lifted on running jobs.
  // Task reports an agent made about a task placed on another node, dropped unapplied.
  uint64_t foreign_reports_total = 0;

  // Milli-devices held by running jobs, per node name. Caller holds `mu`.
  std::map<std::string, uint64_t> AllocatedMilliByNode() const;
};

}  // namespace headroom::control
