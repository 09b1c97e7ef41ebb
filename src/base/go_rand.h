// GoRand: the exact number stream of Go's math/rand (Go 1 compatibility generator, as in Go 1.15
// that FGD's artifact was built with): an additive lagged Fibonacci generator, x[n] = x[n-607] +
// x[n-273] mod 2^64 (Mitchell & Reeds), seeded through a Lehmer generator XORed with a fixed
// "cooked" state, and Go's derived draws Int63, Uint32, Int31, Int31n, Intn, Perm and Shuffle.
//
// Why: the fill experiment (sim/fill) replays the artifact's run for a given seed draw for draw
// (its shuffle, its samples, its node-name prefixes), so our per-seed results can be compared
// with the artifact's per-seed tables, not only their medians.
//
// The cooked state is, per Go's gen_cooked.go, the generator's state after 7.8e12 steps from
// seed 1; it is computed here once per process by jumping ahead with polynomial arithmetic
// modulo the recurrence's characteristic polynomial (tens of milliseconds), not stored.
// Threading: a GoRand is single-threaded; the shared cooked state is computed thread-safely.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "base/check.h"

namespace headroom {

class GoRand {
 public:
  static constexpr int kLength = 607;
  static constexpr int kTap = 273;

  explicit GoRand(int64_t seed);

  // rngSource.Uint64 and Int63.
  uint64_t Uint64();
  int64_t Int63() { return static_cast<int64_t>(Uint64() & kMask); }

  // Rand.Uint32, Int31, Int (64-bit int).
  uint32_t Uint32() { return static_cast<uint32_t>(Int63() >> 31); }
  int32_t Int31() { return static_cast<int32_t>(Int63() >> 32); }
  int64_t Int() { return Int63(); }

  // Rand.Int31n (rejection sampling; the one Intn uses), n > 0.
  int32_t Int31n(int32_t n);
  // Rand.Int63n, n > 0.
  int64_t Int63n(int64_t n);
  // Rand.Intn, n > 0.
  int64_t Intn(int64_t n);
  // Rand.Perm: a permutation of 0..n-1.
  std::vector<int64_t> Perm(int64_t n);
  // Rand.Shuffle: calls swap(i, j) exactly as Go does (Fisher-Yates from the top, with the
  // multiply-shift bounded draw Go introduced for Shuffle).
  template <typename Swap>
  void Shuffle(int64_t n, Swap&& swap) {
    HR_CHECK(n >= 0);
    int64_t i = n - 1;
    for (; i > (int64_t{1} << 31) - 2; --i) swap(i, Int63n(i + 1));
    for (; i > 0; --i) swap(i, static_cast<int64_t>(BoundedInt31(static_cast<int32_t>(i + 1))));
  }

  // The cooked state (exposed for tests).
  static const std::array<uint64_t, kLength>& Cooked();

 private:
  static constexpr uint64_t kMask = (uint64_t{1} << 63) - 1;

  // Rand.int31n: Lemire's multiply-shift draw in [0, n).
  int32_t BoundedInt31(int32_t n);

  int tap_ = 0;
  int feed_ = kLength - kTap;
  std::array<uint64_t, kLength> vec_{};
};

}  // namespace headroom
