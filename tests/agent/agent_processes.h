// Real processes for the end-to-end tests: the built binaries, a headroom-agent for one node
// with a fake inventory, as an operator would start it, and a whole floor of them under one
// headroomd.
#pragma once

#include <signal.h>

#include <cctype>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "agent/child_process.h"
#include "agent_test_files.h"
#include "testing/binaries.h"

namespace headroom::agent::testing {

inline std::string Bin(const std::string& name) { return headroom::testing::BinaryPath(name); }

// headroom-agent for `node` against the daemon on 127.0.0.1:`port`, with `devices` H100s of
// 80 GiB (uuids GPU-NODE-INDEX) written to DIR/NODE.yaml; its log is DIR/NODE.log, its work dir
// DIR/NODE-work, and its tasks see NODE_TAG=NODE. `flags` are added, each "{node}" in them
// replaced by the node's name.
inline Result<ChildProcess> SpawnAgent(const ScratchDir& dir, int port, const std::string& token,
                                       const std::string& node, int devices,
                                       const std::vector<std::string>& flags = {}) {
  std::ofstream inventory(dir.File(node + ".yaml"));
  inventory << "cpu: 4\nmemory: 8Gi\ndevices:\n";
  for (int index = 0; index < devices; ++index) {
    inventory << "- {index: " << index << ", uuid: GPU-" << node << "-" << index
              << ", model: H100, memory: 80Gi}\n";
  }
  inventory.close();
  std::vector<std::string> argv = {Bin("headroom-agent"),
                                   "--server",
                                   "http://127.0.0.1:" + std::to_string(port),
                                   "--token",
                                   token,
                                   "--node",
                                   node,
                                   "--inventory",
                                   dir.File(node + ".yaml"),
                                   "--work-dir",
                                   dir.File(node + "-work"),
                                   "--address",
                                   "127.0.0.1"};
  for (std::string flag : flags) {
    for (size_t at = flag.find("{node}"); at != std::string::npos; at = flag.find("{node}")) {
      flag.replace(at, 6, node);
    }
    argv.push_back(std::move(flag));
  }
  return ChildProcess::Spawn({.argv = std::move(argv),
                              .env = {"PATH=/usr/bin:/bin", "NODE_TAG=" + node},
                              .stdout_path = dir.File(node + ".log"),
                              .stderr_path = dir.File(node + ".log")});
}

// The admin token headroomd wrote to DATA_DIR/admin.token, without trailing whitespace.
inline std::string AdminToken(const std::string& data_dir) {
  std::string token = ReadFile(data_dir + "/admin.token");
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
    token.pop_back();
  }
  return token;
}

// headroomd's API on 127.0.0.1:`port` with a bearer token: GET's JSON (null unless 200), POST's
// status and JSON (0 and null when no reply came); client() for anything else.
class DaemonApi {
 public:
  DaemonApi(int port, const std::string& token) : client_("127.0.0.1", port) {
    client_.set_bearer_token_auth(token.c_str());
  }
  nlohmann::json Get(const std::string& path) {
    auto response = client_.Get(path.c_str());
    return response && response->status == 200 ? nlohmann::json::parse(response->body)
                                               : nlohmann::json(nullptr);
  }
  std::pair<int, nlohmann::json> Post(const std::string& path, const nlohmann::json& body) {
    auto response = client_.Post(path.c_str(), body.dump(), "application/json");
    if (!response) return {0, nullptr};
    return {response->status, nlohmann::json::parse(response->body, nullptr, false)};
  }
  httplib::Client& client() { return client_; }

 private:
  httplib::Client client_;
};

// A task's command for the scheduling tests, run in scratch folder `d` (with its trailing
// slash): each attempt writes d/run-JOB-ATTEMPT; SIGTERM (the checkpoint signal) makes it write
// d/ckpt-JOB-ATTEMPT and exit 0; it also ends once the file d/stop-JOB exists or `d` is gone
// (so that a failed test leaves no task behind).
inline std::string CheckpointingTask(const std::string& d) {
  return "r=" + d +
         "run-$HEADROOM_JOB_ID-$HEADROOM_ATTEMPT; echo running > $r.tmp && mv $r.tmp $r; c=" + d +
         "ckpt-$HEADROOM_JOB_ID-$HEADROOM_ATTEMPT; trap 'echo saved > $c.tmp && mv $c.tmp $c; "
         "exit 0' TERM; while [ ! -e " +
         d + "stop-$HEADROOM_JOB_ID ] && [ -d " + d + " ]; do sleep 0.05; done";
}

