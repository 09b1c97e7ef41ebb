#include "engine/pending_reason.h"

namespace headroom::engine {

std::string_view PendingCodeName(PendingCode code) {
  switch (code) {
    case PendingCode::kNone:
      return "none";
    case PendingCode::kUnschedulable:
      return "unschedulable";
    case PendingCode::kQuota:
      return "quota";
    case PendingCode::kCapacity:
      return "capacity";
    case PendingCode::kTopology:
      return "topology";
    case PendingCode::kCpuMemory:
      return "cpu_memory";
    case PendingCode::kFacility:
      return "facility";
    case PendingCode::kReservation:
      return "reservation";
    case PendingCode::kPriority:
      return "priority";
    case PendingCode::kNotConsidered:
      return "not_considered";
    case PendingCode::kHeld:
      return "held";
  }
  return "unknown";
}

}  // namespace headroom::engine
