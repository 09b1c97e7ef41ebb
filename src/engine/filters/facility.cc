// The building's budget filters (filter.h), over the engine's facility ledger
// (engine/facility_ledger.h): a node is admitted when each element over it takes one more task of
// the job, and a gang when each takes all of it.
//  facility      every power domain and cooling zone within its limit now less the policy's
//                margin, counting work's projected draw: headroom's.
//  power_budget  Slurm's hierarchical resources as its documentation describes them (Slurm
//                25.05+, https://slurm.schedmd.com/hres.html and resources.yaml(5), MODE_3): a
//                power count per layer of a tree, each job's nodes consuming a stated amount,
//                summed up the layers at admission and never past a layer's count. Each task
//                consumes its devices' nominal power (their TDP); a layer is a power domain with
//                its limit (a derate is taken as an operator would reconfigure the count). What
//                the devices draw is never read, and cooling is not a layer.
#include <algorithm>

#include "engine/filters/builtin_filters.h"

namespace headroom::engine {
namespace {

// A class of the node's devices the request's selector accepts (invalid: none), from the
// state's per-node class counts rather than a walk over the node's devices: Admits is asked of
// every node a search looks at.
DeviceClassId TaskDeviceClass(const ClusterState& state, NodeId node,
                              const PlacementRequest& request) {
  for (DeviceClassId device_class : request.classes->classes) {
    if (state.class_devices(node, device_class) > 0) return device_class;
  }
  return DeviceClassId();
}

using Projection = FacilityLedger::Projection;

class BudgetFilter final : public NodeFilter {
 public:
  BudgetFilter(std::string_view name, std::string_view rejects, Projection projection)
      : name_(name), rejects_(rejects), projection_(projection) {}

  std::string_view name() const override { return name_; }
  std::string_view rejects() const override { return rejects_; }
  bool budget() const override { return true; }

  bool Admits(const ClusterState& state, NodeId node,
              const PlacementRequest& request) const override {
    if (request.ignore_budgets) return true;
    const FacilityLedger& ledger = state.facility();
    const model::TaskShape& shape = *request.shape;
    const DeviceClassId device_class = TaskDeviceClass(state, node, request);
    // Work without devices draws nothing the ledger counts.
    if (shape.devices == 0 || !device_class.valid()) return true;
    const int64_t task_mw = TaskDrawMw(ledger, device_class, request);
    return std::ranges::none_of(ledger.ElementsOver(node), [&](uint32_t element) {
      const bool excluded =
          request.excluded_elements != nullptr && (*request.excluded_elements)[element] != 0;
      return Counts(ledger, element) && (excluded || Over(ledger, element, task_mw) > 0);
    });
  }

  bool AdmitsInDomain(const ClusterState& state, DomainId domain,
                      const PlacementRequest& request) const override {
    if (request.ignore_budgets || request.shape->devices == 0) return true;
    const FacilityLedger& ledger = state.facility();
    const std::span<const uint32_t> elements = ledger.ElementsCovering(domain);
    if (elements.empty()) return true;
    // The least a task may draw, over the classes the selector accepts.
    int64_t task_mw = INT64_MAX;
    for (DeviceClassId device_class : request.classes->classes) {
      task_mw = std::min(task_mw, TaskDrawMw(ledger, device_class, request));
    }
    const int64_t gang_mw = task_mw * request.task_count;
    return std::ranges::none_of(elements, [&](uint32_t element) {
      const bool excluded =
          request.excluded_elements != nullptr && (*request.excluded_elements)[element] != 0;
      return Counts(ledger, element) && (excluded || Over(ledger, element, gang_mw) > 0);
    });
  }

  std::optional<Overdraw> Overdraws(const ClusterState& state,
                                    std::span<const TaskAllocation> gang) const override {
    const FacilityLedger& ledger = state.facility();
    for (const auto& [element, draw_mw] : ledger.GangDrawMw(gang, state.cluster(), projection_)) {
      const int64_t over_mw = Over(ledger, element, draw_mw);
      if (Counts(ledger, element) && draw_mw > 0 && over_mw > 0) {
        return Overdraw{element, over_mw};
      }
    }
    return std::nullopt;
  }

 private:
  int64_t TaskDrawMw(const FacilityLedger& ledger, DeviceClassId device_class,
                     const PlacementRequest& request) const {
    const model::TaskShape& shape = *request.shape;
    const uint32_t rung = request.whole_devices() ? request.cap_rung : 0;
    return projection_ == Projection::kLoad
               ? ledger.WorkDrawMw(device_class, shape.devices, shape.milli_per_device, rung)
               : ledger.NominalDrawMw(device_class, shape.devices, shape.milli_per_device, rung);
  }
  bool Counts(const FacilityLedger& ledger, uint32_t element) const {
    return projection_ == Projection::kLoad || ledger.kind(element) == FacilityLedger::Kind::kPower;
  }
  // How far past its budget `element` goes with `draw_mw` more.
  int64_t Over(const FacilityLedger& ledger, uint32_t element, int64_t draw_mw) const {
    return projection_ == Projection::kLoad
               ? ledger.load_mw(element) + draw_mw - ledger.allowance_mw(element)
               : ledger.nominal_mw(element) + draw_mw - ledger.limit_mw(element);
  }

  std::string_view name_;
  std::string_view rejects_;
  Projection projection_;
};

}  // namespace

std::unique_ptr<NodeFilter> MakeFacilityFilter() {
  return std::make_unique<BudgetFilter>(
      "facility", "under a power domain or cooling zone without the headroom for a task",
      Projection::kLoad);
}

std::unique_ptr<NodeFilter> MakePowerBudgetFilter() {
  return std::make_unique<BudgetFilter>(
      "power_budget", "under a power domain without the nominal budget for a task",
      Projection::kNominal);
}

}  // namespace headroom::engine
