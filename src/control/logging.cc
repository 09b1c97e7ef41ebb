#include "control/logging.h"

#include <atomic>
#include <cstdio>
#include <string>

namespace headroom::control {
namespace {

void WriteToStderr(LogLevel level, std::string_view line) {
  // One write per line, so lines from several threads do not interleave.
  const std::string text =
      fmt::format("{}: {}\n", kLogLevelNames[static_cast<size_t>(level)], line);
  std::fwrite(text.data(), 1, text.size(), stderr);
}

std::atomic<LogSink> sink{&WriteToStderr};
std::atomic<LogLevel> min_level{LogLevel::kInfo};

}  // namespace

LogSetting SetLogSink(LogSink new_sink, LogLevel new_min_level) {
  return {.sink = sink.exchange(new_sink), .min_level = min_level.exchange(new_min_level)};
}

void SetLogLevel(LogLevel new_min_level) { min_level.store(new_min_level); }

bool LogEnabled(LogLevel level) { return level >= min_level.load(std::memory_order_relaxed); }

void WriteLog(LogLevel level, std::string_view line) { sink.load()(level, line); }

}  // namespace headroom::control
