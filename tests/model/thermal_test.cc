#include "model/thermal.h"

#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace headroom::model {
namespace {

TEST(ThermalTest, AZoneWithinItsCapacityHoldsItsSetpoint) {
  const ZoneThermalSpec zone = DefaultZoneSpec(100'000);
  const ZoneStep step = AdvanceZone(zone, zone.setpoint_c, 80'000, 3600);
  EXPECT_DOUBLE_EQ(step.supply_c, zone.setpoint_c);
  EXPECT_DOUBLE_EQ(step.removed_j, 80'000.0 * 3600);
}

TEST(ThermalTest, AZoneThatLosesItsCoolingWarmsADegreeAMinuteAtFullLoadAndRecovers) {
  ZoneThermalSpec zone = DefaultZoneSpec(100'000);
  ZoneThermalSpec failed = zone;
  failed.capacity_w = 0;
  const ZoneStep hot = AdvanceZone(failed, zone.setpoint_c, 100'000, 300);
  EXPECT_NEAR(hot.supply_c, zone.setpoint_c + 5, 1e-9);
  EXPECT_DOUBLE_EQ(hot.removed_j, 0);
  // Back at half load, the spare 50 kW takes 5 °C × 6 MJ/°C / 50 kW = 600 s to bring it back.
  const ZoneStep half_way = AdvanceZone(zone, hot.supply_c, 50'000, 300);
  EXPECT_NEAR(half_way.supply_c, zone.setpoint_c + 2.5, 1e-9);
  const ZoneStep back = AdvanceZone(zone, half_way.supply_c, 50'000, 3600);
  EXPECT_DOUBLE_EQ(back.supply_c, zone.setpoint_c);
  EXPECT_NEAR(back.removed_j, 100'000.0 * 300 + 50'000.0 * 3300, 1e-3);
}

TEST(ThermalTest, CoolingPowerFollowsMooresCoefficientOfPerformance) {
  // CoP(15 °C) = 0.0068 × 225 + 0.0008 × 15 + 0.458 = 2.0.
  EXPECT_NEAR(CoolingPowerW(1000, 15), 500, 1e-9);
  EXPECT_LT(CoolingPowerW(1000, 25), CoolingPowerW(1000, 15));  // Warmer supply, cheaper cooling.
}

TEST(ThermalTest, AnH100ThrottlesInSoftwareThenHardwareThenShutsDownAsItsInletWarms) {
  const DevicePowerSpec& spec = PowerSpecOf("H100");
  const WorkProfile work = TrainingProfile();
  const DeviceHeat cool = DeviceAt(spec, work, 700, 20);
  EXPECT_EQ(cool.throttle, Throttle::kNone);
  EXPECT_NEAR(cool.temperature_c, 20 + 0.07 * cool.draw.mean_w, 1e-9);
  EXPECT_LT(cool.temperature_c, spec.max_operating_c);

  const DeviceHeat warm = DeviceAt(spec, work, 700, 45);
  EXPECT_EQ(warm.throttle, Throttle::kSoftwareThermal);
  EXPECT_NEAR(warm.temperature_c, spec.max_operating_c, 1e-6);
  EXPECT_LT(warm.draw.speed, 1);
  EXPECT_LT(warm.draw.mean_w, cool.draw.mean_w);

  const DeviceHeat hot = DeviceAt(spec, work, 700, 84);
  EXPECT_EQ(hot.throttle, Throttle::kHardwareThermal);
  EXPECT_LT(hot.draw.speed, warm.draw.speed);

  const DeviceHeat off = DeviceAt(spec, work, 700, 88);
  EXPECT_EQ(off.throttle, Throttle::kShutdown);
  EXPECT_EQ(off.draw.mean_w, 0);
  EXPECT_EQ(off.draw.speed, 0);

  const DeviceHeat capped = DeviceAt(spec, work, 500, 20);
  EXPECT_EQ(capped.throttle, Throttle::kPowerCap);
}

// Energy balance: over any sequence of steps, the heat the devices put out equals the heat the
// cooling removed plus the heat the zone stored (its heat capacity × its warming).
RC_GTEST_PROP(ThermalProperty, AZoneConservesEnergy, ()) {
  ZoneThermalSpec zone = DefaultZoneSpec(*rc::gen::inRange(1, 2'000'000));
  zone.setpoint_c = *rc::gen::inRange(5, 30);
  const double start_c = zone.setpoint_c + *rc::gen::inRange(0, 40);
  const auto steps = *rc::gen::container<std::vector<std::pair<int, int>>>(
      rc::gen::pair(rc::gen::inRange(0, 4'000'000), rc::gen::inRange(0, 7200)));
  double supply_c = start_c;
  double heat_j = 0;
  double removed_j = 0;
  for (const auto& [heat_w, dt_s] : steps) {
    if (*rc::gen::inRange(0, 4) == 0) zone.capacity_w = *rc::gen::inRange(0, 2'000'000);
    const ZoneStep step = AdvanceZone(zone, supply_c, heat_w, dt_s);
    RC_ASSERT(step.supply_c >= zone.setpoint_c);
    RC_ASSERT(step.removed_j <= std::max(zone.capacity_w, 0.0) * dt_s + 1e-6);
    heat_j += static_cast<double>(heat_w) * dt_s;
    removed_j += step.removed_j;
    supply_c = step.supply_c;
  }
  const double stored_j = zone.heat_capacity_j_per_c * (supply_c - start_c);
  RC_ASSERT(std::abs(heat_j - removed_j - stored_j) <= 1e-9 * std::max(heat_j, 1.0) + 1e-3);
}

// Throttling only ever takes: a device never draws more or runs faster than under its cap alone,
// and sits at most at its maximum operating temperature unless even its lowest clock cannot.
RC_GTEST_PROP(ThermalProperty, ThrottlingNeverGivesMoreThanTheCapAlone, ()) {
  const DevicePowerSpec& spec =
      PowerSpecOf(*rc::gen::element<std::string_view>("A100", "H100", "B200", "T4"));
  WorkProfile work = *rc::gen::inRange(0, 2) == 0 ? TrainingProfile() : InferenceProfile(1);
  const double cap =
      spec.min_cap_w + (spec.max_cap_w - spec.min_cap_w) * *rc::gen::inRange(0, 101) / 100.0;
  const double inlet_c = *rc::gen::inRange(10, 95);
  const DeviceHeat heat = DeviceAt(spec, work, cap, inlet_c);
  const PowerDraw alone = DrawUnder(spec, work, cap);
  RC_ASSERT(heat.draw.mean_w <= alone.mean_w + 1e-9);
  RC_ASSERT(heat.draw.speed <= alone.speed + 1e-12);
  if (heat.throttle == Throttle::kNone || heat.throttle == Throttle::kPowerCap) {
    RC_ASSERT(heat.temperature_c <= spec.max_operating_c + 1e-6);
  }
  if (heat.throttle == Throttle::kSoftwareThermal) {
    RC_ASSERT(heat.temperature_c < spec.slowdown_c);
    RC_ASSERT(heat.draw.speed > 0);
  }
  if (heat.throttle == Throttle::kShutdown) RC_ASSERT(heat.draw.speed == 0);
}

}  // namespace
}  // namespace headroom::model
