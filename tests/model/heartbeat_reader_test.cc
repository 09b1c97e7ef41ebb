// The fast heartbeat readers against the slow way (a JSON tree, then ParseHeartbeatRequest or
// ParseHeartbeatReply): what the other end sends they read the same; what they do not take, the
// slow way reads or explains; and whenever one returns a value, the slow way returns it too.
#include "model/heartbeat_reader.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace headroom::model {
namespace {

using nlohmann::json;

// The slow way, without the daemon's check for repeated keys (the fast reader refuses those).
std::optional<HeartbeatRequest> ReadSlowly(std::string_view body) {
  const json tree = json::parse(body, nullptr, false);
  if (tree.is_discarded()) return std::nullopt;
  auto heartbeat = ParseHeartbeatRequest(tree);
  if (!heartbeat) return std::nullopt;
  return *heartbeat;
}

HeartbeatRequest Sample() {
  return HeartbeatRequest{.ready = false,
                          .readiness_message = "GPU 3 failed \"ECC\"",
                          .tasks = {{.key = {42, 0, 1}, .state = TaskState::kRunning, .pid = 1234},
                                    {.key = {std::numeric_limits<int64_t>::max(), 7, 4294967295},
                                     .state = TaskState::kExited,
                                     .exit_code = -9,
                                     .pid = 0,
                                     .message = "cannot start 'x'\n"}},
                          .telemetry = {{.reading = {.index = 0,
                                                     .temp_c = 41.0,
                                                     .power_w = 312.5,
                                                     .util = 0.93,
                                                     .xid_errors = 79,
                                                     .ecc_uncorrectable = 3,
                                                     .remapped_rows = 0,
                                                     .row_remap_failure = false,
                                                     .nvlink_errors = 1'000'000'000'000},
                                         .job = 42,
                                         .tenant = "team-a"},
                                        {.reading = {.index = 1023, .temp_c = -5}}}};
}

TEST(HeartbeatReader, ReadsWhatAgentsSendAsTheSlowWayDoes) {
  const std::string body = HeartbeatJson(Sample()).dump();
  const auto fast = ReadPlainHeartbeat(body);
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(*fast, Sample());
  EXPECT_EQ(fast, ReadSlowly(body));
  // An idle node's heartbeat, and one with nothing at all.
  EXPECT_EQ(ReadPlainHeartbeat(HeartbeatJson(HeartbeatRequest{}).dump()), HeartbeatRequest{});
  EXPECT_EQ(ReadPlainHeartbeat("{}"), HeartbeatRequest{});
}

TEST(HeartbeatReader, TakesMembersInAnyOrderAndNullForAbsent) {
  const std::string body = R"({"telemetry": [{"tenant": null, "util": 1, "index": 2}],
      "tasks": [{"state": "running", "attempt": null, "rank": 0, "job": 5, "pid": null,
                 "exit_code": null, "message": null}],
      "readiness_message": null, "ready": null})";
  const auto fast = ReadPlainHeartbeat(body);
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(fast, ReadSlowly(body));
  EXPECT_TRUE(fast->ready);
  ASSERT_EQ(fast->tasks.size(), 1u);
  EXPECT_EQ(fast->tasks[0].key.attempt, 0);  // Not sent.
  EXPECT_EQ(fast->telemetry[0].reading.util, 1.0);
}

