// Issue 10 against a real headroomd: hostile bodies on every JSON endpoint, strict tokens and
// registrations, agent reports checked against the placement, and a restart that loads every
// state the API can produce.
#include <string>

#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::Json;
using testing::TestDaemon;
using testing::WaitFor;

std::string Repeat(std::string_view piece, size_t times) {
  std::string out;
  for (size_t i = 0; i < times; ++i) out += piece;
  return out;
}

DaemonOptions Agents() {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.agents.grace_us = 120 * kUsPerSecond;  // Nothing here goes silent on purpose.
  options.http_workers = 8;
  return options;
}

Json Device(int index, const std::string& uuid) {
  return {{"index", index},
          {"uuid", uuid},
          {"model", "H100"},
          {"memory_mib", 81559},
          {"clique_id", nullptr}};
}

Json Registration(const std::string& node, int devices) {
  Json list = Json::array();
  for (int i = 0; i < devices; ++i) list.push_back(Device(i, node + "-GPU-" + std::to_string(i)));
  return {{"node", node},  {"cpu_milli", 64000}, {"memory_mib", 524288},
          {"ready", true}, {"devices", list},    {"address", "10.0.0.11"}};
}

// A job or service spec; with a command unless `spec` has one (the agents backend needs one).
Json Spec(const Json& spec, const std::string& kind = "Job", const Json& metadata = nullptr) {
  Json out = {{"apiVersion", "headroom/v1"}, {"kind", kind}, {"spec", spec}};
  if (!spec.contains("command")) out["spec"]["command"] = {"true"};
  if (!metadata.is_null()) out["metadata"] = metadata;
  return out;
}

// A device request no registered node can satisfy: the job waits for good.
Json Unplaceable() {
  return {{"requests",
           {{{"name", "gpus"},
             {"count", 1},
             {"selectors", {{{"cel", {{"expression", "model == \"B200\""}}}}}}}}}};
}

std::string Message(const testing::HttpReply& reply) {
  return reply.body["error"]["message"].get<std::string>();
}

