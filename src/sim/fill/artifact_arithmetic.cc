#include "sim/fill/artifact_arithmetic.h"

#include <charconv>
#include <cmath>

#include "base/check.h"

namespace headroom::sim {

double PairwiseSum(const double* values, size_t count) {
  // NumPy's unroll factor and block size.
  constexpr size_t kUnroll = 8;
  constexpr size_t kBlock = 128;
  if (count < kUnroll) {
    double sum = 0.;
    for (size_t i = 0; i < count; ++i) sum += values[i];
    return sum;
  }
  if (count <= kBlock) {
    double r[kUnroll];
    for (size_t j = 0; j < kUnroll; ++j) r[j] = values[j];
    size_t i = kUnroll;
    for (; i < count - count % kUnroll; i += kUnroll) {
      for (size_t j = 0; j < kUnroll; ++j) r[j] += values[i + j];
    }
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < count; ++i) sum += values[i];
    return sum;
  }
  size_t half = count / 2;
  half -= half % kUnroll;
  return PairwiseSum(values, half) + PairwiseSum(values + half, count - half);
}

double PyRound(double value, int ndigits) {
  HR_CHECK(ndigits >= 0 && ndigits <= 15);
  // to_chars in fixed notation is correctly rounded (half to even on the exact binary value),
  // as CPython's round() is; reading the digits back gives the nearest double, as Python does.
  char text[400];
  const auto written =
      std::to_chars(text, text + sizeof text, value, std::chars_format::fixed, ndigits);
  HR_CHECK(written.ec == std::errc());
  double rounded = 0;
  const auto read = std::from_chars(text, written.ptr, rounded);
  HR_CHECK(read.ec == std::errc());
  return rounded;
}

double NumpyRound(double value, int decimals) {
  HR_CHECK(decimals >= 0 && decimals <= 15);
  const double scale = std::pow(10.0, decimals);  // Exact for these powers.
  return std::nearbyint(value * scale) / scale;
}

}  // namespace headroom::sim
