// The heartbeat contract both ends share (docs/api.md "Agents"): the bodies an agent sends and
// headroomd reads, the replies headroomd sends and an agent reads; each way round trips.
#include "model/agent_protocol.h"

#include <gtest/gtest.h>

namespace headroom::model {
namespace {

using nlohmann::json;

TEST(AgentProtocol, HeartbeatBodyHasTasksAndLabelledTelemetry) {
  HeartbeatRequest request{.ready = false,
                           .readiness_message = "GPU 3 failed",
                           .tasks = {{.key = {42, 0}, .state = TaskState::kRunning, .pid = 1234},
                                     {.key = {42, 1, 2},
                                      .state = TaskState::kExited,
                                      .exit_code = 127,
                                      .pid = 0,
                                      .message = "cannot start 'x'"}},
                           .telemetry = {{.reading = {.index = 0,
                                                      .temp_c = 41.0,
                                                      .power_w = 312.5,
                                                      .util = 0.93,
                                                      .xid_errors = 0,
                                                      .ecc_uncorrectable = 2,
                                                      .remapped_rows = 1,
                                                      .row_remap_failure = true,
                                                      .nvlink_errors = 7},
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
                     "xid_errors": 0, "ecc_uncorrectable": 2, "remapped_rows": 1,
                     "row_remap_failure": true, "nvlink_errors": 7, "job": 42,
                     "tenant": "team-a"},
                    {"index": 1, "temp_c": null, "power_w": null, "util": null,
                     "xid_errors": null, "ecc_uncorrectable": null, "remapped_rows": null,
                     "row_remap_failure": null, "nvlink_errors": null, "job": null,
                     "tenant": null}]})"));
}

TEST(AgentProtocol, ParsesDesiredTasksWithDefaults) {
  auto tasks = ParseHeartbeatReply(R"({"tasks": [
      {"job": 42, "rank": 1, "attempt": 3, "world_size": 4, "devices": [0, 1],
       "command": ["python", "t.py"],
       "env": {"MASTER_PORT": "29500"}, "rendezvous": "10.0.0.11:29500", "stop_grace_s": 5,
       "tenant": "team-a", "checkpoint_interval_s": 370, "power_cap_w": 490,
       "future_field": true},
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
  EXPECT_EQ(first.checkpoint_interval_s, 370);
  EXPECT_EQ(first.power_cap_w, 490);
  const DesiredTask& second = (*tasks)[1];
  EXPECT_EQ(second.checkpoint_interval_s, 0);
  EXPECT_EQ(second.power_cap_w, 0);
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
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 0, "world_size": 1, "devices": [],
                       "command": ["x"], "checkpoint_interval_s": 0}]})"),
            "tasks[0].checkpoint_interval_s: expected seconds in 1..31622400, got \"0\"");
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 0, "world_size": 1, "devices": [],
                       "command": ["x"], "power_cap_w": 0}]})"),
            "tasks[0].power_cap_w: expected watts in 1..100000, got \"0\"");
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

TEST(AgentProtocol, AHeartbeatReadsBackAsItWasSentAndAnAbsentAttemptIsZero) {
  HeartbeatRequest request{
      .ready = false,
      .readiness_message = "GPU 3 failed",
      .tasks = {{.key = {42, 0, 1}, .state = TaskState::kRunning, .pid = 1234},
                {.key = {42, 1, 2}, .state = TaskState::kExited, .exit_code = -9, .pid = 77}},
      .telemetry = {{.reading = {.index = 3,
                                 .temp_c = 41.5,
                                 .xid_errors = 79,
                                 .ecc_uncorrectable = 1,
                                 .row_remap_failure = true,
                                 .nvlink_errors = 12},
                     .job = 42,
                     .tenant = "team-a"},
                    {.reading = {.index = 4}}}};
  auto parsed = ParseHeartbeatRequest(HeartbeatJson(request));
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(*parsed, request);
  auto minimal = ParseHeartbeatRequest(
      json::parse(R"({"tasks": [{"job": 5, "rank": 0, "state": "exited", "exit_code": 0}]})"));
  ASSERT_TRUE(minimal.has_value()) << minimal.error().message;
  EXPECT_TRUE(minimal->ready);
  ASSERT_EQ(minimal->tasks.size(), 1u);
  EXPECT_EQ(minimal->tasks[0].key, (TaskKey{5, 0, 0}));
}

TEST(AgentProtocol, ARepliedDesiredSetReadsBackAsItWasSent) {
  const std::vector<DesiredTask> tasks = {{.key = {42, 1, 3},
                                           .world_size = 4,
                                           .devices = {0, 5},
                                           .command = {"python", "t.py"},
                                           .env = {{"MASTER_PORT", "29500"}},
                                           .rendezvous = "10.0.0.11:29500",
                                           .stop_grace_s = 5,
                                           .tenant = "team-a",
                                           .checkpoint_interval_s = 370},
                                          {.key = {7, 0, 1}, .command = {"sleep", "1"}}};
  auto parsed = ParseHeartbeatReply(HeartbeatReplyJson(tasks).dump());
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(*parsed, tasks);
  auto reply =
      ParseRegisterReply(RegisterReplyJson({.heartbeat_interval_s = 10, .grace_s = 30}).dump());
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->heartbeat_interval_s, 10);
  EXPECT_EQ(reply->grace_s, 30);
}

TEST(AgentProtocol, RejectsBadHeartbeatsNamingTheField) {
  const auto message = [](const char* body) {
    auto heartbeat = ParseHeartbeatRequest(json::parse(body));
    return heartbeat ? std::string("parsed") : heartbeat.error().message;
  };
  EXPECT_EQ(message(R"({"ready": "yes"})"), "ready: expected true or false, got \"yes\"");
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 0, "state": "done"}]})"),
            "tasks[0].state: expected running or exited, got \"done\"");
  EXPECT_EQ(message(R"({"tasks": [{"job": 1, "rank": 0, "state": "exited"}]})"),
            "tasks[0].exit_code: expected the exit status of an exited task, got nothing");
  EXPECT_EQ(message(R"({"tasks": [{"job": -1, "rank": 0, "state": "running"}]})"),
            "tasks[0].job: expected a job id >= 0, got \"-1\"");
  EXPECT_EQ(message(R"({"telemetry": [{"index": 1024}]})"),
            "telemetry[0].index: expected a device index 0..1023, got \"1024\"");
  EXPECT_EQ(message(R"({"telemetry": [{"index": 0, "temp_c": "hot"}]})"),
            "telemetry[0].temp_c: expected a number or null, got \"hot\"");
  EXPECT_EQ(message(R"({"telemetry": {}})"),
            "telemetry: expected a list of at most 1024, got an object");
  EXPECT_EQ(message(R"([])"), "heartbeat: expected a JSON object, got a list");
  EXPECT_EQ(message(R"({"unknown": 1, "telemetry": null, "tasks": null})"), "parsed");
}

}  // namespace
}  // namespace headroom::model
