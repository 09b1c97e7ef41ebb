// FacilityLedger: what the floor's placements put on each element of the building, as the engine
// projects it, against each element's limit now. The elements are the cluster's power domains
// (feeds, PDUs, rows: model::Facility::power_domains, in order) and then its cooling zones: a
// power domain carries the electrical load of its nodes, a cooling zone the heat of its nodes
// (all of it: a device turns what it draws into heat).
//
// Two projections are kept (docs/facility.md, "In the engine"):
//  load      every device's idle draw, plus, for the share of it work holds, the work's mean draw
//            above idle (training at the default cap, model/device_power.h): what the simulator
//            meters and a power monitor reads, so a placement the facility filter admits keeps
//            the element within its limit in the meter too;
//  nominal   each allocated device's TDP and nothing for idle ones: what a static per-layer
//            budget checked at admission counts (Slurm's hierarchical resources, MODE_3).
// Loads are integers (milliwatts), so an undone allocation restores them exactly. Limits start
// at the cluster's and move with FacilityLimit events (a derated feed, a failed cooling unit).
//
// A task may run capped (TaskAllocation::power_cap_w): its work then draws what the power model
// gives under that limit, and its nominal power is the cap. The engine picks caps from a ladder
// of rungs (shares of the TDP within the range the device accepts), kept per device class.
//
// Cost: an allocation adds its devices' draw to the few elements above its node, O(devices ×
// elements over the node).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "base/ids.h"
#include "engine/decision.h"
#include "model/cluster.h"
#include "model/device_power.h"

namespace headroom::engine {

class FacilityLedger {
 public:
  enum class Kind : uint8_t { kPower, kCooling };

  explicit FacilityLedger(const model::Cluster& cluster);

  uint32_t size() const { return static_cast<uint32_t>(elements_.size()); }
  Kind kind(uint32_t element) const { return elements_[element].kind; }
  std::string_view name(uint32_t element) const { return elements_[element].name; }
  // The element of `kind` with index `index` in the cluster's list of that kind.
  uint32_t ElementOf(Kind kind, uint32_t index) const {
    return kind == Kind::kPower ? index : power_domain_count_ + index;
  }

  int64_t limit_mw(uint32_t element) const { return elements_[element].limit_mw; }
  int64_t load_mw(uint32_t element) const { return elements_[element].load_mw; }
  int64_t nominal_mw(uint32_t element) const { return elements_[element].nominal_mw; }
  // What placements may bring the load to: the limit less the policy's margin.
  int64_t allowance_mw(uint32_t element) const {
    return elements_[element].limit_mw - elements_[element].margin_mw;
  }
  // The share of every limit kept free (PolicyConfig::facility_margin), in [0, 1).
  void SetMargin(double share);
  // The elements over `node`: each power domain and cooling zone whose domains hold it.
  std::span<const uint32_t> ElementsOver(NodeId node) const {
    return {node_elements_.data() + node_element_begin_[node.value()],
            node_element_begin_[node.value() + 1] - node_element_begin_[node.value()]};
  }

  // The elements over every node of `domain` (an element over part of it is not listed): the
  // elements a gang placed anywhere inside it draws on.
  std::span<const uint32_t> ElementsCovering(DomainId domain) const {
    return {domain_elements_.data() + domain_element_begin_[domain.value()],
            domain_element_begin_[domain.value() + 1] - domain_element_begin_[domain.value()]};
  }

  // The cap ladder: rung 0 is the default limit (no cap), rung r caps at kRungMilli[r]/1000 of
  // the TDP, raised to the lowest cap the device accepts.
  static constexpr std::array<uint16_t, 7> kRungMilli = {1000, 900, 800, 700, 600, 500, 400};
  static constexpr uint32_t kRungs = kRungMilli.size();
  // The rung capping at `share` of the TDP; 0 where no rung below the top does.
  static constexpr uint32_t RungAtShare(double share) {
    for (uint32_t rung = 1; rung < kRungs; ++rung) {
      const double milli = share * 1000;
      if (milli > kRungMilli[rung] - 0.5 && milli < kRungMilli[rung] + 0.5) return rung;
    }
    return 0;
  }
  // The cap of `rung` on a device of `device_class`, watts (0 at rung 0).
  uint32_t CapW(DeviceClassId device_class, uint32_t rung) const {
    return rungs_[device_class.value() * kRungs + rung].cap_w;
  }
  // Training's throughput under the cap of `rung`, a share of uncapped (model::DrawUnder).
  double RungSpeed(DeviceClassId device_class, uint32_t rung) const {
    return rungs_[device_class.value() * kRungs + rung].speed;
  }
  // The rung a cap of `cap_w` is on; kRungs: none (a cap the engine did not choose).
  uint32_t RungOf(DeviceClassId device_class, uint32_t cap_w) const;

  // What one task of `milli_per_device` on each of `devices` devices of `device_class` adds to
  // each projection, its devices capped at `rung` (whole devices only).
  int64_t WorkDrawMw(DeviceClassId device_class, uint32_t devices, uint32_t milli_per_device,
                     uint32_t rung = 0) const;
  int64_t NominalDrawMw(DeviceClassId device_class, uint32_t devices, uint32_t milli_per_device,
                        uint32_t rung = 0) const;

  // What `gang` would add to each element over its nodes, by projection: (element, mW) pairs,
  // each element once, in the order first met.
  enum class Projection : uint8_t { kLoad, kNominal };
  std::vector<std::pair<uint32_t, int64_t>> GangDrawMw(std::span<const TaskAllocation> gang,
                                                       const model::Cluster& cluster,
                                                       Projection projection) const;

  // `sign` +1: the task's work starts drawing; -1: it stops.
  void Apply(const TaskAllocation& task, const model::Cluster& cluster, int sign);
  void SetLimit(uint32_t element, int64_t limit_mw);

 private:
  struct Element {
    Kind kind;
    std::string_view name;
    int64_t limit_mw = 0;
    int64_t load_mw = 0;
    int64_t nominal_mw = 0;
    int64_t margin_mw = 0;
  };
  double margin_share_ = 0;
  // The draw of one task's devices: (load, nominal) in mW.
  std::pair<int64_t, int64_t> TaskDrawMw(const TaskAllocation& task,
                                         const model::Cluster& cluster) const;

  std::vector<Element> elements_;
  uint32_t power_domain_count_ = 0;
  std::vector<uint32_t> node_element_begin_;  // CSR over nodes: node_elements_ by node.
  std::vector<uint32_t> node_elements_;
  std::vector<uint32_t> domain_element_begin_;  // CSR over topology domains.
  std::vector<uint32_t> domain_elements_;
  // A device's work draw capped at `cap_w` (0: uncapped), by projection.
  std::pair<int64_t, int64_t> DeviceDrawMw(DeviceClassId device_class, uint32_t cap_w) const;

  struct Rung {
    uint32_t cap_w = 0;
    int64_t work_mw = 0;  // Busy mean draw above idle under the cap.
    double speed = 1;
  };
  std::vector<Rung> rungs_;                // By device class × rung.
  std::vector<int64_t> class_idle_mw_;     // By device class.
  std::vector<int64_t> class_nominal_mw_;  // By device class: the TDP.
  std::vector<const model::DevicePowerSpec*> class_spec_;
};

}  // namespace headroom::engine
