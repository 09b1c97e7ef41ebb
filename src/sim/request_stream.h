// RequestStream: the arrivals a service replays over a run, made as the run reaches them rather
// than held at once (weeks of a multiplexed hour are hundreds of millions of requests).
// Its trace, already at its rate (MultiplexRequests), repeats until `span_us`: the first
// repetition as it is, each later one shifted circularly by a random offset, as the copies of
// MultiplexRequests are, so that one burst does not come back every hour on the hour. With a
// daily load curve each request is kept with the curve's relative rate at its arrival: the
// trace is the day's peak, and the tide thins it.
// Promises: arrivals in order, within [0, span_us]; the same requests for the same seed; a span
// of 0 is the trace's own (one repetition, nothing shifted). Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/rng.h"
#include "base/time.h"
#include "sim/traces/load_curve.h"
#include "sim/traces/request_trace.h"

namespace headroom::sim {

class RequestStream {
 public:
  RequestStream(RequestTrace trace, std::optional<LoadCurve> curve, TimeUs span_us, uint64_t seed);

  bool done() const { return position_ == buffer_.size(); }
  // The next arrival; precondition: !done().
  const InferenceRequest& next() const { return buffer_[position_]; }
  void Pop();

  TimeUs span_us() const { return span_us_; }
  const RequestTrace& trace() const { return trace_; }
  // The repetition being taken, from its start: before the first Pop, the whole first one.
  const std::vector<InferenceRequest>& upcoming() const { return buffer_; }

 private:
  // Makes the next repetition that keeps any request, if one is left before the span's end.
  void Refill();

  RequestTrace trace_;
  std::optional<LoadCurve> curve_;
  TimeUs span_us_;
  TimeUs period_us_;  // The trace's span and one microsecond: a repetition's length.
  Rng rng_;
  uint64_t repetition_ = 0;
  std::vector<InferenceRequest> buffer_;
  size_t position_ = 0;
};

}  // namespace headroom::sim
