// Clock: the daemon's notion of now, in Unix microseconds. With scale 1 it is the wall clock;
// with scale X (the simulated backend's --time-scale) one real second is X simulated seconds,
// counted from a fixed origin so that simulated time keeps running across restarts:
//   now = origin + (wall - origin) × X
// Threading: immutable after construction; safe to share.
#pragma once

#include <chrono>

#include "base/time.h"

namespace headroom::control {

TimeUs WallNowUs();
// Monotonic time, for durations and deadlines that must not jump with the wall clock.
std::chrono::steady_clock::time_point SteadyNow();

class Clock {
 public:
  Clock(double scale, TimeUs origin_us) : scale_(scale), origin_us_(origin_us) {}

  TimeUs NowUs() const;
  double scale() const { return scale_; }
  TimeUs origin_us() const { return origin_us_; }
  // Real time until `clock_delta_us` of this clock has passed.
  std::chrono::microseconds WallDelay(TimeUs clock_delta_us) const;

 private:
  double scale_;
  TimeUs origin_us_;
};

}  // namespace headroom::control
