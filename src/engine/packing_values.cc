#include "engine/packing_values.h"

#include <algorithm>
#include <map>

#include "base/check.h"

namespace headroom::engine {
namespace {

constexpr uint32_t kGpuMilli = 1000;
constexpr double kEpsilon = 1e-9;
// Column generation adds one pattern per round; the openb mixes need a few dozen.
constexpr int kMaxPatterns = 2000;

// max c·y subject to rows[r]·y ≤ 1 for every row, y ≥ 0: a dense tableau simplex started at
// y = 0 (feasible, as every bound is 1), Bland's rule so that degenerate pivots cannot cycle.
std::vector<double> MaximiseUnderUnitRows(const std::vector<double>& c,
                                          const std::vector<std::vector<double>>& rows) {
  const size_t n = c.size(), m = rows.size(), width = n + m + 1;
  std::vector<std::vector<double>> tableau(m, std::vector<double>(width, 0));
  for (size_t r = 0; r < m; ++r) {
    std::copy(rows[r].begin(), rows[r].end(), tableau[r].begin());
    tableau[r][n + r] = 1;
    tableau[r][width - 1] = 1;
  }
  std::vector<double> reduced(width, 0);
  for (size_t j = 0; j < n; ++j) reduced[j] = -c[j];
  std::vector<size_t> basis(m);
  for (size_t r = 0; r < m; ++r) basis[r] = n + r;

  while (true) {
    size_t entering = width;
    for (size_t j = 0; j + 1 < width && entering == width; ++j) {
      if (reduced[j] < -kEpsilon) entering = j;
    }
    if (entering == width) break;
    size_t leaving = m;
    double best_ratio = 0;
    for (size_t r = 0; r < m; ++r) {
      if (tableau[r][entering] <= kEpsilon) continue;
      const double ratio = tableau[r][width - 1] / tableau[r][entering];
      if (leaving == m || ratio < best_ratio - kEpsilon ||
          (ratio <= best_ratio + kEpsilon && basis[r] < basis[leaving])) {
        leaving = r;
        best_ratio = ratio;
      }
    }
    if (leaving == m) break;  // Unbounded cannot happen: every y_d sits in a row of its own.
    std::vector<double>& pivot_row = tableau[leaving];
    const double pivot = pivot_row[entering];
    for (double& x : pivot_row) x /= pivot;
    auto eliminate = [&](std::vector<double>& row) {
      const double factor = row[entering];
      if (factor == 0) return;
      for (size_t j = 0; j < width; ++j) row[j] -= factor * pivot_row[j];
    };
    for (size_t r = 0; r < m; ++r) {
      if (r != leaving) eliminate(tableau[r]);
    }
    eliminate(reduced);
    basis[leaving] = entering;
  }
  std::vector<double> y(n, 0);
  for (size_t r = 0; r < m; ++r) {
    if (basis[r] < n) y[basis[r]] = tableau[r][width - 1];
  }
  return y;
}

// K(g) for g in 0..1000 over demands with values y (unbounded knapsack, K non-decreasing), and
// the demand index last added at each g (-2: none, K(g) = K(g − 1)), to read back the best
// pattern.
void Knapsack(const std::vector<uint32_t>& demands, const std::vector<double>& y,
              std::array<double, kGpuMilli + 1>& best, std::array<int, kGpuMilli + 1>& last) {
  best.fill(0);
  last.fill(-2);
  for (uint32_t g = 1; g <= kGpuMilli; ++g) {
    best[g] = best[g - 1];
    for (size_t d = 0; d < demands.size(); ++d) {
      if (demands[d] > g) continue;
      const double value = y[d] + best[g - demands[d]];
      if (value > best[g] + kEpsilon) {
        best[g] = value;
        last[g] = static_cast<int>(d);
      }
    }
  }
}

}  // namespace

PackingValues::PackingValues() = default;

PackingValues::PackingValues(const std::vector<TypicalShape>& typical) {
  std::map<uint32_t, double> weight_by_demand;
  for (const TypicalShape& t : typical) {
    if (t.shape.shares_a_gpu() && t.shape.milli_per_gpu > 0) {
      weight_by_demand[t.shape.milli_per_gpu] += t.weight;
    }
  }
  if (weight_by_demand.empty()) return;
  std::vector<uint32_t> demands;
  std::vector<double> weights;
  for (const auto& [milli, weight] : weight_by_demand) {
    demands.push_back(milli);
    weights.push_back(weight);
  }

  // Start from one pattern per demand (as many copies as fit), so every y_d is bounded.
  std::vector<std::vector<double>> patterns;
  for (size_t d = 0; d < demands.size(); ++d) {
    std::vector<double> pattern(demands.size(), 0);
    pattern[d] = static_cast<double>(kGpuMilli / demands[d]);
    patterns.push_back(std::move(pattern));
  }
  std::vector<double> y;
  std::array<int, kGpuMilli + 1> last{};
  while (true) {
    y = MaximiseUnderUnitRows(weights, patterns);
    Knapsack(demands, y, free_value_, last);
    if (free_value_[kGpuMilli] <= 1 + kEpsilon ||
        patterns.size() >= static_cast<size_t>(kMaxPatterns)) {
      break;
    }
    std::vector<double> pattern(demands.size(), 0);
    for (uint32_t g = kGpuMilli; g > 0;) {
      if (last[g] == -2) {
        --g;
      } else {
        pattern[static_cast<size_t>(last[g])] += 1;
        g -= demands[static_cast<size_t>(last[g])];
      }
    }
    // A pattern already present means rounding, not a better packing: the prices stand.
    if (std::find(patterns.begin(), patterns.end(), pattern) != patterns.end()) break;
    patterns.push_back(std::move(pattern));
  }
  task_value_ = free_value_;
  for (size_t d = 0; d < demands.size(); ++d) task_value_[demands[d]] = y[d];
}

double PackingValues::PlacementLoss(uint32_t free_milli, uint32_t milli) const {
  HR_CHECK(milli <= free_milli && free_milli <= kGpuMilli);
  return std::max(0.0,
                  free_value_[free_milli] - task_value_[milli] - free_value_[free_milli - milli]);
}

}  // namespace headroom::engine
