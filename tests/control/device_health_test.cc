// Device health: each XID class, ECC, row remap, NVLink and temperature evidence moves a device
// as documented; stale readings are judged once; operators' moves and the JSON round trip.
#include "control/device_health.h"

#include <gtest/gtest.h>

namespace headroom::control {
namespace {

constexpr TimeUs kSecond = kUsPerSecond;

model::LabelledTelemetry Reading(int index) {
  model::LabelledTelemetry labelled;
  labelled.reading.index = index;
  return labelled;
}

model::LabelledTelemetry WithXid(int index, int64_t xid) {
  model::LabelledTelemetry labelled = Reading(index);
  labelled.reading.xid_errors = xid;
  return labelled;
}

TEST(DeviceHealthTest, XidsMoveDevicesByWhatTheyMeanForScheduling) {
  EXPECT_EQ(ClassifyXid(13), XidClass::kApplication);
  EXPECT_EQ(ClassifyXid(43), XidClass::kApplication);
  EXPECT_EQ(ClassifyXid(94), XidClass::kWarning);
  EXPECT_EQ(ClassifyXid(63), XidClass::kWarning);
  EXPECT_EQ(ClassifyXid(79), XidClass::kDeviceFatal);
  EXPECT_EQ(ClassifyXid(48), XidClass::kDeviceFatal);
  EXPECT_EQ(ClassifyXid(74), XidClass::kNvlinkFatal);
  EXPECT_EQ(ClassifyXid(147), XidClass::kNvlinkFatal);
  EXPECT_EQ(ClassifyXid(12345), XidClass::kWarning);

  DeviceHealthBook book;
  const HealthRules rules;
  std::vector<model::LabelledTelemetry> readings = {WithXid(0, 0), WithXid(1, 13), WithXid(2, 94),
                                                    WithXid(3, 79)};
  EXPECT_EQ(book.Observe(readings, kSecond, rules), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(book.state(0), DeviceState::kHealthy);
  EXPECT_EQ(book.state(1), DeviceState::kHealthy);  // The application's fault.
  EXPECT_EQ(book.state(2), DeviceState::kSuspect);
  EXPECT_EQ(book.state(3), DeviceState::kFailed);
  EXPECT_EQ(book.devices().at(3).evidence, "XID 79");
  EXPECT_TRUE(TakesWork(book.state(2)));
  EXPECT_FALSE(TakesWork(book.state(3)));
  // The same gauge values again are no news.
  EXPECT_TRUE(book.Observe(readings, 2 * kSecond, rules).empty());
}

TEST(DeviceHealthTest, AnNvlinkFaultFailsEveryDeviceOfTheNode) {
  DeviceHealthBook book;
  std::vector<model::LabelledTelemetry> readings = {Reading(0), WithXid(1, 74), Reading(2)};
  EXPECT_EQ(book.Observe(readings, kSecond, HealthRules{}), (std::vector<uint32_t>{0, 1, 2}));
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(book.state(i), DeviceState::kFailed);
  EXPECT_EQ(book.devices().at(0).evidence, "XID 74 (NVLink) on device 1");
}

TEST(DeviceHealthTest, CountersFailOrWarnWhenTheyGrow) {
  DeviceHealthBook book;
  HealthRules rules;
  rules.nvlink_errors_warn = 10;
  model::LabelledTelemetry ecc = Reading(0);
  ecc.reading.ecc_uncorrectable = 0;
  model::LabelledTelemetry nvlink = Reading(1);
  nvlink.reading.nvlink_errors = 5;
  model::LabelledTelemetry rows = Reading(2);
  rows.reading.remapped_rows = 511;
  std::vector<model::LabelledTelemetry> readings = {ecc, nvlink, rows};
  EXPECT_TRUE(book.Observe(readings, kSecond, rules).empty());
  readings[0].reading.ecc_uncorrectable = 2;
  readings[1].reading.nvlink_errors = 14;  // 9 more: below the rule.
  readings[2].reading.remapped_rows = 512;
  EXPECT_EQ(book.Observe(readings, 2 * kSecond, rules), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(book.state(0), DeviceState::kFailed);
  EXPECT_EQ(book.devices().at(0).evidence, "2 uncorrectable ECC errors");
  EXPECT_EQ(book.state(1), DeviceState::kHealthy);
  EXPECT_EQ(book.state(2), DeviceState::kSuspect);
  readings[1].reading.nvlink_errors = 24;
  EXPECT_EQ(book.Observe(readings, 3 * kSecond, rules), (std::vector<uint32_t>{1}));
  EXPECT_EQ(book.devices().at(1).evidence, "10 NVLink errors since the last reading");

  model::LabelledTelemetry remap = Reading(3);
  remap.reading.row_remap_failure = true;
  std::vector<model::LabelledTelemetry> failing = {remap};
  EXPECT_EQ(book.Observe(failing, 4 * kSecond, rules), (std::vector<uint32_t>{3}));
  EXPECT_EQ(book.devices().at(3).evidence, "row remap failed");
}

TEST(DeviceHealthTest, HeatDegradesAndCoolingPastTheHysteresisRestores) {
  DeviceHealthBook book;
  const HealthRules rules;  // 87 °C, 5 °C hysteresis.
  model::LabelledTelemetry hot = Reading(0);
  hot.reading.temp_c = 88;
  std::vector<model::LabelledTelemetry> readings = {hot};
  EXPECT_EQ(book.Observe(readings, kSecond, rules), (std::vector<uint32_t>{0}));
  EXPECT_EQ(book.state(0), DeviceState::kDegraded);
  EXPECT_FALSE(TakesWork(DeviceState::kDegraded));
  readings[0].reading.temp_c = 84;  // Below 87 but not by 5.
  EXPECT_TRUE(book.Observe(readings, 2 * kSecond, rules).empty());
  readings[0].reading.temp_c = 81;
  EXPECT_EQ(book.Observe(readings, 3 * kSecond, rules), (std::vector<uint32_t>{0}));
  EXPECT_EQ(book.state(0), DeviceState::kHealthy);
  EXPECT_EQ(book.devices().at(0).evidence, "cooled to 81 °C");
  EXPECT_EQ(book.devices().at(0).history.size(), 2u);
}

TEST(DeviceHealthTest, SuspectClearsAfterAQuietHour) {
  DeviceHealthBook book;
  const HealthRules rules;
  std::vector<model::LabelledTelemetry> readings = {WithXid(0, 63)};
  book.Observe(readings, kSecond, rules);
  EXPECT_TRUE(book.Expire(kSecond + rules.suspect_clear_us - 1, rules).empty());
  EXPECT_EQ(book.Expire(kSecond + rules.suspect_clear_us, rules), (std::vector<uint32_t>{0}));
  EXPECT_EQ(book.state(0), DeviceState::kHealthy);
}

TEST(DeviceHealthTest, OperatorsMoveDevicesAndAReturnedDeviceIsNotFailedByTheStaleXid) {
  DeviceHealthBook book;
  const HealthRules rules;
  std::vector<model::LabelledTelemetry> readings = {WithXid(0, 79)};
  book.Observe(readings, kSecond, rules);
  // Telemetry does not lift an operator's or a failure's state.
  readings[0].reading.xid_errors = 94;
  EXPECT_TRUE(book.Observe(readings, 2 * kSecond, rules).empty());
  ASSERT_TRUE(book.Operate(0, OperatorAction::kRepair, 3 * kSecond, "RMA 1234"));
  EXPECT_EQ(book.state(0), DeviceState::kInRepair);
  EXPECT_EQ(book.devices().at(0).evidence, "by the operator: RMA 1234");
  ASSERT_TRUE(book.Operate(0, OperatorAction::kReturn, 4 * kSecond, ""));
  EXPECT_EQ(book.state(0), DeviceState::kHealthy);
  EXPECT_TRUE(book.Observe(readings, 5 * kSecond, rules).empty());  // XID 94 was seen before.
  EXPECT_FALSE(book.Operate(0, OperatorAction::kReturn, 6 * kSecond, "").has_value());
  ASSERT_TRUE(book.Operate(1, OperatorAction::kDiagnose, 6 * kSecond, ""));
  EXPECT_EQ(book.state(1), DeviceState::kDiagnosing);
  EXPECT_FALSE(TakesWork(DeviceState::kDiagnosing));
  EXPECT_FALSE(TakesWork(DeviceState::kInRepair));
}

TEST(DeviceHealthTest, TheThirdFailureWithinAWeekSendsTheDeviceToRepair) {
  DeviceHealthBook book;
  const HealthRules rules;  // 3 failures in 7 days.
  const TimeUs day = 86400 * kSecond;
  const int64_t fatal[] = {79, 48, 95, 119};  // Each a new value of the XID gauge.
  size_t next = 0;
  const auto fail_and_return = [&](TimeUs at) {
    std::vector<model::LabelledTelemetry> readings = {WithXid(0, fatal[next++])};
    book.Observe(readings, at, rules);
    const DeviceState state = book.state(0);
    EXPECT_TRUE(book.Operate(0, OperatorAction::kReturn, at + 1, "reset"));
    return state;
  };
  EXPECT_EQ(fail_and_return(day), DeviceState::kFailed);
  EXPECT_EQ(fail_and_return(9 * day), DeviceState::kFailed);  // The first is 8 days old.
  EXPECT_EQ(fail_and_return(10 * day), DeviceState::kFailed);
  EXPECT_EQ(fail_and_return(11 * day), DeviceState::kInRepair);  // 3 in the last week.
  EXPECT_EQ(book.devices().at(0).history.back().from, DeviceState::kInRepair);
  const auto& history = book.devices().at(0).history;
  EXPECT_EQ(history[history.size() - 2].evidence,
            "XID 119; failure 3 within 7 days: sent to repair");
}

TEST(DeviceHealthTest, DiagnosticsPassOrFailOnlyADiagnosingDevice) {
  DeviceHealthBook book;
  const HealthRules rules;
  std::vector<model::LabelledTelemetry> readings = {WithXid(0, 94), WithXid(1, 94), Reading(2)};
  book.Observe(readings, kSecond, rules);
  EXPECT_FALSE(book.StartDiagnosis(2, 2 * kSecond));       // Healthy: nothing to diagnose.
  EXPECT_FALSE(book.Diagnosed(0, true, "", 2 * kSecond));  // Not diagnosing yet.
  ASSERT_TRUE(book.StartDiagnosis(0, 2 * kSecond));
  ASSERT_TRUE(book.StartDiagnosis(1, 2 * kSecond));
  EXPECT_EQ(book.count(DeviceState::kDiagnosing), 2u);
  EXPECT_EQ(book.devices().at(0).evidence, "diagnosing: suspect since XID 94");
  EXPECT_FALSE(book.devices().at(0).by_operator);
  EXPECT_TRUE(book.Diagnosed(0, true, "", 3 * kSecond));
  EXPECT_TRUE(book.Diagnosed(1, false, "EUD failed", 3 * kSecond));
  EXPECT_EQ(book.state(0), DeviceState::kHealthy);
  EXPECT_EQ(book.devices().at(0).evidence, "diagnostics passed");
  EXPECT_EQ(book.state(1), DeviceState::kFailed);
  EXPECT_EQ(book.devices().at(1).evidence, "diagnostics failed: EUD failed");
  EXPECT_EQ(book.count(DeviceState::kDiagnosing), 0u);
}

TEST(DeviceHealthTest, TheBookRoundTripsThroughJsonAndBadJsonIsRefused) {
  DeviceHealthBook book;
  const HealthRules rules;
  std::vector<model::LabelledTelemetry> readings = {WithXid(0, 79), WithXid(5, 63)};
  book.Observe(readings, kSecond, rules);
  book.Operate(0, OperatorAction::kRepair, 2 * kSecond, "swap");
  auto back = DeviceHealthBook::FromJson(book.ToJson());
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->ToJson(), book.ToJson());
  EXPECT_EQ(back->state(0), DeviceState::kInRepair);
  EXPECT_EQ(back->devices().at(0).history.size(), 2u);
  EXPECT_EQ(back->devices().at(5).seen_xid, 63);

  EXPECT_FALSE(DeviceHealthBook::FromJson(nlohmann::json::array()).has_value());
  nlohmann::json bad = book.ToJson();
  bad["0"]["state"] = "melted";
  EXPECT_EQ(DeviceHealthBook::FromJson(bad).error().message,
            "device health: device 0: unknown state");
  nlohmann::json index = book.ToJson();
  index["2000"] = index["0"];
  EXPECT_FALSE(DeviceHealthBook::FromJson(index).has_value());
  nlohmann::json missing = book.ToJson();
  missing["5"].erase("seen_xid");
  EXPECT_FALSE(DeviceHealthBook::FromJson(missing).has_value());
}

}  // namespace
}  // namespace headroom::control
