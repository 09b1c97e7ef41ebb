#include "sim/facility_meter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/check.h"
#include "model/device_power.h"

namespace headroom::sim {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;
// The inlet of a node in no cooling zone: the default zone's (docs/facility.md).
const double kUnzonedInletC =
    model::InletC(model::DefaultZoneSpec(1), model::DefaultZoneSpec(1).setpoint_c);
// How often a warming or cooling zone's devices are looked at again between events.
constexpr TimeUs kThermalTickUs = 60 * kUsPerSecond;

}  // namespace

FacilityMeter::FacilityMeter(const model::Cluster& cluster, TimeUs start_us,
                             const std::vector<FacilityIncident>& incidents)
    : cluster_(cluster),
      last_us_(start_us),
      nodes_(cluster.nodes().size()),
      device_speed_(cluster.devices().size(), 1.0) {
  const model::Facility& facility = cluster.facility();
  zone_of_node_.assign(cluster.nodes().size(), -1);
  for (const model::DeviceClass& device_class : cluster.device_classes()) {
    const model::DevicePowerSpec& power = model::PowerSpecOf(device_class.model);
    class_idle_w_.push_back(model::DrawUnder(power, model::IdleProfile(), power.tdp_w).mean_w);
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
  zone_observed_c_ = zone_supply_c_;
  heat_by_zone_class_.resize((zones_.size() + 1) * class_idle_w_.size());
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
  for (const model::ZoneThermalSpec& zone : zones_)
    zone_capacity_base_w_.push_back(zone.capacity_w);
  domain_limit_base_w_ = domain_limit_w_;
  for (FacilityIncident incident : incidents) {
    incident.start_us += start_us;
    boundaries_.push_back(incident.start_us);
    boundaries_.push_back(incident.start_us + incident.duration_us);
    incidents_.push_back(incident);
  }
  std::sort(boundaries_.begin(), boundaries_.end());
  boundaries_.erase(std::unique(boundaries_.begin(), boundaries_.end()), boundaries_.end());
  ApplyIncidents(start_us);
  domain_over_.assign(domain_limit_w_.size(), 0);
  if (feed_limit_w > 0) {
    summary_.devices_per_feed_kw =
        static_cast<double>(cluster.device_count()) / (feed_limit_w / 1e3);
  }
  // Without cooling zones there is no inlet to report (null in report.json).
  summary_.max_inlet_c = std::numeric_limits<double>::quiet_NaN();
  for (const model::ZoneThermalSpec& zone : zones_) {
    summary_.max_inlet_c = std::fmax(summary_.max_inlet_c, model::InletC(zone, zone.setpoint_c));
  }
}

double FacilityMeter::NodeInletC(uint32_t node) const {
  const int32_t zone = zone_of_node_[node];
  return zone < 0 ? kUnzonedInletC : model::InletC(zones_[zone], zone_supply_c_[zone]);
}

void FacilityMeter::UpdateNode(const engine::ClusterState& state, uint32_t node) {
  NodeDraw& cached = nodes_[node];
  cached.version = state.node_version(NodeId(node));
  const double inlet_c = NodeInletC(node);
  const model::Node& spec = cluster_.node(NodeId(node));
  const int32_t zone = zone_of_node_[node];
  const size_t slot = static_cast<size_t>(zone < 0 ? zones_.size() : zone) * class_idle_w_.size();
  double mean_w = 0;
  double throttled_devices = 0;
  for (uint32_t i = 0; i < spec.device_count; ++i) {
    const DeviceId device(spec.first_device + i);
    const uint32_t device_class = cluster_.device(device).device_class.value();
    // A busy device of its class at this inlet under its cap: training, throttled by heat (one
    // per zone, class and cap, computed again only when the inlet moves).
    const uint32_t cap_w = state.power_cap_w(device);
    ClassHeat& busy_at =
        cap_w == 0 ? heat_by_zone_class_[slot + device_class]
                   : capped_heat_[(uint64_t{slot + device_class} << 32) | uint64_t{cap_w}];
    if (busy_at.inlet_c != inlet_c) {
      const model::DevicePowerSpec& power =
          model::PowerSpecOf(cluster_.device_class(DeviceClassId(device_class)).model);
      busy_at.heat = model::DeviceAt(power, model::TrainingProfile(),
                                     cap_w == 0 ? power.tdp_w : cap_w, inlet_c);
      busy_at.inlet_c = inlet_c;
    }
    const model::DeviceHeat* busy = &busy_at.heat;
    if (device_speed_[device.value()] != busy->draw.speed) {
      device_speed_[device.value()] = busy->draw.speed;
      speeds_changed_ = true;
    }
    const double busy_share =
        (1000 - std::min<uint32_t>(state.milli_in_place(device), 1000)) / 1000.0;
    const double idle_w = class_idle_w_[device_class];
    mean_w += idle_w + (busy->draw.mean_w - idle_w) * busy_share;
    if (busy->throttle != model::Throttle::kNone && busy->throttle != model::Throttle::kPowerCap) {
      throttled_devices += busy_share;
    }
  }
  throttled_devices_ += throttled_devices - cached.throttled_devices;
  cached.throttled_devices = throttled_devices;
  const double change_w = mean_w - cached.mean_w;
  cached.mean_w = mean_w;
  power_w_ += change_w;
  if (zone_of_node_[node] >= 0) zone_heat_w_[zone_of_node_[node]] += change_w;
  for (uint32_t d : domains_of_node_[node]) domain_load_w_[d] += change_w;
}

void FacilityMeter::Integrate(double dt_s) {
  energy_j_ += power_w_ * dt_s;
  throttled_device_s_ += throttled_devices_ * dt_s;
  for (size_t z = 0; z < zones_.size(); ++z) {
    const double heat_w = std::max(zone_heat_w_[z], 0.0);
    if (zone_supply_c_[z] <= zones_[z].setpoint_c && heat_w <= zones_[z].capacity_w) {
      // Held at its setpoint: the cooling removes the heat as it comes.
      cooling_j_ += model::CoolingPowerW(heat_w, zones_[z].setpoint_c) * dt_s;
      continue;
    }
    const model::ZoneStep step = model::AdvanceZone(zones_[z], zone_supply_c_[z], heat_w, dt_s);
    // The cooling's draw at the span's mean supply temperature (it is linear in between).
    const double mean_supply_c = (zone_supply_c_[z] + step.supply_c) / 2;
    if (dt_s > 0) cooling_j_ += model::CoolingPowerW(step.removed_j / dt_s, mean_supply_c) * dt_s;
    const double inlet_c = model::InletC(zones_[z], std::max(zone_supply_c_[z], step.supply_c));
    summary_.max_inlet_c = std::fmax(summary_.max_inlet_c, inlet_c);
    if (inlet_c > model::kInletLimitC) {
      // Above its setpoint (and the limit is far above it) the supply moves at a constant rate.
      const double rate_c_per_s = (heat_w - zones_[z].capacity_w) / zones_[z].heat_capacity_j_per_c;
      const double above_c = model::InletC(zones_[z], zone_supply_c_[z]) - model::kInletLimitC;
      double over_s = dt_s;
      if (above_c > 0 && rate_c_per_s < 0) over_s = std::min(dt_s, above_c / -rate_c_per_s);
      if (above_c <= 0) over_s = std::max(dt_s + above_c / rate_c_per_s, 0.0);
      summary_.inlet_over_limit_zone_s += over_s;
    }
    zone_supply_c_[z] = step.supply_c;
  }
  for (size_t d = 0; d < domain_load_w_.size(); ++d) {
    const double over_w = domain_load_w_[d] - domain_limit_w_[d];
    if (over_w > 0) summary_.power_violation_kw_s += over_w / 1e3 * dt_s;
  }
}

void FacilityMeter::Observe(const engine::ClusterState& state) {
  // What moved since the last look: the inlets (after Advance) and the allocations.
  ObserveInlets(state);
  for (uint32_t node = 0; node < nodes_.size(); ++node) {
    if (state.node_version(NodeId(node)) != nodes_[node].version) UpdateNode(state, node);
  }
  summary_.peak_power_kw = std::max(summary_.peak_power_kw, power_w_ / 1e3);
  CountViolations();
}

void FacilityMeter::CountViolations() {
  for (size_t d = 0; d < domain_load_w_.size(); ++d) {
    const bool over = domain_load_w_[d] > domain_limit_w_[d];
    if (over && domain_over_[d] == 0) ++summary_.power_violations;
    domain_over_[d] = over ? 1 : 0;
  }
}

void FacilityMeter::ApplyIncidents(TimeUs at_us) {
  std::vector<double> zone_before(zones_.size());
  for (size_t z = 0; z < zones_.size(); ++z) {
    zone_before[z] = zones_[z].capacity_w;
    zones_[z].capacity_w = zone_capacity_base_w_[z];
  }
  const std::vector<double> domain_before = domain_limit_w_;
  domain_limit_w_ = domain_limit_base_w_;
  for (const FacilityIncident& incident : incidents_) {
    if (at_us < incident.start_us || at_us >= incident.start_us + incident.duration_us) continue;
    if (incident.kind == FacilityIncident::Kind::kCooling) {
      zones_[incident.index].capacity_w *= incident.share;
    } else {
      domain_limit_w_[incident.index] *= incident.share;
    }
  }
  using Kind = engine::FacilityLedger::Kind;
  for (uint32_t z = 0; z < zones_.size(); ++z) {
    if (zones_[z].capacity_w == zone_before[z]) continue;
    limit_changes_.push_back({Kind::kCooling, z, std::llround(zones_[z].capacity_w)});
  }
  for (uint32_t d = 0; d < domain_limit_w_.size(); ++d) {
    if (domain_limit_w_[d] == domain_before[d]) continue;
    limit_changes_.push_back({Kind::kPower, d, std::llround(domain_limit_w_[d])});
  }
}

std::vector<engine::FacilityLimit> FacilityMeter::TakeLimitChanges() {
  std::vector<engine::FacilityLimit> changes;
  changes.swap(limit_changes_);
  return changes;
}

void FacilityMeter::ObserveInlets(const engine::ClusterState& state) {
  for (size_t z = 0; z < zones_.size(); ++z) {
    if (zone_supply_c_[z] == zone_observed_c_[z]) continue;
    zone_observed_c_[z] = zone_supply_c_[z];
    const model::Domain& domain = cluster_.domain(cluster_.facility().cooling_zones[z].domain);
    for (uint32_t node = domain.node_begin; node < domain.node_end; ++node) {
      if (zone_of_node_[node] == static_cast<int32_t>(z)) UpdateNode(state, node);
    }
  }
}

void FacilityMeter::Advance(TimeUs now) {
  HR_CHECK(now >= last_us_);
  // Piecewise across the incidents' starts and ends: capacities and limits change there.
  while (next_boundary_ < boundaries_.size() && boundaries_[next_boundary_] <= now) {
    const TimeUs at_us = std::max(boundaries_[next_boundary_++], last_us_);
    Integrate(UsToSeconds(at_us - last_us_));
    last_us_ = at_us;
    ApplyIncidents(at_us);
    CountViolations();
  }
  Integrate(UsToSeconds(now - last_us_));
  last_us_ = now;
}

TimeUs FacilityMeter::NextTickUs(TimeUs now) const {
  TimeUs next = kNever;
  for (size_t b = next_boundary_; b < boundaries_.size(); ++b) {
    if (boundaries_[b] > now) {
      next = boundaries_[b];
      break;
    }
  }
  for (size_t z = 0; z < zones_.size(); ++z) {
    if (zone_supply_c_[z] > zones_[z].setpoint_c || zone_heat_w_[z] > zones_[z].capacity_w) {
      return std::min(next, now + kThermalTickUs);
    }
  }
  return next;
}

bool FacilityMeter::TakeSpeedsChanged() {
  const bool changed = speeds_changed_;
  speeds_changed_ = false;
  return changed;
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
  summary.throttled_device_h = throttled_device_s_ / 3600;
  return summary;
}

}  // namespace headroom::sim
