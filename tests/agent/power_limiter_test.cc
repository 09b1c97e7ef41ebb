// The agent's power limiter against a fake power control: limits follow what the heartbeat
// replies ask, clamped to the device's range, set only on change, lifted back to the default; a
// refused set is logged once; without NVML a cap is recorded and said so.
#include "agent/power_limiter.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace headroom::agent {
namespace {

class FakePowerControl : public PowerControl {
 public:
  Result<PowerLimitRange> Limits(int index) override {
    return PowerLimitRange{.now_w = limit_w[index], .default_w = 700, .min_w = 200, .max_w = 700};
  }
  Result<void> Set(int index, uint32_t watts) override {
    ++sets;
    if (refuse) return MakeError(ErrorCode::kIo, "Insufficient Permissions");
    limit_w[index] = watts;
    return {};
  }
  std::map<int, uint32_t> limit_w = {{0, 700}, {1, 700}};
  int sets = 0;
  bool refuse = false;
};

model::DesiredTask TaskOn(std::vector<int> devices, int64_t cap_w) {
  model::DesiredTask task;
  task.key = {.job = 1, .rank = 0, .attempt = 1};
  task.devices = std::move(devices);
  task.command = {"true"};
  task.power_cap_w = cap_w;
  return task;
}

TEST(PowerLimiterTest, LimitsFollowTheRepliesAndAreSetOnlyWhenTheAskChanges) {
  FakePowerControl control;
  std::vector<std::string> lines;
  PowerLimiter limiter(&control, {0, 1}, [&](const std::string& line) { lines.push_back(line); });
  limiter.Apply({TaskOn({0}, 490)});
  EXPECT_EQ(control.limit_w[0], 490u);
  EXPECT_EQ(control.limit_w[1], 700u);
  EXPECT_EQ(control.sets, 1);  // Device 1 is at its default already.
  limiter.Apply({TaskOn({0}, 490)});
  EXPECT_EQ(control.sets, 1);
  // Below the device's range: clamped to its lowest limit.
  limiter.Apply({TaskOn({0}, 150)});
  EXPECT_EQ(control.limit_w[0], 200u);
  // The task gone: back to the default.
  limiter.Apply({});
  EXPECT_EQ(control.limit_w[0], 700u);
  EXPECT_EQ(limiter.applied().at(0), 700u);
  EXPECT_EQ(lines.back(), "device 0: power cap lifted, limit back to its default 700 W");
}

TEST(PowerLimiterTest, AFirstApplyLiftsACapAnEarlierRunLeft) {
  FakePowerControl control;
  control.limit_w[1] = 350;
  PowerLimiter limiter(&control, {0, 1}, [](const std::string&) {});
  limiter.Apply({});
  EXPECT_EQ(control.limit_w[1], 700u);
}

TEST(PowerLimiterTest, ARefusedSetIsLoggedOnceAndTriedAgainWhenTheAskChanges) {
  FakePowerControl control;
  control.refuse = true;
  std::vector<std::string> lines;
  PowerLimiter limiter(&control, {0, 1}, [&](const std::string& line) { lines.push_back(line); });
  limiter.Apply({TaskOn({0, 1}, 560)});
  limiter.Apply({TaskOn({0, 1}, 560)});
  EXPECT_EQ(control.sets, 2);  // One per device, not again.
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "device 0: power limit 560 W not set: Insufficient Permissions");
  limiter.Apply({TaskOn({0, 1}, 490)});
  EXPECT_EQ(control.sets, 4);
}

TEST(PowerLimiterTest, WithoutNvmlACapIsRecordedAndSaidSo) {
  std::vector<std::string> lines;
  PowerLimiter limiter(nullptr, {0, 1}, [&](const std::string& line) { lines.push_back(line); });
  limiter.Apply({});
  EXPECT_TRUE(lines.empty());  // Nothing asked, nothing to say.
  limiter.Apply({TaskOn({1}, 420)});
  EXPECT_EQ(limiter.asked().at(1), 420);
  EXPECT_EQ(limiter.asked().at(0), 0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "device 1: power cap 420 W recorded, not applied (no NVML)");
  // A device the node does not have is ignored.
  limiter.Apply({TaskOn({1}, 420), TaskOn({7}, 300)});
  EXPECT_EQ(limiter.asked().count(7), 0u);
}

}  // namespace
}  // namespace headroom::agent
