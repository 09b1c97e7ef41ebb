// The built-in filters' factories (one file each in this folder), for the registry in filter.cc.
#pragma once

#include <memory>

#include "engine/filter.h"

namespace headroom::engine {

std::unique_ptr<NodeFilter> MakeDrainedFilter();
std::unique_ptr<NodeFilter> MakeDeviceSelectorFilter();
std::unique_ptr<NodeFilter> MakeFacilityFilter();
std::unique_ptr<NodeFilter> MakePowerBudgetFilter();

// For the budget filters (facility.cc): the class of the node's first device the request's
// selector accepts (invalid: none), and whether the placer set `element` aside.
DeviceClassId TaskDeviceClass(const ClusterState& state, NodeId node,
                              const PlacementRequest& request);
bool Excluded(const PlacementRequest& request, uint32_t element);

}  // namespace headroom::engine
