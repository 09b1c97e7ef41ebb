// FairShareTree (fair_tree.h): Slurm's Fair Tree ranks tenants by Level Fairshare down the queue
// tree, so a queue that used more than its share puts every one of its tenants behind every
// tenant of a sibling queue that used less; ties share ranks as Slurm's documentation states.
#include "engine/fair_share_tree.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

namespace headroom::engine {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using V = std::vector<double>;

// root ─ A (share a) ─ tenants 0, 1
//      └ B (share b) ─ tenant 2
FairShareTree TwoTeams(double a = 1, double b = 1) {
  FairShareTree tree({0, 0, 0}, {1, a, b});
  tree.Place(TenantId(0), 1);
  tree.Place(TenantId(1), 1);
  tree.Place(TenantId(2), 2);
  return tree;
}

// https://slurm.schedmd.com/classic_fair_share.html, "Example": accounts A (40 shares: B 30,
// C 10) and D (60: E 25, F 35); user 1 in B, users 2 and 3 in C, 4 in E, 5 in F, having used
// 0.2, 0.25, 0, 0.25 and 0 of the machine. A sixth tenant at the root with no share holds the
// remaining 0.3, so that usage shares of the whole match the example's.
TEST(ClassicFairShareTest, ReproducesSlurmsWorkedExample) {
  FairShareTree tree({0, 0, 1, 1, 0, 4, 4}, {1, 40, 30, 10, 60, 25, 35});
  const uint32_t node_of_user[] = {2, 3, 3, 5, 6, 0};
  for (uint32_t t = 0; t < 6; ++t) tree.Place(TenantId(t), node_of_user[t]);
  const std::vector<double> factors =
      tree.ClassicFactors(V{0.2, 0.25, 0, 0.25, 0, 0.3}, V{1, 1, 1, 1, 1, 0});
  const double published[] = {0.408479, 0.022097, 0.125000, 0.500000, 0.749154};
  for (size_t user = 0; user < 5; ++user) EXPECT_NEAR(factors[user], published[user], 1e-5);
  EXPECT_EQ(factors[5], 0);  // No share: the lowest factor.
}

TEST(ClassicFairShareTest, WithoutQueuesItIsTwoToTheMinusUsageOverShare) {
  FairShareTree tree;
  tree.Grow(2);
  // U = 3/4 and 1/4 of the usage; S = 1/2 each.
  const std::vector<double> factors = tree.ClassicFactors(V{30, 10}, V{1, 1});
  EXPECT_DOUBLE_EQ(factors[0], std::exp2(-1.5));
  EXPECT_DOUBLE_EQ(factors[1], std::exp2(-0.5));
  EXPECT_EQ(tree.ClassicFactors(V{0, 0}, V{1, 1}), (V{1, 1}));
}

TEST(FairTreeTest, EveryTenantOfAnOverServedQueueRanksBelowTheOtherQueuesTenants) {
  const FairShareTree tree = TwoTeams();
  // Team A used 90 (all by tenant 0), team B 10: tenant 1 used nothing, yet A is over its
  // half, so tenant 1 ranks below tenant 2 (the classic 2^(-U/S) would put tenant 1 first).
  const std::vector<double> usage = {90, 0, 10};
  const std::vector<double> shares = {1, 1, 1};
  EXPECT_EQ(tree.FairTreeFactors(usage, shares), (std::vector<double>{1.0 / 3, 2.0 / 3, 1.0}));

  const std::vector<FairShareTree::Level> levels = tree.Levels(usage, shares);
  EXPECT_DOUBLE_EQ(levels[1].usage, 90);
  EXPECT_DOUBLE_EQ(levels[1].share, 0.5);
  EXPECT_DOUBLE_EQ(levels[1].level_fs, 0.5 / 0.9);
  EXPECT_DOUBLE_EQ(levels[2].level_fs, 0.5 / 0.1);
  EXPECT_DOUBLE_EQ(levels[0].usage, 100);
}

TEST(FairTreeTest, SharesWeighTheLevels) {
  // A has three times B's share and used three times as much: both are served exactly as
  // entitled (LF 1), so they are walked as one and the tenants ranked together by their own
  // LF: tenant 2 (all of B, LF 1) ties with nobody, tenants 0 and 1 split A's usage 1:2.
  const FairShareTree tree = TwoTeams(3, 1);
  const std::vector<double> shares = {1, 1, 1};
  const std::vector<FairShareTree::Level> levels = tree.Levels(V{30, 60, 30}, shares);
  EXPECT_DOUBLE_EQ(levels[1].level_fs, 1.0);
  EXPECT_DOUBLE_EQ(levels[2].level_fs, 1.0);
  // Tenant LFs within their queues: 0 → 0.5/(1/3) = 1.5, 1 → 0.5/(2/3) = 0.75, 2 → 1.
  EXPECT_EQ(tree.FairTreeFactors(V{30, 60, 30}, shares),
            (std::vector<double>{1.0, 1.0 / 3, 2.0 / 3}));
}

TEST(FairTreeTest, WithNoUsageEveryoneTiesAtTheTop) {
  const FairShareTree tree = TwoTeams();
  EXPECT_EQ(tree.FairTreeFactors(V{0, 0, 0}, V{1, 1, 1}), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(tree.Levels(V{0, 0, 0}, V{1, 1, 1})[1].level_fs, kInf);
}

TEST(FairTreeTest, TiedTenantsShareARankAndTheNextSkipsPastThem) {
  // A flat tree (no queues): four tenants below the root.
  FairShareTree tree({0}, {1});
  for (uint32_t t = 0; t < 4; ++t) tree.Place(TenantId(t), 0);
  // Tenants 0 and 1 used the same, 2 more, 3 nothing: ranks 4 (tenant 3), 3, 3, then 1.
  EXPECT_EQ(tree.FairTreeFactors(V{10, 10, 40, 0}, V{1, 1, 1, 1}),
            (std::vector<double>{0.75, 0.75, 0.25, 1.0}));
}

TEST(FairTreeTest, TenantSharesWeighWithinTheirQueue) {
  const FairShareTree tree = TwoTeams();
  // Tenant 0 has share 3 within A: S = 3/4 for it, 1/4 for tenant 1.
  EXPECT_EQ(tree.TenantShares(V{3, 1, 1}), (std::vector<double>{0.75, 0.25, 1.0}));
  // A used 60 (tenant 0: 45, tenant 1: 15), B 60: A and B tie (LF 1); tenant 0's LF is
  // 0.75/0.75 = 1, tenant 1's 0.25/0.25 = 1, tenant 2's 1: all three tie.
  EXPECT_EQ(tree.FairTreeFactors(V{45, 15, 60}, V{3, 1, 1}), (std::vector<double>{1, 1, 1}));
}

TEST(FairTreeTest, DeeperQueuesRankWithinTheirBranch) {
  // root ─ org (1) ─ x (1) ─ tenant 0
  //      │         └ y (1) ─ tenant 1
  //      └ solo (1) ─ tenant 2
  FairShareTree tree({0, 0, 1, 1, 0}, {1, 1, 1, 1, 1});
  tree.Place(TenantId(0), 2);
  tree.Place(TenantId(1), 3);
  tree.Place(TenantId(2), 4);
  // org used 80 of 100: under-served solo's tenant first, then y (20 of org's 80) before x.
  EXPECT_EQ(tree.FairTreeFactors(V{60, 20, 20}, V{1, 1, 1}),
            (std::vector<double>{1.0 / 3, 2.0 / 3, 1.0}));
}

// The promise, over random trees and usage: when sibling queues differ in LF, every tenant
// below the higher ranks strictly above every tenant below the lower; factors lie in (0, 1].
RC_GTEST_PROP(FairTreeProperty, AHigherLevelFairshareLiftsTheWholeBranch, ()) {
  const auto queues = *rc::gen::inRange<uint32_t>(1, 9);
  std::vector<uint32_t> parents = {0};
  std::vector<double> shares = {1};
  for (uint32_t q = 1; q <= queues; ++q) {
    parents.push_back(*rc::gen::inRange<uint32_t>(0, q));
    shares.push_back(*rc::gen::inRange(1, 5));
  }
  std::vector<bool> has_children(parents.size(), false);
  for (uint32_t q = 1; q < parents.size(); ++q) has_children[parents[q]] = true;
  std::vector<uint32_t> leaves;
  for (uint32_t q = 1; q < parents.size(); ++q) {
    if (!has_children[q]) leaves.push_back(q);
  }
  FairShareTree tree(parents, shares);
  const auto tenants = *rc::gen::inRange<uint32_t>(1, 12);
  std::vector<uint32_t> leaf_of(tenants);
  std::vector<double> usage(tenants);
  std::vector<double> tenant_shares(tenants);
  for (uint32_t t = 0; t < tenants; ++t) {
    leaf_of[t] = leaves[*rc::gen::inRange<size_t>(0, leaves.size())];
    tree.Place(TenantId(t), leaf_of[t]);
    usage[t] = *rc::gen::inRange(0, 4) * 10.0;  // Coarse, so ties happen.
    tenant_shares[t] = *rc::gen::inRange(1, 3);
  }
  const std::vector<double> factors = tree.FairTreeFactors(usage, tenant_shares);
  const std::vector<FairShareTree::Level> levels = tree.Levels(usage, tenant_shares);
  auto below = [&](uint32_t t, uint32_t q) {
    for (uint32_t a = leaf_of[t]; a != 0; a = parents[a]) {
      if (a == q) return true;
    }
    return false;
  };
  for (uint32_t t = 0; t < tenants; ++t) RC_ASSERT(factors[t] > 0 && factors[t] <= 1);
  for (uint32_t p = 1; p < parents.size(); ++p) {
    for (uint32_t q = 1; q < parents.size(); ++q) {
      // Levels within rounding of each other tie (fair_tree.cc's SameLevel).
      if (parents[p] != parents[q] || !(levels[p].level_fs > levels[q].level_fs * (1 + 1e-9))) {
        continue;
      }
      for (uint32_t s = 0; s < tenants; ++s) {
        for (uint32_t t = 0; t < tenants; ++t) {
          if (below(s, p) && below(t, q)) RC_ASSERT(factors[s] > factors[t]);
        }
      }
    }
  }
}

}  // namespace
}  // namespace headroom::engine
