// Clock: where the control layer reads time (the engine reads none: it is handed `now`). The
// daemon runs on a SystemClock; tests give it a FakeClock (fake_clock.h) and move time on by
// hand, so that "after the grace period" needs no sleeping.
//
// Three times: NowUs, the daemon's time, in which jobs start, run and end; WallNowUs, Unix
// time, in which agents heartbeat (they count real seconds); and SteadyNow, monotonic, for the
// HTTP layer's deadlines and the loop's measurement of its own cost. With scale 1 NowUs and
// WallNowUs are equal; with scale X (the simulated backend's --time-scale) one real second is X
// seconds of NowUs, counted from a fixed origin so that simulated time keeps running across
// restarts:
//   now = origin + (wall - origin) × X
// Threading: implementations are safe to call from any thread.
#pragma once

#include <chrono>

#include "base/time.h"

namespace headroom::control {

class Clock {
 public:
  virtual ~Clock() = default;

  virtual TimeUs NowUs() const = 0;
  virtual TimeUs WallNowUs() const = 0;
  virtual std::chrono::steady_clock::time_point SteadyNow() const = 0;
  // Real time to wait until `clock_delta_us` of NowUs has passed (>= 0).
  virtual std::chrono::microseconds WallDelay(TimeUs clock_delta_us) const = 0;
};

class SystemClock final : public Clock {
 public:
  SystemClock(double scale, TimeUs origin_us) : scale_(scale), origin_us_(origin_us) {}

  TimeUs NowUs() const override;
  TimeUs WallNowUs() const override;
  std::chrono::steady_clock::time_point SteadyNow() const override;
  std::chrono::microseconds WallDelay(TimeUs clock_delta_us) const override;

 private:
  double scale_;
  TimeUs origin_us_;
};

}  // namespace headroom::control
