// Issue 10 item 4, the daemon's side: no attempt starts on a device an earlier process may still
// hold. A registration says the agent runs nothing (a restarted agent stopped what its
// predecessor left), so the jobs placed on the node are requeued and their old attempt is never
// handed out again; a down node's heartbeats get 404 until it registers again. Driven over HTTP
// by a fake agent.
#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::AgentRegistration;
using testing::JobBody;
using testing::Json;
using testing::TestDaemon;
using testing::WaitFor;

TEST(DaemonAgentsRestart, Issue10ARegistrationRequeuesWhatRanOnTheNode) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.agents.grace_us = kUsPerSecond / 2;
  options.http_workers = 8;
  TestDaemon daemon(options);
  const std::string agent = daemon.Token({{"role", "agent"}, {"node", "n1"}});
  ASSERT_EQ(daemon.Post("/v1/agents/register", agent, AgentRegistration("n1", 2).dump()).status,
            200);
  const auto heartbeat = [&] {
    return daemon.Post("/v1/agents/n1/heartbeat", agent,
                       Json{{"ready", true}, {"telemetry", Json::array()}}.dump());
  };
  const uint64_t id = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 0)).body["id"];
  const std::string job_path = "/v1/jobs/" + std::to_string(id);
  Json desired;
  ASSERT_TRUE(WaitFor([&] {
    desired = heartbeat().body["tasks"];
    return desired.size() == 1;
  })) << desired.dump();
  ASSERT_EQ(desired[0]["attempt"], 1);

  // The agent was killed and restarted: it registers again. Attempt 1 is never handed out
  // again; the job is requeued and runs as attempt 2 on the same devices.
  ASSERT_EQ(daemon.Post("/v1/agents/register", agent, AgentRegistration("n1", 2).dump()).status,
            200);
  bool first_handed_out = false;
  ASSERT_TRUE(WaitFor([&] {
    desired = heartbeat().body["tasks"];
    for (const Json& task : desired) first_handed_out |= task["attempt"] == 1;
    return desired.size() == 1 && desired[0]["attempt"] == 2;
  })) << desired.dump();
  EXPECT_FALSE(first_handed_out);
  const Json job = daemon.Get(job_path, daemon.admin()).body;
  EXPECT_EQ(job["state"], "running") << job.dump();
  EXPECT_EQ(job["requeues"], 1) << job.dump();
  // Attempt 2 is not requeued by that registration: the job stays on attempt 2.
  for (int i = 0; i < 5; ++i) {
    desired = heartbeat().body["tasks"];
    ASSERT_EQ(desired.size(), 1u);
    EXPECT_EQ(desired[0]["attempt"], 2);
  }

  // Silent past twice the grace: down, its job requeued. Heartbeats now get 404 (the agent
  // stops its tasks and registers again); a registration brings the node back.
  ASSERT_TRUE(WaitFor(
      [&] { return daemon.Get("/v1/nodes", daemon.admin()).body["nodes"][0]["state"] == "down"; },
      std::chrono::seconds(5)));
  EXPECT_EQ(heartbeat().status, 404);
  ASSERT_EQ(daemon.Post("/v1/agents/register", agent, AgentRegistration("n1", 2).dump()).status,
            200);
  ASSERT_TRUE(WaitFor([&] {
    desired = heartbeat().body["tasks"];
    return desired.size() == 1 && desired[0]["attempt"] == 3;
  })) << desired.dump();
  EXPECT_EQ(daemon.Get(job_path, daemon.admin()).body["requeues"], 2);
}

}  // namespace
}  // namespace headroom::control
