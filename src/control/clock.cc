#include "control/clock.h"

#include <algorithm>

namespace headroom::control {

TimeUs SystemClock::WallNowUs() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::chrono::steady_clock::time_point SystemClock::SteadyNow() const {
  return std::chrono::steady_clock::now();
}

TimeUs SystemClock::NowUs() const {
  const TimeUs wall = WallNowUs();
  if (scale_ == 1.0) return wall;
  return origin_us_ + static_cast<TimeUs>(static_cast<double>(wall - origin_us_) * scale_);
}

std::chrono::microseconds SystemClock::WallDelay(TimeUs clock_delta_us) const {
  if (clock_delta_us <= 0) return std::chrono::microseconds(0);
  const double wall = static_cast<double>(clock_delta_us) / scale_;
  return std::chrono::microseconds(static_cast<int64_t>(std::min(wall, 3.6e9)) + 1);
}

}  // namespace headroom::control
