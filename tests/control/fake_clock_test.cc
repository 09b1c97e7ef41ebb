// FakeClock stands still until moved, never goes back, and keeps a waiting loop polling.
#include "control/fake_clock.h"

#include <gtest/gtest.h>

#include "control/clock.h"

namespace headroom::control {
namespace {

TEST(FakeClock, MovesOnlyWhenAdvanced) {
  FakeClock clock(1000);
  EXPECT_EQ(clock.NowUs(), 1000);
  EXPECT_EQ(clock.WallNowUs(), 1000);
  clock.AdvanceUs(2 * kUsPerSecond);
  EXPECT_EQ(clock.NowUs(), 1000 + 2 * kUsPerSecond);
  EXPECT_EQ(clock.WallNowUs(), clock.NowUs());
  EXPECT_DEATH(clock.AdvanceUs(-1), "check failed");
}

TEST(FakeClock, SteadyTimeRunsOnAndJumpsByEachAdvance) {
  FakeClock clock(0);
  const auto before = clock.SteadyNow();
  clock.AdvanceUs(3600 * kUsPerSecond);
  const auto after = clock.SteadyNow();
  EXPECT_GE(after - before, std::chrono::hours(1));
  EXPECT_LT(after - before, std::chrono::hours(1) + std::chrono::seconds(10));
  EXPECT_GE(clock.SteadyNow(), after);
}

TEST(FakeClock, WaitsAreShortPolls) {
  const FakeClock clock(0);
  EXPECT_EQ(clock.WallDelay(-5).count(), 0);
  EXPECT_EQ(clock.WallDelay(3).count(), 3);
  EXPECT_LE(clock.WallDelay(3600 * kUsPerSecond).count(), 5000);
}

TEST(SystemClock, ScaledTimeRunsFromItsOrigin) {
  const SystemClock real(1.0, 0);
  const SystemClock fast(60.0, real.WallNowUs());
  EXPECT_NEAR(static_cast<double>(fast.NowUs() - real.WallNowUs()), 0.0, 0.5 * kUsPerSecond);
  EXPECT_EQ(fast.WallDelay(60 * kUsPerSecond).count(), kUsPerSecond + 1);
  EXPECT_EQ(real.WallDelay(0).count(), 0);
}

}  // namespace
}  // namespace headroom::control
