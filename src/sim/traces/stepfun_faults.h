// Loader for StepFun's GPU-server fault trace (InfiniteHBD, SIGCOMM'25;
// github.com/stepfun-ai/InfiniteHBD-Trace, fault_trace.json): the faults that took servers of an
// LLM-pretraining cluster out of service and their repairs, as the failure model's catalogue of
// fault classes and repair times (sim/failure_model.h).
//
// Format: a JSON array of events, each an object with
//   node_id      the server (text)
//   event_time   days from the trace's origin (a non-negative number)
//   event_type   "fault_start" (the server becomes unavailable) or "fault_end" (repaired)
//   fault_type   {"Level": ..., "Class": ..., "Desc": ...}, three texts
// Mapping: each fault_start is paired with the first later fault_end of the same node and the
// same fault_type (events taken in time order, ties in file order); one NodeFault per pair.
// Promises: an event that is not such an object, a fault_end without a fault_start before it,
// and events after 100 years are errors "file: event N: field 'x': expected ..., got ..."
// (N counts from 1 in file order). A fault still open at the last event is repaired then: a
// trace cut short shows it as long as it was seen. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace headroom::sim {

struct NodeFault {
  std::string node;
  std::string level;        // fault_type.Level, e.g. "Hardware Failure".
  std::string fault_class;  // fault_type.Class, e.g. "GPU".
  std::string description;  // fault_type.Desc, e.g. "GPU DBE(Double Bit ECC) > Threshold".
  double start_days = 0;
  double end_days = 0;  // Repaired; >= start_days.
};

struct FaultTrace {
  std::string source;
  std::vector<NodeFault> faults;  // By start, ties in file order.
  double span_days = 0;           // The last event's time.
  size_t nodes = 0;               // Distinct nodes that faulted.
};

Result<FaultTrace> ParseStepfunFaults(std::string_view text, std::string source);
Result<FaultTrace> LoadStepfunFaults(const std::string& path);

}  // namespace headroom::sim
