// The built-in filters' factories (one file each in this folder), for the registry in filter.cc.
#pragma once

#include <memory>

#include "engine/filter.h"

namespace headroom::engine {

std::unique_ptr<NodeFilter> MakeDrainedFilter();
std::unique_ptr<NodeFilter> MakeDeviceSelectorFilter();
std::unique_ptr<NodeFilter> MakeFacilityFilter();
std::unique_ptr<NodeFilter> MakePowerBudgetFilter();

}  // namespace headroom::engine
