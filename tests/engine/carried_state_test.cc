// CarriedState (carried_state.h): an engine built from another's carried state orders its queue
// by the fair share the other had accumulated, where a fresh engine would not; the migration
// budget's rolling hour carries too; and seeded usage decays over the gap without counting the
// work that runs now as having run then.
#include "engine/carried_state.h"

#include <cmath>

#include <gtest/gtest.h>

#include "engine/fair_share.h"
#include "scenario.h"

namespace headroom::engine {
namespace {

using testing::Harness;
using testing::HeadroomWithReservations;
using testing::MakeCluster;
using testing::MakeJob;
using testing::Preset;

constexpr TimeUs kWeekUs = 7 * 24 * 3600 * kUsPerSecond;  // The headroom preset's half-life.

model::Job OfTenant(model::Job job, std::string tenant) {
  job.tenant = std::move(tenant);
  return job;
}

// Which of two whole-node jobs, tenant a's submitted first and tenant b's, an engine starts.
JobId FirstStarted(Engine& engine, TimeUs now) {
  std::vector<Event> events = {JobSubmitted{JobId(0), OfTenant(MakeJob(1, 4, 100), "a")},
                               JobSubmitted{JobId(1), OfTenant(MakeJob(1, 4, 100), "b")}};
  const Decisions decisions = engine.Step(events, now);
  EXPECT_EQ(decisions.starts.size(), 1u);
  return decisions.starts.empty() ? JobId() : decisions.starts.front().job;
}

TEST(CarriedStateTest, ANewEngineOrdersByTheFairShareTheOldOneAccumulated) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0", 4}}}});
  Harness old_engine(cluster, HeadroomWithReservations());
  old_engine.Submit(OfTenant(MakeJob(1, 4, 1000), "a"));
  ASSERT_EQ(old_engine.Step(0).starts.size(), 1u);

  const TimeUs now = SecondsToUs(500);
  const CarriedState carried = old_engine.engine().Carried(now);
  EXPECT_EQ(carried.as_of_us, now);
  ASSERT_EQ(carried.tenant_usage.size(), 1u);
  // Four devices for 500 s, as milli-device-seconds (work since the last update is not decayed).
  EXPECT_DOUBLE_EQ(carried.tenant_usage.at("a"), 4000.0 * 500);

  Engine carrying(cluster, HeadroomWithReservations(), carried);
  EXPECT_EQ(FirstStarted(carrying, now), JobId(1)) << "tenant b has used nothing";
  Engine fresh(cluster, HeadroomWithReservations());
  EXPECT_EQ(FirstStarted(fresh, now), JobId(0)) << "without history, arrival order decides";

  // What the new engine carries on is what it was given, and the tenant it has met since.
  const CarriedState again = carrying.Carried(now);
  EXPECT_EQ(again.tenant_usage.at("a"), carried.tenant_usage.at("a"));
  EXPECT_EQ(again.tenant_usage.at("b"), 0);
}

TEST(CarriedStateTest, TheMigrationChangeoverAndTurnoverBudgetsRollingHoursCarryAndForgetOld) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0", 4}}}});
  const TimeUs hour_us = 3600 * kUsPerSecond;
  const CarriedState carried{.as_of_us = 2 * hour_us,
                             .migration_spent = {{hour_us / 2, 7}, {hour_us + 10, 11}},
                             .preemption_spent = {{hour_us / 3, 5}, {hour_us + 20, 13}},
                             .turnover_spent = {{hour_us / 4, 3}, {hour_us + 30, 17}}};
  Engine engine(cluster, Preset("headroom"), carried);
  std::vector<Event> none;
  engine.Step(none, 2 * hour_us);
  const CarriedState out = engine.Carried(2 * hour_us);
  EXPECT_EQ(out.migration_spent, (std::vector<std::pair<TimeUs, int64_t>>{{hour_us + 10, 11}}));
  EXPECT_EQ(out.preemption_spent, (std::vector<std::pair<TimeUs, int64_t>>{{hour_us + 20, 13}}));
  EXPECT_EQ(out.turnover_spent, (std::vector<std::pair<TimeUs, int64_t>>{{hour_us + 30, 17}}));
}

TEST(CarriedStateTest, RuntimeHistoryCarriesSoANewEngineOrdersByPredictedService) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0", 4}}}});
  PolicyConfig policy = Preset("headroom");
  policy.queue_order = "qssf";
  Harness old_engine(cluster, policy);
  const JobId long_a = old_engine.Submit(OfTenant(MakeJob(1, 4, 1000), "a"));
  old_engine.Step(0);
  old_engine.Finish(long_a);
  const JobId short_b = old_engine.Submit(OfTenant(MakeJob(1, 4, 10), "b"));
  old_engine.Step(1000);
  old_engine.Finish(short_b);
  old_engine.Step(1010);
  const TimeUs now = SecondsToUs(1010);
  const CarriedState carried = old_engine.engine().Carried(now);
  EXPECT_EQ(carried.runtimes.at("a").at(4000), (RuntimeTally{.runs = 1, .sum_s = 1000}));
  EXPECT_EQ(carried.runtimes.at("b").at(4000), (RuntimeTally{.runs = 1, .sum_s = 10}));

  // Tenant b's jobs have run 10 s, a's 1000 s: b's goes first, where arrival order decides
  // without history.
  Engine carrying(cluster, policy, carried);
  EXPECT_EQ(FirstStarted(carrying, now), JobId(1));
  Engine fresh(cluster, policy);
  EXPECT_EQ(FirstStarted(fresh, now), JobId(0));
  EXPECT_EQ(carrying.Carried(now).runtimes, carried.runtimes);
}

TEST(CarriedStateTest, SeededUsageDecaysOverTheGapWithoutCountingTodaysWorkAsThen) {
  FairShare share(kWeekUs);
  share.Seed(TenantId(0), 1000, 0);
  share.AddRunning(TenantId(0), 2000);
  share.DecayTo(kWeekUs);  // A daemon down for a week: only decay.
  EXPECT_DOUBLE_EQ(share.UsageAt(kWeekUs)[0], 500);
  share.Advance(kWeekUs + SecondsToUs(10));  // From then on the running work counts.
  EXPECT_NEAR(share.UsageAt(kWeekUs + SecondsToUs(10))[0], 500 + 2000.0 * 10, 0.01);
}

}  // namespace
}  // namespace headroom::engine
