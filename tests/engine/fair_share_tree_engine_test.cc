// Fair share among queues in the engine (fair_share_tree.h through fair_share.h and the
// multifactor order): on two 8-device nodes, a team that used more than its share waits behind
// the other team, even for a tenant of its own that used nothing — under both of Slurm's
// algorithms, where without queues that tenant would go first; a queue's share weighs its
// usage; the levels are reported by queue and carried across a restart.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/quota_yaml.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using testing::Harness;
using testing::MakeCluster;
using testing::MakeJob;

constexpr std::string_view kTeams = R"(queues:
  - {name: team-a, tenants: [a1, a2]}
  - {name: team-b, tenants: [b1]}
)";

constexpr std::string_view kTeamAWeighsThree = R"(queues:
  - {name: team-a, share: 3, tenants: [a1, a2]}
  - {name: team-b, tenants: [b1]}
)";

PolicyConfig FairShareOnly(std::string_view queues_yaml,
                           FairShareAlgorithm algorithm = FairShareAlgorithm::kClassic) {
  PolicyConfig policy = testing::Preset("headroom");
  policy.queue_order = "multifactor";
  policy.multifactor.age = 0;
  policy.multifactor.fairshare = 1;
  policy.multifactor.job_size = 0;
  policy.multifactor.qos = 0;
  policy.multifactor.recalc_period_us = 60 * kUsPerSecond;
  policy.multifactor.fairshare_algorithm = algorithm;
  if (!queues_yaml.empty()) {
    auto queues = ParseQueuesYaml(queues_yaml, "queues.yaml");
    EXPECT_TRUE(queues.has_value()) << (queues ? "" : queues.error().message);
    if (queues) policy.queues = *queues;
  }
  EXPECT_TRUE(ValidatePolicy(policy).has_value());
  return policy;
}

model::Job Of(std::string tenant, model::Job job) {
  job.tenant = std::move(tenant);
  return job;
}

// a1 holds 12 devices and b1 4 for 1,000 s; then b1's job ends and a2 and b1 each ask for the
// 4 devices freed, a2 first. Returns who started: a2's job, b1's job.
struct Contest {
  JobId a2;
  JobId b1;
};
Contest RunContest(Harness& h) {
  h.Submit(Of("a1", MakeJob(1, 8, 5000)));
  h.Submit(Of("a1", MakeJob(1, 4, 5000)));
  const JobId b_first = h.Submit(Of("b1", MakeJob(1, 4, 5000)));
  h.Step(0);
  h.Finish(b_first);
  const Contest contest{h.Submit(Of("a2", MakeJob(1, 4, 5000))),
                        h.Submit(Of("b1", MakeJob(1, 4, 5000)))};
  h.Step(1000);
  return contest;
}

TEST(FairShareScenario, ClassicChargesATeamsUsageToEachOfItsTenants) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  Harness h(cluster, FairShareOnly(kTeams));
  const Contest contest = RunContest(h);
  EXPECT_EQ(h.engine().state(contest.b1), JobState::kRunning);
  EXPECT_EQ(h.engine().state(contest.a2), JobState::kPending);
  // S = 1/3 per queue (with (unqueued)), 1/6 per tenant of team-a; U(team-a) = 0.75, so
  // UE(a2) = 0 + 0.75 · 1/2, UE(a1) = 0.75, UE(b1) = 0.25.
  const std::vector<Engine::TenantFairShare> tenants = h.engine().TenantFairShares();
  ASSERT_EQ(tenants.size(), 3u);
  EXPECT_DOUBLE_EQ(tenants[0].factor, std::exp2(-0.75 * 6));
  EXPECT_DOUBLE_EQ(tenants[1].factor, std::exp2(-0.375 * 6));
  EXPECT_DOUBLE_EQ(tenants[2].factor, std::exp2(-0.25 * 3));
}

TEST(FairShareScenario, WithoutQueuesTheTenantThatUsedNothingGoesFirst) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  Harness h(cluster, FairShareOnly(""));
  const Contest contest = RunContest(h);
  EXPECT_EQ(h.engine().state(contest.a2), JobState::kRunning);
  EXPECT_EQ(h.engine().state(contest.b1), JobState::kPending);
  EXPECT_TRUE(h.engine().QueueFairShares().empty());
}

