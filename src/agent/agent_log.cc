#include "agent/agent_log.h"

#include <cstdio>
#include <ctime>

namespace headroom::agent {
namespace {

std::string& Node() {
  static std::string node;
  return node;
}

}  // namespace

void SetLogNode(std::string node) { Node() = std::move(node); }

void LogLine(std::string_view message) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32] = {};
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  const std::string line = Node().empty()
                               ? fmt::format("{} headroom-agent: {}\n", stamp, message)
                               : fmt::format("{} headroom-agent[{}]: {}\n", stamp, Node(), message);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace headroom::agent
