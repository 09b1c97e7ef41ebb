// libFuzzer target: the request-trace loaders (ParseAzureLlmTrace, ParseMooncakeTrace) and the
// daily load curve's (ParseAlibabaGenaiQps) on arbitrary text. They must never crash, hang or
// overflow, and whatever they accept must keep their headers' promises: requests sorted, the
// first at 0, token counts within bounds; a curve of 96 bins in [0, 1] whose largest is 1.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "sim/traces/azure_llm_trace.h"
#include "sim/traces/load_curve.h"
#include "sim/traces/mooncake_trace.h"

namespace {

void CheckPromises(const headroom::Result<headroom::sim::RequestTrace>& trace) {
  if (!trace) return;
  const auto& requests = trace->requests;
  if (!requests.empty()) HR_CHECK(requests.front().arrival_us == 0);
  for (size_t i = 0; i < requests.size(); ++i) {
    HR_CHECK(requests[i].input_tokens <= headroom::sim::kMaxRequestTokens);
    HR_CHECK(requests[i].output_tokens <= headroom::sim::kMaxRequestTokens);
    if (i > 0) HR_CHECK(requests[i - 1].arrival_us <= requests[i].arrival_us);
  }
}

void CheckCurve(const headroom::Result<headroom::sim::LoadCurve>& curve) {
  if (!curve) return;
  HR_CHECK(curve->relative_rate.size() == headroom::sim::LoadCurve::kBins);
  double largest = 0;
  for (const double rate : curve->relative_rate) {
    HR_CHECK(rate >= 0 && rate <= 1);
    largest = std::max(largest, rate);
  }
  HR_CHECK(largest == 1);
  const double at = curve->RelativeRateAt(12345 * headroom::kUsPerSecond);
  HR_CHECK(at >= 0 && at <= 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckPromises(headroom::sim::ParseAzureLlmTrace(text, "code.csv"));
  CheckPromises(headroom::sim::ParseMooncakeTrace(text, "trace.jsonl"));
  CheckCurve(headroom::sim::ParseAlibabaGenaiQps(text, "qps.csv"));
  return 0;
}