TEST(FairShareScenario, FairTreePutsEveryTenantOfATeamOverItsShareBehindTheOtherTeam) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  Harness h(cluster, FairShareOnly(kTeams, FairShareAlgorithm::kFairTree));
  const Contest contest = RunContest(h);
  // team-a used 12,000 device-s of 16,000 against half the shares: LF 0.5/0.75; team-b 2.
  EXPECT_EQ(h.engine().state(contest.b1), JobState::kRunning);
  EXPECT_EQ(h.engine().state(contest.a2), JobState::kPending);

  const std::vector<Engine::QueueFairShare> queues = h.engine().QueueFairShares();
  ASSERT_EQ(queues.size(), 3u);  // team-a, team-b, (unqueued).
  EXPECT_EQ(queues[0].queue, "team-a");
  EXPECT_DOUBLE_EQ(queues[0].usage_device_s, 12000);
  EXPECT_DOUBLE_EQ(queues[0].share, 1.0 / 3);  // (unqueued) is a sibling with share 1.
  EXPECT_DOUBLE_EQ(queues[1].usage_device_s, 4000);
  EXPECT_DOUBLE_EQ(queues[1].level_fairshare, (1.0 / 3) / 0.25);
  EXPECT_EQ(queues[2].queue, "(unqueued)");
  // Tenants: b1 ranks first, then a2 (no usage, in the over-served team), then a1.
  const std::vector<Engine::TenantFairShare> tenants = h.engine().TenantFairShares();
  ASSERT_EQ(tenants.size(), 3u);
  EXPECT_EQ(tenants[0].tenant, "a1");
  EXPECT_DOUBLE_EQ(tenants[0].factor, 1.0 / 3);
  EXPECT_DOUBLE_EQ(tenants[0].share, 0.5);  // Within team-a.
  EXPECT_EQ(tenants[1].tenant, "a2");
  EXPECT_DOUBLE_EQ(tenants[1].factor, 2.0 / 3);
  EXPECT_EQ(tenants[2].tenant, "b1");
  EXPECT_DOUBLE_EQ(tenants[2].factor, 1.0);
}

TEST(FairShareScenario, AQueuesShareWeighsItsUsage) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  // team-a's share of 3 of 5 against 75% of the usage, team-b's 1 of 5 against 25%: both are
  // served as entitled (LF 0.8, up to rounding), so their tenants rank together and a2, who
  // used nothing, comes before b1, who used all of team-b's.
  Harness h(cluster, FairShareOnly(kTeamAWeighsThree, FairShareAlgorithm::kFairTree));
  const Contest contest = RunContest(h);
  EXPECT_EQ(h.engine().state(contest.a2), JobState::kRunning);
  EXPECT_EQ(h.engine().state(contest.b1), JobState::kPending);
  EXPECT_DOUBLE_EQ(h.engine().QueueFairShares()[0].share, 0.6);
}

TEST(FairShareScenario, UsageCarriedToANewEngineKeepsTheQueuesRanked) {
  // A restarted daemon (carried_state.h) ranks the teams as before the restart.
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  const PolicyConfig policy = FairShareOnly(kTeams);
  Harness before(cluster, policy);
  RunContest(before);
  Engine after(cluster, policy, before.engine().Carried(SecondsToUs(1000)));
  const std::vector<Engine::QueueFairShare> queues = after.QueueFairShares();
  ASSERT_EQ(queues.size(), 3u);
  EXPECT_DOUBLE_EQ(queues[0].usage_device_s, 12000);
  EXPECT_DOUBLE_EQ(queues[1].usage_device_s, 4000);
  const std::vector<Engine::TenantFairShare> tenants = after.TenantFairShares();
  ASSERT_EQ(tenants.size(), 3u);
  EXPECT_DOUBLE_EQ(tenants[2].factor, before.engine().TenantFairShares()[2].factor);
  EXPECT_GT(tenants[2].factor, tenants[1].factor);  // b1 before a2 before a1.
  EXPECT_GT(tenants[1].factor, tenants[0].factor);
}

}  // namespace
}  // namespace headroom::engine
