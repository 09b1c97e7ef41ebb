#include "sim/traces/request_trace.h"

#include <algorithm>
#include <string>

#include "base/csv.h"
#include "sim/traces/azure_llm_trace.h"
#include "sim/traces/mooncake_trace.h"

namespace headroom::sim {

Result<RequestTrace> LoadRequestTrace(std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos || colon + 1 == spec.size()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "request trace: expected FORMAT:PATH (azure-llm or mooncake), got \"{}\"",
                     spec);
  }
  const std::string_view format = spec.substr(0, colon);
  const std::string path(spec.substr(colon + 1));
  auto parse = format == "azure-llm"  ? &ParseAzureLlmTrace
               : format == "mooncake" ? &ParseMooncakeTrace
                                      : nullptr;
  if (parse == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "request trace: expected a format of azure-llm or mooncake, got \"{}\"",
                     format);
  }
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  return parse(*text, path);
}

void NormalizeArrivals(RequestTrace& trace) {
  auto& requests = trace.requests;
  std::stable_sort(requests.begin(), requests.end(),
                   [](const InferenceRequest& a, const InferenceRequest& b) {
                     return a.arrival_us < b.arrival_us;
                   });
  if (requests.empty()) return;
  const TimeUs first = requests.front().arrival_us;
  for (InferenceRequest& request : requests) request.arrival_us -= first;
}

}  // namespace headroom::sim
