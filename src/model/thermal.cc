#include "model/thermal.h"

#include <algorithm>

#include "base/check.h"

namespace headroom::model {
namespace {

constexpr double kSecondsOfCapacityPerDegree = 60;
// Hardware slowdown: "reducing the core clocks by a factor of 2 or more" (DCGM's
// dcgm_fields.h), so the dynamic power falls by 2³.
constexpr double kHardwareClockFactor = 0.5;

}  // namespace

ZoneThermalSpec DefaultZoneSpec(double capacity_w) {
  ZoneThermalSpec zone;
  zone.capacity_w = capacity_w;
  zone.heat_capacity_j_per_c = std::max(capacity_w, 1.0) * kSecondsOfCapacityPerDegree;
  return zone;
}

ZoneStep AdvanceZone(const ZoneThermalSpec& zone, double supply_c, double heat_w, double dt_s) {
  HR_CHECK(zone.heat_capacity_j_per_c > 0 && heat_w >= 0 && dt_s >= 0);
  const double capacity_w = std::max(zone.capacity_w, 0.0);
  const double c = zone.heat_capacity_j_per_c;
  const double warm_c = std::max(supply_c - zone.setpoint_c, 0.0);
  ZoneStep step;
  if (heat_w >= capacity_w) {
    // The cooling runs flat out and the rest of the heat warms the zone.
    step.supply_c = zone.setpoint_c + warm_c + (heat_w - capacity_w) * dt_s / c;
    step.removed_j = capacity_w * dt_s;
    return step;
  }
  // Spare capacity first brings a warm zone back to its setpoint, then holds it there.
  const double spare_w = capacity_w - heat_w;
  const double recover_s = warm_c * c / spare_w;
  if (recover_s >= dt_s) {
    step.supply_c = zone.setpoint_c + warm_c - spare_w * dt_s / c;
    step.removed_j = capacity_w * dt_s;
  } else {
    step.supply_c = zone.setpoint_c;
    step.removed_j = capacity_w * recover_s + heat_w * (dt_s - recover_s);
  }
  return step;
}

double CoolingPowerW(double removed_w, double supply_c) {
  const double cop = 0.0068 * supply_c * supply_c + 0.0008 * supply_c + 0.458;
  return removed_w / std::max(cop, 0.1);
}

DeviceHeat DeviceAt(const DevicePowerSpec& spec, const WorkProfile& work, double cap_w,
                    double inlet_c) {
  DeviceHeat heat;
  auto temperature = [&](const PowerDraw& draw) {
    return inlet_c + spec.r_th_c_per_w * draw.mean_w;
  };
  if (inlet_c + spec.r_th_c_per_w * spec.idle_w >= spec.shutdown_c) {
    heat.draw = PowerDraw{0, 0, 0, true};
    heat.temperature_c = inlet_c;
    heat.throttle = Throttle::kShutdown;
    return heat;
  }
  heat.draw = DrawUnder(spec, work, cap_w);
  heat.temperature_c = temperature(heat.draw);
  if (heat.temperature_c <= spec.max_operating_c) {
    heat.throttle = heat.draw.limited ? Throttle::kPowerCap : Throttle::kNone;
    return heat;
  }
  const PowerDraw floor = DrawUnder(spec, work, 0);
  if (temperature(floor) <= spec.max_operating_c) {
    // Software slowdown: the highest limit under the cap that keeps the device at its maximum
    // operating temperature (the draw rises with the limit, so bisection finds it).
    double low_w = 0;
    double high_w = cap_w;
    for (int i = 0; i < 48; ++i) {
      const double mid_w = (low_w + high_w) / 2;
      (temperature(DrawUnder(spec, work, mid_w)) <= spec.max_operating_c ? low_w : high_w) = mid_w;
    }
    heat.draw = DrawUnder(spec, work, low_w);
  } else if (temperature(floor) < spec.slowdown_c) {
    heat.draw = floor;
  } else {
    heat.draw = floor;
    const double dynamic_w = std::max(floor.mean_w - spec.idle_w, 0.0);
    const double cube = kHardwareClockFactor * kHardwareClockFactor * kHardwareClockFactor;
    heat.draw.mean_w = std::min(floor.mean_w, spec.idle_w + dynamic_w * cube);
    heat.draw.peak_w =
        std::min(floor.peak_w, spec.idle_w + std::max(floor.peak_w - spec.idle_w, 0.0) * cube);
    heat.draw.speed = floor.speed * kHardwareClockFactor;
    heat.draw.limited = true;
    heat.temperature_c = temperature(heat.draw);
    heat.throttle =
        heat.temperature_c >= spec.shutdown_c ? Throttle::kShutdown : Throttle::kHardwareThermal;
    if (heat.throttle == Throttle::kShutdown) {
      heat.draw = PowerDraw{0, 0, 0, true};
      heat.temperature_c = inlet_c;
    }
    return heat;
  }
  heat.draw.limited = true;
  heat.temperature_c = temperature(heat.draw);
  heat.throttle = Throttle::kSoftwareThermal;
  return heat;
}

}  // namespace headroom::model
