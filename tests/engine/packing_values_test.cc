// Packing values: hand-solved cutting-stock duals, and properties of the column generation on
// random mixes (dual feasibility over every pattern, no placement gaining more than it is worth).
#include "engine/packing_values.h"

#include <algorithm>
#include <functional>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace headroom::engine {
namespace {

constexpr double kTolerance = 1e-9;

std::vector<TypicalShape> Shares(std::vector<std::pair<uint32_t, double>> milli_and_weight) {
  std::vector<TypicalShape> typical;
  for (const auto& [milli, weight] : milli_and_weight) {
    typical.push_back({{4000, milli, 1, 0}, weight});
  }
  return typical;
}

TEST(PackingValuesTest, NoSharedShapesMeansNoLoss) {
  const PackingValues values(
      std::vector<TypicalShape>{{{8000, 1000, 1, 0}, 0.7}, {{8000, 0, 0, 0}, 0.3}});
  for (uint32_t g = 0; g <= 1000; g += 10) {
    EXPECT_EQ(values.FreeValue(g), 0);
    EXPECT_EQ(values.PlacementLoss(g, g / 2), 0);
  }
}

TEST(PackingValuesTest, DualPricesOfAnOpenbLikeMix) {
  // Patterns: 810 alone; 470+470; 650+320; 320×3; 470+320. The LP's prices: an 810 is worth a
  // GPU, a 470 half of one, and a 650 and a 320 split the GPU they share as 2/3 and 1/3 (that
  // also prices 320×3 at exactly one GPU).
  const PackingValues values(Shares({{810, 0.4}, {470, 0.3}, {650, 0.1}, {320, 0.2}}));
  EXPECT_NEAR(values.TaskValue(810), 1.0, kTolerance);
  EXPECT_NEAR(values.TaskValue(470), 0.5, kTolerance);
  EXPECT_NEAR(values.TaskValue(650), 2.0 / 3, kTolerance);
  EXPECT_NEAR(values.TaskValue(320), 1.0 / 3, kTolerance);
  EXPECT_NEAR(values.FreeValue(1000), 1.0, kTolerance);
  EXPECT_NEAR(values.FreeValue(530), 0.5, kTolerance);  // One more 470.
  EXPECT_NEAR(values.FreeValue(210), 0.0, kTolerance);  // Nothing typical fits.
  // A 320 beside a lone 470 spoils that GPU's pairing: 1/6 of a GPU lost for good.
  EXPECT_NEAR(values.PlacementLoss(530, 320), 0.5 - 1.0 / 3, kTolerance);
  // Beside a lone 320 or a lone 650, or on a fresh GPU, it is part of a best packing.
  EXPECT_NEAR(values.PlacementLoss(680, 320), 0, kTolerance);
  EXPECT_NEAR(values.PlacementLoss(350, 320), 0, kTolerance);
  EXPECT_NEAR(values.PlacementLoss(1000, 320), 0, kTolerance);
  // A demand outside the mix is worth what of the mix fits in it.
  EXPECT_NEAR(values.TaskValue(700), 2.0 / 3, kTolerance);
}

TEST(PackingValuesTest, SmallTasksAreFreeWhenRemaindersArePlentiful) {
  // Many 810s, few 160s: every 160 fits into some 810's 190-milli remainder, so it costs no GPU.
  const PackingValues values(Shares({{810, 0.9}, {160, 0.1}}));
  EXPECT_NEAR(values.TaskValue(810), 1.0, kTolerance);
  EXPECT_NEAR(values.TaskValue(160), 0.0, kTolerance);
  EXPECT_NEAR(values.PlacementLoss(190, 160), 0, kTolerance);
}

// Every multiset of the demands that fits one GPU, by brute force.
void ForEachPattern(const std::vector<uint32_t>& demands,
                    const std::function<void(const std::vector<int>&)>& visit) {
  std::vector<int> counts(demands.size(), 0);
  std::function<void(size_t, uint32_t)> recurse = [&](size_t d, uint32_t left) {
    if (d == demands.size()) {
      visit(counts);
      return;
    }
    for (counts[d] = 0; counts[d] * demands[d] <= left; ++counts[d]) {
      recurse(d + 1, left - counts[d] * demands[d]);
    }
    counts[d] = 0;
  };
  recurse(0, 1000);
}

RC_GTEST_PROP(PackingValuesProperty, PricesAreFeasibleAndLossesNonNegative, ()) {
  const auto demand_count = *rc::gen::inRange<size_t>(1, 6);
  std::vector<uint32_t> demands;
  std::vector<std::pair<uint32_t, double>> mix;
  for (size_t i = 0; i < demand_count; ++i) {
    const auto milli = *rc::gen::inRange<uint32_t>(60, 1000);
    if (std::find(demands.begin(), demands.end(), milli) != demands.end()) continue;
    demands.push_back(milli);
    mix.emplace_back(milli, *rc::gen::inRange(1, 100) / 100.0);
  }
  const PackingValues values(Shares(mix));

  double objective = 0, volume = 0, one_big_per_gpu = 0;
  for (const auto& [milli, weight] : mix) {
    RC_ASSERT(values.TaskValue(milli) >= -kTolerance);
    objective += weight * values.TaskValue(milli);
    volume += weight * milli / 1000.0;
    one_big_per_gpu += milli > 500 ? weight : 0;
  }
  // Dual feasibility: no pattern is worth more than the GPU it fills.
  ForEachPattern(demands, [&](const std::vector<int>& counts) {
    double worth = 0;
    for (size_t d = 0; d < demands.size(); ++d) worth += counts[d] * values.TaskValue(demands[d]);
    RC_ASSERT(worth <= 1 + 1e-6);
  });
  // Optimality against two prices known to be feasible: by volume, and one per big task.
  RC_ASSERT(objective >= volume - 1e-6);
  RC_ASSERT(objective >= one_big_per_gpu - 1e-6);
  for (uint32_t g = 0; g <= 1000; g += 7) {
    RC_ASSERT(values.FreeValue(g) <= values.FreeValue(std::min<uint32_t>(1000, g + 7)) + 1e-12);
    // K is superadditive, so no placement gains more than the task is worth.
    for (uint32_t d : demands) {
      if (d <= g) {
        RC_ASSERT(values.FreeValue(g) + 1e-9 >= values.TaskValue(d) + values.FreeValue(g - d));
      }
    }
  }
}

}  // namespace
}  // namespace headroom::engine
