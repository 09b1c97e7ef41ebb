// Device health in headroomd, driven over HTTP by fake agents: a task that exits as its device
// fails is requeued as an interruption (not failed) and runs on the other node; a failed device
// is not handed out again; the book survives a restart; operators' moves are checked.
#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::AgentRegistration;
using testing::JobBody;
using testing::Json;
using testing::TestDaemon;
using testing::WaitFor;

Json Telemetry(int devices, int failing_index, int64_t xid) {
  Json list = Json::array();
  for (int i = 0; i < devices; ++i) {
    list.push_back({{"index", i}, {"xid_errors", i == failing_index ? xid : 0}});
  }
  return list;
}

TEST(DaemonDeviceHealth, ATaskThatExitsAsItsDeviceFailsIsRequeuedAndRunsElsewhere) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  TestDaemon daemon(options);
  std::map<std::string, std::string> tokens;
  for (const std::string node : {"n1", "n2"}) {
    tokens[node] = daemon.Token({{"role", "agent"}, {"node", node}});
    ASSERT_EQ(
        daemon.Post("/v1/agents/register", tokens[node], AgentRegistration(node, 2).dump()).status,
        200);
  }
  const auto heartbeat = [&](const std::string& node, const Json& tasks, const Json& telemetry) {
    return daemon
        .Post("/v1/agents/" + node + "/heartbeat", tokens[node],
              Json{{"ready", true}, {"tasks", tasks}, {"telemetry", telemetry}}.dump())
        .body["tasks"];
  };
  const uint64_t job = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 0)).body["id"];
  std::string first;
  ASSERT_TRUE(WaitFor([&] {
    for (const std::string node : {"n1", "n2"}) {
      if (heartbeat(node, Json::array(), Telemetry(2, -1, 0)).size() == 1) first = node;
    }
    return !first.empty();
  }));
  const std::string other = first == "n1" ? "n2" : "n1";

  // XID 79 on device 1 and the task's exit (code 1) arrive in one heartbeat.
  heartbeat(
      first,
      Json::array(
          {{{"job", job}, {"rank", 0}, {"attempt", 1}, {"state", "exited"}, {"exit_code", 1}}}),
      Telemetry(2, 1, 79));
  Json moved;
  ASSERT_TRUE(WaitFor([&] {
    moved = heartbeat(other, Json::array(), Telemetry(2, -1, 0));
    return moved.size() == 1;
  })) << daemon.Get("/v1/jobs/" + std::to_string(job), daemon.admin()).body.dump();
  EXPECT_EQ(moved[0]["job"], job);
  EXPECT_EQ(moved[0]["attempt"], 2);
  const Json record = daemon.Get("/v1/jobs/" + std::to_string(job), daemon.admin()).body;
  EXPECT_EQ(record["state"], "running");
  EXPECT_TRUE(heartbeat(first, Json::array(), Telemetry(2, 1, 79)).empty());

  // A second two-device job cannot use the failed device: it waits.
  const uint64_t second = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 0)).body["id"];
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(daemon.Get("/v1/jobs/" + std::to_string(second), daemon.admin()).body["state"],
            "pending");

  // The book survives a restart; then the operator returns the device and the job starts.
  const std::string device = "/v1/nodes/" + first + "/devices/1/";
  EXPECT_EQ(daemon.Post(device + "repair", daemon.admin(), R"({"reason": "swap"})").status, 200);
  EXPECT_EQ(daemon.Post(device + "repair", tokens[first], "").status, 403);
  EXPECT_EQ(daemon.Post(device + "repair", daemon.admin(), R"({"why": 1})").status, 400);
  daemon.Stop();
  daemon.Start();
  // The agents keep heartbeating: their nodes were registered before the restart.
  Json listed;
  const Json nodes = daemon.Get("/v1/nodes", daemon.admin()).body;
  for (const Json& node : nodes["nodes"]) {
    if (node["name"] == first) listed = node;
  }
  ASSERT_EQ(listed["unhealthy_devices"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["unhealthy_devices"][0]["state"], "in_repair");
  EXPECT_EQ(listed["unhealthy_devices"][0]["evidence"], "by the operator: swap");
  EXPECT_EQ(listed["unhealthy_devices"][0]["history"].size(), 2u);
  const testing::HttpReply returned = daemon.Post(device + "return", daemon.admin(), "");
  ASSERT_EQ(returned.status, 200) << returned.body.dump();
  EXPECT_EQ(returned.body["state"], "healthy");
  EXPECT_EQ(daemon.Post(device + "return", daemon.admin(), "").status, 409);
  EXPECT_EQ(daemon.Post("/v1/nodes/nowhere/devices/0/repair", daemon.admin(), "").status, 404);
  EXPECT_EQ(daemon.Post("/v1/nodes/" + first + "/devices/9/repair", daemon.admin(), "").status,
            404);
  EXPECT_EQ(daemon.Post("/v1/nodes/" + first + "/devices/x/repair", daemon.admin(), "").status,
            400);
  // The stale XID 79 the agent still reports does not fail the returned device again.
  EXPECT_TRUE(WaitFor([&] {
    const Json tasks = heartbeat(first, Json::array(), Telemetry(2, 1, 79));
    return tasks.size() == 1 && tasks[0]["job"] == second;
  })) << daemon.Get("/v1/jobs/" + std::to_string(second), daemon.admin()).body.dump();
}

}  // namespace
}  // namespace headroom::control
