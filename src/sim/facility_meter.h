// The building as the simulator meters it (docs/facility.md, "In the simulator"). Between two
// events the floor does not change, so the meter integrates, over each such span: every device's
// draw (its power model, model/device_power.h, under the share of it running work holds), each
// cooling zone's heat and supply temperature (model/thermal.h, exactly for a constant heat), and
// each power domain's load against its limit.
//
// Running work is metered as training (compute and communication phases) under its device's cap
// (the engine's, ClusterState::power_cap_w; the default limit where none), throttled by the heat
// at its inlet (model/thermal.h): the simulator slows each job to its slowest device's speed and
// looks again every minute while a zone is warm. Nothing the meter computes reaches the engine
// but the limits its incidents set.
// Promises: energy in joules integrates each span's draw × its length; a domain's violation
// opens when its mean load passes its limit and its kW·s over count only the excess.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/ids.h"
#include "base/time.h"
#include "engine/cluster_state.h"
#include "engine/event.h"
#include "model/cluster.h"
#include "model/thermal.h"
#include "sim/facility_incident.h"
#include "sim/run_result.h"

namespace headroom::sim {

class FacilityMeter {
 public:
  // `incidents` start counting from `start_us`.
  FacilityMeter(const model::Cluster& cluster, TimeUs start_us,
                const std::vector<FacilityIncident>& incidents = {});

  // Reads the floor: every node's draw from `state`'s allocations and its inlet now. Call it
  // whenever either may have changed: after the engine acts, and after Advance.
  void Observe(const engine::ClusterState& state);
  // Only what the inlets changed since the last look: the nodes of zones whose supply moved
  // (all the simulator needs after Advance, where the allocations have not changed).
  void ObserveInlets(const engine::ClusterState& state);
  // The floor as last observed held until `now`: integrates energy, heat and loads over it.
  void Advance(TimeUs now);

  double power_w() const { return power_w_; }
  // The speed of work on `device` under its cap at its inlet now, a share of its uncapped
  // unthrottled speed (0: shut down): a synchronous job runs at its slowest device's.
  double DeviceSpeed(DeviceId device) const { return device_speed_[device.value()]; }
  // Whether any device's speed changed since the last call.
  bool TakeSpeedsChanged();
  // While a zone is warmer than its setpoint or heating, its devices must be looked at again
  // within a minute (their throttling follows the supply); an incident's start or end too;
  // kNever otherwise.
  TimeUs NextTickUs(TimeUs now) const;
  // The limits the incidents changed since the last call (a cooling zone's capacity, a power
  // domain's limit), as the engine is told them.
  std::vector<engine::FacilityLimit> TakeLimitChanges();
  // Mean load of each top power domain (no parent), in the cluster's order of them.
  std::vector<double> FeedPowerW() const;
  // All but useful_device_h_per_kwh, which needs the work done.
  FacilitySummary Summary() const;

 private:
  struct NodeDraw {
    uint64_t version = UINT64_MAX;  // The node's ClusterState version when last read.
    double mean_w = 0;
    double throttled_devices = 0;  // Busy device shares throttled by heat.
  };
  double NodeInletC(uint32_t node) const;
  struct ClassHeat {
    double inlet_c = -1;
    model::DeviceHeat heat;
  };
  void Integrate(double dt_s);
  // Capacities and limits as the incidents active at `at_us` leave them.
  void ApplyIncidents(TimeUs at_us);
  std::vector<engine::FacilityLimit> limit_changes_;
  void CountViolations();
  void UpdateNode(const engine::ClusterState& state, uint32_t node);

  const model::Cluster& cluster_;
  TimeUs last_us_;
  std::vector<NodeDraw> nodes_;
  std::vector<double> class_idle_w_;                    // By device class: a device's idle draw.
  std::vector<int32_t> zone_of_node_;                   // -1: in no cooling zone.
  std::vector<std::vector<uint32_t>> domains_of_node_;  // Power domains counting the node.
  std::vector<model::ZoneThermalSpec> zones_;
  std::vector<double> zone_heat_w_;
  std::vector<double> zone_supply_c_;
  std::vector<double> zone_observed_c_;  // Supply at the last look at the zone's nodes.
  // By zone (the last slot: nodes in none) × device class.
  std::vector<ClassHeat> heat_by_zone_class_;
  // The same under a cap: by (zone × class) << 32 | cap in watts.
  std::unordered_map<uint64_t, ClassHeat> capped_heat_;
  std::vector<double> device_speed_;
  std::vector<double> domain_load_w_;
  std::vector<double> domain_limit_w_;
  std::vector<uint8_t> domain_over_;
  std::vector<double> zone_capacity_base_w_;  // Without incidents.
  std::vector<double> domain_limit_base_w_;
  std::vector<FacilityIncident> incidents_;  // Their starts made absolute.
  std::vector<TimeUs> boundaries_;           // Incidents' starts and ends, sorted, unique.
  size_t next_boundary_ = 0;
  std::vector<uint32_t> feeds_;  // Power domains without a parent.
  std::vector<std::string> feed_names_;
  double power_w_ = 0;
  double energy_j_ = 0;
  double throttled_devices_ = 0;
  double throttled_device_s_ = 0;
  bool speeds_changed_ = false;
  double cooling_j_ = 0;
  FacilitySummary summary_;
};

}  // namespace headroom::sim
