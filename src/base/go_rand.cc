#include "base/go_rand.h"

namespace headroom {
namespace {

constexpr int kLength = GoRand::kLength;
// Slots of the feedback register are written in decreasing order, so the value read at the tap
// was written kTap steps ago: x[n] = x[n - 607] + x[n - 273]. In polynomial form that is
// t^607 = t^334 + 1.
constexpr int kShortLag = kLength - GoRand::kTap;  // 334

// The Lehmer generator x' = 48271 x mod (2^31 - 1) in Schrage's form, as Go's seedrand.
int32_t SeedRand(int32_t x) {
  constexpr int32_t kA = 48271, kQ = 44488, kR = 3399, kM = 2147483647;
  const int32_t hi = x / kQ;
  const int32_t lo = x % kQ;
  x = kA * lo - kR * hi;
  if (x < 0) x += kM;
  return x;
}

using Poly = std::array<uint64_t, kLength>;

// a * b modulo t^607 - t^334 - 1, coefficients modulo 2^64.
Poly MulMod(const Poly& a, const Poly& b) {
  std::vector<uint64_t> product(2 * kLength - 1, 0);
  for (int i = 0; i < kLength; ++i) {
    if (a[i] == 0) continue;
    for (int j = 0; j < kLength; ++j) product[i + j] += a[i] * b[j];
  }
  for (int d = 2 * kLength - 2; d >= kLength; --d) {
    product[d - kLength] += product[d];
    product[d - kLength + kShortLag] += product[d];
  }
  Poly out;
  for (int i = 0; i < kLength; ++i) out[i] = product[i];
  return out;
}

// p * t modulo the same polynomial.
void MulByT(Poly& p) {
  const uint64_t top = p[kLength - 1];
  for (int i = kLength - 1; i > 0; --i) p[i] = p[i - 1];
  p[0] = top;
  p[kShortLag] += top;
}

// gen_cooked.go: the register seeded from 1 (its shifts are 20 and 10, not Seed's 40 and 20),
// then stepped 7.8e12 times; the table is the register as it then stands, slot by slot.
std::array<uint64_t, kLength> ComputeCooked() {
  std::array<uint64_t, kLength> slots{};
  int32_t x = 1;
  for (int i = -20; i < kLength; ++i) {
    x = SeedRand(x);
    if (i >= 0) {
      uint64_t u = static_cast<uint64_t>(x) << 20;
      x = SeedRand(x);
      u ^= static_cast<uint64_t>(x) << 10;
      x = SeedRand(x);
      u ^= static_cast<uint64_t>(x);
      slots[i] = u;
    }
  }
  // Number the values z[0..606] in the order the recurrence consumes them: step n (from 0)
  // reads slot (333 - n) mod 607 as z[n] and writes z[n + 607] there.
  auto slot_of = [](uint64_t k) { return static_cast<int>((940 - k % kLength) % kLength); };
  Poly z;
  for (int k = 0; k < kLength; ++k) z[k] = slots[slot_of(k)];

  // z[k] = sum_j c_j z[j] where c = t^k mod the characteristic polynomial.
  constexpr uint64_t kSteps = 7'800'000'000'000ULL;
  Poly power{};
  power[0] = 1;
  Poly base{};
  base[1] = 1;
  for (uint64_t e = kSteps; e > 0; e >>= 1) {
    if (e & 1) power = MulMod(power, base);
    if (e > 1) base = MulMod(base, base);
  }
  // After kSteps steps the register holds z[kSteps .. kSteps + 606].
  std::array<uint64_t, kLength> cooked{};
  for (uint64_t k = kSteps; k < kSteps + kLength; ++k) {
    uint64_t value = 0;
    for (int j = 0; j < kLength; ++j) value += power[j] * z[j];
    cooked[slot_of(k)] = value;
    MulByT(power);
  }
  return cooked;
}

}  // namespace

const std::array<uint64_t, GoRand::kLength>& GoRand::Cooked() {
  static const std::array<uint64_t, kLength> cooked = ComputeCooked();
  return cooked;
}

GoRand::GoRand(int64_t seed) {
  constexpr int64_t kM = 2147483647;
  const std::array<uint64_t, kLength>& cooked = Cooked();
  seed %= kM;
  if (seed < 0) seed += kM;
  if (seed == 0) seed = 89482311;
  auto x = static_cast<int32_t>(seed);
  for (int i = -20; i < kLength; ++i) {
    x = SeedRand(x);
    if (i >= 0) {
      uint64_t u = static_cast<uint64_t>(x) << 40;
      x = SeedRand(x);
      u ^= static_cast<uint64_t>(x) << 20;
      x = SeedRand(x);
      u ^= static_cast<uint64_t>(x);
      vec_[i] = u ^ cooked[i];
    }
  }
}

uint64_t GoRand::Uint64() {
  if (--tap_ < 0) tap_ += kLength;
  if (--feed_ < 0) feed_ += kLength;
  const uint64_t x = vec_[feed_] + vec_[tap_];
  vec_[feed_] = x;
  return x;
}

int32_t GoRand::Int31n(int32_t n) {
  HR_CHECK(n > 0);
  if ((n & (n - 1)) == 0) return Int31() & (n - 1);
  const auto max = static_cast<int32_t>((uint32_t{1} << 31) - 1 - (uint32_t{1} << 31) % n);
  int32_t v = Int31();
  while (v > max) v = Int31();
  return v % n;
}

int64_t GoRand::Int63n(int64_t n) {
  HR_CHECK(n > 0);
  if ((n & (n - 1)) == 0) return Int63() & (n - 1);
  const auto max = static_cast<int64_t>(kMask - (uint64_t{1} << 63) % static_cast<uint64_t>(n));
  int64_t v = Int63();
  while (v > max) v = Int63();
  return v % n;
}

int64_t GoRand::Intn(int64_t n) {
  HR_CHECK(n > 0);
  if (n <= (int64_t{1} << 31) - 1) return Int31n(static_cast<int32_t>(n));
  return Int63n(n);
}

std::vector<int64_t> GoRand::Perm(int64_t n) {
  std::vector<int64_t> m(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = Intn(i + 1);
    m[i] = m[j];
    m[j] = i;
  }
  return m;
}

int32_t GoRand::BoundedInt31(int32_t n) {
  uint32_t v = Uint32();
  uint64_t product = uint64_t{v} * static_cast<uint32_t>(n);
  auto low = static_cast<uint32_t>(product);
  if (low < static_cast<uint32_t>(n)) {
    const uint32_t threshold = (0u - static_cast<uint32_t>(n)) % static_cast<uint32_t>(n);
    while (low < threshold) {
      v = Uint32();
      product = uint64_t{v} * static_cast<uint32_t>(n);
      low = static_cast<uint32_t>(product);
    }
  }
  return static_cast<int32_t>(product >> 32);
}

}  // namespace headroom
