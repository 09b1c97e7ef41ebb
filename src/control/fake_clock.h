// FakeClock: a Clock that stands still until told to move (clock.h), for tests of what the
// daemon does after time passes: silence past an agent's grace period, a time limit, a
// retention window. NowUs and WallNowUs are the same fake time. SteadyNow runs with real time
// and jumps by every advance, so that real waits on it (an HTTP long-poll's deadline) still end.
// Promises: time never goes backwards; WallDelay answers a few milliseconds at most, so a loop
// waiting for a fake deadline looks again soon after AdvanceUs.
// Threading: AdvanceUs and the reads may come from any thread.
#pragma once

#include <atomic>

#include "control/clock.h"

namespace headroom::control {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimeUs start_us) : now_us_(start_us), start_us_(start_us) {}

  void AdvanceUs(TimeUs delta_us);

  TimeUs NowUs() const override { return now_us_.load(); }
  TimeUs WallNowUs() const override { return now_us_.load(); }
  std::chrono::steady_clock::time_point SteadyNow() const override;
  std::chrono::microseconds WallDelay(TimeUs clock_delta_us) const override;

 private:
  std::atomic<TimeUs> now_us_;
  const TimeUs start_us_;
  const SystemClock real_{1.0, 0};  // SteadyNow's real part: clock.cc alone reads the OS clock.
};

}  // namespace headroom::control
