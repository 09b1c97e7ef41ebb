#include "agent/task_environment.h"

#include <unistd.h>

#include <map>

#include <fmt/format.h>

extern char** environ;

namespace headroom::agent {

std::pair<std::string, std::string> SplitRendezvous(std::string_view rendezvous) {
  if (rendezvous.starts_with("[")) {
    const size_t close = rendezvous.find(']');
    if (close != std::string_view::npos) {
      std::string host(rendezvous.substr(1, close - 1));
      const std::string_view after = rendezvous.substr(close + 1);
      return {std::move(host), after.starts_with(":") ? std::string(after.substr(1)) : ""};
    }
    return {std::string(rendezvous), ""};
  }
  const size_t colon = rendezvous.rfind(':');
  // More than one ':' without brackets is a bare IPv6 address: no port.
  if (colon == std::string_view::npos || rendezvous.find(':') != colon) {
    return {std::string(rendezvous), ""};
  }
  return {std::string(rendezvous.substr(0, colon)), std::string(rendezvous.substr(colon + 1))};
}

std::vector<std::string> TaskEnvironment(const DesiredTask& task,
                                         const std::vector<std::string>& agent_env) {
  std::map<std::string, std::string> env;
  for (const std::string& entry : agent_env) {
    const size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) continue;
    env[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  for (const auto& [name, value] : task.env) env[name] = value;
  std::string devices;
  for (size_t i = 0; i < task.devices.size(); ++i) {
    if (i > 0) devices += ',';
    devices += std::to_string(task.devices[i]);
  }
  env["CUDA_VISIBLE_DEVICES"] = devices;
  env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  env["HEADROOM_JOB_ID"] = std::to_string(task.key.job);
  env["HEADROOM_RANK"] = std::to_string(task.key.rank);
  env["HEADROOM_ATTEMPT"] = std::to_string(task.key.attempt);
  env["HEADROOM_WORLD_SIZE"] = std::to_string(task.world_size);
  env["HEADROOM_RENDEZVOUS"] = task.rendezvous;
  if (task.checkpoint_interval_s > 0) {
    env["HEADROOM_CHECKPOINT_INTERVAL_S"] = std::to_string(task.checkpoint_interval_s);
  } else {
    env.erase("HEADROOM_CHECKPOINT_INTERVAL_S");
  }
  env["RANK"] = std::to_string(task.key.rank);
  env["WORLD_SIZE"] = std::to_string(task.world_size);
  if (!task.rendezvous.empty()) {
    auto [host, port] = SplitRendezvous(task.rendezvous);
    env["MASTER_ADDR"] = std::move(host);
    if (!port.empty()) env["MASTER_PORT"] = std::move(port);
  }
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(fmt::format("{}={}", name, value));
  return out;
}

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    out.emplace_back(*entry);
  }
  return out;
}

}  // namespace headroom::agent
