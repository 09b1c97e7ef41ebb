// Attained-service queues (engine/attained_service.h) and the las order with the engine's
// service ranks (queue_orders/las.cc, engine_preempt.cc): the queue arithmetic, and exact
// Tiresias scenarios on one 8-device node — a job that runs into a higher queue is preempted
// by a newcomer at the microsecond it crosses, jobs of one queue keep first come first served
// and never preempt each other, and a starved job is promoted back to the first queue — and
// headroom's ranks, priority before service, with its preemptors' hysteresis, and its
// checkpoint-aligned preemption by service.
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "engine/attained_service.h"
#include "engine/engine.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using testing::Harness;
using testing::MakeCluster;
using testing::MakeJob;
using testing::Victims;

TEST(AttainedService, QueuesAreCutByTheLimitsAndALimitReachedIsTheNextQueue) {
  const AttainedServiceConfig config{.limits_device_s = {3250, 7200}};
  EXPECT_EQ(ServiceQueue(config, 0), 0u);
  EXPECT_EQ(ServiceQueue(config, SecondsToUs(3250) - 1), 0u);
  EXPECT_EQ(ServiceQueue(config, SecondsToUs(3250)), 1u);
  EXPECT_EQ(ServiceQueue(config, SecondsToUs(7199)), 1u);
  EXPECT_EQ(ServiceQueue(config, SecondsToUs(7200)), 2u);
  EXPECT_EQ(ServiceQueue(config, std::numeric_limits<int64_t>::max()), 2u);
  EXPECT_EQ(ServiceQueueEndDeviceUs(config, 0), SecondsToUs(3250));
  EXPECT_EQ(ServiceQueueEndDeviceUs(config, 1), SecondsToUs(7200));
  EXPECT_EQ(ServiceQueueEndDeviceUs(config, 2), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ServiceQueue(AttainedServiceConfig{.limits_device_s = {}}, SecondsToUs(1e6)), 0u);
}

TEST(AttainedService, WithPriorityFirstEachPriorityRanksAboveEveryQueueOfTheOneBelow) {
  AttainedServiceConfig config{.limits_device_s = {3250, 7200}};
  EXPECT_EQ(ServiceRank(config, 5, 0), 0);  // Tiresias reads no priority.
  EXPECT_EQ(ServiceRank(config, 5, SecondsToUs(7200)), -2);
  config.priority_first = true;
  EXPECT_EQ(ServiceRank(config, 1, 0), 3);
  EXPECT_EQ(ServiceRank(config, 1, SecondsToUs(7200)), 1);
  EXPECT_EQ(ServiceRank(config, 0, 0), 0);
  EXPECT_GT(ServiceRank(config, 1, std::numeric_limits<int64_t>::max()), ServiceRank(config, 0, 0));
  EXPECT_LT(ServiceRank(config, -1, 0), ServiceRank(config, 0, SecondsToUs(7200)));
}

model::Job SubmittedAt(model::Job job, double submit_s) {
  job.submit_time_us = SecondsToUs(submit_s);
  return job;
}

struct OneNode {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}}}});
};

// 8 devices cross the first limit, 3,250 device-seconds, after 406.25 s of running.
constexpr TimeUs kFirstQueueRunUs = 406'250'000;

