// Logging: where the control layer's messages go. The layer formats each line and hands it to
// one sink. headroomd installs spdlog's (headroomd_main.cc: time stamps, levels, colours on a
// terminal); every other program that links the layer (the CLI's offline verbs, the tests)
// keeps the default, `LEVEL: message` lines on stderr. So the CLI, which starts once per
// command from users' scripts, loads no logging library (docs/cli.md "Start time").
//
// Lines below the sink's level are dropped before they are formatted. Threading: SetLogSink is
// called once at start, before other threads run; the rest is safe from any thread, and each
// line reaches the sink whole.
#pragma once

#include <fmt/format.h>

#include <array>
#include <string_view>
#include <utility>

namespace headroom::control {

enum class LogLevel { kDebug, kInfo, kWarn, kError };
// Each level's name, in LogLevel's order (headroomd --log-level takes them).
inline constexpr std::array<std::string_view, 4> kLogLevelNames = {"debug", "info", "warning",
                                                                   "error"};

using LogSink = void (*)(LogLevel level, std::string_view line);

struct LogSetting {
  LogSink sink = nullptr;
  LogLevel min_level = LogLevel::kInfo;
};

// Lines of `min_level` and above go to `sink` from now on; returns the setting it replaces.
LogSetting SetLogSink(LogSink sink, LogLevel min_level);
// Keeps the sink; lines of `min_level` and above go to it from now on.
void SetLogLevel(LogLevel min_level);
bool LogEnabled(LogLevel level);
void WriteLog(LogLevel level, std::string_view line);

template <typename... Args>
void LogLine(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(level)) WriteLog(level, fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
void LogDebug(fmt::format_string<Args...> format, Args&&... args) {
  LogLine(LogLevel::kDebug, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogInfo(fmt::format_string<Args...> format, Args&&... args) {
  LogLine(LogLevel::kInfo, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogWarn(fmt::format_string<Args...> format, Args&&... args) {
  LogLine(LogLevel::kWarn, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogError(fmt::format_string<Args...> format, Args&&... args) {
  LogLine(LogLevel::kError, format, std::forward<Args>(args)...);
}

}  // namespace headroom::control