TEST(Issue10Api, DeeplyNestedBodiesAreRefusedOnEveryJsonEndpoint) {
  TestDaemon daemon(Agents());
  const std::string agent = daemon.Token({{"role", "agent"}, {"node", "n1"}});
  ASSERT_EQ(daemon.Post("/v1/agents/register", agent, Registration("n1", 1).dump()).status, 200);
  const uint64_t service =
      daemon
          .Post("/v1/jobs", daemon.admin(),
                Spec({{"replicas", 1}, {"timeLimit", 60}, {"devices", Unplaceable()}}, "Service")
                    .dump())
          .body["id"];
  const std::string deep = Repeat("[", 60'000) + Repeat("]", 60'000);
  const struct {
    std::string path;
    std::string body;
  } cases[] = {
      {"/v1/agents/register", R"({"node": "n1", "cpu_milli": )" + deep + "}"},
      {"/v1/agents/n1/heartbeat", R"({"tasks": )" + deep + "}"},
      {"/v1/tokens", R"({"role": )" + deep + "}"},
      {"/v1/nodes/n1/drain", R"({"reason": )" + deep + "}"},
      {"/v1/services/" + std::to_string(service) + "/scale", R"({"replicas": )" + deep + "}"},
  };
  for (const auto& [path, body] : cases) {
    auto reply = daemon.Post(path, daemon.admin(), body);
    EXPECT_EQ(reply.status, 400) << path;
    EXPECT_LT(reply.body.dump().size(), 300u) << path << ": " << reply.body.dump();
  }
  // A wrong type, long but shallow: the message says what it got, not the value.
  Json wide = Registration("n1", 1);
  wide["cpu_milli"] = Json::array();
  for (int i = 0; i < 50'000; ++i) wide["cpu_milli"].push_back("xxxxxxxx");  // 550 KB.
  auto reply = daemon.Post("/v1/agents/register", agent, wide.dump());
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(Message(reply),
            "cpu_milli: expected an integer in [0, 1099511627776], got a list of "
            "50000 items");
  EXPECT_EQ(daemon.Get("/healthz", "").status, 200);
}

TEST(Issue10Api, TokensAreStrict) {
  TestDaemon daemon(TestDaemon::Simulated());
  const auto token = [&](const std::string& body) {
    return daemon.Post("/v1/tokens", daemon.admin(), body);
  };
  // The last "role" used to win: an admin token from a body that first says "user".
  auto duplicate = token(R"({"role": "user", "tenant": "team-a", "role": "admin"})");
  EXPECT_EQ(duplicate.status, 400);
  EXPECT_EQ(Message(duplicate), "role: expected each key once, got it twice");
  auto unknown = token(R"({"role": "user", "tenant": "team-a", "admin": true})");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(Message(unknown), "admin: unknown field; the known fields are role, tenant");
  EXPECT_EQ(token(R"({"role": "admin", "tenant": "team-a"})").status, 400);
  EXPECT_EQ(token(R"({"role": "agent", "node": "n1", "tenant": "x"})").status, 400);
  // Names: control characters, lengths, node names that are not URL-safe.
  for (const Json& body :
       {Json{{"role", "user"}, {"tenant", "team\x1b[31m"}},
        Json{{"role", "user"}, {"tenant", std::string(254, 't')}},
        Json{{"role", "user"}, {"tenant", ""}}, Json{{"role", "agent"}, {"node", "rack/n1"}},
        Json{{"role", "agent"}, {"node", "n1\n"}},
        Json{{"role", "agent"}, {"node", std::string(254, 'n')}}}) {
    auto reply = token(body.dump());
    EXPECT_EQ(reply.status, 400) << body.dump();
    EXPECT_EQ(Message(reply).find('\x1b'), std::string::npos);
  }
  EXPECT_EQ(token(Json{{"role", "user"}, {"tenant", std::string(253, 't')}}.dump()).status, 201);
  EXPECT_EQ(token(Json{{"role", "agent"}, {"node", std::string(253, 'n')}}.dump()).status, 201);
}

TEST(Issue10Api, DrainReasonsAreBoundedText) {
  TestDaemon daemon(TestDaemon::Simulated());
  const auto drain = [&](const Json& body) {
    return daemon.Post("/v1/nodes/rack0-n0/drain", daemon.admin(), body.dump());
  };
  auto escape = drain({{"reason", "\x1b]0;pwned\x07"}});
  EXPECT_EQ(escape.status, 400);
  EXPECT_NE(Message(escape).find("reason: expected at most 256 bytes of UTF-8 text without "
                                 "control characters"),
            std::string::npos)
      << Message(escape);
  EXPECT_EQ(drain({{"reason", std::string(257, 'r')}}).status, 400);
  EXPECT_EQ(drain({{"reason", "fan"}, {"until", "monday"}}).status, 400);
  const std::string longest = Repeat("é", 128);
  auto ok = drain({{"reason", longest}});
  ASSERT_EQ(ok.status, 200) << ok.body.dump();
  EXPECT_EQ(ok.body["drain_reason"], longest);
}

TEST(Issue10Api, RegistrationsAreValidatedLikeJobSpecs) {
  TestDaemon daemon(Agents());
  const std::string agent = daemon.Token({{"role", "agent"}, {"node", "n1"}});
  const auto reg = [&](const Json& body) {
    return daemon.Post("/v1/agents/register", agent, body.dump());
  };
  // Two devices of one index were once two jobs on one GPU.
  Json same_index = Registration("n1", 2);
  same_index["devices"][1]["index"] = 0;
  auto index = reg(same_index);
  EXPECT_EQ(index.status, 400);
  EXPECT_EQ(Message(index),
            "devices[1].index: expected each device index once, got 0 again (devices[0])");
  Json same_uuid = Registration("n1", 2);
  same_uuid["devices"][1]["uuid"] = same_uuid["devices"][0]["uuid"];
  EXPECT_EQ(reg(same_uuid).status, 400);
  Json unknown_device_field = Registration("n1", 1);
  unknown_device_field["devices"][0]["mig"] = true;
  EXPECT_NE(Message(reg(unknown_device_field)).find("devices[0].mig: unknown field"),
            std::string::npos);
  Json unknown_field = Registration("n1", 1);
  unknown_field["rack"] = "r1";
  EXPECT_EQ(reg(unknown_field).status, 400);
  Json bad_model = Registration("n1", 1);
  bad_model["devices"][0]["model"] = "H100\x1b[8m";
  EXPECT_EQ(reg(bad_model).status, 400);
  Json bad_address = Registration("n1", 1);
  bad_address["address"] = "10.0.0.1; rm -rf /";
  EXPECT_EQ(reg(bad_address).status, 400);
  Json too_many = Registration("n1", 1025);
  EXPECT_EQ(reg(too_many).status, 400);
  Json long_message = Registration("n1", 1);
  long_message["readiness_message"] = std::string(1025, 'm');
  EXPECT_EQ(reg(long_message).status, 400);
  // Nothing refused was registered; a valid registration is.
  EXPECT_TRUE(daemon.Get("/v1/nodes", daemon.admin()).body["nodes"].empty());
  EXPECT_EQ(reg(Registration("n1", 2)).status, 200);
}

TEST(Issue10Api, AnAgentCannotReportTheExitOfATaskOnAnotherNode) {
  TestDaemon daemon(Agents());
  const std::string n1 = daemon.Token({{"role", "agent"}, {"node", "n1"}});
  const std::string n2 = daemon.Token({{"role", "agent"}, {"node", "n2"}});
  ASSERT_EQ(daemon.Post("/v1/agents/register", n1, Registration("n1", 2).dump()).status, 200);
  const auto heartbeat = [&](const std::string& node, const std::string& token, const Json& tasks) {
    return daemon.Post("/v1/agents/" + node + "/heartbeat", token,
                       Json{{"ready", true}, {"tasks", tasks}}.dump());
  };
  const uint64_t id = daemon.Post("/v1/jobs", daemon.admin(), testing::JobBody(1, 2, 0)).body["id"];
  ASSERT_TRUE(
      WaitFor([&] { return heartbeat("n1", n1, Json::array()).body["tasks"].size() == 1; }));
  ASSERT_EQ(daemon.Post("/v1/agents/register", n2, Registration("n2", 2).dump()).status, 200);
  // n2 claims the task, without and with the attempt: both are ignored, and counted.
  heartbeat("n2", n2,
            Json::array({{{"job", id}, {"rank", 0}, {"state", "exited"}, {"exit_code", 1}}}));
  heartbeat(
      "n2", n2,
      Json::array(
          {{{"job", id}, {"rank", 0}, {"attempt", 1}, {"state", "exited"}, {"exit_code", 0}}}));
  ASSERT_TRUE(daemon.WaitLoopPassed());
  const std::string path = "/v1/jobs/" + std::to_string(id);
  EXPECT_EQ(daemon.Get(path, daemon.admin()).body["state"], "running");
  EXPECT_EQ(heartbeat("n1", n1, Json::array()).body["tasks"].size(), 1u);
  httplib::Client client("127.0.0.1", daemon.port());
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("headroom_foreign_task_reports_total 2"), std::string::npos);
  // The node that runs it reports the exit: that one counts.
  heartbeat(
      "n1", n1,
      Json::array(
          {{{"job", id}, {"rank", 0}, {"attempt", 1}, {"state", "exited"}, {"exit_code", 0}}}));
  ASSERT_TRUE(
      WaitFor([&] { return daemon.Get(path, daemon.admin()).body["state"] == "completed"; }));
}

