// DeviceDiagnostics: one device at a time with {device} substituted, exit 0 passes, the last
// line names a failure, a run past its timeout is killed and fails, a device is queued once.
#include "agent/device_diagnostics.h"

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

namespace headroom::agent {
namespace {

std::vector<model::DiagnosticsResult> RunUntil(DeviceDiagnostics& diagnostics, size_t results) {
  std::vector<model::DiagnosticsResult> out;
  const auto start = std::chrono::steady_clock::now();
  while (out.size() < results &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    const TimeUs now = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count();
    diagnostics.Tick(now);
    for (auto& result : diagnostics.TakeResults()) out.push_back(std::move(result));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return out;
}

TEST(DeviceDiagnosticsTest, RunsEachDeviceInTurnAndReportsTheVerdict) {
  const std::string output = ::testing::TempDir() + "/device_diagnostics_test.out";
  DeviceDiagnostics diagnostics(
      {.command = "if [ {device} = 1 ]; then echo \"GPU {device}: memory test failed\"; exit 3; "
                  "fi; [ \"$HEADROOM_DEVICE\" = {device} ]",
       .output_path = output});
  EXPECT_TRUE(diagnostics.enabled());
  EXPECT_FALSE(diagnostics.busy());
  diagnostics.Want({0, 1, 0});
  diagnostics.Want({1});
  EXPECT_TRUE(diagnostics.busy());
  const auto results = RunUntil(diagnostics, 2);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0], (model::DiagnosticsResult{0, true, ""}));
  EXPECT_EQ(results[1], (model::DiagnosticsResult{
                            1, false, "diagnostics exited 3: GPU 1: memory test failed"}));
  EXPECT_FALSE(diagnostics.busy());
  std::filesystem::remove(output);
}

TEST(DeviceDiagnosticsTest, ARunPastItsTimeoutIsKilledAndFails) {
  DeviceDiagnostics diagnostics(
      {.command = "sleep 30",
       .timeout_us = 200'000,
       .output_path = ::testing::TempDir() + "/device_diagnostics_t.out"});
  diagnostics.Want({5});
  const auto results = RunUntil(diagnostics, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0], (model::DiagnosticsResult{5, false, "diagnostics timed out after 0.2 s"}));
  EXPECT_FALSE(DeviceDiagnostics({}).enabled());
}

}  // namespace
}  // namespace headroom::agent
