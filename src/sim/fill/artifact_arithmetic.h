// The arithmetic of the FGD artifact's analysis scripts (pandas over NumPy), reproduced so that
// a fill-curve point comes out to the last digit as the published one did.
// Promise: PairwiseSum adds in NumPy's order (np.add.reduce on a contiguous float64 array,
// numpy/core/src/umath/loops_utils.h.src `pairwise_sum`), which pandas' mean() uses; PyRound
// rounds as Python's round(float, ndigits): half to even on the double's exact value; NumpyRound
// as round(np.float64, decimals): rint(x * 10^d) / 10^d. The three differ from a sequential sum
// and from each other in the last place, which becomes a 0.01 step once rounded.
#pragma once

#include <cstddef>

namespace headroom::sim {

double PairwiseSum(const double* values, size_t count);

// ndigits and decimals in 0..15.
double PyRound(double value, int ndigits);
double NumpyRound(double value, int decimals);

}  // namespace headroom::sim
