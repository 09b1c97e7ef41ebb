// Strict readers for the cells of a trace CSV, shared by every trace loader, plus the tally of
// rows a loader drops on purpose. A cell that is not what the format promises is an error that
// names the file, line, field, what was expected and what was there:
//   philly.csv:7: field 'gpu_num': expected a non-negative integer, got "x"
// Bounds keep every later product (seconds to microseconds, cumulative sums, devices x tasks)
// far from overflow, so hostile input (the fuzzers) is an error, never undefined behaviour.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "base/csv.h"
#include "base/result.h"
#include "base/time.h"
#include "sim/traces/workload_loader.h"

namespace headroom::sim {

// Largest count a trace cell may hold (devices, nodes, CPUs, users): far above any real job.
inline constexpr int64_t kMaxTraceCount = 1'000'000;
// Largest time a trace may mention, in seconds (about 317 years); times and sums of
// inter-arrival gaps beyond it are errors. Its microsecond form, 10^16, fits int64 with room.
inline constexpr int64_t kMaxTraceSeconds = 10'000'000'000;

// A cell holding an integer in [0, max]. Messages: `expected a non-negative integer, got "x"`,
// or `expected a non-negative integer at most MAX, got "x"` when it is too large.
Result<int64_t> ReadCount(const CsvTable& table, size_t row, size_t column, int64_t max);

// A cell holding an integer in [-max, max] (runtimes, which may be zero or negative in a trace
// and are then skipped by the caller, not rejected). Messages: `expected an integer, got "x"`,
// `expected an integer between -MAX and MAX, got "x"`.
Result<int64_t> ReadSignedInteger(const CsvTable& table, size_t row, size_t column, int64_t max);

// Whole seconds (bounded by kMaxTraceSeconds in magnitude) to microseconds.
constexpr TimeUs TraceSecondsToUs(int64_t seconds) { return seconds * kUsPerSecond; }

// A short, printable rendering of a JSON value for messages (at most 40 characters).
std::string ShownJson(const nlohmann::json& value);

// Counts one dropped row under `reason`; reasons keep the order in which they first occur.
void CountSkipped(LoadedWorkload& loaded, std::string_view reason);

// ceil(a / b) for b > 0.
constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace headroom::sim
