#include "sim/stats.h"

#include <algorithm>
#include <cmath>

namespace headroom::sim {

Distribution Summarize(std::vector<double> samples) {
  Distribution d;
  d.count = samples.size();
  if (samples.empty()) return d;
  std::sort(samples.begin(), samples.end());
  double sum = 0;
  for (double sample : samples) sum += sample;
  d.mean = sum / static_cast<double>(samples.size());
  auto rank = [&](double p) {
    const size_t index = static_cast<size_t>(std::ceil(p * static_cast<double>(samples.size())));
    return samples[std::clamp<size_t>(index, 1, samples.size()) - 1];
  };
  d.p50 = rank(0.50);
  d.p95 = rank(0.95);
  d.p99 = rank(0.99);
  d.max = samples.back();
  return d;
}

}  // namespace headroom::sim
