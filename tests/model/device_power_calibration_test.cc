// The A100 power and thermal model against Acme's measured distributions (Shanghai AI Lab's
// Seren and Kalos clusters, August 2023: DCGM power and temperature CDFs of every GPU sample;
// ../shared/traces/acme-shlab-2023/README.md). The samples are bimodal: idle GPUs near 62 W and
// busy ones near 400 W (the A100's TDP). The model's idle draw must sit in the idle mode, its
// training draw in the middle half of the busy mode, and, at the 20 °C inlet the default zone
// gives, its temperatures in the same shares of the temperature distribution (the hottest
// samples being the busiest: the coupling of quantiles this calibration assumes).
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/csv.h"
#include "model/device_power.h"
#include "model/thermal.h"
#include "testing/traces.h"

namespace headroom::model {
namespace {

// value at cumulative share `percent` of one curve (points sorted by share).
double Quantile(const std::vector<std::pair<double, double>>& curve, double percent) {
  for (const auto& [share, value] : curve) {
    if (share >= percent) return value;
  }
  return curve.back().second;
}

// Share (in %) of samples at or under `value`.
double ShareAtOrUnder(const std::vector<std::pair<double, double>>& curve, double value) {
  double share = 0;
  for (const auto& [at, v] : curve) {
    if (v <= value) share = at;
  }
  return share;
}

TEST(DevicePowerCalibrationTest, A100IdleAndTrainingMatchAcmesMeasuredModes) {
  const std::string path = testing::TracePath("acme-shlab-2023/acme_utilization_cdfs.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto table = CsvTable::ReadFile(path);
  ASSERT_TRUE(table) << table.error().message;
  const size_t cluster = *table->Column("cluster");
  const size_t metric = *table->Column("metric");
  const size_t value = *table->Column("value");
  const size_t cdf = *table->Column("cdf_percent");
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> curves;
  for (size_t row = 0; row < table->row_count(); ++row) {
    auto v = table->Double(row, value);
    auto share = table->Double(row, cdf);
    ASSERT_TRUE(v && share);
    curves[{std::string(table->Field(row, cluster)), std::string(table->Field(row, metric))}]
        .push_back({*share, *v});
  }
  const DevicePowerSpec& spec = PowerSpecOf("A100");
  const double idle_w = DrawUnder(spec, IdleProfile(), spec.tdp_w).mean_w;
  const PowerDraw training = DrawUnder(spec, TrainingProfile(), spec.tdp_w);
  const ZoneThermalSpec zone = DefaultZoneSpec(1e6);
  const double inlet_c = InletC(zone, zone.setpoint_c);
  const double idle_c = DeviceAt(spec, IdleProfile(), spec.tdp_w, inlet_c).temperature_c;
  const double training_c = DeviceAt(spec, TrainingProfile(), spec.tdp_w, inlet_c).temperature_c;
  for (const std::string name : {"Seren", "Kalos"}) {
    SCOPED_TRACE(name);
    auto power = curves[{name, "gpu_power"}];
    auto temperature = curves[{name, "gpu_temp"}];
    ASSERT_GT(power.size(), 100u);
    ASSERT_GT(temperature.size(), 100u);
    std::sort(power.begin(), power.end());
    std::sort(temperature.begin(), temperature.end());
    // Busy samples: over 250 W, between the modes.
    const double idle_share = ShareAtOrUnder(power, 250);
    const double busy_share = 100 - idle_share;
    ASSERT_GT(busy_share, 20);
    ASSERT_LT(busy_share, 40);
    EXPECT_GE(idle_w, Quantile(power, 1));
    EXPECT_LE(idle_w, Quantile(power, 25));
    const double busy_low = idle_share + busy_share * 0.25;
    const double busy_high = idle_share + busy_share * 0.75;
    EXPECT_GE(training.mean_w, Quantile(power, busy_low));
    EXPECT_LE(training.mean_w, Quantile(power, busy_high));
    EXPECT_GE(idle_c, Quantile(temperature, 1));
    EXPECT_LE(idle_c, Quantile(temperature, 25));
    EXPECT_GE(training_c, Quantile(temperature, busy_low));
    EXPECT_LE(training_c, Quantile(temperature, busy_high));
  }
}

}  // namespace
}  // namespace headroom::model
