// GoRand against Go's math/rand: the stream Go programs print, and the draws' contracts.
#include "base/go_rand.h"

#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace headroom {
namespace {

TEST(GoRand, SeedOneGivesGosWellKnownSequence) {
  // Go before 1.20 seeded its global generator with 1, so every program printed these for
  // rand.Intn(100) ("Why does rand.Intn always return 81?"). They depend on every part: the
  // computed cooked state, the seeding, the lagged-Fibonacci step and Int31n's rejection.
  GoRand rng(1);
  std::vector<int64_t> drawn;
  for (int i = 0; i < 10; ++i) drawn.push_back(rng.Intn(100));
  EXPECT_EQ(drawn, (std::vector<int64_t>{81, 87, 47, 59, 81, 18, 25, 40, 56, 0}));
}

TEST(GoRand, SeedsAreReducedAsGoReducesThem) {
  // Seed takes the seed modulo 2^31 - 1 (as Go's % does, towards zero), and 0 means 89482311.
  auto first = [](int64_t seed) { return GoRand(seed).Int63(); };
  EXPECT_EQ(first(0), first(89482311));
  EXPECT_EQ(first(5), first(int64_t{5} + 2147483647));
  EXPECT_EQ(first(-3), first(int64_t{2147483647} - 3));
  EXPECT_NE(first(42), first(43));
}

TEST(GoRand, Int63IsNonNegativeAndDerivedDrawsUseItsTopBits) {
  GoRand a(42), b(42);
  for (int i = 0; i < 1000; ++i) {
    const int64_t value = a.Int63();
    ASSERT_GE(value, 0);
    ASSERT_EQ(b.Int31(), static_cast<int32_t>(value >> 32));
  }
}

RC_GTEST_PROP(GoRand, BoundedDrawsStayInRange, (int64_t seed)) {
  GoRand rng(seed);
  const auto n = *rc::gen::inRange<int64_t>(1, int64_t{1} << 40);
  RC_ASSERT(rng.Intn(n) < n);
  const auto small = *rc::gen::inRange<int32_t>(1, 1 << 30);
  const int32_t drawn = rng.Int31n(small);
  RC_ASSERT(drawn >= 0 && drawn < small);
}

RC_GTEST_PROP(GoRand, PermAndShuffleArePermutations, (int64_t seed)) {
  const auto n = *rc::gen::inRange<int64_t>(0, 500);
  GoRand rng(seed);
  std::vector<int64_t> perm = rng.Perm(n);
  std::vector<int64_t> shuffled(static_cast<size_t>(n));
  std::iota(shuffled.begin(), shuffled.end(), 0);
  rng.Shuffle(n, [&](int64_t i, int64_t j) {
    RC_ASSERT(j >= 0 && j <= i && i < n);
    std::swap(shuffled[i], shuffled[j]);
  });
  std::sort(perm.begin(), perm.end());
  std::sort(shuffled.begin(), shuffled.end());
  for (int64_t i = 0; i < n; ++i) {
    RC_ASSERT(perm[i] == i);
    RC_ASSERT(shuffled[i] == i);
  }
}

TEST(GoRand, SameSeedSameStream) {
  GoRand a(7), b(7);
  EXPECT_EQ(a.Perm(50), b.Perm(50));
  std::vector<int64_t> x(20), y(20);
  std::iota(x.begin(), x.end(), 0);
  std::iota(y.begin(), y.end(), 0);
  a.Shuffle(20, [&](int64_t i, int64_t j) { std::swap(x[i], x[j]); });
  b.Shuffle(20, [&](int64_t i, int64_t j) { std::swap(y[i], y[j]); });
  EXPECT_EQ(x, y);
}

}  // namespace
}  // namespace headroom