// What it leaves to the slow way: some bodies the slow way reads (an unknown member, which it
// ignores), the rest it refuses with a message.
TEST(HeartbeatReader, LeavesEverythingElseToTheSlowWay) {
  EXPECT_EQ(ReadPlainHeartbeat(R"({"ready": true, "uptime_s": 5})"), std::nullopt);
  EXPECT_TRUE(ReadSlowly(R"({"ready": true, "uptime_s": 5})").has_value());
  for (const char* body : {
           "",
           "[]",
           "null",
           R"({"ready": true} x)",
           R"({"ready": true, "ready": false})",
           R"({"ready": 1})",
           R"({"tasks": {}})",
           R"({"tasks": [[]]})",
           R"({"tasks": [{"job": 1, "rank": 0}]})",
           R"({"tasks": [{"job": 1, "rank": 0, "state": "exited"}]})",
           R"({"tasks": [{"job": 1, "rank": 0, "state": "gone"}]})",
           R"({"tasks": [{"job": -1, "rank": 0, "state": "running"}]})",
           R"({"tasks": [{"job": 1, "rank": 1000001, "state": "running"}]})",
           R"({"tasks": [{"job": 1, "rank": 0, "state": "running", "attempt": 0}]})",
           R"({"tasks": [{"job": 1.0, "rank": 0, "state": "running"}]})",
           R"({"tasks": [{"job": 1, "rank": 0, "rank": 0, "state": "running"}]})",
           R"({"tasks": [{"job": 1, "rank": 0, "state": "exited", "exit_code": 2147483648}]})",
           R"({"telemetry": [{"temp_c": 40}]})",
           R"({"telemetry": [{"index": 1024}]})",
           R"({"telemetry": [{"index": 0, "power_w": "high"}]})",
           R"({"telemetry": [{"index": 0, "tenant": 7}]})",
       }) {
    EXPECT_EQ(ReadPlainHeartbeat(body), std::nullopt) << body;
  }
  // Health counters out of their ranges: both readers refuse them.
  for (const std::string body : {
           R"({"telemetry": [{"index": 0, "ecc_uncorrectable": -1}]})",
           R"({"telemetry": [{"index": 0, "remapped_rows": 1.5}]})",
           R"({"telemetry": [{"index": 0, "row_remap_failure": 1}]})",
           R"({"telemetry": [{"index": 0, "nvlink_errors": "many"}]})",
       }) {
    EXPECT_EQ(ReadPlainHeartbeat(body), std::nullopt) << body;
    EXPECT_EQ(ReadSlowly(body), std::nullopt) << body;
  }
  const std::string long_tenant =
      R"({"telemetry": [{"index": 0, "tenant": ")" + std::string(257, 'a') + R"("}]})";
  EXPECT_EQ(ReadPlainHeartbeat(long_tenant), std::nullopt);
  EXPECT_FALSE(ReadSlowly(long_tenant).has_value());
}

// `body` with one byte changed to one that matters to JSON, or taken out, or cut off there
// (inside a property).
std::string Mutated(std::string body) {
  const size_t at = *rc::gen::inRange<size_t>(0, body.size());
  switch (*rc::gen::inRange(0, 3)) {
    case 0:
      body[at] = *rc::gen::elementOf(std::string("{}[]\",:0123456789-.entrufalsx= "));
      break;
    case 1:
      body.erase(at, 1);
      break;
    default:
      body.resize(at);
  }
  return body;
}

// The promise, over random heartbeats cut and changed one byte at a time: whenever the fast
// reader returns a heartbeat, the slow way returns the same one.
RC_GTEST_PROP(HeartbeatReaderProperty, AgreesWithTheSlowWayWheneverItReads, ()) {
  HeartbeatRequest request = Sample();
  request.ready = *rc::gen::arbitrary<bool>();
  request.tasks.resize(*rc::gen::inRange<size_t>(0, 3));
  for (TaskReport& task : request.tasks) {
    task.key.job = *rc::gen::inRange<int64_t>(0, 1'000'000);
    task.key.rank = *rc::gen::inRange(0, 8);
    task.key.attempt = *rc::gen::inRange<int64_t>(1, 5);
  }
  const std::string body = Mutated(HeartbeatJson(request).dump());
  const auto fast = ReadPlainHeartbeat(body);
  if (fast) RC_ASSERT(fast == ReadSlowly(body));
}

