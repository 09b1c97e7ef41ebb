// The agents backend driven over HTTP by a fake agent: registration adds the node, desired
// tasks are handed out in heartbeat replies, reported exits complete the job, and silence makes
// the node unknown, then down with its work requeued.
#include <gtest/gtest.h>

#include "control/fake_clock.h"
#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::AgentRegistration;
using testing::JobBody;
using testing::Json;
using testing::TestDaemon;
using testing::WaitFor;

// A job without a command would be handed to agents that refuse it, and never start: the
// agents backend refuses it at submission (the simulated backend, which runs nothing, takes it).
TEST(DaemonAgents, AJobWithoutACommandIsRefused) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  TestDaemon daemon(options);
  const std::string body = R"({"kind": "Job", "spec": {"timeLimit": 60,
      "devices": {"requests": [{"count": 1}]}}})";
  const testing::HttpReply refused = daemon.Post("/v1/jobs", daemon.admin(), body);
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.dump().find("spec.command"), std::string::npos) << refused.body.dump();
  EXPECT_EQ(daemon.Get("/v1/jobs", daemon.admin()).body["jobs"].size(), 0u);
  EXPECT_EQ(daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).status, 201);

  TestDaemon simulated(TestDaemon::Simulated());
  EXPECT_EQ(simulated.Post("/v1/jobs", simulated.admin(), body).status, 201);
}

