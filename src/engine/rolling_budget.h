// RollingBudget: device-time charged in any rolling hour, held under a limit — the migration
// budget (defrag.h) and preemption's changeover budget (preemption.h). Charges made at one
// moment merge into one entry, so that an engine following recorded decisions (Engine::Follow)
// carries the same list (carried_state.h).
// Threading: single-threaded, owned by the engine.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

#include "base/time.h"

namespace headroom::engine {

class RollingBudget {
 public:
  static constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();

  // `limit_device_us`: what any rolling hour may hold (device-µs), or kUnlimited.
  explicit RollingBudget(int64_t limit_device_us) : limit_device_us_(limit_device_us) {}

  // What the rolling hour ending at `now` still allows (forgets charges older than that).
  int64_t LeftDeviceUs(TimeUs now);
  // Charges `cost_device_us` at `now`.
  void Charge(TimeUs now, int64_t cost_device_us);
  // When the oldest charge leaves the rolling hour (the budget grows then); kNever: none.
  TimeUs NextReleaseUs() const;
  // The charges still in the rolling hour ending at `now`, oldest first.
  std::vector<std::pair<TimeUs, int64_t>> SpentSince(TimeUs now) const;

 private:
  int64_t limit_device_us_;
  std::deque<std::pair<TimeUs, int64_t>> spent_;  // (time, cost) within the last hour.
  int64_t spent_device_us_ = 0;
};

}  // namespace headroom::engine
