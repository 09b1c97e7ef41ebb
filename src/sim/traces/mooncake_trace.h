// Loader for the Mooncake traces (Qin et al., "Mooncake: Trading More Storage for Less
// Computation — A KVCache-centric Architecture for Serving LLM Chatbot", FAST'25;
// github.com/kvcache-ai/Mooncake, FAST25-release/traces/conversation_trace.jsonl and the other
// traces of that release, which have the same fields).
//
// Format: JSON Lines, one object per request, sorted by time; several requests may share a
// timestamp. Fields
//   timestamp      milliseconds from the trace's start (an integer as published; a fraction
//                  is read to the microsecond)
//   input_length   prompt tokens
//   output_length  generated tokens
//   hash_ids       prefix KV-cache block ids (512 tokens a block): not used here; other fields
//                  are ignored too, as later releases may add some.
// Blank lines are skipped.
//
// Mapping, one line -> one InferenceRequest: timestamp -> arrival, shifted so the first request
// arrives at 0; input_length -> input_tokens; output_length -> output_tokens.
// Promises (request_trace.h): sorted by arrival, ties in file order; a line that is not a JSON
// object, or a field missing or out of range, is an error "file:line: field 'x': expected ...,
// got ...". Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "sim/traces/request_trace.h"

namespace headroom::sim {

Result<RequestTrace> ParseMooncakeTrace(std::string_view text, std::string source);

}  // namespace headroom::sim
