// The engine log: the live engine's inputs and decisions as the journal keeps them (table
// engine_log, docs/control.md "Replay"), so that `headroom replay` can run a daemon's history
// through a fresh engine and check that every decision comes out the same, and `headroom explain
// --at` can say why a job waited at a past moment.
//
// Each record is one JSON object at a time (the step's `now`):
//   {"build": {"cluster": YAML, "policy": YAML, "carried": CARRIED}}  the loop made a new
//       engine (its start, a cluster or policy change, a failed commit, a periodic snapshot);
//       records after it run on that engine. The first step after a build restores the running
//       jobs and submits the pending ones, so a build and that step are a snapshot: retention
//       drops the records before one (LoopOptions::engine_log_keep_us).
// CARRIED: {"as_of_us": T, "tenant_usage": {TENANT: USAGE...}, "migration_spent": [[T, COST]...],
//          "preemption_spent": [[T, LOST]...], "turnover_spent": [[T, LOST]...]}
//       what the engine before it had learned (engine/carried_state.h); absent in older logs
//   {"step": {"events": [EVENT...], "decisions": [DECISION...]}}  one Engine::Step
//   {"idle": [T...]}  steps at these times with no input and no decision (they still move the
//       engine's clock), gathered into one record
// EVENT: {"submit": ID, "spec": SPEC, "submit_us": T}
//      | {"restore": ID, "spec": SPEC, "submit_us": T, "start_us": T, "placement": P,
//         "checkpoint_interval_us": T (when its start was told one)}
//      | {"finish": ID} | {"cancel": ID} | {"drain": NODE, "drained": BOOL}
// DECISION: {"start": ID, "placement": P, "checkpoint_interval_us": T (when directed)} |
//           {"move": ID, "placement": P, "pause_us": T} |
//           {"preempt": ID, "by": ID, "checkpoint_interval_us": T, "lost_us": T, "restart_us": T}
// IDs are the daemon's job ids, nodes go by name and devices by index on their node (SPEC and
// P are the jobs table's JSON texts), so records outlive engine ids and cluster numbering.
// A step's record is committed with its decisions' job rows, in one transaction.
// Threading: pure functions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "control/records.h"
#include "engine/carried_state.h"
#include "engine/decision.h"
#include "model/cluster.h"

namespace headroom::control {

// A placement in the jobs table's form (node name, device index on it), rank order.
std::vector<TaskPlacement> PlacementOn(const model::Cluster& cluster,
                                       const std::vector<engine::TaskAllocation>& tasks);
// The allocations of `placement` on `cluster`; nullopt when it names a node or device that the
// cluster lacks. Capacity is not checked.
std::optional<std::vector<engine::TaskAllocation>> AllocationsOn(
    const model::Cluster& cluster, const std::vector<TaskPlacement>& placement);

nlohmann::json BuildRecord(const model::Cluster& cluster, std::string_view policy_text,
                           const engine::CarriedState& carried);
// A build record's CARRIED; an error naming the field when it is malformed. An absent member
// (a log written before carried state was recorded) reads as none.
Result<engine::CarriedState> CarriedOf(const nlohmann::json& build);
// A record's text. Never throws: a string that reached the loop without passing a UTF-8 check
// is written with U+FFFD in place of its bad bytes, where a throw would end the loop thread.
std::string EngineLogText(const nlohmann::json& record);
nlohmann::json SubmitEvent(const JobRecord& job);
nlohmann::json RestoreEvent(const JobRecord& job);
nlohmann::json FinishEvent(uint64_t job, bool failed);  // "failed": true only when it failed.
nlohmann::json CancelEvent(uint64_t job);
// A fault on `node` (empty: not known) ended its running attempt.
nlohmann::json InterruptEvent(uint64_t job, std::string_view node);
// An operator held a pending job (why) or released a held one.
nlohmann::json HoldEvent(uint64_t job, bool held, std::string_view reason);
nlohmann::json DrainEvent(std::string_view node, bool drained);
// A device's health took it out of use (or returned it): by node name and index on the node.
nlohmann::json WithdrawEvent(std::string_view node, uint32_t index_on_node, bool withdrawn,
                             bool degraded);
// `daemon_of_engine` maps the engine's job ids to the daemon's.
nlohmann::json DecisionsJson(const engine::Decisions& decisions, const model::Cluster& cluster,
                             const std::vector<uint64_t>& daemon_of_engine);

}  // namespace headroom::control
