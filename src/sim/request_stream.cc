#include "sim/request_stream.h"

#include <algorithm>

#include "base/check.h"

namespace headroom::sim {

RequestStream::RequestStream(RequestTrace trace, std::optional<LoadCurve> curve, TimeUs span_us,
                             uint64_t seed)
    : trace_(std::move(trace)),
      curve_(std::move(curve)),
      span_us_(span_us > 0 ? span_us : trace_.span_us()),
      period_us_(trace_.span_us() + 1),
      rng_(seed) {
  HR_CHECK(std::is_sorted(trace_.requests.begin(), trace_.requests.end(),
                          [](const InferenceRequest& a, const InferenceRequest& b) {
                            return a.arrival_us < b.arrival_us;
                          }));
  Refill();
}

void RequestStream::Pop() {
  HR_CHECK(!done());
  if (++position_ == buffer_.size()) Refill();
}

void RequestStream::Refill() {
  buffer_.clear();
  position_ = 0;
  const std::vector<InferenceRequest>& requests = trace_.requests;
  if (requests.empty()) return;
  while (buffer_.empty()) {
    const TimeUs begin_us = static_cast<TimeUs>(repetition_) * period_us_;
    if (begin_us > span_us_) return;
    const TimeUs shift_us =
        repetition_ == 0 ? 0 : static_cast<TimeUs>(rng_.Below(static_cast<uint64_t>(period_us_)));
    ++repetition_;
    // Shifted, the requests from `wrap` on pass the repetition's end and come round first.
    const auto wrap = std::lower_bound(
        requests.begin(), requests.end(), period_us_ - shift_us,
        [](const InferenceRequest& request, TimeUs at) { return request.arrival_us < at; });
    const auto add = [&](const InferenceRequest& request, TimeUs offset_us) {
      InferenceRequest shifted = request;
      shifted.arrival_us = begin_us + request.arrival_us + offset_us;
      if (shifted.arrival_us > span_us_) return;
      if (curve_ && rng_.Uniform() >= curve_->RelativeRateAt(shifted.arrival_us)) return;
      buffer_.push_back(shifted);
    };
    for (auto it = wrap; it != requests.end(); ++it) add(*it, shift_us - period_us_);
    for (auto it = requests.begin(); it != wrap; ++it) add(*it, shift_us);
  }
}

}  // namespace headroom::sim
