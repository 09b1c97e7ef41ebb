// `headroom sim --experiment fill`: FGD's fill experiment (sim/fill/fill_experiment.h) on a
// cluster and a pod list, every listed packing policy over every seed, reported as
// report.json and report.html (sim/report/fill_report.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace headroom::cli {

struct FillFlags {
  std::string cluster;
  std::string workload;
  std::string policies;  // Comma-separated packing policies, or "all".
  std::string seeds;     // "42-51" or "42,43,44".
  double tune = 1.3;
  std::string out;
  unsigned threads = 0;
};

// Writes `text` to `path` (truncating); errors name the path. Shared by `headroom sim`'s reports.
Result<void> WriteReportFile(const std::string& path, const std::string& text);

// "42-51" → 42..51; "1,5,7" → those; errors name the flag.
Result<std::vector<uint64_t>> ParseSeeds(const std::string& text);

// Runs the experiment, prints the table, writes the reports. Exit status as `headroom sim`.
int RunFillCommand(const FillFlags& flags);

}  // namespace headroom::cli
