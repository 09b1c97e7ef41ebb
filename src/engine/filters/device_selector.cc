// device_selector: the node has at least one device whose class the request's selector
// accepts (model/selector.h); CPU-only requests pass everywhere. Mandatory: a task never runs
// on devices its selector refused.
#include "engine/filters/builtin_filters.h"

namespace headroom::engine {
namespace {

class DeviceSelector final : public NodeFilter {
 public:
  std::string_view name() const override { return "device_selector"; }
  std::string_view rejects() const override { return "without a device the selector accepts"; }
  bool mandatory() const override { return true; }
  bool Admits(const ClusterState& state, NodeId node,
              const PlacementRequest& request) const override {
    if (request.shape->devices == 0) return true;
    for (DeviceClassId device_class : request.classes->classes) {
      if (state.class_devices(node, device_class) > 0) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<NodeFilter> MakeDeviceSelectorFilter() {
  return std::make_unique<DeviceSelector>();
}

}  // namespace headroom::engine
