// A small, seeded, platform-independent random generator (SplitMix64 to seed, xoshiro256** to
// draw; Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2021). The standard
// library's distributions differ between implementations, so the few we need are written here:
// the same seed gives the same draws everywhere, which byte-identical reports rely on.
#pragma once

#include <cmath>
#include <cstdint>

namespace headroom {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& word : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }

  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, bound), bound > 0. The modulo bias (bound / 2^64) is irrelevant here.
  uint64_t Below(uint64_t bound) { return Next() % bound; }

  double Exponential(double mean) { return -mean * std::log1p(-Uniform()); }

  // Standard normal by Box-Muller (one value per call; simplicity over speed).
  double Normal() {
    const double u1 = 1.0 - Uniform();
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  double LogNormal(double median, double sigma) { return median * std::exp(sigma * Normal()); }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4] = {};
};

}  // namespace headroom
