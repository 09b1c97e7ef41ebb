// Scripted facility incidents for the simulator (docs/facility.md, "Incidents"): for a while, a
// cooling zone removes only a share of its capacity (a cooling unit failed), or a power domain
// may carry only a share of its limit (a feed derated for maintenance). The meter applies them
// (facility_meter.h); heat then throttles the work in the zone, and loads past the derated
// limit count as violations.
//
// Text form, as `headroom sim --incident` takes it:
//   cooling:ZONE:START_S:DURATION_S:SHARE    e.g. cooling:row3-rack0:3600:7200:0
//   feed:POWER_DOMAIN:START_S:DURATION_S:SHARE  e.g. feed:row2-feed:0:86400:0.5
// START_S counts from the workload's first arrival. Errors name the text and the field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/time.h"
#include "model/cluster.h"

namespace headroom::sim {

struct FacilityIncident {
  enum class Kind { kCooling, kPower };
  Kind kind = Kind::kCooling;
  uint32_t index = 0;   // Into the cluster's facility().cooling_zones or power_domains.
  TimeUs start_us = 0;  // From the first arrival.
  TimeUs duration_us = 0;
  double share = 0;  // Of the zone's capacity or the domain's limit, in [0, 1].
};

Result<FacilityIncident> ParseFacilityIncident(std::string_view text,
                                               const model::Cluster& cluster);

}  // namespace headroom::sim