TEST(DaemonAgents, TasksExitsAndSilence) {
  // Silence is counted on a fake clock: the node goes unknown and down when the test moves time
  // past the grace period, not when a slow machine happens to pause.
  auto clock = std::make_shared<FakeClock>(1'800'000'000 * kUsPerSecond);
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.agents.grace_us = 20 * kUsPerSecond;
  options.agents.stop_grace_s = 45;
  options.clock = clock;
  options.http_workers = 16;
  TestDaemon daemon(options);
  const std::string agent = daemon.Token({{"role", "agent"}, {"node", "n1"}});
  const std::string other = daemon.Token({{"role", "agent"}, {"node", "n2"}});

  // Before any node: jobs wait, and say why.
  const uint64_t first = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 0)).body["id"];
  EXPECT_EQ(daemon.Get("/v1/jobs/" + std::to_string(first), daemon.admin())
                .body["pending_reason"]["code"],
            "unschedulable");

  EXPECT_EQ(daemon.Post("/v1/agents/register", other, AgentRegistration("n1", 4).dump()).status,
            403);
  auto registered = daemon.Post("/v1/agents/register", agent, AgentRegistration("n1", 4).dump());
  ASSERT_EQ(registered.status, 200) << registered.body.dump();
  EXPECT_EQ(registered.body["grace_s"], 20);

  auto heartbeat = [&](const Json& tasks) {
    return daemon.Post(
        "/v1/agents/n1/heartbeat", agent,
        Json{{"ready", true}, {"tasks", tasks}, {"telemetry", Json::array()}}.dump());
  };
  Json desired;
  ASSERT_TRUE(WaitFor([&] {
    desired = heartbeat(Json::array()).body["tasks"];
    return desired.size() == 1;
  })) << desired.dump();
  EXPECT_EQ(desired[0]["job"], first);
  EXPECT_EQ(desired[0]["attempt"], 1);
  EXPECT_EQ(desired[0]["world_size"], 1);
  EXPECT_EQ(desired[0]["devices"].size(), 2u);
  EXPECT_EQ(desired[0]["rendezvous"], "10.0.0.11:29500");
  EXPECT_EQ(desired[0]["stop_grace_s"], 45);  // --stop-grace-s
  // The agent labels the devices' telemetry with the job's tenant.
  EXPECT_EQ(desired[0]["tenant"],
            daemon.Get("/v1/jobs/" + std::to_string(first), daemon.admin()).body["tenant"]);
  EXPECT_EQ(daemon.Post("/v1/agents/n1/heartbeat", other, "{}").status, 403);

  // The task exits 0: the job completes and is no longer desired.
  heartbeat(Json::array({{{"job", first}, {"rank", 0}, {"state", "exited"}, {"exit_code", 0}}}));
  ASSERT_TRUE(WaitFor([&] {
    return daemon.Get("/v1/jobs/" + std::to_string(first), daemon.admin()).body["state"] ==
           "completed";
  }));
  EXPECT_TRUE(heartbeat(Json::array()).body["tasks"].empty());

  // Not ready: the node takes no new work until it reports ready again.
  daemon.Post("/v1/agents/n1/heartbeat", agent,
              Json{{"ready", false}, {"readiness_message", "dcgm diag failed"}}.dump());
  EXPECT_EQ(daemon.Get("/v1/nodes", daemon.admin()).body["nodes"][0]["ready"], false);
  const uint64_t blocked = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  ASSERT_TRUE(daemon.WaitLoopPassed([&] {
    daemon.Post("/v1/agents/n1/heartbeat", agent,
                Json{{"ready", false}, {"readiness_message", "dcgm diag failed"}}.dump());
  }));
  EXPECT_EQ(daemon.Get("/v1/jobs/" + std::to_string(blocked), daemon.admin()).body["state"],
            "pending");
  ASSERT_TRUE(WaitFor([&] { return heartbeat(Json::array()).body["tasks"].size() == 1; }));
  ASSERT_EQ(
      daemon.Post("/v1/jobs/" + std::to_string(blocked) + "/cancel", daemon.admin(), "").status,
      200);

  // A second job starts; then the agent goes silent.
  const uint64_t second = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 4, 0)).body["id"];
  ASSERT_TRUE(WaitFor([&] { return heartbeat(Json::array()).body["tasks"].size() == 1; }));
  auto node_state = [&] {
    return daemon.Get("/v1/nodes", daemon.admin()).body["nodes"][0]["state"].get<std::string>();
  };
  EXPECT_EQ(node_state(), "up");
  clock->AdvanceUs(options.agents.grace_us + kUsPerSecond);
  ASSERT_TRUE(WaitFor([&] { return node_state() == "unknown"; }));
  clock->AdvanceUs(options.agents.grace_us + kUsPerSecond);
  ASSERT_TRUE(WaitFor([&] { return node_state() == "down"; }));
  Json job;
  ASSERT_TRUE(WaitFor([&] {
    job = daemon.Get("/v1/jobs/" + std::to_string(second), daemon.admin()).body;
    return job["state"] == "pending" && job["requeues"] == 1;
  })) << job.dump();
  // Registering again brings the node back and the job runs again, as its second attempt.
  ASSERT_EQ(daemon.Post("/v1/agents/register", agent, AgentRegistration("n1", 4).dump()).status,
            200);
  ASSERT_TRUE(WaitFor([&] {
    desired = heartbeat(Json::array()).body["tasks"];
    return desired.size() == 1;
  })) << desired.dump();
  EXPECT_EQ(desired[0]["job"], second);
  EXPECT_EQ(desired[0]["attempt"], 2);
  // What the first attempt left behind exits non-zero: not the running attempt's exit.
  auto exit_of = [&](int attempt, int code) {
    return Json::array({{{"job", second},
                         {"rank", 0},
                         {"attempt", attempt},
                         {"state", "exited"},
                         {"exit_code", code}}});
  };
  heartbeat(exit_of(1, 137));
  ASSERT_TRUE(daemon.WaitLoopPassed([&] { heartbeat(Json::array()); }));
  EXPECT_EQ(daemon.Get("/v1/jobs/" + std::to_string(second), daemon.admin()).body["state"],
            "running");
  heartbeat(exit_of(2, 0));
  ASSERT_TRUE(WaitFor([&] {
    return daemon.Get("/v1/jobs/" + std::to_string(second), daemon.admin()).body["state"] ==
           "completed";
  }));
}

TEST(DaemonAgents, AJobStillRunningAtItsTimeLimitFails) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 8;
  TestDaemon daemon(options);
  const std::string agent = daemon.Token({{"role", "agent"}, {"node", "n1"}});
  ASSERT_EQ(daemon.Post("/v1/agents/register", agent, AgentRegistration("n1", 4).dump()).status,
            200);
  auto heartbeat = [&] {
    return daemon.Post("/v1/agents/n1/heartbeat", agent,
                       Json{{"ready", true}, {"telemetry", Json::array()}}.dump());
  };
  const uint64_t id =
      daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0, "", /*time_limit_s=*/1)).body["id"];
  ASSERT_TRUE(WaitFor([&] { return heartbeat().body["tasks"].size() == 1; }));
  Json job;
  ASSERT_TRUE(WaitFor(
      [&] {
        heartbeat();
        job = daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
        return job["state"] == "failed";
      },
      std::chrono::seconds(5)))
      << job.dump();
  EXPECT_EQ(job["exit_code"], 124);
  EXPECT_TRUE(heartbeat().body["tasks"].empty());  // Its task is no longer desired: stopped.
}

}  // namespace
}  // namespace headroom::control
