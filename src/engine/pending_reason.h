// PendingReason: why a job waits, as a machine-readable code plus a sentence a user can read.
// Codes are ordered by severity: a job that can never run says so before anything else.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/ids.h"
#include "base/time.h"

namespace headroom::engine {

enum class PendingCode : uint8_t {
  kNone = 0,       // Not pending (running or finished).
  kUnschedulable,  // No node of the cluster could ever hold it (selector, size, cpu/memory).
  kQuota,          // Its queue, or a queue above it, may not use more now (quota.h).
  kCapacity,       // Not enough free devices of a matching class right now.
  kTopology,       // Enough free devices, but not on nodes/domains in a usable shape.
  kCpuMemory,      // Devices would fit, node CPU or memory would not.
  kFacility,       // It would fit, but a power domain or cooling zone lacks the headroom.
  kReservation,    // It would fit, but the capacity is held for the reserved head job.
  kPriority,       // Waiting behind a higher-priority job that could not start.
  kNotConsidered,  // Outside this pass's work budget (queue depth, backfill interval).
  kHeld,           // Held until released (event.h JobHeld; recovery.hold_after).
};

std::string_view PendingCodeName(PendingCode code);  // "capacity", "topology", ...

// Of the cluster's nodes, how many one constraint turns away. Each node is counted once, under
// the first constraint it fails in the order the placer checks them (the policy's filters,
// then free matching devices, CPU, memory); the nodes that pass them all are counted last,
// as "can take a task".
struct NodeTally {
  std::string constraint;  // "drained", "with fewer than 8 free matching devices", ...
  uint32_t nodes = 0;
};

struct PendingStatus {
  std::vector<PendingCode> reasons;   // Every blocking constraint, most severe first.
  std::string message;                // One sentence for humans.
  uint32_t queue_position = 0;        // 1-based among pending jobs, as last ordered; 0: not
                                      // ordered yet (submitted or requeued since the last pass).
  TimeUs expected_start_us = kNever;  // When the engine expects it to start (backfill's plan).
  // The expected start is the EASY reservation of the blocked head: with exact estimates it
  // starts by then (property-tested). Other jobs' expected starts are the plan's estimates.
  bool reserved = false;
  // With ExplainDetail::kNodes only: the tallies (summing to the cluster's nodes), and how many
  // of the gang's tasks the nodes that can take a task hold together, in the best domain of the
  // required level when the job states one.
  std::vector<NodeTally> nodes;
  uint64_t tasks_placeable = 0;
};

// Why every pending job waits, for a view published to readers (Engine::SnapshotPending). Jobs
// of one request shape with one verdict from the last pass share their reasons, message and
// node tallies: those are kept once per group.
struct PendingGroup {
  PendingStatus status;        // Reasons, message and tallies; no position, start or sentences.
  std::string nodes_sentence;  // " Of 1,250 nodes: ..." when tallied, else empty.
};
struct PendingJob {
  JobId job;
  uint32_t group = 0;  // Index into PendingSnapshot::groups.
  uint32_t queue_position = 0;
  TimeUs expected_start_us = kNever;
  bool reserved = false;
};
struct PendingSnapshot {
  TimeUs as_of_us = 0;  // The engine's last step.
  std::vector<PendingGroup> groups;
  std::vector<PendingJob> jobs;
};

// What Explain appends about the expected start: " Expected to start in 4 min 5 s." (or
// "Reserved ..."); empty for kNever.
std::string ExpectedStartSentence(TimeUs expected_start_us, bool reserved, TimeUs now_us);

enum class ExplainDetail : uint8_t {
  kReasons,  // Reasons, message and position only.
  kBrief,    // Also the expected start (the start plan, computed once per step; bounded).
  kNodes,    // Also the node tallies: O(nodes).
};

}  // namespace headroom::engine
