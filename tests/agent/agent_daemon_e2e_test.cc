// End to end with the real daemon: headroomd --backend agents and two headroom-agent processes
// with one-device fake inventories. A two-task gang submitted with `headroom submit` starts one
// task on each node with the placement's environment; when one agent is killed (SIGKILL: the node
// dies), the daemon marks the node silent and requeues the job, and the surviving agent stops its
// task.
#include <signal.h>

#include <cstdlib>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "agent/child_process.h"
#include "agent_processes.h"

namespace headroom::agent {
namespace {

using nlohmann::json;
using testing::Bin;
using testing::FileExists;
using testing::ProcessExists;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WaitUntil;

std::map<std::string, std::string> EnvOf(const std::string& text) {
  std::map<std::string, std::string> env;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t equals = line.find('=');
    if (equals != std::string::npos) env[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return env;
}

TEST(AgentDaemonEndToEnd, GangStartsOnTwoAgentsAndIsRequeuedWhenOneDies) {
  ScratchDir dir;
  const testing::GroupKiller leftovers({dir.File("pid-0"), dir.File("pid-1")});
  const std::string data = dir.File("data");
  auto daemon =
      ChildProcess::Spawn({.argv = {Bin("headroomd"), "--listen", "127.0.0.1:0", "--data-dir", data,
                                    "--backend", "agents", "--port-file", dir.File("port"),
                                    "--grace-s", "1", "--heartbeat-interval-s", "0.2"},
                           .env = {"PATH=/usr/bin:/bin"},
                           .stdout_path = dir.File("headroomd.log"),
                           .stderr_path = dir.File("headroomd.log")});
  ASSERT_TRUE(daemon.has_value()) << daemon.error().message;
  const auto logs = [&] {
    return "headroomd log:\n" + ReadFile(dir.File("headroomd.log")) + "\nagent a1 log:\n" +
           ReadFile(dir.File("a1.log")) + "\nagent a2 log:\n" + ReadFile(dir.File("a2.log"));
  };
  ASSERT_TRUE(WaitUntil([&] {
    return FileExists(dir.File("port")) && FileExists(data + "/admin.token");
  })) << logs();
  const int port = std::stoi(ReadFile(dir.File("port")));
  const std::string admin_token = testing::AdminToken(data);
  testing::DaemonApi admin(port, admin_token);

  const std::string script =
      "echo $$ > " + dir.File("pid-$HEADROOM_RANK") + "; env > " +
      dir.File("env-$HEADROOM_RANK.tmp") + " && mv " + dir.File("env-$HEADROOM_RANK.tmp") + " " +
      dir.File("env-$HEADROOM_RANK") + "; trap 'exit 0' TERM; while true; do sleep 0.05; done";
  std::map<std::string, ChildProcess> agents;
  for (const std::string node : {"a1", "a2"}) {
    auto [status, token] = admin.Post("/v1/tokens", {{"role", "agent"}, {"node", node}});
    ASSERT_EQ(status, 201) << token.dump() << logs();
    auto agent = testing::SpawnAgent(dir, port, token["token"].get<std::string>(), node, 1);
    ASSERT_TRUE(agent.has_value()) << agent.error().message;
    agents.emplace(node, std::move(*agent));
  }
  ASSERT_TRUE(WaitUntil([&] {
    const json nodes = admin.Get("/v1/nodes");
    if (!nodes.is_object()) return false;
    int up = 0;
    for (const json& node : nodes["nodes"]) up += node["state"] == "up" ? 1 : 0;
    return up == 2;
  })) << logs();

  // The gang goes in through the CLI, as an operator would submit it.
  auto submit = ChildProcess::Spawn({.argv = {Bin("headroom"),
                                              "--server",
                                              "http://127.0.0.1:" + std::to_string(port),
                                              "--token",
                                              admin_token,
                                              "submit",
                                              "--name",
                                              "gang",
                                              "--tenant",
                                              "team-a",
                                              "--ntasks",
                                              "2",
                                              "--gpus-per-task",
                                              "1",
                                              "--time",
                                              "1h",
                                              "--cpus",
                                              "1",
                                              "--mem",
                                              "1G",
                                              "--json",
                                              "--",
                                              "/bin/sh",
                                              "-c",
                                              script},
                                     .env = {"PATH=/usr/bin:/bin"},
                                     .stdout_path = dir.File("submit.json"),
                                     .stderr_path = dir.File("submit.err")});
  ASSERT_TRUE(submit.has_value()) << submit.error().message;
  ASSERT_EQ(submit->Wait(), 0) << ReadFile(dir.File("submit.err")) << logs();
  const json submitted = json::parse(ReadFile(dir.File("submit.json")));
  const int64_t id = submitted["id"].get<int64_t>();

  ASSERT_TRUE(WaitUntil([&] {
    return FileExists(dir.File("env-0")) && FileExists(dir.File("env-1"));
  })) << logs();
  std::map<std::string, int> rank_of_node;
  for (int rank = 0; rank < 2; ++rank) {
    const auto env = EnvOf(ReadFile(dir.File("env-" + std::to_string(rank))));
    EXPECT_EQ(env.at("HEADROOM_JOB_ID"), std::to_string(id));
    EXPECT_EQ(env.at("HEADROOM_RANK"), std::to_string(rank));
    EXPECT_EQ(env.at("RANK"), std::to_string(rank));
    EXPECT_EQ(env.at("HEADROOM_WORLD_SIZE"), "2");
    EXPECT_EQ(env.at("WORLD_SIZE"), "2");
    EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), "0");
    EXPECT_EQ(env.at("MASTER_ADDR"), "127.0.0.1");
    EXPECT_EQ(env.at("MASTER_PORT"), "29500");
    EXPECT_EQ(env.at("HEADROOM_RENDEZVOUS"), "127.0.0.1:29500");
    rank_of_node[env.at("NODE_TAG")] = rank;
  }
  ASSERT_EQ(rank_of_node.size(), 2u) << "both tasks on one node";

  // a2 dies without a word; its task lives on as an orphan until the test cleans it up.
  const pid_t dead_task =
      std::stoi(ReadFile(dir.File("pid-" + std::to_string(rank_of_node["a2"]))));
  const pid_t live_task =
      std::stoi(ReadFile(dir.File("pid-" + std::to_string(rank_of_node["a1"]))));
  agents.at("a2").SignalGroup(SIGKILL);
  agents.at("a2").Wait();
  const bool requeued = WaitUntil(
      [&] {
        const json state = admin.Get("/v1/jobs/" + std::to_string(id));
        return state.is_object() && state["state"] == "pending" && state["requeues"] >= 1;
      },
      std::chrono::milliseconds(15'000));
  kill(-dead_task, SIGKILL);
  EXPECT_TRUE(requeued) << admin.Get("/v1/jobs/" + std::to_string(id)).dump() << logs();
  // The survivor's task is no longer desired: the agent stops it.
  EXPECT_TRUE(WaitUntil([&] { return !ProcessExists(live_task); })) << logs();

  agents.at("a1").SignalGroup(SIGTERM);
  EXPECT_EQ(agents.at("a1").Wait(), 0) << logs();
  daemon->SignalGroup(SIGTERM);
  EXPECT_EQ(daemon->Wait(), 0) << logs();
}

}  // namespace
}  // namespace headroom::agent
