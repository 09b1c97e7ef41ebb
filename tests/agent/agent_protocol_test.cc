// The register/heartbeat bodies the agent sends and the replies it accepts (docs/api.md).
#include "agent/agent_protocol.h"

#include <gtest/gtest.h>

namespace headroom::agent {
namespace {

using nlohmann::json;

TEST(AgentProtocol, RegisterBodyHasTheDocumentedFields) {
  RegisterRequest request{.node = "n1",
                          .inventory = {.cpu_milli = 64000,
                                        .memory_mib = 524288,
                                        .devices = {{.index = 0,
                                                     .uuid = "GPU-a",
                                                     .model = "H100",
                                                     .memory_mib = 81559,
                                                     .clique_id = std::nullopt}}},
                          .ready = true,
                          .readiness_message = "",
                          .address = "10.0.0.11"};
  EXPECT_EQ(RegisterJson(request),
            json::parse(R"({"node": "n1", "cpu_milli": 64000, "memory_mib": 524288,
                "ready": true, "readiness_message": "", "address": "10.0.0.11",
                "devices": [{"index": 0, "uuid": "GPU-a", "model": "H100",
                             "memory_mib": 81559, "clique_id": null}]})"));
}

TEST(AgentProtocol, HeartbeatBodyHasTasksAndLabelledTelemetry) {
  HeartbeatRequest request{
      .ready = false,
      .readiness_message = "GPU 3 failed",
      .tasks = {{.key = {42, 0}, .state = TaskState::kRunning, .pid = 1234},
                {.key = {42, 1, 2},
                 .state = TaskState::kExited,
                 .exit_code = 127,
                 .pid = 0,
                 .message = "cannot start 'x'"}},
      .telemetry = {
          {.reading = {.index = 0, .temp_c = 41.0, .power_w = 312.5, .util = 0.93, .xid_errors = 0},
           .job = 42,
           .tenant = "team-a"},
          {.reading = {.index = 1}}}};
  EXPECT_EQ(HeartbeatJson(request), json::parse(R"({
      "ready": false, "readiness_message": "GPU 3 failed",
      "tasks": [{"job": 42, "rank": 0, "attempt": 1, "state": "running", "exit_code": null,
                 "pid": 1234},
                {"job": 42, "rank": 1, "attempt": 2, "state": "exited", "exit_code": 127, "pid": 0,
                 "message": "cannot start 'x'"}],
      "telemetry": [{"index": 0, "temp_c": 41.0, "power_w": 312.5, "util": 0.93,
                     "xid_errors": 0, "job": 42, "tenant": "team-a"},
                    {"index": 1, "temp_c": null, "power_w": null, "util": null,
                     "xid_errors": null, "job": null, "tenant": null}]})"));
}

TEST(AgentProtocol, ParsesDesiredTasksWithDefaults) {
  auto tasks = ParseHeartbeatReply(R"({"tasks": [
      {"job": 42, "rank": 1, "attempt": 3, "world_size": 4, "devices": [0, 1],
       "command": ["python", "t.py"],
       "env": {"MASTER_PORT": "29500"}, "rendezvous": "10.0.0.11:29500", "stop_grace_s": 5,
       "tenant": "team-a", "future_field": true},
      {"job": 7, "rank": 0, "world_size": 1, "devices": [], "command": ["sleep", "1"]}]})");
  ASSERT_TRUE(tasks.has_value()) << tasks.error().message;
  ASSERT_EQ(tasks->size(), 2u);
  const DesiredTask& first = (*tasks)[0];
  EXPECT_EQ(first.key, (TaskKey{42, 1, 3}));
  EXPECT_EQ(first.world_size, 4);
  EXPECT_EQ(first.devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(first.command, (std::vector<std::string>{"python", "t.py"}));
  EXPECT_EQ(first.env.at("MASTER_PORT"), "29500");
  EXPECT_EQ(first.rendezvous, "10.0.0.11:29500");
  EXPECT_EQ(first.stop_grace_s, 5);
  EXPECT_EQ(first.tenant, "team-a");
  const DesiredTask& second = (*tasks)[1];
  EXPECT_EQ(second.key.attempt, 1);
  EXPECT_EQ(second.stop_grace_s, kDefaultStopGraceS);
  EXPECT_TRUE(second.env.empty());
  EXPECT_EQ(second.rendezvous, "");
  EXPECT_FALSE(second.tenant.has_value());
}

TEST(AgentProtocol, RejectsBadDesiredTasksNamingTheField) {
  const auto message = [](const char* body) {
    auto tasks = ParseHeartbeatReply(body);
    return tasks ? std::string("parsed") : tasks.error().message;
  };
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 0, "world_size": 1, "devices": [-1],
                       "command": ["x"]}]})"),
            "tasks[0].devices[0]: expected a device index 0..1023, got \"-1\"");
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 2, "world_size": 2, "devices": [],
                       "command": ["x"]}]})"),
            "tasks[0].rank: expected a rank in 0..1, got \"2\"");
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 0, "world_size": 1, "devices": [],
                       "command": []}]})"),
            "tasks[0].command: expected a non-empty list of strings, got a list");
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 0, "world_size": 1, "devices": [],
                       "command": ["x"], "env": {"A": 1}}]})"),
            "tasks[0].env.A: expected a string without NUL bytes, got \"1\"");
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 0, "world_size": 1, "devices": [],
                       "command": ["x"]}, {"job": 1, "rank": 0, "world_size": 1,
                       "devices": [], "command": ["x"]}]})"),
            "tasks[1]: expected each (job, rank) once, got job 1 rank 0 again");
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 0, "attempt": 0, "world_size": 1,
                       "devices": [], "command": ["x"]}]})"),
            "tasks[0].attempt: expected an attempt >= 1, got \"0\"");
  EXPECT_EQ(message(R"({"tasks": [{"rank": 0}]})"), "tasks[0].job: expected a job id, got nothing");
  EXPECT_EQ(message(R"({"jobs": []})"), "tasks: expected a list of tasks, got null");
  EXPECT_EQ(message("<html>"), "heartbeat reply: expected a JSON object, got \"<html>\"");
}

TEST(AgentProtocol, ParsesRegisterReply) {
  auto reply = ParseRegisterReply(R"({"heartbeat_interval_s": 0.5, "grace_s": 10})");
  ASSERT_TRUE(reply.has_value()) << reply.error().message;
  EXPECT_EQ(reply->heartbeat_interval_s, 0.5);
  EXPECT_EQ(reply->grace_s, 10.0);
  EXPECT_EQ(ParseRegisterReply(R"({"heartbeat_interval_s": 0})").error().message,
            "heartbeat_interval_s: expected seconds in (0, 86400], got \"0\"");
}

}  // namespace
}  // namespace headroom::agent