std::vector<DesiredTask> SampleReply() {
  return {DesiredTask{.key = {17, 1, 3},
                      .world_size = 2,
                      .devices = {0, 3},
                      .command = {"python", "train.py", "--lr=0.1 \"x\""},
                      .env = {{"MASTER_PORT", "29501"}, {"NCCL_DEBUG", "INFO"}},
                      .rendezvous = "n0:29501",
                      .stop_grace_s = 0,
                      .tenant = "team-a",
                      .checkpoint_interval_s = 600,
                      .power_cap_w = 560},
          DesiredTask{.key = {18, 0, 1}, .command = {"sleep"}}};
}

TEST(HeartbeatReplyReader, ReadsWhatTheDaemonSendsAsTheSlowWayDoes) {
  const std::string body = HeartbeatReplyJson(SampleReply()).dump();
  const auto fast = ReadPlainHeartbeatReply(body);
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(*fast, SampleReply());
  EXPECT_EQ(*ParseHeartbeatReply(body), *fast);
  EXPECT_EQ(ReadPlainHeartbeatReply(R"({"tasks": []})"), std::vector<DesiredTask>{});
  // Defaults where a member is absent or null, members in any order.
  const auto sparse = ReadPlainHeartbeatReply(
      R"({"tasks": [{"command": ["a"], "devices": [], "rank": 0, "world_size": 1, "job": 2,
                     "env": null, "tenant": null, "rendezvous": null, "stop_grace_s": null,
                     "checkpoint_interval_s": null, "power_cap_w": null}]})");
  ASSERT_TRUE(sparse.has_value());
  EXPECT_EQ(*sparse, (std::vector<DesiredTask>{{.key = {2, 0}, .command = {"a"}}}));
  auto read = ReadHeartbeatReply(body);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(*read, SampleReply());
}

TEST(HeartbeatReplyReader, LeavesEverythingElseToTheSlowWay) {
  const std::string task = R"("job": 1, "world_size": 2, "devices": [0], "command": ["a"])";
  for (const std::string& body : std::vector<std::string>{
           "{}",
           R"({"tasks": null})",
           R"({"tasks": [], "extra": 1})",
           R"({"tasks": [], "tasks": []})",
           "{\"tasks\": [{" + task + R"(, "rank": 2}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0}, {)" + task + R"(, "rank": 0}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "attempt": 0}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "attempt": null}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "stop_grace_s": 86401}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "checkpoint_interval_s": 0}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "checkpoint_interval_s": "1"}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "power_cap_w": 0}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "power_cap_w": 100001}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "env": {"A=B": "x"}}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "env": {"A": "x", "A": "y"}}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "env": {"A": 1}}]})",
           "{\"tasks\": [{" + task + R"(, "rank": 0, "rendezvous": "h\u0000:1"}]})",
           R"({"tasks": [{"job": 1, "world_size": 1, "rank": 0, "devices": [0, 0],
                          "command": ["a"]}]})",
           R"({"tasks": [{"job": 1, "world_size": 1, "rank": 0, "devices": [0],
                          "command": [""]}]})",
           R"({"tasks": [{"job": 1, "world_size": 1, "rank": 0, "devices": [0],
                          "command": []}]})",
           R"({"tasks": [{"job": 1, "world_size": 1, "rank": 0, "command": ["a"]}]})",
       }) {
    EXPECT_EQ(ReadPlainHeartbeatReply(body), std::nullopt) << body;
  }
  // What the slow way reads that the fast one leaves to it, and what it explains.
  EXPECT_TRUE(ReadHeartbeatReply(R"({"tasks": [], "extra": 1})").has_value());
  auto refused = ReadHeartbeatReply("{\"tasks\": [{" + task + R"(, "rank": 2}]})");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message, "tasks[0].rank: expected a rank in 0..1, got \"2\"");
}

RC_GTEST_PROP(HeartbeatReplyReaderProperty, AgreesWithTheSlowWayWheneverItReads, ()) {
  const std::string body = Mutated(HeartbeatReplyJson(SampleReply()).dump());
  const auto fast = ReadPlainHeartbeatReply(body);
  if (fast) RC_ASSERT(*fast == *ParseHeartbeatReply(body));
}

}  // namespace
}  // namespace headroom::model
