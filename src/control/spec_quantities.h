// The quantities a job spec writes as text (docs/api.md "Jobs"): durations, CPU cores, memory
// sizes and exact decimals. Each reads its whole input or refuses it; none throws.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "base/time.h"

namespace headroom::control {

// "90s", "30m", "2h", "1d" or an integer count of seconds; > 0 and at most 366 days.
Result<TimeUs> ParseDuration(std::string_view text);
// Cores as "16", "0.5" or "500m" → milli-cores.
Result<int64_t> ParseCpuMilli(std::string_view text);
// "512Mi", "128Gi", "1Ti" → MiB.
Result<int64_t> ParseMemoryMib(std::string_view text);
// "12", "0.5", "1.25": a non-negative decimal times `scale`, exactly (a remainder is refused as
// too precise), at most a quarter of int64's range.
Result<int64_t> ScaledDecimal(std::string_view text, int64_t scale);

}  // namespace headroom::control
