// Loader for the Azure LLM inference traces of 2023 (Patel et al., "Splitwise: Efficient
// Generative LLM Inference Using Phase Splitting", ISCA'24; github.com/Azure/AzurePublicDataset,
// data/AzureLLMInferenceTrace_code.csv and its sibling AzureLLMInferenceTrace_conv.csv, which
// has the same columns).
//
// Format: CSV with a header, CRLF endings and no trailing newline (either ending is read).
// Columns
//   TIMESTAMP        wall-clock time "YYYY-MM-DD HH:MM:SS.fffffff" (up to 7 fractional digits,
//                    none also read), UTC as published
//   ContextTokens    prompt tokens
//   GeneratedTokens  output tokens
// sorted by time. There is no model, service or user id: a whole file is one service's load.
//
// Mapping, one row -> one InferenceRequest: TIMESTAMP -> arrival, to the microsecond
// (digits past the sixth are dropped), shifted so the first request arrives at 0;
// ContextTokens -> input_tokens; GeneratedTokens -> output_tokens.
// Promises (request_trace.h): sorted by arrival, ties in file order; malformed cells are errors
// "file:line: field 'x': expected ..., got "..."". Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/time.h"
#include "sim/traces/request_trace.h"

namespace headroom::sim {

Result<RequestTrace> ParseAzureLlmTrace(std::string_view text, std::string source);

// "YYYY-MM-DD HH:MM:SS[.f...]" (years 1970 to 9999, up to 9 fractional digits) as
// microseconds since 1970-01-01 00:00:00 UTC; nullopt when it is not such a time.
std::optional<TimeUs> ParseWallClockUs(std::string_view text);

}  // namespace headroom::sim
