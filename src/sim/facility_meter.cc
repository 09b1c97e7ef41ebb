#include "sim/facility_meter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/check.h"
#include "model/device_power.h"

namespace headroom::sim {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;

}  // namespace

FacilityMeter::FacilityMeter(const model::Cluster& cluster, TimeUs start_us)
    : cluster_(cluster), last_us_(start_us), nodes_(cluster.nodes().size()) {
  const model::Facility& facility = cluster.facility();
  zone_of_node_.assign(cluster.nodes().size(), -1);
  for (const model::DeviceClass& device_class : cluster.device_classes()) {
    const model::DevicePowerSpec& power = model::PowerSpecOf(device_class.model);
    class_idle_w_.push_back(model::DrawUnder(power, model::IdleProfile(), power.tdp_w).mean_w);
    class_busy_w_.push_back(model::DrawUnder(power, model::TrainingProfile(), power.tdp_w).mean_w);
  }
  for (uint32_t z = 0; z < facility.cooling_zones.size(); ++z) {
    const model::CoolingZone& zone = facility.cooling_zones[z];
    zones_.push_back(model::DefaultZoneSpec(static_cast<double>(zone.cooling_capacity_w)));
    const model::Domain& domain = cluster.domain(zone.domain);
    // A node in several zones is cooled by the innermost (a rack's, not its hall's).
    for (uint32_t node = domain.node_begin; node < domain.node_end; ++node) {
      const int32_t current = zone_of_node_[node];
      if (current < 0 ||
          cluster.domain(facility.cooling_zones[current].domain).level < domain.level) {
        zone_of_node_[node] = static_cast<int32_t>(z);
      }
    }
  }
  zone_heat_w_.assign(zones_.size(), 0);
  zone_supply_c_.resize(zones_.size());
  for (size_t z = 0; z < zones_.size(); ++z) zone_supply_c_[z] = zones_[z].setpoint_c;
  domains_of_node_.resize(cluster.nodes().size());
  double feed_limit_w = 0;
  for (uint32_t d = 0; d < facility.power_domains.size(); ++d) {
    const model::PowerDomain& power = facility.power_domains[d];
    domain_limit_w_.push_back(static_cast<double>(power.limit_w));
    for (DomainId covered : power.domains) {
      const model::Domain& domain = cluster.domain(covered);
      for (uint32_t node = domain.node_begin; node < domain.node_end; ++node) {
        domains_of_node_[node].push_back(d);
      }
    }
    if (power.parent.empty()) {
      feeds_.push_back(d);
      feed_names_.push_back(power.name);
      feed_limit_w += static_cast<double>(power.limit_w);
    }
  }
  domain_load_w_.assign(domain_limit_w_.size(), 0);
  domain_over_.assign(domain_limit_w_.size(), 0);
  if (feed_limit_w > 0) {
    summary_.devices_per_feed_kw =
        static_cast<double>(cluster.device_count()) / (feed_limit_w / 1e3);
  }
  // Without cooling zones there is no inlet to report (null in report.json).
  summary_.max_inlet_c = zones_.empty() ? std::numeric_limits<double>::quiet_NaN()
                                        : model::InletC(zones_[0], zones_[0].setpoint_c);
}

void FacilityMeter::UpdateNode(const engine::ClusterState& state, uint32_t node) {
  NodeDraw& cached = nodes_[node];
  const uint64_t version = state.node_version(NodeId(node));
  if (cached.version == version) return;
  cached.version = version;
  const model::Node& spec = cluster_.node(NodeId(node));
  double mean_w = 0;
  for (uint32_t i = 0; i < spec.device_count; ++i) {
    const DeviceId device(spec.first_device + i);
    const uint32_t device_class = cluster_.device(device).device_class.value();
    const uint32_t busy_milli = 1000 - std::min<uint32_t>(state.milli_in_place(device), 1000);
    const double idle_w = class_idle_w_[device_class];
    const double busy_w = class_busy_w_[device_class];
    mean_w += idle_w + (busy_w - idle_w) * busy_milli / 1000.0;
  }
  const double change_w = mean_w - cached.mean_w;
  cached.mean_w = mean_w;
  power_w_ += change_w;
  if (zone_of_node_[node] >= 0) zone_heat_w_[zone_of_node_[node]] += change_w;
  for (uint32_t d : domains_of_node_[node]) domain_load_w_[d] += change_w;
}

void FacilityMeter::Integrate(double dt_s) {
  energy_j_ += power_w_ * dt_s;
  for (size_t z = 0; z < zones_.size(); ++z) {
    const model::ZoneStep step =
        model::AdvanceZone(zones_[z], zone_supply_c_[z], std::max(zone_heat_w_[z], 0.0), dt_s);
    // The cooling's draw at the span's mean supply temperature (it is linear in between).
    const double mean_supply_c = (zone_supply_c_[z] + step.supply_c) / 2;
    if (dt_s > 0) cooling_j_ += model::CoolingPowerW(step.removed_j / dt_s, mean_supply_c) * dt_s;
    const double inlet_c = model::InletC(zones_[z], std::max(zone_supply_c_[z], step.supply_c));
    summary_.max_inlet_c = std::fmax(summary_.max_inlet_c, inlet_c);
    if (inlet_c > model::kInletLimitC) {
      // The share of the span above the limit (the supply moves linearly within it).
      const double start_c = model::InletC(zones_[z], zone_supply_c_[z]);
      const double end_c = model::InletC(zones_[z], step.supply_c);
      double over_s = dt_s;
      if (start_c <= model::kInletLimitC || end_c <= model::kInletLimitC) {
        const double span_c = std::abs(end_c - start_c);
        over_s = span_c > 0 ? dt_s * (std::max(start_c, end_c) - model::kInletLimitC) / span_c : 0;
      }
      summary_.inlet_over_limit_zone_s += over_s;
    }
    zone_supply_c_[z] = step.supply_c;
  }
  for (size_t d = 0; d < domain_load_w_.size(); ++d) {
    const double over_w = domain_load_w_[d] - domain_limit_w_[d];
    if (over_w > 0) summary_.power_violation_kw_s += over_w / 1e3 * dt_s;
  }
}

void FacilityMeter::Advance(const engine::ClusterState& state, TimeUs now) {
  HR_CHECK(now >= last_us_);
  // `state` has held since the previous call: its draws are the span's.
  for (uint32_t node = 0; node < nodes_.size(); ++node) UpdateNode(state, node);
  summary_.peak_power_kw = std::max(summary_.peak_power_kw, power_w_ / 1e3);
  for (size_t d = 0; d < domain_load_w_.size(); ++d) {
    const bool over = domain_load_w_[d] > domain_limit_w_[d];
    if (over && domain_over_[d] == 0) ++summary_.power_violations;
    domain_over_[d] = over ? 1 : 0;
  }
  Integrate(UsToSeconds(now - last_us_));
  last_us_ = now;
}

std::vector<double> FacilityMeter::FeedPowerW() const {
  std::vector<double> out;
  out.reserve(feeds_.size());
  for (uint32_t d : feeds_) out.push_back(domain_load_w_[d]);
  return out;
}

FacilitySummary FacilityMeter::Summary() const {
  FacilitySummary summary = summary_;
  summary.energy_kwh = energy_j_ / kJoulesPerKwh;
  summary.cooling_energy_kwh = cooling_j_ / kJoulesPerKwh;
  summary.feed_names = feed_names_;
  return summary;
}

}  // namespace headroom::sim
