// Time in headroom is an integer count of microseconds since an epoch the caller chooses. The
// engine receives it as an argument and never reads a clock.
#pragma once

#include <cstdint>

namespace headroom {

using TimeUs = int64_t;

inline constexpr TimeUs kUsPerSecond = 1'000'000;
inline constexpr TimeUs kNever = INT64_MAX;

constexpr TimeUs SecondsToUs(double seconds) { return static_cast<TimeUs>(seconds * 1e6); }
constexpr double UsToSeconds(TimeUs us) { return static_cast<double>(us) / 1e6; }

}  // namespace headroom
