// Quotas by device model on the agents backend, driven over HTTP by two fake agents (one node of
// H100s, one of A100s): a job goes to the model its queue guarantees first, the next one past
// the H100 limit to the A100s no quota counts, and the one after that waits for capacity.
#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::AgentRegistration;
using testing::JobBody;
using testing::Json;
using testing::TestDaemon;
using testing::WaitFor;

TEST(DaemonAgentsModelQuota, JobsGoToTheModelTheirQueueAdmits) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  TestDaemon daemon(options);
  const std::string h100 = daemon.Token({{"role", "agent"}, {"node", "h1"}});
  const std::string a100 = daemon.Token({{"role", "agent"}, {"node", "a1"}});
  ASSERT_EQ(
      daemon.Post("/v1/agents/register", h100, AgentRegistration("h1", 4, "H100").dump()).status,
      200);
  ASSERT_EQ(
      daemon.Post("/v1/agents/register", a100, AgentRegistration("a1", 4, "A100").dump()).status,
      200);
  const auto set = daemon.Put("/v1/queues", daemon.admin(), R"(queues:
  - name: team-a
    guaranteed: {device_models: {H100: 4}}
    borrowing_limit: {device_models: {H100: 0}}
)");
  ASSERT_EQ(set.status, 200) << set.body.dump();
  auto tasks_of = [&](const std::string& node, const std::string& token) {
    return daemon
        .Post("/v1/agents/" + node + "/heartbeat", token,
              Json{{"ready", true}, {"tasks", Json::array()}, {"telemetry", Json::array()}}.dump())
        .body["tasks"];
  };
  const uint64_t first =
      daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 4, 0, "team-a")).body["id"];
  Json on_h100;
  ASSERT_TRUE(WaitFor([&] {
    on_h100 = tasks_of("h1", h100);
    return on_h100.size() == 1;
  }));
  EXPECT_EQ(on_h100[0]["job"], first);
  const uint64_t second =
      daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 4, 0, "team-a")).body["id"];
  Json on_a100;
  ASSERT_TRUE(WaitFor([&] {
    on_a100 = tasks_of("a1", a100);
    return on_a100.size() == 1;
  }));
  EXPECT_EQ(on_a100[0]["job"], second);
  const uint64_t third =
      daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 4, 0, "team-a")).body["id"];
  const std::string third_path = "/v1/jobs/" + std::to_string(third);
  ASSERT_TRUE(WaitFor([&] {
    const Json job = daemon.Get(third_path, daemon.admin()).body;
    return job.contains("pending_reason") && job["pending_reason"].is_object();
  }));
  ASSERT_TRUE(daemon.WaitLoopPassed([] {}));
  const Json waiting = daemon.Get(third_path, daemon.admin()).body;
  EXPECT_EQ(waiting["state"], "pending");
  EXPECT_EQ(tasks_of("h1", h100).size(), 1u);
  EXPECT_EQ(tasks_of("a1", a100).size(), 1u);
  const Json queues = daemon.Get("/v1/queues", daemon.admin()).body;
  EXPECT_EQ(queues["queues"][0]["usage"]["device_models"]["H100"], 4.0) << queues.dump();
  // Devices of any model are not governed.
  EXPECT_FALSE(queues["queues"][0]["usage"].contains("devices"));
}

}  // namespace
}  // namespace headroom::control
