// EngineReplay on hand-written records: a log that replays, and records it cannot use — each an
// error naming the record, never a crash (engine_replay.h promise 2).
#include "control/engine_replay.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "control/engine_log.h"
#include "daemon_fixture.h"
#include "engine/presets.h"
#include "model/cluster_yaml.h"

namespace headroom::control {
namespace {

using Json = nlohmann::json;

std::string BuildBody() {
  std::ifstream file(testing::TinyClusterFile());
  std::stringstream text;
  text << file.rdbuf();
  return Json{
      {"build",
       {{"cluster", text.str()}, {"policy", std::string(*engine::PresetPolicyText("fifo"))}}}}
      .dump();
}

// A one-task job of `devices` devices, as the loop logs its submission.
Json Submit(uint64_t id, int devices) {
  return {
      {"submit", id},
      {"spec", fmt::format(R"({{"metadata":{{"name":"j"}},"spec":{{"tenant":"t","timeLimit":"1h",)"
                           R"("command":["x"],"devices":{{"requests":[{{"count":{}}}]}}}}}})",
                           devices)},
      {"submit_us", 0}};
}

EngineLogRecord Step(int64_t seq, TimeUs time_us, Json events, Json decisions) {
  return {seq, time_us, Json{{"step", {{"events", events}, {"decisions", decisions}}}}.dump()};
}

class EngineReplayTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(replay_.Apply({1, 0, BuildBody()}).has_value()); }

  // The decisions the engine makes for the submission of job 7 (four devices) at time 10.
  Json FirstDecisions() {
    EngineReplay probe;
    EXPECT_TRUE(probe.Apply({1, 0, BuildBody()}).has_value());
    EXPECT_TRUE(probe.Apply(Step(2, 10, Json::array({Submit(7, 4)}), Json::array())).has_value());
    EXPECT_EQ(probe.mismatch_count(), 1u);
    return Json::parse(probe.mismatches().at(0).replayed);
  }

  std::string ErrorOf(const EngineLogRecord& record) {
    auto ok = replay_.Apply(record);
    return ok ? "" : ok.error().message;
  }

  EngineReplay replay_;
};

TEST_F(EngineReplayTest, TheRecordedDecisionsReplayAndADifferentOneIsAMismatch) {
  const Json decisions = FirstDecisions();
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0]["start"], 7);
  ASSERT_TRUE(replay_.Apply(Step(2, 10, Json::array({Submit(7, 4)}), decisions)).has_value());
  ASSERT_TRUE(replay_.Apply({3, 20, R"({"idle": [12, 15]})"}).has_value());
  // Job 7 failed: the log says so, and the replayed engine has it failed, not completed.
  ASSERT_TRUE(
      replay_.Apply(Step(4, 30, Json::array({{{"finish", 7}, {"failed", true}}}), Json::array()))
          .has_value());
  const std::optional<JobId> seven = replay_.EngineIdOf(7);
  ASSERT_TRUE(seven.has_value());
  EXPECT_EQ(replay_.engine()->state(*seven), JobState::kFailed);
  EXPECT_EQ(replay_.steps(), 4u);
  EXPECT_EQ(replay_.decisions(), 1u);
  EXPECT_EQ(replay_.mismatch_count(), 0u);
  // A step that the log says started nothing, where the engine starts job 8: one mismatch.
  ASSERT_TRUE(replay_.Apply(Step(5, 40, Json::array({Submit(8, 1)}), Json::array())).has_value());
  EXPECT_EQ(replay_.mismatch_count(), 1u);
  EXPECT_EQ(replay_.mismatches().at(0).seq, 5);
  EXPECT_EQ(replay_.mismatches().at(0).recorded, "[]");
}

