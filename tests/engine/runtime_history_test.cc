// RuntimeHistory (runtime_history.h): the tenant's mean runtime at the job's size, else the
// tenant's, else everyone's; carried tallies rebuild the same predictions.
#include "engine/runtime_history.h"

#include <gtest/gtest.h>

namespace headroom::engine {
namespace {

constexpr TimeUs kS = kUsPerSecond;

TEST(RuntimeHistoryTest, PredictsFromTheClosestKindWithRuns) {
  RuntimeHistory history;
  const TenantId alice(0), bob(1), carol(2);
  EXPECT_EQ(history.Predict(alice, 8000), 0);  // Nothing ran yet.
  history.Record(alice, 8000, 100 * kS);
  history.Record(alice, 8000, 300 * kS);
  history.Record(alice, 1000, 1000 * kS);
  history.Record(bob, 2000, 50 * kS);
  EXPECT_EQ(history.Predict(alice, 8000), 200 * kS);   // Same size: (100+300)/2.
  EXPECT_EQ(history.Predict(alice, 4000), 466666667);  // Alice's mean, (100+300+1000)/3 s.
  EXPECT_EQ(history.Predict(carol, 8000), (100 + 300 + 1000 + 50) * kS / 4);  // Everyone's.
  history.Record(bob, 2000, -5 * kS);  // A clock step back counts as 0.
  EXPECT_EQ(history.Predict(bob, 2000), 25 * kS);
}

TEST(RuntimeHistoryTest, TalliesSeedTheSamePredictions) {
  RuntimeHistory history;
  history.Record(TenantId(0), 8000, 100 * kS);
  history.Record(TenantId(1), 1000, 10 * kS);
  history.Record(TenantId(1), 1000, 30 * kS);
  const std::string a = "a", b = "b";
  const RuntimeTallies tallies = history.Tallies({&a, &b});
  ASSERT_EQ(tallies.size(), 2u);
  EXPECT_EQ(tallies.at("b").at(1000), (RuntimeTally{.runs = 2, .sum_s = 40}));
  // Seeded under other ids (b first), the predictions follow the names.
  RuntimeHistory seeded;
  for (const auto& [size, tally] : tallies.at("b")) seeded.Seed(TenantId(0), size, tally);
  for (const auto& [size, tally] : tallies.at("a")) seeded.Seed(TenantId(1), size, tally);
  EXPECT_EQ(seeded.Predict(TenantId(0), 1000), history.Predict(TenantId(1), 1000));
  EXPECT_EQ(seeded.Predict(TenantId(1), 8000), history.Predict(TenantId(0), 8000));
  EXPECT_EQ(seeded.Predict(TenantId(2), 4000), history.Predict(TenantId(2), 4000));
}

}  // namespace
}  // namespace headroom::engine
