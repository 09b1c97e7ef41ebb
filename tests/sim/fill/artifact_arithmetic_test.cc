#include "sim/fill/artifact_arithmetic.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace headroom::sim {
namespace {

// v_i = (37 i mod 1000) / 100 + 0.01, the same doubles in C++ and Python.
std::vector<double> Values(size_t n) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i * 37 % 1000) / 100.0 + 0.01);
  return v;
}

double SequentialSum(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum;
}

// Expected sums are what NumPy 1.24 prints for np.array(v).sum().hex().
TEST(ArtifactArithmeticTest, PairwiseSumAddsInNumpysOrder) {
  const std::vector<double> hundred = Values(100);  // One block of eight accumulators.
  EXPECT_EQ(PairwiseSum(hundred.data(), hundred.size()), 0x1.e27ffffffffffp+8);
  EXPECT_EQ(SequentialSum(hundred), 0x1.e280000000001p+8);  // Why the order matters.

  const std::vector<double> more = Values(131);  // Split into halves of 64 and 67.
  EXPECT_EQ(PairwiseSum(more.data(), more.size()), 0x1.45ee147ae147cp+9);
  EXPECT_EQ(SequentialSum(more), 0x1.45ee147ae147bp+9);

  const std::vector<double> few = Values(5);
  EXPECT_EQ(PairwiseSum(few.data(), few.size()), 3.75);
  EXPECT_EQ(PairwiseSum(few.data(), 0), 0.0);
}

TEST(ArtifactArithmeticTest, PyRoundRoundsTheExactValueHalfToEven) {
  // 2.675 is 2.67499999999999982236431605997495353221893310546875, so Python gives 2.67,
  // although 2.675 * 100 is exactly 267.5 and nearbyint takes it to 268.
  EXPECT_EQ(PyRound(2.675, 2), 2.67);
  EXPECT_EQ(std::nearbyint(2.675 * 100) / 100, 2.68);
  EXPECT_EQ(PyRound(1.005, 2), 1.0);
  EXPECT_EQ(PyRound(0.125, 2), 0.12);  // Exactly half: to even.
  EXPECT_EQ(PyRound(0.375, 2), 0.38);
  EXPECT_EQ(PyRound(4.824999999999999, 2), 4.82);
  EXPECT_EQ(PyRound(2.5, 0), 2.0);
  EXPECT_EQ(PyRound(-3.14159, 3), -3.142);
  EXPECT_EQ(PyRound(123456.789, 0), 123457.0);
}

// Expected values are what NumPy 1.24 prints for round(np.float64(x), d).
TEST(ArtifactArithmeticTest, NumpyRoundScalesRoundsAndDivides) {
  EXPECT_EQ(NumpyRound(2.675, 2), 2.68);  // Where Python's round says 2.67.
  EXPECT_EQ(NumpyRound(0.285, 2), 0.28);  // 0.285 * 100 is 28.499999999999996.
  EXPECT_EQ(NumpyRound(0.125, 2), 0.12);
  EXPECT_EQ(NumpyRound(0.375, 2), 0.38);
  EXPECT_EQ(NumpyRound(2.5, 0), 2.0);
  EXPECT_EQ(NumpyRound(-3.14159, 3), -3.142);
}

}  // namespace
}  // namespace headroom::sim
