// Holds in headroomd, driven over HTTP by fake agents: a job whose task exits as a device of
// its node fails, on three nodes in a row, is held by the headroom policy's recovery.hold_after
// (not started on the five others), stays held across a restart, and runs once an operator releases
// it; operators hold and release pending jobs, and the routes refuse what they must.
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <httplib.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::AgentRegistration;
using testing::JobBody;
using testing::Json;
using testing::TestDaemon;
using testing::WaitFor;
using testing::XidTelemetry;

TEST(DaemonJobHold, AJobThatKeepsKillingNodesIsHeldUntilAnOperatorReleasesIt) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  TestDaemon daemon(options);
  // Eight nodes, so that three failing stay under the storm guard's half.
  const std::vector<std::string> nodes = {"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"};
  std::map<std::string, std::string> tokens;
  for (const std::string& node : nodes) {
    tokens[node] = daemon.Token({{"role", "agent"}, {"node", node}});
    ASSERT_EQ(
        daemon.Post("/v1/agents/register", tokens[node], AgentRegistration(node, 2).dump()).status,
        200);
  }
  std::map<std::string, int> failing;  // Node → its failed device, once failed.
  const auto heartbeat = [&](const std::string& node, const Json& tasks) {
    auto it = failing.find(node);
    return daemon
        .Post("/v1/agents/" + node + "/heartbeat", tokens[node],
              Json{{"ready", true},
                   {"tasks", tasks},
                   {"telemetry", XidTelemetry(2, it == failing.end() ? -1 : it->second, 79)}}
                  .dump())
        .body["tasks"];
  };
  const uint64_t job = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 0)).body["id"];
  const std::string path = "/v1/jobs/" + std::to_string(job);
  // Wherever it starts, its node's device 1 fails (XID 79) as its task exits.
  for (int attempt = 1; attempt <= 3; ++attempt) {
    std::string where;
    ASSERT_TRUE(WaitFor([&] {
      for (const std::string& node : nodes) {
        if (!failing.contains(node) && heartbeat(node, Json::array()).size() == 1) where = node;
      }
      return !where.empty();
    })) << attempt
        << " " << daemon.Get(path, daemon.admin()).body.dump();
    failing[where] = 1;
    heartbeat(where, Json::array({{{"job", job},
                                   {"rank", 0},
                                   {"attempt", attempt},
                                   {"state", "exited"},
                                   {"exit_code", 1}}}));
  }
  Json record;
  ASSERT_TRUE(WaitFor([&] {
    record = daemon.Get(path, daemon.admin()).body;
    return record["hold_reason"].is_string();
  })) << record.dump();
  EXPECT_EQ(record["state"], "pending");
  EXPECT_EQ(record["pending_reason"]["code"], "held") << record.dump();
  const std::string reason = record["hold_reason"];
  EXPECT_NE(reason.find("3 different nodes"), std::string::npos) << reason;
  EXPECT_EQ(record["message"], reason);
  // The healthy nodes stay empty.
  const auto placed = [&] {
    int tasks = 0;
    for (const std::string& node : nodes) {
      if (!failing.contains(node)) tasks += static_cast<int>(heartbeat(node, Json::array()).size());
    }
    return tasks;
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(placed(), 0);

  // Held across a restart.
  daemon.Stop();
  daemon.Start();
  record = daemon.Get(path, daemon.admin()).body;
  EXPECT_EQ(record["hold_reason"], reason) << record.dump();
  EXPECT_EQ(placed(), 0);

  // Only an admin releases; then it starts on a healthy node.
  const std::string user = daemon.Token({{"role", "user"}, {"tenant", "default"}});
  EXPECT_EQ(daemon.Post(path + "/release", user, "").status, 403);
  const testing::HttpReply released = daemon.Post(path + "/release", daemon.admin(), "");
  ASSERT_EQ(released.status, 200) << released.body.dump();
  EXPECT_TRUE(released.body["hold_reason"].is_null());
  EXPECT_TRUE(WaitFor([&] { return placed() == 1; }))
      << daemon.Get(path, daemon.admin()).body.dump();
  // A running job is neither held nor released.
  EXPECT_EQ(daemon.Post(path + "/hold", daemon.admin(), "").status, 409);
  EXPECT_EQ(daemon.Post("/v1/jobs/999/hold", daemon.admin(), "").status, 404);
}

TEST(DaemonJobHold, OperatorsHoldAPendingJobWithAReasonAndReleaseIt) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  TestDaemon daemon(options);
  // No node yet: the job waits, and an operator holds it.
  const uint64_t job = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 0)).body["id"];
  const std::string path = "/v1/jobs/" + std::to_string(job);
  EXPECT_EQ(daemon.Post(path + "/hold", daemon.admin(), R"({"reason": 7})").status, 400);
  const testing::HttpReply held =
      daemon.Post(path + "/hold", daemon.admin(), R"({"reason": "firmware update"})");
  ASSERT_EQ(held.status, 200) << held.body.dump();
  EXPECT_EQ(held.body["hold_reason"], "Held by an operator: firmware update");
  EXPECT_EQ(daemon.Post(path + "/hold", daemon.admin(), "").status, 200);  // Already held.
  // A node arrives: the held job does not start there.
  const std::string token = daemon.Token({{"role", "agent"}, {"node", "n1"}});
  ASSERT_EQ(daemon.Post("/v1/agents/register", token, AgentRegistration("n1", 2).dump()).status,
            200);
  const auto tasks = [&] {
    return daemon
        .Post("/v1/agents/n1/heartbeat", token,
              Json{{"ready", true}, {"tasks", Json::array()}, {"telemetry", XidTelemetry(2, -1, 0)}}
                  .dump())
        .body["tasks"];
  };
  // Its reason is the hold from the start, before any engine has seen it.
  const Json record = daemon.Get(path, daemon.admin()).body;
  EXPECT_EQ(record["pending_reason"]["code"], "held") << record.dump();
  EXPECT_EQ(record["pending_reason"]["message"], "Held by an operator: firmware update");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_TRUE(tasks().empty());
  ASSERT_EQ(daemon.Post(path + "/release", daemon.admin(), "").status, 200);
  EXPECT_TRUE(WaitFor([&] { return tasks().size() == 1; }))
      << daemon.Get(path, daemon.admin()).body.dump();
}

}  // namespace
}  // namespace headroom::control
