#include "engine/filter.h"

#include <algorithm>
#include <array>

#include "engine/filters/builtin_filters.h"

namespace headroom::engine {

const Registry<NodeFilter>& Filters() {
  static constexpr std::array<Registry<NodeFilter>::Entry, 4> kEntries = {{
      {"drained", "the node is not drained", &MakeDrainedFilter},
      {"device_selector", "the node has a device class the selector accepts",
       &MakeDeviceSelectorFilter},
      {"facility", "every power domain and cooling zone over the node has headroom for the work",
       &MakeFacilityFilter},
      {"power_budget",
       "every power domain over the node has the budget for the work at nominal power "
       "(Slurm's hierarchical resources)",
       &MakePowerBudgetFilter},
  }};
  static const Registry<NodeFilter> registry("filter", kEntries);
  return registry;
}

Result<std::vector<std::shared_ptr<const NodeFilter>>> PolicyFilters(
    const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (Filters().Find(name) == nullptr) return tl::unexpected(Filters().Unknown(name));
  }
  std::vector<std::shared_ptr<const NodeFilter>> filters;
  for (const auto& entry : Filters().entries()) {
    std::shared_ptr<const NodeFilter> filter = entry.make();
    const bool listed = std::find(names.begin(), names.end(), entry.name) != names.end();
    if (listed || filter->mandatory()) filters.push_back(std::move(filter));
  }
  return filters;
}

}  // namespace headroom::engine
