// The packing scorers against values computed by hand from the artifact's formulas.
#include "engine/share_scorers.h"

#include <gtest/gtest.h>

namespace headroom::engine {
namespace {

NodeView Node(std::vector<uint16_t> gpu_left, int64_t cpu_left = 64000) {
  NodeView view;
  view.cpu_left = cpu_left;
  view.cpu_capacity = 96000;
  view.memory_left = 1 << 20;
  view.gpu_count = static_cast<uint32_t>(gpu_left.size());
  for (size_t g = 0; g < gpu_left.size(); ++g) view.gpu_left[g] = gpu_left[g];
  return view;
}

const ShapeTypes kAny{{{1}}};

TEST(ShareScorersTest, PolicyNamesRoundTrip) {
  for (auto name : {"random", "dotprod", "clustering", "packing", "bestfit", "fgd", "headroom"}) {
    auto policy = SharePolicyByName(name);
    ASSERT_TRUE(policy) << name;
    EXPECT_EQ(SharePolicyName(*policy), name);
  }
  auto bad = SharePolicyByName("tetris");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("\"tetris\""), std::string::npos);
}

TEST(ShareScorersTest, DotProdPrefersTheLessAlignedFreeVector) {
  const PodShape pod{16000, 1000, 1, 0};
  // 100·(1 − (64000/128000 · 16000/128000 + 8000/8000 · 1000/8000) / 2) = 100·(1 − 0.09375).
  EXPECT_EQ(ScoreShareNode(SharePolicy::kDotProd,
                           Node({1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}), pod, {})
                .score,
            90);
  EXPECT_GT(ScoreShareNode(SharePolicy::kDotProd, Node({1000, 0}), pod, {}).score, 90);
}

TEST(ShareScorersTest, PackingRanksSharedThenPartlyUsedThenEmpty) {
  const PodShape share{4000, 300, 1, 0};
  const auto score = [&](std::vector<uint16_t> left) {
    return ScoreShareNode(SharePolicy::kPacking, Node(std::move(left)), share, {}).score;
  };
  EXPECT_EQ(score({1000, 1000}), 31);  // Empty node: 100/3 − 2.
  EXPECT_EQ(score({1000, 0}), 49);     // Uses one fully free GPU: 100/2 − 1.
  EXPECT_EQ(score({400, 0}), 96);      // A shared GPU with 40% free: 100 − 40/10.
  EXPECT_EQ(ScoreShareNode(SharePolicy::kPacking, Node({1000}), {4000, 0, 0, 0}, {}).score, 0);
}

TEST(ShareScorersTest, ClusteringBandsByWhatTheNodeHosts) {
  NodeKinds kinds;
  kinds.count_by_kind.assign(kMaxShareGpus + 1, 0);
  ScoreContext context;
  context.kinds = &kinds;
  const PodShape one_gpu{4000, 1000, 1, 0};
  const NodeView half = Node({1000, 1000, 1000, 1000, 0, 0, 0, 0});
  EXPECT_EQ(ScoreShareNode(SharePolicy::kClustering, half, one_gpu, context).score, 12 + 25);
  kinds.count_by_kind[0] = 2;
  kinds.distinct = 1;
  EXPECT_EQ(ScoreShareNode(SharePolicy::kClustering, half, one_gpu, context).score, 12);
  kinds.count_by_kind[1] = 1;
  kinds.distinct = 2;
  EXPECT_EQ(ScoreShareNode(SharePolicy::kClustering, half, one_gpu, context).score, 12 + 50);
  kinds.count_by_kind[0] = 0;
  kinds.distinct = 1;
  EXPECT_EQ(ScoreShareNode(SharePolicy::kClustering, half, one_gpu, context).score, 12 + 75);
}

TEST(ShareScorersTest, BestFitScoresTheLeftoverBeforeNormalisation) {
  // 100·(1 − (0.5·(64000 − 16000)/128000 + 0.5·(2000 − 1000)/8000)) = 75.
  EXPECT_EQ(
      ScoreShareNode(SharePolicy::kBestFit, Node({1000, 1000}), {16000, 1000, 1, 0}, {}).score, 75);
}

TEST(ShareScorersTest, FgdPicksTheGpuThatGrowsFragmentationLeast) {
  const std::vector<TypicalShape> typical = {{{1000, 500, 1, 0}, 1.0}};
  ScoreContext context{&typical, &kAny, nullptr, 1};
  // A 500 share on the 600 GPU leaves 100 (fragmented for 500 shares: +100); on the fully free
  // GPU it leaves 500, still usable (+0), so that GPU wins.
  const NodeScore score =
      ScoreShareNode(SharePolicy::kFgd, Node({600, 1000}), {1000, 500, 1, 0}, context);
  EXPECT_EQ(score.gpu, 1);
  EXPECT_EQ(score.score, 50);  // sigmoid(0)·100.
  const NodeScore worse =
      ScoreShareNode(SharePolicy::kFgd, Node({600}), {1000, 500, 1, 0}, context);
  EXPECT_EQ(worse.gpu, 0);
  EXPECT_EQ(worse.score, 47);  // int(sigmoid(−0.1)·100).
}

TEST(ShareScorersTest, HeadroomCountsGpusTheCpuCanNoLongerFeed) {
  const std::vector<TypicalShape> typical = {{{8000, 1000, 1, 0}, 1.0}};
  const std::vector<double> no_scarcity(1, 0);
  ScoreContext context{&typical, &kAny, nullptr, 8.0, &no_scarcity};  // 8 CPU per GPU milli.
  // Both nodes keep frag 0 for the typical task, but the CPU-heavy task leaves the first with
  // 8000 CPU for 3000 free GPU milli: 2000 milli stranded.
  const PodShape heavy{24000, 1000, 1, 0};
  const int64_t tight =
      ScoreShareNode(SharePolicy::kHeadroom, Node({1000, 1000, 1000, 1000}, 32000), heavy, context)
          .score;
  const int64_t roomy =
      ScoreShareNode(SharePolicy::kHeadroom, Node({1000, 1000, 1000, 1000}, 64000), heavy, context)
          .score;
  EXPECT_LT(tight, roomy);
}

TEST(ShareScorersTest, HeadroomKeepsAPairableGpuForItsPair) {
  // Mix: 810, 470, 650, 320 milli. GPU 0 holds a lone 470 (530 free), GPU 1 a lone 320 (680).
  const std::vector<TypicalShape> typical = {{{1000, 810, 1, 0}, 0.4},
                                             {{1000, 470, 1, 0}, 0.3},
                                             {{1000, 650, 1, 0}, 0.1},
                                             {{1000, 320, 1, 0}, 0.2}};
  const std::vector<double> no_scarcity(1, 0);
  const PackingValues packing(typical);
  ScoreContext context{&typical, &kAny, nullptr, 1, &no_scarcity, &packing};
  const PodShape share{1000, 320, 1, 0};
  // FGD's gradient sees fragmentation fall most when the 320 joins the 470 (530 free is
  // unusable by 810 and 650; 210 by all, but there is less of it)...
  EXPECT_EQ(ScoreShareNode(SharePolicy::kFgd, Node({530, 680, 1000}), share, context).gpu, 0);
  // ...which leaves 210 milli that nothing in the mix fits, where a second 470 would have left
  // 60. headroom puts the 320 with the other 320, a best packing (three 320s, or a 650).
  EXPECT_EQ(ScoreShareNode(SharePolicy::kHeadroom, Node({530, 680, 1000}), share, context).gpu, 1);
  // Across nodes too: the node whose GPU the 320 would spoil scores lower.
  EXPECT_LT(ScoreShareNode(SharePolicy::kHeadroom, Node({530}), share, context).score,
            ScoreShareNode(SharePolicy::kHeadroom, Node({680}), share, context).score);
}

TEST(ShareScorersTest, AfterPlacingTakesTheLeastFreeGpusThatFit) {
  const NodeView after = AfterPlacing(Node({1000, 400, 1000, 1000}, 10000), {2000, 1000, 2, 0}, -1);
  EXPECT_EQ(after.cpu_left, 8000);
  EXPECT_EQ(after.gpu_left[0], 0);
  EXPECT_EQ(after.gpu_left[1], 400);
  EXPECT_EQ(after.gpu_left[2], 0);
  EXPECT_EQ(after.gpu_left[3], 1000);
  EXPECT_EQ(TightestGpu(Node({1000, 400, 700}), {0, 300, 1, 0}), 1);
  EXPECT_EQ(TightestGpu(Node({200}), {0, 300, 1, 0}), -1);
}

}  // namespace
}  // namespace headroom::engine

