// libFuzzer target: ParseDlrmTrace on arbitrary text. It must never crash, hang or overflow,
// and whatever it accepts must keep dlrm_trace.h's promises (creation and scheduling both known
// or both unknown, creation <= scheduling <= deletion, RDMA at most 100%).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "sim/traces/dlrm_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto trace = headroom::sim::ParseDlrmTrace(text, "dlrm.csv");
  if (!trace) return 0;
  for (const headroom::sim::ServiceInstance& instance : trace->instances) {
    HR_CHECK(instance.created_us.has_value() == instance.scheduled_us.has_value());
    if (instance.created_us) HR_CHECK(*instance.created_us <= *instance.scheduled_us);
    if (instance.scheduled_us && instance.deleted_us) {
      HR_CHECK(*instance.scheduled_us <= *instance.deleted_us);
    }
    HR_CHECK(instance.rdma_percent <= 100 && !instance.service.empty());
  }
  return 0;
}
