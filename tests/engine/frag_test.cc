// FGD's fragmentation measure on hand-built nodes, with the numbers worked out by hand.
#include "engine/frag.h"

#include <gtest/gtest.h>

namespace headroom::engine {
namespace {

NodeView Node(std::vector<uint16_t> gpu_left, int64_t cpu_left = 32000, uint32_t model = 0) {
  NodeView view;
  view.cpu_left = cpu_left;
  view.cpu_capacity = 64000;
  view.memory_left = 1 << 20;
  view.model = model;
  view.gpu_count = static_cast<uint32_t>(gpu_left.size());
  for (size_t g = 0; g < gpu_left.size(); ++g) view.gpu_left[g] = gpu_left[g];
  return view;
}

ShapeTypes AnyModel() {
  ShapeTypes types;
  types.accepts.push_back({1, 1});
  types.accepts.push_back({0, 1});  // Type 1: model 1 only.
  return types;
}

TEST(FragTest, ShareThatFitsCountsOnlyTheGpusTooSmallForIt) {
  const NodeView node = Node({1000, 300, 600, 0});
  EXPECT_EQ(ShapeFragMilli(node, {4000, 500, 1, 0}, AnyModel()), 300);
}

TEST(FragTest, TaskThatCannotRunCountsEveryFreeMilli) {
  const ShapeTypes types = AnyModel();
  const NodeView node = Node({1000, 300, 600, 0});
  EXPECT_EQ(ShapeFragMilli(node, {4000, 1000, 2, 0}, types), 1900);  // One whole GPU only.
  EXPECT_EQ(ShapeFragMilli(node, {64000, 500, 1, 0}, types), 1900);  // Lacks CPU.
  EXPECT_EQ(ShapeFragMilli(node, {1000, 0, 0, 0}, types), 1900);     // Wants no GPU.
  EXPECT_EQ(ShapeFragMilli(node, {1000, 100, 1, 1}, types), 1900);   // Wrong model.
  EXPECT_EQ(ShapeFragMilli(Node({1000}, 32000, 1), {1000, 100, 1, 1}, types), 0);
}

TEST(FragTest, NodeFragIsTheWeightedSumOverTypicalShapes) {
  const NodeView node = Node({1000, 300, 600, 0});
  const std::vector<TypicalShape> typical = {
      {{4000, 500, 1, 0}, 0.5}, {{4000, 1000, 1, 0}, 0.25}, {{1000, 0, 0, 0}, 0.25}};
  // 0.5·300 + 0.25·(300 + 600) + 0.25·1900.
  EXPECT_DOUBLE_EQ(NodeFragMilli(node, typical, AnyModel()), 150 + 225 + 475);
}

TEST(FragTest, TypicalShapesKeepTheMostFrequentUntilCoverageAndRenormalise) {
  std::vector<PodShape> workload;
  for (int i = 0; i < 6; ++i) workload.push_back({1000, 1000, 1, 0});
  for (int i = 0; i < 3; ++i) workload.push_back({2000, 500, 1, 0});
  workload.push_back({8000, 0, 0, 0});
  const auto typical = TypicalShapes(workload, 0.8);
  ASSERT_EQ(typical.size(), 2u);  // 60% + 30% reaches 80%; the CPU task is cut.
  EXPECT_EQ(typical[0].shape, (PodShape{1000, 1000, 1, 0}));
  EXPECT_DOUBLE_EQ(typical[0].weight, 6.0 / 9);
  EXPECT_DOUBLE_EQ(typical[1].weight, 3.0 / 9);
}

TEST(FragTest, EqualCountsOrderTheLargerShapeFirst) {
  const auto typical = TypicalShapes({{1000, 500, 1, 0}, {2000, 500, 1, 0}}, 1.0);
  ASSERT_EQ(typical.size(), 2u);
  EXPECT_EQ(typical[0].shape.cpu_milli, 2000);
}

}  // namespace
}  // namespace headroom::engine
