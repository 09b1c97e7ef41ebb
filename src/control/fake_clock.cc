#include "control/fake_clock.h"

#include <algorithm>

#include "base/check.h"

namespace headroom::control {

void FakeClock::AdvanceUs(TimeUs delta_us) {
  HR_CHECK(delta_us >= 0);
  now_us_.fetch_add(delta_us);
}

std::chrono::steady_clock::time_point FakeClock::SteadyNow() const {
  return real_.SteadyNow() + std::chrono::microseconds(now_us_.load() - start_us_);
}

std::chrono::microseconds FakeClock::WallDelay(TimeUs clock_delta_us) const {
  constexpr TimeUs kPollUs = 5'000;
  return std::chrono::microseconds(std::clamp<TimeUs>(clock_delta_us, 0, kPollUs));
}

}  // namespace headroom::control
