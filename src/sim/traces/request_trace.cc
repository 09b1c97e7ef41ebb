#include "sim/traces/request_trace.h"

#include <algorithm>
#include <string>

#include "base/check.h"
#include "base/csv.h"
#include "base/rng.h"
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

RequestTrace MultiplexRequests(const RequestTrace& trace, double factor, uint64_t seed) {
  HR_CHECK(factor > 0);
  RequestTrace out{.format = trace.format, .source = trace.source, .requests = {}};
  const TimeUs period_us = trace.span_us() + 1;
  Rng rng(seed);
  const auto whole = static_cast<uint64_t>(factor);
  const double fraction = factor - static_cast<double>(whole);
  for (uint64_t copy = 0; copy <= whole; ++copy) {
    const double keep = copy < whole ? 1.0 : fraction;
    if (keep <= 0) break;
    // The first whole copy stays in place, so a factor of 1 gives the trace back.
    const TimeUs shift_us = copy == 0 && whole > 0
                                ? 0
                                : static_cast<TimeUs>(rng.Below(static_cast<uint64_t>(period_us)));
    for (const InferenceRequest& request : trace.requests) {
      if (keep < 1 && rng.Uniform() >= keep) continue;
      InferenceRequest shifted = request;
      shifted.arrival_us = (request.arrival_us + shift_us) % period_us;
      out.requests.push_back(shifted);
    }
  }
  std::stable_sort(out.requests.begin(), out.requests.end(),
                   [](const InferenceRequest& a, const InferenceRequest& b) {
                     return a.arrival_us < b.arrival_us;
                   });
  return out;
}

}  // namespace headroom::sim