// What the API shows of the daemon's state, less what moves with the clock.
Json Observable(const TestDaemon& daemon) {
  Json jobs = daemon.Get("/v1/jobs?limit=100000", daemon.admin()).body["jobs"];
  for (Json& job : jobs) {
    job.erase("pending_reason");
    job.erase("expected_start");
  }
  Json nodes = daemon.Get("/v1/nodes", daemon.admin()).body["nodes"];
  for (Json& node : nodes) {
    // What the agent says in its next heartbeat, not durable (docs/control.md).
    node.erase("last_heartbeat");
    node.erase("ready");
    node.erase("readiness_message");
  }
  return {{"jobs", jobs},
          {"services", daemon.Get("/v1/services", daemon.admin()).body["services"]},
          {"nodes", nodes}};
}

TEST(Issue10Api, ARestartLoadsEveryStateTheApiCanProduce) {
  TestDaemon daemon(Agents());
  const std::string admin = daemon.admin();
  const std::string longest_label = Repeat("é", 126) + "x";  // 253 bytes of UTF-8.
  const std::string longest_node = std::string(252, 'n') + "1";

  // Tokens of every role, with the longest names.
  const std::string second_admin = daemon.Token({{"role", "admin"}});
  const std::string user = daemon.Token({{"role", "user"}, {"tenant", longest_label}});
  const std::string tab_user = daemon.Token({{"role", "user"}, {"tenant", "null\tΩ"}});
  const std::string agent = daemon.Token({{"role", "agent"}, {"node", "n1"}});
  const std::string long_agent = daemon.Token({{"role", "agent"}, {"node", longest_node}});

  // Registrations: one node that runs work, one with the longest names and no address.
  ASSERT_EQ(daemon.Post("/v1/agents/register", agent, Registration("n1", 4).dump()).status, 200);
  Json longest = Registration(longest_node, 2);
  longest["address"] = "";
  longest["readiness_message"] = std::string(1024, 'm');
  longest["devices"][0] = {{"index", 1023},
                           {"uuid", longest_label},
                           {"model", longest_label},
                           {"memory_mib", int64_t{1} << 32},
                           {"clique_id", longest_label}};
  longest["devices"][1] = {
      {"index", 0}, {"uuid", ""}, {"model", "H100"}, {"memory_mib", 0}, {"clique_id", nullptr}};
  ASSERT_EQ(daemon.Post("/v1/agents/register", long_agent, longest.dump()).status, 200);
  const std::string long_reason = Repeat("é", 128);
  ASSERT_EQ(
      daemon
          .Post("/v1/nodes/" + longest_node + "/drain", admin, Json{{"reason", long_reason}}.dump())
          .status,
      200);

  // Jobs of every kind and end: running, shared, pending for good, cancelled, completed, failed.
  const auto submit = [&](const std::string& token, const Json& body) -> uint64_t {
    auto reply = daemon.Post("/v1/jobs", token, body.dump());
    EXPECT_EQ(reply.status, 201) << reply.body.dump();
    return reply.body.value("id", uint64_t{0});
  };
  const Json one_gpu = {{"requests", {{{"name", "gpus"}, {"count", 1}}}}};
  const uint64_t runs = submit(user, Spec({{"timeLimit", 3600}, {"devices", one_gpu}}));
  const uint64_t shared = submit(
      admin, Spec({{"timeLimit", 3600},
                   {"devices", {{"requests", {{{"name", "g"}, {"count", 1}, {"share", 500}}}}}}}));
  const uint64_t completes = submit(admin, Spec({{"timeLimit", "1d"}, {"devices", one_gpu}}));
  const uint64_t fails = submit(tab_user, Spec({{"timeLimit", "90s"}}));
  const uint64_t waits =
      submit(user, Spec({{"tenant", longest_label},
                         {"priority", -1'000'000},
                         {"tasks", 3},
                         {"timeLimit", "366d"},
                         {"runtime", "1h"},
                         {"command", {"python", "-c", "print('[{ünïcode}]')", ""}},
                         {"env", {{"MASTER_PORT", "29500"}, {"EMPTY", ""}, {"TABS", "a\tb"}}},
                         {"resources", {{"cpu", "500m"}, {"memory", "1Ti"}}},
                         {"devices", Unplaceable()}},
                        "Job", {{"name", longest_label}}));
  const uint64_t cancelled = submit(admin, Spec({{"timeLimit", 60}, {"devices", Unplaceable()}}));
  ASSERT_EQ(daemon.Post("/v1/jobs/" + std::to_string(cancelled) + "/cancel", admin, "").status,
            200);
  EXPECT_NE(waits, 0u);

  // Services: scaled to 0 and left there, scaled to 0 and back, cancelled.
  const auto service = [&](int replicas) -> uint64_t {
    return daemon
        .Post("/v1/jobs", admin,
              Spec({{"replicas", replicas}, {"timeLimit", 60}, {"devices", Unplaceable()}},
                   "Service", {{"name", "svc-" + std::to_string(replicas)}})
                  .dump())
        .body["id"];
  };
  const auto scale = [&](uint64_t id, int replicas) {
    return daemon.Post("/v1/services/" + std::to_string(id) + "/scale", admin,
                       Json{{"replicas", replicas}}.dump());
  };
  const uint64_t at_zero = service(2);
  ASSERT_EQ(scale(at_zero, 0).status, 200);
  const uint64_t back = service(1);
  ASSERT_EQ(scale(back, 0).status, 200);
  ASSERT_EQ(scale(back, 2).status, 200);
  const uint64_t gone = service(1);
  ASSERT_EQ(daemon.Post("/v1/services/" + std::to_string(gone) + "/cancel", admin, "").status, 200);
  ASSERT_EQ(
      daemon.Post("/v1/jobs", admin, Spec({{"replicas", 0}, {"timeLimit", 60}}, "Service").dump())
          .status,
      201);

  // The runnable jobs start on n1; two of them end.
  const auto heartbeat = [&](const Json& tasks) {
    return daemon.Post("/v1/agents/n1/heartbeat", agent,
                       Json{{"ready", true}, {"tasks", tasks}}.dump());
  };
  ASSERT_TRUE(WaitFor([&] { return heartbeat(Json::array()).body["tasks"].size() == 4; }));
  heartbeat(Json::array(
      {{{"job", completes}, {"rank", 0}, {"attempt", 1}, {"state", "exited"}, {"exit_code", 0}},
       {{"job", fails}, {"rank", 0}, {"attempt", 1}, {"state", "exited"}, {"exit_code", 3}}}));
  const auto state_of = [&](uint64_t id) {
    return daemon.Get("/v1/jobs/" + std::to_string(id), admin).body["state"];
  };
  ASSERT_TRUE(
      WaitFor([&] { return state_of(completes) == "completed" && state_of(fails) == "failed"; }));
  EXPECT_EQ(state_of(runs), "running");
  EXPECT_EQ(state_of(shared), "running");

  const Json before = Observable(daemon);
  daemon.Stop();
  daemon.Start();  // Fails the test (ASSERT inside) if the daemon does not start.
  // The nodes' topology (device model, path) comes from the engine's cluster, which the loop
  // rebuilds from the recovered nodes in its first iteration, not before Start returns.
  Json after;
  EXPECT_TRUE(WaitFor([&] {
    after = Observable(daemon);
    return after == before;
  })) << "before: "
      << before.dump() << "\nafter: " << after.dump();
  // Every token still works as its role.
  EXPECT_EQ(daemon.Get("/v1/jobs", second_admin).status, 200);
  EXPECT_EQ(daemon.Get("/v1/jobs", user).body["jobs"].size(), 2u);
  EXPECT_EQ(daemon.Get("/v1/jobs", tab_user).body["jobs"].size(), 1u);
  EXPECT_EQ(heartbeat(Json::array()).status, 200);
  EXPECT_EQ(daemon.Post("/v1/agents/register", long_agent, longest.dump()).status, 200);
}

}  // namespace
}  // namespace headroom::control
