// Request traces: the arrivals of inference requests that a service replays (its load), loaded
// from a public trace named FORMAT:PATH, as published:
//   azure-llm:PATH  Azure LLM inference 2023, code or conversation trace   azure_llm_trace.h
//   mooncake:PATH   Mooncake (Kimi) FAST'25 conversation trace, JSONL      mooncake_trace.h
// PATH is everything after the first colon, so paths may contain colons.
// Promises: requests sorted by arrival (ties in file order), the first at 0; token counts at
// most kMaxRequestTokens; malformed input is an error naming file, line and field, never a crash;
// a missing file is kNotFound. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time.h"

namespace headroom::sim {

// Far above any context window (the Azure traces' longest prompt is 7,437 tokens, Mooncake's
// about 128k): a larger count is a malformed cell, not a request.
inline constexpr int64_t kMaxRequestTokens = 100'000'000;

struct InferenceRequest {
  TimeUs arrival_us = 0;       // From the trace's first request.
  uint32_t input_tokens = 0;   // Prompt (context) tokens.
  uint32_t output_tokens = 0;  // Generated tokens.
};

struct RequestTrace {
  std::string format;  // "azure-llm" or "mooncake".
  std::string source;  // The file it came from.
  std::vector<InferenceRequest> requests;

  // Last arrival minus first; 0 for fewer than two requests.
  TimeUs span_us() const { return requests.empty() ? 0 : requests.back().arrival_us; }
};

// `spec` is "FORMAT:PATH"; FORMAT is azure-llm or mooncake.
Result<RequestTrace> LoadRequestTrace(std::string_view spec);

// Sorts `trace.requests` by arrival (stably) and shifts them so that the first arrives at 0.
void NormalizeArrivals(RequestTrace& trace);

// The trace at `factor` times its request rate over the same span: whole copies of it, each
// but the first shifted circularly in time by a random offset (so their bursts do not all
// coincide), and for the fraction left one more shifted copy keeping each request with that
// probability. A factor below 1 thins the trace itself. Deterministic in `seed`; factor > 0.
RequestTrace MultiplexRequests(const RequestTrace& trace, double factor, uint64_t seed);

}  // namespace headroom::sim