TEST(TiresiasScenario, AJobThatRunsIntoTheNextQueueIsPreemptedByANewcomerWhenItCrosses) {
  OneNode t;
  Harness h(t.cluster, "tiresias");
  const JobId first = h.Submit(SubmittedAt(MakeJob(1, 8, 36000), 0));
  h.Step(0);
  ASSERT_EQ(h.engine().state(first), JobState::kRunning);

  // Both are in the first queue: the newcomer waits, and the engine wakes when the running job
  // crosses into the second.
  const JobId second = h.Submit(SubmittedAt(MakeJob(1, 8, 36000), 100));
  EXPECT_TRUE(h.Step(100).preemptions.empty());
  EXPECT_EQ(h.engine().state(second), JobState::kPending);
  // Banked when it stops; counted up to a moment while it runs.
  EXPECT_EQ(h.engine().attained_device_us(first), 0);
  EXPECT_EQ(h.engine().attained_device_us(first, SecondsToUs(100)), 8 * SecondsToUs(100));
  EXPECT_EQ(h.engine().NextWakeupUs(), kFirstQueueRunUs);
  EXPECT_TRUE(h.Step(406.249999).preemptions.empty());

  Decisions crossed = h.Step(406.25);
  ASSERT_EQ(Victims(crossed), std::vector<JobId>{first});
  EXPECT_EQ(crossed.preemptions[0].preemptor, second);
  EXPECT_EQ(crossed.preemptions[0].reason, PreemptReason::kLessService);
  EXPECT_EQ(h.engine().state(second), JobState::kRunning);
  EXPECT_EQ(h.engine().attained_device_us(first), SecondsToUs(3250));

  // The second job crosses at 812.5 s; now both are in the second queue and neither preempts
  // the other: the first waits.
  EXPECT_TRUE(h.Step(812.5).preemptions.empty());
  EXPECT_TRUE(h.Step(850).preemptions.empty());
  EXPECT_EQ(h.engine().state(first), JobState::kPending);

  // A third job, in the first queue, preempts the second (second queue) and goes ahead of the
  // first, which has waited longer but has had more service.
  const JobId third = h.Submit(SubmittedAt(MakeJob(1, 8, 100), 900));
  const Decisions newcomer = h.Step(900);
  ASSERT_EQ(Victims(newcomer), std::vector<JobId>{second});
  EXPECT_EQ(h.engine().state(third), JobState::kRunning);

  // Within the second queue, first come first served: the first job starts before the second.
  h.Finish(third);
  const Decisions after = h.Step(1000);
  ASSERT_EQ(after.starts.size(), 1u);
  EXPECT_EQ(after.starts[0].job, first);
  EXPECT_TRUE(after.preemptions.empty());
}

TEST(TiresiasScenario, AStarvedJobIsPromotedToTheFirstQueueOnlyWithThePromoteKnob) {
  for (const double knob : {0.0, 1.0}) {
    SCOPED_TRACE(knob);
    OneNode t;
    PolicyConfig policy = testing::Preset("tiresias");
    policy.las.promote_knob = knob;
    policy.multifactor.recalc_period_us = kUsPerSecond;  // Promotions are looked at each second.
    Harness h(t.cluster, policy);
    const JobId first = h.Submit(SubmittedAt(MakeJob(1, 8, 36000), 0));
    h.Step(0);
    const JobId second = h.Submit(SubmittedAt(MakeJob(1, 8, 36000), 10));
    h.Step(10);
    ASSERT_EQ(Victims(h.Step(406.25)), std::vector<JobId>{first});

    // At 812.5 s the second job reaches the second queue, and the first, which ran 406.25 s,
    // has waited as long: with knob 1 it is back in the first queue and preempts the second.
    const Decisions at = h.Step(812.5);
    if (knob > 0) {
      ASSERT_EQ(Victims(at), std::vector<JobId>{second});
      EXPECT_EQ(h.engine().state(first), JobState::kRunning);
      EXPECT_EQ(h.engine().attained_device_us(first), 0);
    } else {
      EXPECT_TRUE(at.preemptions.empty());
      EXPECT_EQ(h.engine().state(first), JobState::kPending);
      EXPECT_EQ(h.engine().attained_device_us(first), SecondsToUs(3250));
    }
  }
}

// Service carried from an earlier engine (model::Job::attained_device_us) places a job in its
// queue from the start: here behind a later job that has had none.
TEST(TiresiasScenario, ServiceFromAnEarlierEngineCountsTowardTheQueue) {
  OneNode t;
  Harness h(t.cluster, "tiresias");
  const JobId filler = h.Submit(SubmittedAt(MakeJob(1, 8, 100), 0));
  h.Step(0);
  model::Job served = SubmittedAt(MakeJob(1, 8, 100), 1);
  served.attained_device_us = SecondsToUs(4000);
  const JobId old = h.Submit(served);
  const JobId fresh = h.Submit(SubmittedAt(MakeJob(1, 8, 100), 2));
  h.Step(2);
  h.Finish(filler);
  const Decisions after = h.Step(100);
  ASSERT_EQ(after.starts.size(), 1u);
  EXPECT_EQ(after.starts[0].job, fresh);
  EXPECT_EQ(h.engine().state(old), JobState::kPending);
  EXPECT_EQ(h.engine().attained_device_us(old), SecondsToUs(4000));
}

