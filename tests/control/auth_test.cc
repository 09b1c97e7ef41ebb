// Authentication and roles against a real server on 127.0.0.1 (docs/api.md): 401 without a
// known token, 403 for the wrong tenant, node or role, and what each role may do.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::JobBody;
using testing::Json;
using testing::TestDaemon;

TEST(DaemonAuth, EveryRole) {
  TestDaemon daemon(TestDaemon::Simulated());
  struct stat info {};
  ASSERT_EQ(::stat(daemon.admin_token_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);

  // No token, an unknown token: 401 everywhere under /v1; /healthz and /metrics are open.
  EXPECT_EQ(daemon.Get("/v1/jobs", "").status, 401);
  EXPECT_EQ(daemon.Get("/v1/nodes", "not-a-token").status, 401);
  EXPECT_EQ(daemon.Post("/v1/jobs", "", JobBody(1, 1, 0)).status, 401);
  EXPECT_EQ(daemon.Get("/v1/jobs", "").body["error"]["code"], "unauthenticated");
  EXPECT_EQ(daemon.Get("/healthz", "").status, 200);
  EXPECT_EQ(daemon.Get("/v1/no-such-route", daemon.admin()).status, 404);

  const std::string team_a = daemon.Token({{"role", "user"}, {"tenant", "team-a"}});
  const std::string team_b = daemon.Token({{"role", "user"}, {"tenant", "team-b"}});
  const std::string agent = daemon.Token({{"role", "agent"}, {"node", "rack0-n0"}});
  ASSERT_FALSE(team_a.empty());

  // Users submit for their own tenant (implicitly or by name), never for another.
  auto mine = daemon.Post("/v1/jobs", team_a, JobBody(1, 1, 0));
  ASSERT_EQ(mine.status, 201) << mine.body.dump();
  const uint64_t id = mine.body["id"];
  EXPECT_EQ(daemon.Get("/v1/jobs/" + std::to_string(id), team_a).body["tenant"], "team-a");
  EXPECT_EQ(daemon.Post("/v1/jobs", team_a, JobBody(1, 1, 0, "team-b")).status, 403);
  EXPECT_EQ(daemon.Post("/v1/jobs", team_a, JobBody(1, 1, 0, "team-a")).status, 201);

  // Other tenants neither see nor cancel it; their listing is their own.
  const std::string path = "/v1/jobs/" + std::to_string(id);
  EXPECT_EQ(daemon.Get(path, team_b).status, 403);
  EXPECT_EQ(daemon.Get(path, team_b).body["error"]["code"], "permission_denied");
  EXPECT_EQ(daemon.Post(path + "/cancel", team_b, "").status, 403);
  EXPECT_EQ(daemon.Get("/v1/jobs?tenant=team-a", team_b).status, 403);
  EXPECT_TRUE(daemon.Get("/v1/jobs", team_b).body["jobs"].empty());
  EXPECT_EQ(daemon.Get("/v1/jobs", team_a).body["jobs"].size(), 2u);

  // Users read nodes but do not drain them or make tokens.
  EXPECT_EQ(daemon.Get("/v1/nodes", team_a).status, 200);
  EXPECT_EQ(daemon.Get("/v1/cluster", team_a).status, 200);
  EXPECT_EQ(daemon.Post("/v1/nodes/rack0-n0/drain", team_a, "{}").status, 403);
  EXPECT_EQ(daemon.Post("/v1/tokens", team_a, R"({"role":"admin"})").status, 403);

  // Agents neither submit nor read; they heartbeat only as their node (this daemon runs the
  // simulated backend, so its own node gets 409, another node 403).
  EXPECT_EQ(daemon.Post("/v1/jobs", agent, JobBody(1, 1, 0)).status, 403);
  EXPECT_EQ(daemon.Get("/v1/jobs", agent).status, 403);
  EXPECT_EQ(daemon.Post("/v1/agents/rack0-n1/heartbeat", agent, "{}").status, 403);
  EXPECT_EQ(daemon.Post("/v1/agents/rack0-n0/heartbeat", agent, "{}").status, 409);

  // The owner cancels; the admin does everything.
  EXPECT_EQ(daemon.Post(path + "/cancel", team_a, "").body["state"], "cancelled");
  EXPECT_EQ(daemon.Get("/v1/jobs", daemon.admin()).body["jobs"].size(), 2u);
  EXPECT_EQ(
      daemon.Post("/v1/nodes/rack0-n0/drain", daemon.admin(), R"({"reason":"fan"})").body["state"],
      "drained");
  EXPECT_EQ(daemon.Post("/v1/tokens", daemon.admin(), R"({"role":"user"})").status, 400);
}

TEST(DaemonApi, BadBodiesAreNamed) {
  TestDaemon daemon(TestDaemon::Simulated());
  auto yaml = daemon.Post("/v1/jobs", daemon.admin(),
                          "spec:\n  timeLimit: 1h\n  devices:\n    requests:\n    - count: eight\n",
                          "application/yaml");
  EXPECT_EQ(yaml.status, 400);
  EXPECT_EQ(yaml.body["error"]["code"], "invalid_argument");
  EXPECT_NE(yaml.body["error"]["message"].get<std::string>().find(
                "request body:5: field 'spec.devices.requests[0].count'"),
            std::string::npos);
  EXPECT_EQ(daemon.Post("/v1/jobs", daemon.admin(), "{}", "application/xml").status, 415);
  const std::string big(2 << 20, 'x');
  auto too_big = daemon.Post("/v1/jobs", daemon.admin(), big);
  EXPECT_EQ(too_big.status, 413);
  EXPECT_EQ(too_big.body["error"]["code"], "payload_too_large");
  EXPECT_EQ(daemon.Post("/v1/tokens", daemon.admin(), "{not json").status, 400);
  EXPECT_EQ(daemon.Get("/v1/jobs/999", daemon.admin()).status, 404);
  EXPECT_EQ(daemon.Get("/v1/jobs?state=sleeping", daemon.admin()).status, 400);
}

}  // namespace
}  // namespace headroom::control
