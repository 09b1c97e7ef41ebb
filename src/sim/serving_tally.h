// ServingTally: the requests a service has settled (served or failed), folded into counts and
// latency histograms as they settle, so that a run of weeks keeps a fixed amount of memory
// however many requests it replays (sim/request_replay.h retires them into one).
// Percentiles come from log-spaced buckets 0.2% wide from 0.1 ms to 10^7 s: a reported p50 or
// p99 lies within 0.1% of the exact order statistic (and within the samples' min and max);
// count, mean and max are exact.
// Promises: Summary() counts every request added once; deterministic. Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/run_result.h"

namespace headroom::sim {

struct RequestOutcome;

// Samples in seconds into a histogram for percentiles.
class LatencyHistogram {
 public:
  LatencyHistogram();
  void Add(double seconds);
  void Merge(const LatencyHistogram& other);
  Distribution Summary() const;

 private:
  double Quantile(double p) const;

  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  double sum_ = 0;
  double min_ = 0;
  double max_ = 0;
};

class ServingTally {
 public:
  void Add(const RequestOutcome& outcome);
  void Merge(const ServingTally& other);
  ServingSummary Summary() const;

 private:
  uint64_t requests_ = 0;
  uint64_t failed_ = 0;
  uint64_t restarted_ = 0;
  uint64_t met_slo_ = 0;
  LatencyHistogram ttft_s_;
  LatencyHistogram latency_s_;
};

}  // namespace headroom::sim
