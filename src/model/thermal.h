// Heat in a cooling zone and on its devices (docs/facility.md, "Thermal model"). A zone's supply
// air or coolant holds its setpoint while the heat its devices put out stays within its cooling
// capacity; beyond it, the supply warms at (heat − capacity) / heat capacity, and it cools back
// at the spare capacity once the heat drops (PHYSICS.md §5.3). A device sits at its inlet plus
// R_th·P (its 30 s time constant is far inside a simulator step) and throttles above its
// thresholds as NVML describes them (PHYSICS.md §2.1, §5.2).
//
// Promises: pure functions. AdvanceZone conserves energy exactly (heat in = heat removed + heat
// stored, tested as a property); a zone never cools below its setpoint; a throttled device
// draws no more and runs no faster than an unthrottled one at the same cap.
#pragma once

#include "model/device_power.h"

namespace headroom::model {

// ASHRAE's recommended upper inlet (an alarm) and class A1's allowable upper inlet (a limit).
inline constexpr double kInletAlarmC = 27;
inline constexpr double kInletLimitC = 32;

struct ZoneThermalSpec {
  double capacity_w = 0;  // Heat the zone's cooling removes at most.
  // Supply setpoint; with the approach, a 20 °C inlet (what Acme's A100s imply).
  double setpoint_c = 15;
  double approach_c = 5;  // Rack inlet above supply (PHYSICS.md §2.2: 3.8-5.3 °C).
  // Joules that warm the supply by 1 °C: air, water and metal (an assumption: by default a
  // minute of the zone's capacity, so a zone at full load that loses its cooling warms 1 °C a
  // minute).
  double heat_capacity_j_per_c = 0;
};
ZoneThermalSpec DefaultZoneSpec(double capacity_w);

struct ZoneStep {
  double supply_c = 0;
  double removed_j = 0;  // Heat the cooling carried away during the step.
};
// The zone after `dt_s` seconds of a constant `heat_w` from `supply_c`.
ZoneStep AdvanceZone(const ZoneThermalSpec& zone, double supply_c, double heat_w, double dt_s);

inline double InletC(const ZoneThermalSpec& zone, double supply_c) {
  return supply_c + zone.approach_c;
}

// Electrical power of the cooling that removes `removed_w` at supply temperature `supply_c`: a
// chilled-water CRAC's coefficient of performance, CoP(T) = 0.0068·T² + 0.0008·T + 0.458 (Moore
// et al., USENIX ATC'05).
double CoolingPowerW(double removed_w, double supply_c);

enum class Throttle { kNone, kPowerCap, kSoftwareThermal, kHardwareThermal, kShutdown };

struct DeviceHeat {
  PowerDraw draw;
  double temperature_c = 0;
  Throttle throttle = Throttle::kNone;
};
// A device running `work` under `cap_w` with air (or coolant) at `inlet_c`: software slowdown
// lowers its clock until it sits at its maximum operating temperature; if even the lowest clock
// leaves it at or above its slowdown threshold, hardware slowdown halves the clock again; at
// its shutdown threshold it is off (draws nothing, runs nothing).
DeviceHeat DeviceAt(const DevicePowerSpec& spec, const WorkProfile& work, double cap_w,
                    double inlet_c);

}  // namespace headroom::model
