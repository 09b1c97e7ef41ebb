// Autoscaler: how many replicas a service should run, from its observed request rate and what
// one replica serves. The algorithm is Kubernetes' HorizontalPodAutoscaler (autoscaling/v2;
// kubernetes.io "Horizontal Pod Autoscaling": "Algorithm details", "Configurable scaling
// behavior"; pkg/controller/podautoscaler/horizontal.go) on one metric, utilisation = rate /
// (replicas × capacity):
//   - desired = ceil(replicas × utilisation / target), i.e. ceil(rate / (capacity × target)),
//     left at the current count while the ratio is within the tolerance (10%);
//   - stabilisation: a scale-up goes only to the lowest recommendation of the scale-up window
//     (0 s by default), a scale-down only to the highest of the scale-down window (300 s);
//   - rate limits per direction, from the count at the start of each policy's period: up by the
//     larger of 4 replicas and 100% per 15 s, down by 100% per 15 s (the defaults);
//   - within [min_replicas, max_replicas].
// headroom's addition, off unless `predict_us` > 0: the rate is also forecast `predict_us`
// ahead along the least-squares trend of the samples of the last `trend_window_us`, and the
// larger of forecast and observation is the metric, so that replicas that take that long to
// start (model load) are serving when a rising burst arrives. Kubernetes' HPA has no such term.
// A replica count of 0 is allowed (min_replicas 0): then the desired count is computed from the
// rate directly.
// Pure: time and rates are arguments; no clock, no I/O. Single-threaded.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>

#include "base/result.h"
#include "base/time.h"

namespace headroom::engine {

// One direction's rate limit, as HPAScalingRules with two policies: a change of at most
// `replicas` (0: no such policy) or `percent` % (0: no such policy) of the count at the start of
// any `period_us`, the larger of the two allowed.
struct ScalingRate {
  uint32_t replicas = 0;
  uint32_t percent = 100;
  TimeUs period_us = 15 * kUsPerSecond;
};

struct AutoscalerConfig {
  uint32_t min_replicas = 1;
  uint32_t max_replicas = 1;
  double target_utilization = 0.7;  // Of a replica's capacity, in (0, 1].
  double tolerance = 0.1;
  TimeUs scale_up_window_us = 0;
  TimeUs scale_down_window_us = 300 * kUsPerSecond;
  ScalingRate scale_up{4, 100, 15 * kUsPerSecond};
  ScalingRate scale_down{0, 100, 15 * kUsPerSecond};
  TimeUs predict_us = 0;  // 0: no forecast (Kubernetes' HPA).
  TimeUs trend_window_us = 120 * kUsPerSecond;
};

// Why the configuration cannot work, naming the field; empty when it can.
Result<void> ValidateAutoscalerConfig(const AutoscalerConfig& config);

class Autoscaler {
 public:
  // Precondition: ValidateAutoscalerConfig(config) holds.
  explicit Autoscaler(AutoscalerConfig config);

  // The replica count to run from `now`, given the request rate observed over the last sync
  // period (requests/s), what one replica serves at full utilisation (requests/s, > 0) and the
  // count it runs now. Calls come in time order; each is one sync of the HPA loop, and the
  // answer is remembered as a scale event when it differs from `current`.
  uint32_t Recommend(TimeUs now, double rate_per_s, double capacity_per_s, uint32_t current);

  // The forecast rate `predict_us` ahead of the last sample (the observation when off or with
  // fewer than two samples in the window).
  double ForecastPerS() const;

 private:
  uint32_t Limited(TimeUs now, uint32_t current, uint32_t wanted) const;

  AutoscalerConfig config_;
  std::deque<std::pair<TimeUs, uint32_t>> recommendations_;  // Unstabilised, in time order.
  // Replicas added (+) or removed (-) within the longer policy period, and the rates observed
  // within the trend window.
  std::deque<std::pair<TimeUs, int64_t>> changes_;
  std::deque<std::pair<TimeUs, double>> samples_;
};

}  // namespace headroom::engine
