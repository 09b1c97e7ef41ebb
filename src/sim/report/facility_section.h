// The HTML report's facility section (docs/facility.md, "In the simulator"): what each policy's
// floor drew and what it cost the building — energy, cooling, work per kWh, limits passed, the
// hottest inlet — and the devices' draw over time.
#pragma once

#include <string>

#include "sim/run_result.h"

namespace headroom::sim {

void AppendFacilitySection(std::string& out, const RunReport& report);

}  // namespace headroom::sim
