// WriteTextTable: the plain-text comparison `headroom sim` prints — one header line saying
// which cluster, workload, offered load and seed were simulated, then one aligned row per
// policy (allocation, queue wait, job completion time, bounded slowdown, fragmentation,
// completed and unplaced jobs, makespan, the share of multi-node jobs placed inside one
// deepest-level block ("-" when none ran), and migrations with their cost in device-hours).
//
// Promises:
//   1. The output is a pure function of the RunReport: no clock, no locale, same bytes for
//      the same input.
//   2. Every line ends with '\n' and has no trailing spaces. Columns are separated by two
//      spaces; the policy column is left-aligned and every numeric column right-aligned.
//      Widths count UTF-8 code points, so aligned output stays aligned for non-ASCII names.
//   3. Durations use FormatDuration and fractions FormatPercent; a NaN or infinite value
//      prints as "-". Control characters in names print as '?'.
// Threading: stateless functions, safe to call from any thread.
#pragma once

#include <string>

#include "sim/run_result.h"

namespace headroom::sim {

std::string WriteTextTable(const RunReport& report);

// A duration in the largest unit that keeps it readable, rounded for people rather than
// programs: "0s", "4.2s" (under 10 s), "42s", "3.4m", "2.1h", "1.5d", "120d" (100 days and
// more). Negative durations get a leading '-'; NaN and infinities print as "-". The HTML
// report uses the same units.
std::string FormatDuration(double seconds);

// A fraction as a percentage with one decimal: 0.7342 → "73.4%". NaN and infinities print
// as "-".
std::string FormatPercent(double fraction);

}  // namespace headroom::sim
