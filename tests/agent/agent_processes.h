// Real processes for the end-to-end tests: the built binaries, and a headroom-agent for one node
// with a fake inventory, as an operator would start it.
#pragma once

#include <cctype>
#include <fstream>
#include <string>
#include <utility>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "agent/child_process.h"
#include "agent_test_files.h"
#include "testing/binaries.h"

namespace headroom::agent::testing {

inline std::string Bin(const std::string& name) { return headroom::testing::BinaryPath(name); }

// headroom-agent for `node` against the daemon on 127.0.0.1:`port`, with `devices` H100s of
// 80 GiB (uuids GPU-NODE-INDEX) written to DIR/NODE.yaml; its log is DIR/NODE.log, its work dir
// DIR/NODE-work, and its tasks see NODE_TAG=NODE.
inline Result<ChildProcess> SpawnAgent(const ScratchDir& dir, int port, const std::string& token,
                                       const std::string& node, int devices) {
  std::ofstream inventory(dir.File(node + ".yaml"));
  inventory << "cpu: 4\nmemory: 8Gi\ndevices:\n";
  for (int index = 0; index < devices; ++index) {
    inventory << "- {index: " << index << ", uuid: GPU-" << node << "-" << index
              << ", model: H100, memory: 80Gi}\n";
  }
  inventory.close();
  return ChildProcess::Spawn(
      {.argv = {Bin("headroom-agent"), "--server", "http://127.0.0.1:" + std::to_string(port),
                "--token", token, "--node", node, "--inventory", dir.File(node + ".yaml"),
                "--work-dir", dir.File(node + "-work"), "--address", "127.0.0.1"},
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

}  // namespace headroom::agent::testing