namespace headroom::engine {
namespace {

TEST(ShareScorersTest, ScarcityComparesConstrainedDemandWithCapacity) {
  // Models 0 and 1 hold 75% and 25% of the GPUs. Half the demand (by milli) may only use
  // model 1; the other half anything.
  ShapeTypes types{{{1, 1}, {0, 1}}};
  const std::vector<TypicalShape> typical = {{{1000, 1000, 1, 1}, 0.5}, {{1000, 1000, 1, 0}, 0.5}};
  const std::vector<double> scarcity = ModelScarcity(typical, types, {0.75, 0.25});
  EXPECT_DOUBLE_EQ(scarcity[0], 0);
  EXPECT_DOUBLE_EQ(scarcity[1], 1);  // 0.5 of demand for 0.25 of capacity, capped at 1.
  // A flexible pod prefers the plentiful model when all else is equal.
  ScoreContext context{&typical, &types, nullptr, 1, &scarcity};
  NodeView plentiful;
  plentiful.cpu_left = plentiful.cpu_capacity = 64000;
  plentiful.gpu_count = 2;
  plentiful.gpu_left = {1000, 1000};
  NodeView scarce = plentiful;
  scarce.model = 1;
  const PodShape flexible{1000, 1000, 1, 0};
  EXPECT_GT(ScoreShareNode(SharePolicy::kHeadroom, plentiful, flexible, context).score,
            ScoreShareNode(SharePolicy::kHeadroom, scarce, flexible, context).score);
  EXPECT_EQ(ModelScarcity({{{1000, 1000, 1, 0}, 1.0}}, types, {0.5, 0.5}),
            (std::vector<double>{0, 0}));
}

}  // namespace
}  // namespace headroom::engine
