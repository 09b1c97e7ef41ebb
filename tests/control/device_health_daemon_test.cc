// Device health in headroomd, driven over HTTP by fake agents: a task that exits as its device
// fails is requeued as an interruption (not failed) and runs on the other node; a failed device
// is not handed out again; the book survives a restart; operators' moves are checked.
#include <map>
#include <set>

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
      if (heartbeat(node, Json::array(), XidTelemetry(2, -1, 0)).size() == 1) first = node;
    }
    return !first.empty();
  }));
  const std::string other = first == "n1" ? "n2" : "n1";

  // XID 79 on device 1 and the task's exit (code 1) arrive in one heartbeat.
  heartbeat(
      first,
      Json::array(
          {{{"job", job}, {"rank", 0}, {"attempt", 1}, {"state", "exited"}, {"exit_code", 1}}}),
      XidTelemetry(2, 1, 79));
  Json moved;
  ASSERT_TRUE(WaitFor([&] {
    moved = heartbeat(other, Json::array(), XidTelemetry(2, -1, 0));
    return moved.size() == 1;
  })) << daemon.Get("/v1/jobs/" + std::to_string(job), daemon.admin()).body.dump();
  EXPECT_EQ(moved[0]["job"], job);
  EXPECT_EQ(moved[0]["attempt"], 2);
  const Json record = daemon.Get("/v1/jobs/" + std::to_string(job), daemon.admin()).body;
  EXPECT_EQ(record["state"], "running");
  EXPECT_TRUE(heartbeat(first, Json::array(), XidTelemetry(2, 1, 79)).empty());

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
    const Json tasks = heartbeat(first, Json::array(), XidTelemetry(2, 1, 79));
    return tasks.size() == 1 && tasks[0]["job"] == second;
  })) << daemon.Get("/v1/jobs/" + std::to_string(second), daemon.admin()).body.dump();
}

// Active diagnostics: a node whose agent polls for diagnostics work gets its suspect, idle
// devices diagnosed, no more at once than the share allows (here 1 of 8); a passing result
// returns a device to healthy, a failing one fails it.
TEST(DaemonDeviceHealth, SuspectIdleDevicesAreDiagnosedWithinTheShareAndJudgedByTheResult) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  options.health_rules.diagnose_share = 0.2;  // 8 devices: one diagnosing at a time.
  TestDaemon daemon(options);
  std::map<std::string, std::string> tokens;
  for (const std::string node : {"n1", "n2"}) {
    tokens[node] = daemon.Token({{"role", "agent"}, {"node", node}});
    ASSERT_EQ(
        daemon.Post("/v1/agents/register", tokens[node], AgentRegistration(node, 4).dump()).status,
        200);
  }
  const auto heartbeat = [&](const Json& telemetry) {
    return daemon.Post(
        "/v1/agents/n1/heartbeat", tokens["n1"],
        Json{{"ready", true}, {"tasks", Json::array()}, {"telemetry", telemetry}}.dump());
  };
  const auto wanted = [&] {
    return daemon.Get("/v1/agents/n1/diagnostics", tokens["n1"]).body["diagnose"];
  };
  const Json suspect =
      Json::array({{{"index", 0}, {"xid_errors", 94}}, {{"index", 1}, {"xid_errors", 94}}});
  heartbeat(suspect);
  // The agent has not polled yet: headroomd does not know it runs diagnostics.
  EXPECT_EQ(wanted(), Json::array());
  heartbeat(suspect);
  EXPECT_EQ(wanted(), Json::array({0}));  // One at a time: the share's cap.
  EXPECT_EQ(daemon.Get("/v1/agents/n1/diagnostics", tokens["n2"]).status, 403);

  const auto post = [&](const Json& results) {
    return daemon.Post("/v1/agents/n1/diagnostics", tokens["n1"],
                       Json{{"results", results}}.dump());
  };
  EXPECT_EQ(post(Json::array({{{"index", 0}, {"passed", true}}})).body["accepted"], 1);
  EXPECT_EQ(post(Json::array({{{"index", 0}, {"passed", true}}})).body["accepted"], 0);
  EXPECT_EQ(post(Json::array({{{"index", 0}}})).status, 400);
  heartbeat(suspect);
  EXPECT_EQ(wanted(), Json::array({1}));
  EXPECT_EQ(
      post(Json::array({{{"index", 1}, {"passed", false}, {"message", "EUD failed"}}})).status,
      200);
  Json n1;
  const Json nodes = daemon.Get("/v1/nodes", daemon.admin()).body;
  for (const Json& node : nodes["nodes"]) {
    if (node["name"] == "n1") n1 = node;
  }
  EXPECT_EQ(n1["device_health"], Json({{"failed", 1}})) << n1.dump();
  EXPECT_EQ(n1["unhealthy_devices"][0]["evidence"], "diagnostics failed: EUD failed");
}