// headroom: priority before attained service, and a preemptor waits preempt_after_s. On one
// 8-device node, with Tiresias's limits so that queues change within seconds.
TEST(HeadroomServiceScenario, PriorityGoesBeforeServiceAndAPreemptorWaitsItsHysteresis) {
  OneNode t;
  PolicyConfig policy = testing::Preset("headroom");
  ASSERT_EQ(policy.queue_order, "las");
  ASSERT_TRUE(policy.las.priority_first);
  policy.las.limits_device_s = {3250, 7200};
  policy.preemption.preempt_after_us = SecondsToUs(60);
  Harness h(t.cluster, policy);
  model::Job important = SubmittedAt(MakeJob(1, 8, 36000), 0);
  important.priority = 1;
  const JobId a = h.Submit(important);
  h.Step(0);
  ASSERT_EQ(h.engine().state(a), JobState::kRunning);

  // A lower priority never preempts, however much service the running job has had.
  const JobId b = h.Submit(SubmittedAt(MakeJob(1, 8, 36000), 100));
  EXPECT_TRUE(h.Step(100).preemptions.empty());
  EXPECT_TRUE(h.Step(1000).preemptions.empty());
  EXPECT_EQ(h.engine().state(b), JobState::kPending);

  // A higher priority preempts, once it has waited 60 s.
  model::Job urgent = SubmittedAt(MakeJob(1, 8, 100), 1000);
  urgent.priority = 2;
  const JobId c = h.Submit(urgent);
  EXPECT_TRUE(h.Step(1000).preemptions.empty());
  EXPECT_EQ(h.engine().NextWakeupUs(), SecondsToUs(1060));
  EXPECT_TRUE(h.Step(1059.999999).preemptions.empty());
  const Decisions preempted = h.Step(1060);
  ASSERT_EQ(Victims(preempted), std::vector<JobId>{a});
  EXPECT_EQ(preempted.preemptions[0].reason, PreemptReason::kPriority);
  EXPECT_EQ(h.engine().state(c), JobState::kRunning);

  // The requeued job has had 8,480 device-seconds (its last queue) and `b` none, but priority
  // goes first: `a` starts when `c` ends.
  EXPECT_EQ(h.engine().attained_device_us(a), SecondsToUs(8 * 1060));
  h.Finish(c);
  const Decisions after = h.Step(1160);
  ASSERT_EQ(after.starts.size(), 1u);
  EXPECT_EQ(after.starts[0].job, a);
  EXPECT_EQ(h.engine().state(b), JobState::kPending);
}

// Checkpoint-aligned preemption by service (preemption.service_max_lost_s): a newcomer that
// outranks a running job of its priority by service takes it only within 100 s of the job's
// checkpoint (every 1,000 s here), and the engine wakes at that checkpoint; priority still
// preempts at once, whatever the victim loses.
TEST(HeadroomServiceScenario, ServicePreemptionWaitsForTheVictimsCheckpoint) {
  OneNode t;
  PolicyConfig policy = testing::Preset("headroom");
  policy.las.limits_device_s = {3250, 7200};
  policy.preemption.checkpoint_interval_us = SecondsToUs(1000);
  policy.preemption.service_max_lost_us = SecondsToUs(100);
  Harness h(t.cluster, policy);
  const JobId a = h.Submit(SubmittedAt(MakeJob(1, 8, 36000), 0));
  h.Step(0);
  ASSERT_EQ(h.engine().state(a), JobState::kRunning);

  // `a` is in the second queue from 406.25 s; at 500 s it has 500 s unsaved.
  const JobId b = h.Submit(SubmittedAt(MakeJob(1, 8, 36000), 500));
  EXPECT_TRUE(h.Step(500).preemptions.empty());
  // It crosses into the third queue at 900 s, still unsaved; its checkpoint is at 1,000 s.
  EXPECT_EQ(h.engine().NextWakeupUs(), SecondsToUs(900));
  EXPECT_TRUE(h.Step(900).preemptions.empty());
  EXPECT_EQ(h.engine().NextWakeupUs(), SecondsToUs(1000));
  const Decisions saved = h.Step(1000);
  ASSERT_EQ(Victims(saved), std::vector<JobId>{a});
  EXPECT_EQ(saved.preemptions[0].reason, PreemptReason::kLessService);
  EXPECT_EQ(saved.preemptions[0].lost_us, 0);
  EXPECT_EQ(h.engine().state(b), JobState::kRunning);

  // 500 s into `b`'s run, nothing saved: a higher priority takes it anyway.
  model::Job urgent = SubmittedAt(MakeJob(1, 8, 100), 1500);
  urgent.priority = 1;
  h.Submit(urgent);
  const Decisions urgently = h.Step(1500);
  ASSERT_EQ(Victims(urgently), std::vector<JobId>{b});
  EXPECT_EQ(urgently.preemptions[0].reason, PreemptReason::kPriority);
  EXPECT_EQ(urgently.preemptions[0].lost_us, SecondsToUs(500));
}

