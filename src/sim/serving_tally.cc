#include "sim/serving_tally.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "sim/request_replay.h"

namespace headroom::sim {
namespace {

constexpr double kLowestS = 1e-4;
constexpr double kHighestS = 1e7;
constexpr double kRatio = 1.002;
// Bucket 0 holds what is below kLowestS, the last what is at or above kHighestS.
const size_t kBuckets =
    static_cast<size_t>(std::ceil(std::log(kHighestS / kLowestS) / std::log(kRatio))) + 2;

size_t BucketOf(double seconds) {
  if (!(seconds >= kLowestS)) return 0;
  if (seconds >= kHighestS) return kBuckets - 1;
  const auto index = static_cast<size_t>(std::log(seconds / kLowestS) / std::log(kRatio)) + 1;
  return std::min(index, kBuckets - 2);
}

}  // namespace

LatencyHistogram::LatencyHistogram() : buckets_(kBuckets, 0) {}

void LatencyHistogram::Add(double seconds) {
  HR_CHECK(std::isfinite(seconds));
  min_ = count_ == 0 ? seconds : std::min(min_, seconds);
  max_ = count_ == 0 ? seconds : std::max(max_, seconds);
  ++count_;
  sum_ += seconds;
  ++buckets_[BucketOf(seconds)];
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = count_ == 0 ? other.max_ : std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
  for (size_t bucket = 0; bucket < kBuckets; ++bucket) buckets_[bucket] += other.buckets_[bucket];
}

double LatencyHistogram::Quantile(double p) const {
  // The nearest rank, as sim::Summarize takes it.
  const auto rank = std::clamp<uint64_t>(
      static_cast<uint64_t>(std::ceil(p * static_cast<double>(count_))), 1, count_);
  uint64_t seen = 0;
  size_t bucket = 0;
  for (; bucket < kBuckets; ++bucket) {
    seen += buckets_[bucket];
    if (seen >= rank) break;
  }
  if (bucket == 0) return min_;
  if (bucket == kBuckets - 1) return max_;
  // The bucket's geometric middle: within half a bucket (0.1%) of any sample in it.
  const double middle = kLowestS * std::pow(kRatio, static_cast<double>(bucket) - 0.5);
  return std::clamp(middle, min_, max_);
}

Distribution LatencyHistogram::Summary() const {
  Distribution summary;
  summary.count = count_;
  if (count_ == 0) return summary;
  summary.mean = sum_ / static_cast<double>(count_);
  summary.p50 = Quantile(0.50);
  summary.p95 = Quantile(0.95);
  summary.p99 = Quantile(0.99);
  summary.max = max_;
  return summary;
}

void ServingTally::Add(const RequestOutcome& outcome) {
  ++requests_;
  restarted_ += outcome.restarts > 0 ? 1 : 0;
  if (outcome.finish_us == kNever) {
    ++failed_;
    return;
  }
  met_slo_ += outcome.met_slo ? 1 : 0;
  ttft_s_.Add(UsToSeconds(outcome.first_token_us - outcome.arrival_us));
  latency_s_.Add(UsToSeconds(outcome.finish_us - outcome.arrival_us));
}

void ServingTally::Merge(const ServingTally& other) {
  requests_ += other.requests_;
  failed_ += other.failed_;
  restarted_ += other.restarted_;
  met_slo_ += other.met_slo_;
  ttft_s_.Merge(other.ttft_s_);
  latency_s_.Merge(other.latency_s_);
}

ServingSummary ServingTally::Summary() const {
  ServingSummary summary;
  summary.requests = requests_;
  summary.failed = failed_;
  summary.restarted = restarted_;
  summary.slo_attainment =
      requests_ == 0 ? 1.0 : static_cast<double>(met_slo_) / static_cast<double>(requests_);
  summary.ttft_s = ttft_s_.Summary();
  summary.latency_s = latency_s_.Summary();
  return summary;
}

}  // namespace headroom::sim
