#include "agent/proc_stat.h"

#include <dirent.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace headroom::agent {
namespace {

// Parses the text of /proc/PID/stat; nullopt when it is not the documented layout.
std::optional<ProcStat> ParseStat(pid_t pid, const std::string& text) {
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  ProcStat stat{.pid = pid};
  // Fields 3..22 of proc(5): state, ppid, pgrp, then 16 more up to starttime.
  std::string field;
  for (int number = 3; number <= 22; ++number) {
    if (!(fields >> field)) return std::nullopt;
    if (number == 3) {
      stat.state = field.empty() ? '?' : field[0];
    } else if (number == 5) {
      long long pgid = 0;
      if (std::from_chars(field.data(), field.data() + field.size(), pgid).ec != std::errc()) {
        return std::nullopt;
      }
      stat.pgid = static_cast<pid_t>(pgid);
    } else if (number == 22) {
      if (std::from_chars(field.data(), field.data() + field.size(), stat.start_ticks).ec !=
          std::errc()) {
        return std::nullopt;
      }
    }
  }
  return stat;
}

}  // namespace

std::optional<ProcStat> ReadProcStat(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return std::nullopt;
  std::string text;
  std::getline(in, text);
  if (text.empty()) return std::nullopt;
  return ParseStat(pid, text);
}

std::vector<ProcStat> LiveGroupMembers(pid_t pgid, uint64_t min_start_ticks) {
  std::vector<ProcStat> members;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return members;
  while (const dirent* entry = readdir(proc)) {
    pid_t pid = 0;
    const std::string_view name(entry->d_name);
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (error != std::errc() || end != name.data() + name.size() || pid <= 0) continue;
    const std::optional<ProcStat> stat = ReadProcStat(pid);
    if (stat && stat->pgid == pgid && stat->alive() && stat->start_ticks >= min_start_ticks) {
      members.push_back(*stat);
    }
  }
  closedir(proc);
  std::sort(members.begin(), members.end(),
            [](const ProcStat& a, const ProcStat& b) { return a.pid < b.pid; });
  return members;
}

}  // namespace headroom::agent
