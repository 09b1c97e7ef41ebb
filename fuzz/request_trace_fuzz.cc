// libFuzzer target: the request-trace loaders (ParseAzureLlmTrace, ParseMooncakeTrace) on
// arbitrary text. They must never crash, hang or overflow, and whatever they accept must keep
// request_trace.h's promises (sorted, the first arrival at 0, token counts within bounds).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "sim/traces/azure_llm_trace.h"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckPromises(headroom::sim::ParseAzureLlmTrace(text, "code.csv"));
  CheckPromises(headroom::sim::ParseMooncakeTrace(text, "trace.jsonl"));
  return 0;
}
