// PendingReason: why a job waits, as a machine-readable code plus a sentence a user can read.
// Codes are ordered by severity: a job that can never run says so before anything else.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"

namespace headroom::engine {

enum class PendingCode : uint8_t {
  kNone = 0,       // Not pending (running or finished).
  kUnschedulable,  // No node of the cluster could ever hold it (selector, size, cpu/memory).
  kCapacity,       // Not enough free devices of a matching class right now.
  kTopology,       // Enough free devices, but not on nodes/domains in a usable shape.
  kCpuMemory,      // Devices would fit, node CPU or memory would not.
  kReservation,    // It would fit, but the capacity is held for the reserved head job.
  kPriority,       // Waiting behind a higher-priority job that could not start.
  kNotConsidered,  // Outside this pass's work budget (queue depth, backfill interval).
};

std::string_view PendingCodeName(PendingCode code);  // "capacity", "topology", ...

struct PendingStatus {
  std::vector<PendingCode> reasons;   // Every blocking constraint, most severe first.
  std::string message;                // One sentence for humans.
  uint32_t queue_position = 0;        // 1-based among pending jobs, as last ordered.
  TimeUs expected_start_us = kNever;  // Where backfill computed a reservation.
};

}  // namespace headroom::engine
