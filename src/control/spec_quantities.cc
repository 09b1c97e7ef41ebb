#include "control/spec_quantities.h"

#include <charconv>
#include <limits>

namespace headroom::control {
namespace {

constexpr TimeUs kMaxDurationUs = 366LL * 24 * 3600 * kUsPerSecond;

}  // namespace

Result<int64_t> ScaledDecimal(std::string_view text, int64_t scale) {
  int64_t whole = 0;
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, whole);
  if (error != std::errc() || whole < 0 || ptr == text.data()) {
    return MakeError(ErrorCode::kInvalidArgument, "not a number");
  }
  int64_t fraction = 0;
  int64_t fraction_scale = 1;
  if (ptr != end && *ptr == '.') {
    ++ptr;
    if (ptr == end) return MakeError(ErrorCode::kInvalidArgument, "not a number");
    for (; ptr != end; ++ptr) {
      if (*ptr < '0' || *ptr > '9' || fraction_scale > 1'000'000'000) {
        return MakeError(ErrorCode::kInvalidArgument, "not a number");
      }
      fraction = fraction * 10 + (*ptr - '0');
      fraction_scale *= 10;
    }
  }
  if (ptr != end || whole > std::numeric_limits<int64_t>::max() / scale / 2) {
    return MakeError(ErrorCode::kInvalidArgument, "not a number");
  }
  if ((fraction * scale) % fraction_scale != 0) {
    return MakeError(ErrorCode::kInvalidArgument, "too precise");
  }
  return whole * scale + fraction * scale / fraction_scale;
}

Result<TimeUs> ParseDuration(std::string_view text) {
  if (text.empty()) return MakeError(ErrorCode::kInvalidArgument, "empty duration");
  TimeUs unit_s = 1;
  switch (text.back()) {
    case 's':
      unit_s = 1;
      text.remove_suffix(1);
      break;
    case 'm':
      unit_s = 60;
      text.remove_suffix(1);
      break;
    case 'h':
      unit_s = 3600;
      text.remove_suffix(1);
      break;
    case 'd':
      unit_s = 86400;
      text.remove_suffix(1);
      break;
    default:
      break;
  }
  int64_t count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || count <= 0 ||
      count > kMaxDurationUs / kUsPerSecond / unit_s) {
    return MakeError(ErrorCode::kInvalidArgument, "not a duration");
  }
  return count * unit_s * kUsPerSecond;
}

Result<int64_t> ParseCpuMilli(std::string_view text) {
  if (!text.empty() && text.back() == 'm') {
    text.remove_suffix(1);
    int64_t milli = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), milli);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || milli < 0 ||
        milli > 1'000'000'000) {
      return MakeError(ErrorCode::kInvalidArgument, "not a CPU quantity");
    }
    return milli;
  }
  auto milli = ScaledDecimal(text, 1000);
  if (!milli || *milli > 1'000'000'000) {
    return MakeError(ErrorCode::kInvalidArgument, "not a CPU quantity");
  }
  return milli;
}

Result<int64_t> ParseMemoryMib(std::string_view text) {
  int64_t scale = 0;
  if (text.ends_with("Mi")) scale = 1;
  if (text.ends_with("Gi")) scale = 1024;
  if (text.ends_with("Ti")) scale = 1024 * 1024;
  if (scale == 0) return MakeError(ErrorCode::kInvalidArgument, "not a memory size");
  text.remove_suffix(2);
  auto mib = ScaledDecimal(text, scale);
  if (!mib || *mib > (int64_t{1} << 40)) {
    return MakeError(ErrorCode::kInvalidArgument, "not a memory size");
  }
  return mib;
}

}  // namespace headroom::control