TEST_F(EngineReplayTest, RecordsItCannotUseAreErrorsNamingTheRecord) {
  EXPECT_EQ(ErrorOf({9, 10, "{not json"}), "engine log record 9: not a build, step or idle record");
  EXPECT_NE(ErrorOf(Step(10, 10, Json::array({{{"finish", 7}}}), Json::array()))
                .find("engine log record 10: job 7 is not running"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(Step(11, 10, Json::array({{{"drain", "nowhere"}, {"drained", true}}}), Json::array()))
          .find("names no node"),
      std::string::npos);
  EXPECT_NE(
      ErrorOf(Step(12, 10, Json::array({{{"mystery", 1}}}), Json::array())).find("no known kind"),
      std::string::npos);
  {
    auto tiny = model::LoadClusterYaml(testing::TinyClusterFile());
    ASSERT_TRUE(tiny.has_value());
    Json withdraw = WithdrawEvent(tiny->nodes()[0].name, 0, true, true);
    EXPECT_EQ(withdraw["degraded"], true);
    withdraw["degraded"] = "yes";
    EXPECT_NE(ErrorOf(Step(12, 10, Json::array({withdraw}), Json::array()))
                  .find("a withdrawal's 'degraded': expected true or false"),
              std::string::npos);
  }
  EXPECT_NE(ErrorOf({13, 10, R"({"build": {"cluster": "levels: [", "policy": ""}})"})
                .find("engine log record 13: record 13 cluster"),
            std::string::npos);
  ASSERT_TRUE(replay_.Apply({14, 0, BuildBody()}).has_value());
  // Two restores on the same devices do not fit; a restore is only in a build's first step.
  Json restore = Submit(3, 4);
  restore.erase("submit");
  restore["restore"] = 3;
  restore["start_us"] = 0;
  auto cluster = model::LoadClusterYaml(testing::TinyClusterFile());
  ASSERT_TRUE(cluster.has_value());
  restore["placement"] = PlacementToJson(
      {TaskPlacement{.rank = 0, .node = cluster->nodes()[0].name, .device_indices = {0, 1, 2, 3}}});
  Json again = restore;
  again["restore"] = 4;
  EXPECT_NE(
      ErrorOf(Step(15, 10, Json::array({restore, again}), Json::array())).find("does not fit"),
      std::string::npos);
  EXPECT_NE(ErrorOf(Step(16, 10, Json::array({restore}), Json::array())).find("first step"),
            std::string::npos);
  ASSERT_TRUE(replay_.Apply(Step(17, 10, Json::array(), Json::array())).has_value());
  EXPECT_NE(ErrorOf(Step(18, 5, Json::array(), Json::array())).find("before the last step"),
            std::string::npos);
}

// kFollow executes the recorded decisions: job 7 runs where the record says, even where the
// engine would have chosen otherwise; what it learns (usage, runtimes) comes out as the check
// mode's; a decision that does not apply is an error naming the record.
TEST_F(EngineReplayTest, FollowingExecutesTheRecordedDecisions) {
  const Json decisions = FirstDecisions();
  ASSERT_EQ(decisions.size(), 1u);
  Json elsewhere = decisions;  // The last four devices of the last node instead.
  auto cluster = model::LoadClusterYaml(testing::TinyClusterFile());
  ASSERT_TRUE(cluster.has_value());
  elsewhere[0]["placement"] = PlacementToJson({TaskPlacement{
      .rank = 0, .node = cluster->nodes().back().name, .device_indices = {0, 1, 2, 3}}});
  ASSERT_NE(elsewhere, decisions);

  EngineReplay follow(ReplayMode::kFollow);
  ASSERT_TRUE(follow.Apply({1, 0, BuildBody()}).has_value());
  ASSERT_TRUE(follow.Apply(Step(2, 10, Json::array({Submit(7, 4)}), elsewhere)).has_value());
  const std::vector<engine::TaskAllocation>* tasks =
      follow.engine()->allocations(*follow.EngineIdOf(7));
  ASSERT_NE(tasks, nullptr);
  EXPECT_EQ(PlacementOn(*cluster, *tasks).front().node, cluster->nodes().back().name);
  ASSERT_TRUE(follow.Apply({3, 20, R"({"idle": [12, 15]})"}).has_value());
  ASSERT_TRUE(follow.Apply(Step(4, 30, Json::array({{{"finish", 7}}}), Json::array())).has_value());
  EXPECT_EQ(follow.last_step_us(), 30);
  EXPECT_EQ(follow.decisions(), 1u);
  EXPECT_EQ(follow.mismatch_count(), 0u);

  ASSERT_TRUE(replay_.Apply(Step(2, 10, Json::array({Submit(7, 4)}), decisions)).has_value());
  ASSERT_TRUE(replay_.Apply({3, 20, R"({"idle": [12, 15]})"}).has_value());
  ASSERT_TRUE(
      replay_.Apply(Step(4, 30, Json::array({{{"finish", 7}}}), Json::array())).has_value());
  EXPECT_EQ(follow.engine()->Carried(30), replay_.engine()->Carried(30));
  EXPECT_GT(follow.engine()->Carried(30).tenant_usage.at("t"), 0);

  // Job 8 cannot start on devices job 9 holds.
  ASSERT_TRUE(
      follow
          .Apply(Step(5, 40, Json::array({Submit(8, 4), Submit(9, 4)}),
                      Json::array({{{"start", 9}, {"placement", decisions[0]["placement"]}}})))
          .has_value());
  auto taken =
      follow.Apply(Step(6, 50, Json::array(),
                        Json::array({{{"start", 8}, {"placement", decisions[0]["placement"]}}})));
  ASSERT_FALSE(taken.has_value());
  EXPECT_NE(taken.error().message.find("engine log record 6: its decisions do not apply"),
            std::string::npos)
      << taken.error().message;
  auto unknown = follow.Apply(Step(7, 50, Json::array(), Json::array({{{"start", 99}}})));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("names no job"), std::string::npos);
}

// A job's preemptions travel in its submit and restore events, so that an engine built anew
// (a rebuild, a restart) counts the per-job budget on from them; a bad count is an error.
TEST_F(EngineReplayTest, SubmitAndRestoreEventsCarryTheJobsPreemptions) {
  JobRecord record{.id = 5, .submit_us = 0};
  record.spec.tenant = "t";
  EXPECT_FALSE(SubmitEvent(record).contains("preemptions"));
  record.preemptions = 3;
  EXPECT_EQ(SubmitEvent(record)["preemptions"], 3);
  EXPECT_EQ(RestoreEvent(record)["preemptions"], 3);

  Json submit = Submit(7, 4);
  submit["preemptions"] = 2;
  ASSERT_TRUE(
      replay_.Apply(Step(2, 10, Json::array({submit, Submit(8, 1)}), Json::array())).has_value());
  EXPECT_EQ(replay_.engine()->preemptions(*replay_.EngineIdOf(7)), 2u);
  EXPECT_EQ(replay_.engine()->preemptions(*replay_.EngineIdOf(8)), 0u);
  submit = Submit(9, 1);
  submit["preemptions"] = -1;
  EXPECT_NE(ErrorOf(Step(3, 20, Json::array({submit}), Json::array()))
                .find("'preemptions': expected a count"),
            std::string::npos);
}

// When a pending job was last requeued travels in its submit event too, for the reclaim
// hysteresis; a time before its submission is an error.
TEST_F(EngineReplayTest, ASubmitEventCarriesWhenTheJobWasLastRequeued) {
  JobRecord record{.id = 5, .submit_us = 100};
  record.spec.tenant = "t";
  EXPECT_FALSE(SubmitEvent(record).contains("pending_since_us"));
  record.requeued_us = 700;
  EXPECT_EQ(SubmitEvent(record)["pending_since_us"], 700);
  EXPECT_EQ(EngineJobOf(record).pending_since_us, 700);

  Json submit = Submit(7, 4);
  submit["pending_since_us"] = 5;
  Json waiting = Submit(8, 64);  // More than the tiny cluster has: it stays pending.
  waiting["pending_since_us"] = 6;
  ASSERT_TRUE(
      replay_.Apply(Step(2, 10, Json::array({submit, waiting}), Json::array())).has_value());
  EXPECT_EQ(replay_.engine()->pending_since_us(*replay_.EngineIdOf(8)), 6);
  submit = Submit(9, 1);
  submit["submit_us"] = 50;
  submit["pending_since_us"] = 40;
  EXPECT_NE(ErrorOf(Step(3, 20, Json::array({submit}), Json::array()))
                .find("'pending_since_us': expected a time no earlier"),
            std::string::npos);
}

// Attained service (the las order's) travels in submit and restore events; a negative amount
// is an error.
TEST_F(EngineReplayTest, SubmitAndRestoreEventsCarryTheJobsAttainedService) {
  JobRecord record{.id = 5, .submit_us = 0};
  record.spec.tenant = "t";
  EXPECT_FALSE(SubmitEvent(record).contains("attained_device_us"));
  record.attained_device_us = 4'000'000'000;
  EXPECT_EQ(SubmitEvent(record)["attained_device_us"], 4'000'000'000);
  EXPECT_EQ(RestoreEvent(record)["attained_device_us"], 4'000'000'000);
  EXPECT_EQ(EngineJobOf(record).attained_device_us, 4'000'000'000);

  Json submit = Submit(7, 64);  // More than the tiny cluster has: it stays pending.
  submit["attained_device_us"] = 123;
  ASSERT_TRUE(replay_.Apply(Step(2, 10, Json::array({submit}), Json::array())).has_value());
  EXPECT_EQ(replay_.engine()->attained_device_us(*replay_.EngineIdOf(7)), 123);
  submit = Submit(9, 1);
  submit["attained_device_us"] = -1;
  EXPECT_NE(ErrorOf(Step(3, 20, Json::array({submit}), Json::array()))
                .find("'attained_device_us': expected a whole number"),
            std::string::npos);
}

TEST_F(EngineReplayTest, ASubmitEventCarriesThatAFaultRequeuedTheJob) {
  JobRecord record{.id = 5, .submit_us = 0};
  record.spec.tenant = "t";
  EXPECT_FALSE(SubmitEvent(record).contains("expedited"));
  record.expedited = true;
  EXPECT_EQ(SubmitEvent(record)["expedited"], true);
  EXPECT_TRUE(EngineJobOf(record).expedited);
  Json submit = Submit(9, 1);
  submit["expedited"] = 1;
  EXPECT_NE(ErrorOf(Step(3, 20, Json::array({submit}), Json::array()))
                .find("a submit's 'expedited': expected true or false"),
            std::string::npos);
}

TEST(EngineReplay, RecordsBeforeTheFirstBuildAreSkipped) {
  EngineReplay replay;
  ASSERT_TRUE(replay.Apply(Step(1, 10, Json::array(), Json::array())).has_value());
  EXPECT_EQ(replay.skipped(), 1u);
  EXPECT_EQ(replay.engine(), nullptr);
}

}  // namespace
}  // namespace headroom::control

namespace headroom::control {
namespace {

// What a build record carries comes back as it was, runtimes included; a bad runtime is an
// error naming the field.
TEST(EngineLogCarried, ABuildRecordCarriesFairShareBudgetAndRuntimes) {
  auto cluster = model::LoadClusterYaml(testing::TinyClusterFile());
  ASSERT_TRUE(cluster.has_value());
  engine::CarriedState carried{.as_of_us = 5 * kUsPerSecond,
                               .tenant_usage = {{"a", 1500.5}},
                               .migration_spent = {{4 * kUsPerSecond, 90}},
                               .preemption_spent = {{3 * kUsPerSecond, 600}},
                               .turnover_spent = {{3 * kUsPerSecond, 400}},
                               .runtimes = {{"a", {{8000, {.runs = 3, .sum_s = 720.25}}}},
                                            {"b", {{500, {.runs = 1, .sum_s = 0}}}}}};
  const Json record = BuildRecord(*cluster, "name: fifo\n", carried);
  auto back = CarriedOf(Json::parse(record.dump())["build"]);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, carried);

  Json bad = record["build"];
  bad["carried"]["runtimes"]["a"] = Json::array({Json::array({8000, 3, -1.0})});
  auto refused = CarriedOf(bad);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("'runtimes.a': expected a list of [size"),
            std::string::npos)
      << refused.error().message;
  bad = record["build"];
  bad["carried"]["preemption_spent"] = Json::array({Json::array({1, "lots"})});
  refused = CarriedOf(bad);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("'preemption_spent': expected a list of [time, cost]"),
            std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace headroom::control