// Four nodes of one device: health takes two (half the nodes) out of use; the third failure in
// the window trips the storm guard, which leaves that device in use, says so in /v1/cluster,
// /metrics and the event log, and lets it go only when an operator resumes.
TEST(DaemonDeviceHealth, TheStormGuardHoldsBackMassFailuresUntilResumed) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  TestDaemon daemon(options);
  const std::vector<std::string> names = {"n1", "n2", "n3", "n4"};
  std::map<std::string, std::string> tokens;
  for (const std::string& node : names) {
    tokens[node] = daemon.Token({{"role", "agent"}, {"node", node}});
    ASSERT_EQ(
        daemon.Post("/v1/agents/register", tokens[node], AgentRegistration(node, 1).dump()).status,
        200);
  }
  const auto heartbeat = [&](const std::string& node, int64_t xid) {
    return daemon
        .Post(
            "/v1/agents/" + node + "/heartbeat", tokens[node],
            Json{{"ready", true}, {"tasks", Json::array()}, {"telemetry", XidTelemetry(1, 0, xid)}}
                .dump())
        .body["tasks"];
  };
  const auto storm = [&] { return daemon.Get("/v1/cluster", daemon.admin()).body["health_storm"]; };
  for (const std::string node : {"n1", "n2", "n3"}) heartbeat(node, 79);
  ASSERT_TRUE(WaitFor([&] { return storm()["tripped"] == true; })) << storm().dump();
  EXPECT_NE(storm()["message"].get<std::string>().find("3 of 4 nodes"), std::string::npos)
      << storm().dump();
  const auto metrics = httplib::Client("127.0.0.1", daemon.port()).Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("headroom_health_storm 1"), std::string::npos);

  // Two one-device jobs: n4 and the held-back n3 take them.
  const uint64_t a = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  const uint64_t b = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  std::set<std::string> used;
  ASSERT_TRUE(WaitFor([&] {
    for (const std::string& node : names) {
      if (heartbeat(node, 79).size() == 1 || (node == "n4" && heartbeat(node, 0).size() == 1)) {
        used.insert(node);
      }
    }
    return used.size() == 2;
  }));
  EXPECT_EQ(used, (std::set<std::string>{"n3", "n4"}));

  // Resumed: n3's device goes out of use and its job back to the queue.
  const testing::HttpReply resumed = daemon.Post("/v1/health/resume", daemon.admin(), "");
  ASSERT_EQ(resumed.status, 200);
  EXPECT_EQ(resumed.body["was_tripped"], true);
  EXPECT_EQ(daemon.Post("/v1/health/resume", tokens["n1"], "").status, 403);
  ASSERT_TRUE(WaitFor([&] { return heartbeat("n3", 79).empty(); }));
  EXPECT_EQ(storm()["tripped"], false);
  const auto state_of = [&](uint64_t id) {
    return daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body["state"];
  };
  EXPECT_TRUE(WaitFor([&] { return state_of(a) == "pending" || state_of(b) == "pending"; }));
}

// A device that runs hot is degraded: a job that does not accept degraded devices waits for it,
// one that does (its request's acceptDegraded) starts on it, and so it stays across a restart
// (the engine log's withdrawal says "degraded").
TEST(DaemonDeviceHealth, ADegradedDeviceTakesOnlyAJobThatAcceptsIt) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  options.health_rules.storm_share = 1.0;  // One node: its one device is all of the floor.
  TestDaemon daemon(options);
  const std::string token = daemon.Token({{"role", "agent"}, {"node", "n1"}});
  ASSERT_EQ(daemon.Post("/v1/agents/register", token, AgentRegistration("n1", 2).dump()).status,
            200);
  const auto heartbeat = [&] {
    const Json telemetry =
        Json::array({{{"index", 0}, {"temp_c", 60}}, {{"index", 1}, {"temp_c", 92}}});
    return daemon
        .Post("/v1/agents/n1/heartbeat", token,
              Json{{"ready", true}, {"tasks", Json::array()}, {"telemetry", telemetry}}.dump())
        .body["tasks"];
  };
  const auto device_state = [&] {
    const Json nodes = daemon.Get("/v1/nodes", daemon.admin()).body;
    const Json& unhealthy = nodes["nodes"][0]["unhealthy_devices"];
    return unhealthy.empty() ? Json("healthy") : unhealthy[0]["state"];
  };
  heartbeat();
  ASSERT_TRUE(WaitFor([&] { return device_state() == "degraded"; })) << device_state();

  const uint64_t plain = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 0)).body["id"];
  Json accepting = Json::parse(JobBody(1, 2, 0));
  accepting["spec"]["devices"]["requests"][0]["acceptDegraded"] = true;
  const testing::HttpReply submitted = daemon.Post("/v1/jobs", daemon.admin(), accepting.dump());
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  const uint64_t tolerant = submitted.body["id"];
  Json tasks;
  ASSERT_TRUE(WaitFor([&] {
    tasks = heartbeat();
    return tasks.size() == 1;
  }));
  EXPECT_EQ(tasks[0]["job"], tolerant);
  const auto job = [&](uint64_t id) {
    return daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  };
  EXPECT_EQ(job(tolerant)["placement"][0]["devices"], Json::array({0, 1}));
  EXPECT_EQ(job(plain)["state"], "pending");

  daemon.Stop();
  daemon.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(job(tolerant)["state"], "running") << job(tolerant).dump();
  EXPECT_EQ(job(plain)["state"], "pending") << job(plain).dump();
  EXPECT_EQ(job(tolerant)["accept_degraded"], true);
  EXPECT_EQ(job(plain)["accept_degraded"], false);
}

}  // namespace
}  // namespace headroom::control