// The turnover budget (preemption.service_budget_device_s_per_hour) bounds what preemption by
// service alone loses, and leaves preemption by priority alone. A victim 500 s past its start
// (checkpoints hourly) loses (500 + 600 restart) s x 8 devices = 8,800 device-seconds.
TEST(HeadroomServiceScenario, TheTurnoverBudgetBoundsPreemptionByServiceNotByPriority) {
  for (const int64_t budget : {8000, 9000}) {
    SCOPED_TRACE(budget);
    OneNode t;
    PolicyConfig policy = testing::Preset("headroom");
    policy.las.limits_device_s = {3250, 7200};
    policy.preemption.service_budget_device_s_per_hour = budget;
    Harness h(t.cluster, policy);
    const JobId a = h.Submit(SubmittedAt(MakeJob(1, 8, 36000), 0));
    h.Step(0);
    // `a` is in the second queue from 406.25 s: `b` outranks it by service alone.
    const JobId b = h.Submit(SubmittedAt(MakeJob(1, 8, 36000), 500));
    const Decisions by_service = h.Step(500);
    if (budget < 8800) {
      EXPECT_TRUE(by_service.preemptions.empty());
      EXPECT_EQ(h.engine().state(b), JobState::kPending);
      // A higher priority takes `a` all the same, and spends nothing of the turnover budget.
      model::Job urgent = SubmittedAt(MakeJob(1, 8, 100), 600);
      urgent.priority = 1;
      h.Submit(urgent);
      const Decisions by_priority = h.Step(600);
      ASSERT_EQ(Victims(by_priority), std::vector<JobId>{a});
      EXPECT_EQ(by_priority.preemptions[0].reason, PreemptReason::kPriority);
      const CarriedState carried = h.engine().Carried(SecondsToUs(600));
      EXPECT_TRUE(carried.turnover_spent.empty());
      EXPECT_EQ(carried.preemption_spent.size(), 1u);
    } else {
      ASSERT_EQ(Victims(by_service), std::vector<JobId>{a});
      EXPECT_EQ(by_service.preemptions[0].reason, PreemptReason::kLessService);
      EXPECT_EQ(h.engine().Carried(SecondsToUs(500)).turnover_spent,
                (std::vector<std::pair<TimeUs, int64_t>>{{SecondsToUs(500), SecondsToUs(8800)}}));
    }
  }
}

// A service's replicas are one spread group: a newer replica outranks an older one by service
// but never takes its devices; the same newcomer with no group would.
TEST(HeadroomServiceScenario, AReplicaNeverPreemptsAReplicaOfItsOwnService) {
  for (const bool grouped : {true, false}) {
    SCOPED_TRACE(grouped ? "one service" : "no group");
    OneNode t;
    PolicyConfig policy = testing::Preset("headroom");
    policy.las.limits_device_s = {3250, 7200};
    Harness h(t.cluster, policy);
    model::Job replica = SubmittedAt(MakeJob(1, 8, 36000), 0);
    if (grouped) replica.spread_group = "service/web";
    const JobId old = h.Submit(replica);
    h.Step(0);
    ASSERT_EQ(h.engine().state(old), JobState::kRunning);
    replica.submit_time_us = SecondsToUs(1000);
    const JobId fresh = h.Submit(replica);
    bool preempted = false;
    for (double now_s = 1000; now_s <= 5000; now_s += 500) {
      preempted |= !h.Step(now_s).preemptions.empty();
    }
    EXPECT_EQ(preempted, !grouped);
    EXPECT_EQ(h.engine().state(fresh), grouped ? JobState::kPending : JobState::kRunning);
  }
}

}  // namespace
}  // namespace headroom::engine
