// Reports of the fill experiment (fill/fill_experiment.h): report.json with, per policy, the
// `fill_curve` at the arrived-workload points operators and the FGD paper read (90, 95, 100,
// 110, 130%) — median, min and max over seeds of the unallocated and fragmented GPU percent and
// the median fragmentation ratio — plus the full median curves; report.html plots them.
// Promise: pure functions of the report; equal reports give byte-identical output.
#pragma once

#include <string>
#include <vector>

#include "sim/fill/fill_experiment.h"

namespace headroom::sim {

inline constexpr int kFillReportPoints[] = {90, 95, 100, 110, 130};

struct SeedSpread {
  double median = 0;  // As pandas: the mean of the two middle values for an even count.
  double min = 0;
  double max = 0;
};

// Over the runs' values at arrived percent `pct` (NaN runs ignored); NaN fields when none.
SeedSpread UnallocatedAt(const FillPolicyResult& result, int pct);
SeedSpread FragmentedAt(const FillPolicyResult& result, int pct);
SeedSpread FragmentationRatioAt(const FillPolicyResult& result, int pct);

std::string WriteFillJsonReport(const FillReport& report);
std::string WriteFillHtmlReport(const FillReport& report);
// The table printed on stdout: unallocated % (median) per policy at the report points.
std::string WriteFillTextTable(const FillReport& report);

}  // namespace headroom::sim
