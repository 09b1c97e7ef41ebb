// facility: keeps every power domain and cooling zone within its limit now, less the policy's
// margin, counting the projected draw of the work placed (engine/facility_ledger.h): a node is
// admitted when each element over it takes one more task, and a gang when each takes all of it.
#include <algorithm>

#include "engine/filters/builtin_filters.h"

namespace headroom::engine {

DeviceClassId TaskDeviceClass(const ClusterState& state, NodeId node_id,
                              const PlacementRequest& request) {
  const model::Cluster& cluster = state.cluster();
  const model::Node& node = cluster.node(node_id);
  for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
    const DeviceClassId device_class = cluster.devices()[d].device_class;
    if (request.classes->matches[device_class.value()]) return device_class;
  }
  return DeviceClassId();
}

bool Excluded(const PlacementRequest& request, uint32_t element) {
  return request.excluded_elements != nullptr && (*request.excluded_elements)[element] != 0;
}

namespace {

class Facility final : public NodeFilter {
 public:
  std::string_view name() const override { return "facility"; }
  std::string_view rejects() const override {
    return "under a power domain or cooling zone without the headroom for a task";
  }
  bool budget() const override { return true; }

  bool Admits(const ClusterState& state, NodeId node,
              const PlacementRequest& request) const override {
    if (request.ignore_budgets) return true;
    const FacilityLedger& ledger = state.facility();
    const model::TaskShape& shape = *request.shape;
    const DeviceClassId device_class = TaskDeviceClass(state, node, request);
    // Work without devices draws nothing the ledger counts.
    if (shape.devices == 0 || !device_class.valid()) return true;
    const int64_t task_mw = ledger.WorkDrawMw(device_class, shape.devices, shape.milli_per_device);
    return std::ranges::none_of(ledger.ElementsOver(node), [&](uint32_t element) {
      return Excluded(request, element) ||
             ledger.load_mw(element) + task_mw > ledger.allowance_mw(element);
    });
  }

  std::optional<Overdraw> Overdraws(const ClusterState& state,
                                    std::span<const TaskAllocation> gang) const override {
    const FacilityLedger& ledger = state.facility();
    for (const auto& [element, draw_mw] :
         ledger.GangDrawMw(gang, state.cluster(), FacilityLedger::Projection::kLoad)) {
      const int64_t over_mw = ledger.load_mw(element) + draw_mw - ledger.allowance_mw(element);
      if (draw_mw > 0 && over_mw > 0) return Overdraw{element, over_mw};
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<NodeFilter> MakeFacilityFilter() { return std::make_unique<Facility>(); }

}  // namespace headroom::engine
