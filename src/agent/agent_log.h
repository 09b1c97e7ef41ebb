// Agent log lines: one line per event on stderr, "2026-11-29T10:00:00Z headroom-agent[n1]:
// message", for journald or a log file. The node name is set once at start.
// Threading: the agent is single-threaded; lines are written with one fwrite each.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace headroom::agent {

void SetLogNode(std::string node);
void LogLine(std::string_view message);

template <typename... Args>
void Log(fmt::format_string<Args...> format, Args&&... args) {
  LogLine(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace headroom::agent
