// The building as the simulator meters it (docs/facility.md, "In the simulator"). Between two
// events the floor does not change, so the meter integrates, over each such span: every device's
// draw (its power model, model/device_power.h, under the share of it running work holds), each
// cooling zone's heat and supply temperature (model/thermal.h, exactly for a constant heat), and
// each power domain's load against its limit.
//
// Running work is metered as training (compute and communication phases at the default cap).
// The meter observes: nothing it computes feeds back into the engine or into jobs' speed yet, so
// it reports the hottest inlet rather than throttled device-hours.
// Promises: energy in joules integrates each span's draw × its length; a domain's violation
// opens when its mean load passes its limit and its kW·s over count only the excess.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/ids.h"
#include "base/time.h"
#include "engine/cluster_state.h"
#include "model/cluster.h"
#include "model/thermal.h"
#include "sim/run_result.h"

namespace headroom::sim {

class FacilityMeter {
 public:
  FacilityMeter(const model::Cluster& cluster, TimeUs start_us);

  // The floor held `state`'s allocations from the previous call (or the start) until `now`:
  // call it before the state changes at `now`.
  void Advance(const engine::ClusterState& state, TimeUs now);

  double power_w() const { return power_w_; }
  // Mean load of each top power domain (no parent), in the cluster's order of them.
  std::vector<double> FeedPowerW() const;
  // All but useful_device_h_per_kwh, which needs the work done.
  FacilitySummary Summary() const;

 private:
  struct NodeDraw {
    uint64_t version = UINT64_MAX;
    double mean_w = 0;
  };
  void Integrate(double dt_s);
  void UpdateNode(const engine::ClusterState& state, uint32_t node);

  const model::Cluster& cluster_;
  TimeUs last_us_;
  std::vector<NodeDraw> nodes_;
  std::vector<double> class_idle_w_;  // By device class: idle and training draw per device.
  std::vector<double> class_busy_w_;
  std::vector<int32_t> zone_of_node_;                   // -1: in no cooling zone.
  std::vector<std::vector<uint32_t>> domains_of_node_;  // Power domains counting the node.
  std::vector<model::ZoneThermalSpec> zones_;
  std::vector<double> zone_heat_w_;
  std::vector<double> zone_supply_c_;
  std::vector<double> domain_load_w_;
  std::vector<double> domain_limit_w_;
  std::vector<uint8_t> domain_over_;
  std::vector<uint32_t> feeds_;  // Power domains without a parent.
  std::vector<std::string> feed_names_;
  double power_w_ = 0;
  double energy_j_ = 0;
  double cooling_j_ = 0;
  FacilitySummary summary_;
};

}  // namespace headroom::sim
