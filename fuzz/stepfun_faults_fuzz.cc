// libFuzzer target: ParseStepfunFaults on arbitrary text, and the failure model built from what
// it accepts. It must never crash, hang or overflow; an accepted trace keeps stepfun_faults.h's
// promises (every repair at or after its fault, within the trace's span) and its catalogue has a
// class with repair times for every fault class seen.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "sim/failure_model.h"
#include "sim/traces/stepfun_faults.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto trace = headroom::sim::ParseStepfunFaults(text, "fault_trace.json");
  if (!trace) return 0;
  uint64_t seen = 0;
  for (const headroom::sim::NodeFault& fault : trace->faults) {
    HR_CHECK(fault.start_days <= fault.end_days && fault.end_days <= trace->span_days);
    HR_CHECK(!fault.node.empty() && !fault.fault_class.empty());
  }
  const headroom::sim::FailureModel model = headroom::sim::FailureModelOf(*trace);
  for (const headroom::sim::FaultClass& fault_class : model.classes) {
    HR_CHECK(fault_class.seen == fault_class.repair_s.size() && fault_class.seen > 0);
    HR_CHECK(fault_class.repair_s.front() >= 1);
    seen += fault_class.seen;
  }
  HR_CHECK(seen == trace->faults.size());
  return 0;
}
