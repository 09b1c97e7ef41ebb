// Real processes for the end-to-end tests: the built binaries, and a headroom-agent for one node
// with a fake inventory, as an operator would start it.
#pragma once

#include <fstream>
#include <string>

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

}  // namespace headroom::agent::testing
