// A job placed on a node whose agent then says it is not ready, its tasks there never started
// (the agent holds new work while its readiness check fails, and checks before a start where
// asked to), is requeued as an interruption on that node and starts elsewhere; a job whose
// tasks the agent reported running stays where it is. Over HTTP with fake agents.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::JobBody;
using testing::Json;
using testing::RegisterAgents;
using testing::TestDaemon;
using testing::WaitFor;

TEST(DaemonReadinessRequeue, AJobHeldBackByAFailedCheckGoesElsewhere) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  options.policy = "fifo";  // First fit: both jobs on the first node.
  options.policy_given = true;
  TestDaemon daemon(options);
  std::map<std::string, std::string> tokens = RegisterAgents(daemon, {"n1", "n2"}, 2);
  const auto heartbeat = [&](const std::string& node, bool ready, const Json& tasks) {
    return daemon
        .Post("/v1/agents/" + node + "/heartbeat", tokens[node],
              Json{{"ready", ready},
                   {"readiness_message", ready ? "" : "readiness check exited 1: GPU 1"},
                   {"tasks", tasks}}
                  .dump())
        .body["tasks"];
  };
  const auto job = [&](uint64_t id) {
    return daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  };
  const auto node_of = [&](uint64_t id) {
    const Json record = job(id);
    return record["state"] == "running" ? record["placement"][0]["node"].get<std::string>() : "";
  };
  // Two one-device jobs on n1 (fifo packs them on the first node), n2 idle.
  const uint64_t started = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  const uint64_t held = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  ASSERT_TRUE(WaitFor([&] { return !node_of(started).empty() && !node_of(held).empty(); }));
  ASSERT_EQ(node_of(started), node_of(held));
  const std::string node = node_of(started);
  const std::string other = node == "n1" ? "n2" : "n1";
  // The agent started one; its check then fails before it starts the other.
  const Json running =
      Json::array({{{"job", started}, {"rank", 0}, {"attempt", 1}, {"state", "running"}}});
  heartbeat(node, true, running);
  const Json desired = heartbeat(node, false, running);
  for (const Json& task : desired) EXPECT_EQ(task["job"], started) << desired.dump();
  ASSERT_TRUE(WaitFor([&] { return node_of(held) == other; })) << job(held).dump();
  EXPECT_EQ(job(held)["requeues"], 1);
  EXPECT_EQ(job(held)["attempt"], 2);
  EXPECT_EQ(node_of(started), node);
  EXPECT_EQ(job(started)["requeues"], 0);
  // Still not ready, and still running its first job: nothing else is requeued.
  heartbeat(node, false, running);
  EXPECT_EQ(node_of(started), node);
  EXPECT_EQ(job(started)["requeues"], 0);
}

}  // namespace
}  // namespace headroom::control
