// FairShare (fair_share.h): usage integrates running milli-devices over time, halves every
// half-life, and the factor is Slurm's classic 2^(-U/S), with equal shares unless set.
#include "engine/fair_share.h"

#include <cmath>

#include <gtest/gtest.h>

namespace headroom::engine {
namespace {

constexpr TimeUs kHalfLifeUs = 100 * kUsPerSecond;

TEST(FairShareTest, WithoutUsageEveryTenantHasFactorOne) {
  FairShare share(kHalfLifeUs);
  share.EnsureTenant(TenantId(1));
  share.Advance(0);
  share.Advance(SecondsToUs(50));
  EXPECT_EQ(share.Factors(), (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(share.Factor(TenantId(7)), 1.0);  // Unknown tenants have used nothing.
}

TEST(FairShareTest, AllTheUsageOfOneOfTwoTenantsGivesItAQuarter) {
  FairShare share(kHalfLifeUs);
  share.Advance(0);
  share.AddRunning(TenantId(0), 1000);
  share.EnsureTenant(TenantId(1));
  share.Advance(SecondsToUs(100));
  // U = 1 of the usage, S = 1/2: 2^(-2).
  EXPECT_DOUBLE_EQ(share.Factor(TenantId(0)), 0.25);
  EXPECT_DOUBLE_EQ(share.Factor(TenantId(1)), 1.0);
}

TEST(FairShareTest, OldUsageHalvesEveryHalfLife) {
  FairShare share(kHalfLifeUs);
  share.Advance(0);
  share.AddRunning(TenantId(0), 1000);  // Tenant 0 runs one device for 100 s,
  share.Advance(SecondsToUs(100));
  share.AddRunning(TenantId(0), -1000);
  share.AddRunning(TenantId(1), 1000);  // then tenant 1 for the next 100 s.
  share.Advance(SecondsToUs(200));
  // Tenant 0's 100,000 milli-device-seconds have halved to 50,000; tenant 1 has 100,000.
  EXPECT_NEAR(share.Factor(TenantId(0)), std::exp2(-(1.0 / 3) / 0.5), 1e-12);
  EXPECT_NEAR(share.Factor(TenantId(1)), std::exp2(-(2.0 / 3) / 0.5), 1e-12);
  // A further half-life with nobody running halves both: the shares, and factors, stay.
  share.AddRunning(TenantId(1), -1000);
  const std::vector<double> before = share.Factors();
  share.Advance(SecondsToUs(300));
  const std::vector<double> after = share.Factors();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_NEAR(after[0], before[0], 1e-12);
  EXPECT_NEAR(after[1], before[1], 1e-12);
}

TEST(FairShareTest, SharesSetEachTenantsS) {
  FairShare share(kHalfLifeUs);
  share.SetShare(TenantId(0), 3);  // Tenant 1 keeps the default 1: S = 3/4 and 1/4.
  share.EnsureTenant(TenantId(1));
  EXPECT_EQ(share.NormalizedShares(), (std::vector<double>{0.75, 0.25}));
  share.Advance(0);
  share.AddRunning(TenantId(0), 1000);
  share.AddRunning(TenantId(1), 1000);
  share.Advance(SecondsToUs(10));
  // Each used half: 2^(-0.5/0.75) and 2^(-0.5/0.25).
  EXPECT_DOUBLE_EQ(share.Factor(TenantId(0)), std::exp2(-2.0 / 3.0));
  EXPECT_DOUBLE_EQ(share.Factor(TenantId(1)), 0.25);
  // FactorsAt looks ahead without changing anything.
  const std::vector<double> later = share.FactorsAt(SecondsToUs(20));
  EXPECT_DOUBLE_EQ(later[1], 0.25);
  EXPECT_DOUBLE_EQ(share.Factor(TenantId(1)), 0.25);
}

}  // namespace
}  // namespace headroom::engine