// headroomd on the agents backend under `policy` (a preset name or a policy file) with one
// headroom-agent of `devices` fake devices per node, every node up: the floor of the end-to-end
// tests of scheduling decisions; `daemon_flags` are added to headroomd's, `agent_flags` to each
// agent's (as SpawnAgent takes them). Start and Stop return
// what went wrong, with the logs; "" when all went well.
class AgentsFloor {
 public:
  explicit AgentsFloor(const ScratchDir& dir) : dir_(dir), data_(dir.File("data")) {}

  std::string Start(const std::string& policy, const std::vector<std::string>& nodes, int devices,
                    const std::vector<std::string>& daemon_flags = {},
                    const std::vector<std::string>& agent_flags = {}) {
    nodes_ = nodes;
    std::vector<std::string> argv = {Bin("headroomd"),
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--data-dir",
                                     data_,
                                     "--backend",
                                     "agents",
                                     "--port-file",
                                     dir_.File("port"),
                                     "--grace-s",
                                     "2",
                                     "--heartbeat-interval-s",
                                     "0.2",
                                     "--stop-grace-s",
                                     "5",
                                     "--policy",
                                     policy};
    argv.insert(argv.end(), daemon_flags.begin(), daemon_flags.end());
    auto daemon = ChildProcess::Spawn({.argv = std::move(argv),
                                       .env = {"PATH=/usr/bin:/bin"},
                                       .stdout_path = dir_.File("headroomd.log"),
                                       .stderr_path = dir_.File("headroomd.log")});
    if (!daemon) return daemon.error().message;
    daemon_.emplace(std::move(*daemon));
    if (!WaitUntil(
            [&] { return FileExists(dir_.File("port")) && FileExists(data_ + "/admin.token"); })) {
      return "headroomd wrote no port or admin token\n" + Logs();
    }
    const int port = std::stoi(ReadFile(dir_.File("port")));
    admin_ = std::make_unique<DaemonApi>(port, AdminToken(data_));
    for (const std::string& node : nodes) {
      auto [status, token] = admin_->Post("/v1/tokens", {{"role", "agent"}, {"node", node}});
      if (status != 201) return "no agent token for " + node + ": " + token.dump() + "\n" + Logs();
      auto agent =
          SpawnAgent(dir_, port, token["token"].get<std::string>(), node, devices, agent_flags);
      if (!agent) return agent.error().message;
      agents_.emplace(node, std::move(*agent));
    }
    const bool up = WaitUntil([&] {
      const nlohmann::json listed = admin_->Get("/v1/nodes");
      size_t count = 0;
      if (listed.is_object()) {
        for (const nlohmann::json& node : listed["nodes"]) count += node["state"] == "up" ? 1 : 0;
      }
      return count == nodes.size();
    });
    return up ? std::string() : "the agents' nodes did not come up\n" + Logs();
  }

  // SIGTERM to every agent, then to headroomd; each must exit 0.
  std::string Stop() {
    std::string failed;
    for (auto& [node, agent] : agents_) {
      agent.SignalGroup(SIGTERM);
      if (agent.Wait() != 0) failed += "agent " + node + " did not exit 0\n";
    }
    if (daemon_) {
      daemon_->SignalGroup(SIGTERM);
      if (daemon_->Wait() != 0) failed += "headroomd did not exit 0\n";
    }
    return failed.empty() ? failed : failed + Logs();
  }

  // `headroom ARGS...` with its output in DIR/OUT: its exit status (-1: it did not start).
  int RunHeadroom(std::vector<std::string> args, const std::string& out) const {
    args.insert(args.begin(), Bin("headroom"));
    auto run = ChildProcess::Spawn({.argv = args,
                                    .env = {"PATH=/usr/bin:/bin"},
                                    .stdout_path = dir_.File(out),
                                    .stderr_path = dir_.File(out)});
    return run ? run->Wait() : -1;
  }

  std::string Logs() const {
    std::string logs = "headroomd log:\n" + ReadFile(dir_.File("headroomd.log"));
    for (const std::string& node : nodes_) {
      logs += "\nagent " + node + " log:\n" + ReadFile(dir_.File(node + ".log"));
    }
    return logs;
  }
  DaemonApi& admin() { return *admin_; }
  int port() const { return std::stoi(ReadFile(dir_.File("port"))); }
  std::string admin_token() const { return AdminToken(data_); }
  const std::string& data() const { return data_; }

 private:
  const ScratchDir& dir_;
  std::string data_;
  std::vector<std::string> nodes_;
  std::optional<ChildProcess> daemon_;
  std::map<std::string, ChildProcess> agents_;
  std::unique_ptr<DaemonApi> admin_;
};

}  // namespace headroom::agent::testing
