// Tests for SplitGang, the rule every trace loader uses to turn a device count into tasks.
#include "sim/traces/gang_split.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace headroom::sim {
namespace {

void ExpectGang(uint64_t devices, uint64_t nodes, uint32_t max, uint32_t tasks, uint32_t each) {
  const GangShape gang = SplitGang(devices, nodes, max);
  EXPECT_EQ(gang.task_count, tasks) << devices << " on " << nodes << " (max " << max << ")";
  EXPECT_EQ(gang.devices_per_task, each) << devices << " on " << nodes << " (max " << max << ")";
}

TEST(TraceGangSplitTest, FollowsTheTraceWhenItDividesAndFits) {
  ExpectGang(8, 4, 8, 4, 2);
  ExpectGang(28, 7, 8, 7, 4);
  ExpectGang(8, 8, 8, 8, 1);
  ExpectGang(1, 1, 8, 1, 1);
}

TEST(TraceGangSplitTest, OtherwiseFewestEqualTasksThatFit) {
  ExpectGang(16, 0, 8, 2, 8);
  ExpectGang(64, 0, 8, 8, 8);
  ExpectGang(8, 1, 4, 2, 4);
  ExpectGang(3, 2, 8, 1, 3);
  ExpectGang(20, 0, 8, 3, 7);  // Rounds up to 21 devices; documented.
  ExpectGang(5, 0, 8, 1, 5);
}

TEST(TraceGangSplitTest, CpuOnlyJobsKeepTheirNodes) {
  ExpectGang(0, 0, 8, 1, 0);
  ExpectGang(0, 8, 8, 8, 0);
}

RC_GTEST_PROP(TraceGangSplitTest, GangHoldsTheDevicesAndFitsANode, ()) {
  const auto devices = *rc::gen::inRange<uint64_t>(1, 5000);
  const auto nodes = *rc::gen::inRange<uint64_t>(0, 600);
  const auto max = *rc::gen::inRange<uint32_t>(1, 65);
  const GangShape gang = SplitGang(devices, nodes, max);
  RC_ASSERT(gang.task_count >= 1u);
  RC_ASSERT(gang.devices_per_task >= 1u);
  RC_ASSERT(gang.devices_per_task <= max);
  const uint64_t total = uint64_t{gang.task_count} * gang.devices_per_task;
  RC_ASSERT(total >= devices);
  RC_ASSERT(total < devices + gang.task_count);
}

}  // namespace
}  // namespace headroom::sim
