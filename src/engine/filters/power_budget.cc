// power_budget: Slurm's hierarchical resources as its documentation describes them (Slurm 25.05+,
// https://slurm.schedmd.com/hres.html and resources.yaml(5), MODE_3): a power count per layer of a
// tree, each job's nodes consuming a stated amount, summed up the layers at admission and never
// past a layer's count. Here each task consumes its devices' nominal power (their TDP) and a
// layer is a power domain with its limit (a derate is taken as an operator would reconfigure the
// count). Nominal, not measured: what the devices actually draw is never read, and cooling is not
// a layer.
#include <algorithm>

#include "engine/filters/builtin_filters.h"

namespace headroom::engine {
namespace {

class PowerBudget final : public NodeFilter {
 public:
  std::string_view name() const override { return "power_budget"; }
  std::string_view rejects() const override {
    return "under a power domain without the nominal budget for a task";
  }
  bool budget() const override { return true; }

  bool Admits(const ClusterState& state, NodeId node,
              const PlacementRequest& request) const override {
    if (request.ignore_budgets) return true;
    const FacilityLedger& ledger = state.facility();
    const model::TaskShape& shape = *request.shape;
    const DeviceClassId device_class = TaskDeviceClass(state, node, request);
    if (shape.devices == 0 || !device_class.valid()) return true;
    const int64_t task_mw =
        ledger.NominalDrawMw(device_class, shape.devices, shape.milli_per_device);
    return std::ranges::none_of(ledger.ElementsOver(node), [&](uint32_t element) {
      return ledger.kind(element) == FacilityLedger::Kind::kPower &&
             (Excluded(request, element) ||
              ledger.nominal_mw(element) + task_mw > ledger.limit_mw(element));
    });
  }

  std::optional<Overdraw> Overdraws(const ClusterState& state,
                                    std::span<const TaskAllocation> gang) const override {
    const FacilityLedger& ledger = state.facility();
    for (const auto& [element, draw_mw] :
         ledger.GangDrawMw(gang, state.cluster(), FacilityLedger::Projection::kNominal)) {
      if (ledger.kind(element) != FacilityLedger::Kind::kPower) continue;
      const int64_t over_mw = ledger.nominal_mw(element) + draw_mw - ledger.limit_mw(element);
      if (draw_mw > 0 && over_mw > 0) return Overdraw{element, over_mw};
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<NodeFilter> MakePowerBudgetFilter() { return std::make_unique<PowerBudget>(); }

}  // namespace headroom::engine
