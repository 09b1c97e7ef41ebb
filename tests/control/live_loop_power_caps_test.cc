// LiveLoop power caps, live as the simulator has them (engine_power_caps.cc): on a rack whose
// cooling carries two four-device tasks only at 80% of their TDP, the second job starts capped
// and the first is capped beside it; both caps are in the jobs' records (journaled, shown by the
// API, handed to the agents), the backend is told, the count is a metric, and the engine log
// replays them; a restarted loop keeps them; when the first job ends, the second's cap lifts.
#include <fstream>

#include <gtest/gtest.h>

#include "control/engine_replay.h"
#include "live_loop_fixture.h"
#include "testing/h100_draw.h"

namespace headroom::control {
namespace {

using headroom::testing::H100IdleKw;
using headroom::testing::H100WorkKw;

class LiveLoopPowerCapsTest : public live_loop_testing::LiveLoopTest {
 protected:
  // One rack of two 4-H100 nodes, its cooling (and the margin the preset keeps) as above.
  std::string ClusterFile() override {
    const std::string path = dir_ + "/capped-rack.yaml";
    const double cooling_kw = (8 * H100IdleKw() + 8 * H100WorkKw(0.8)) / 0.95 + 0.05;
    std::ofstream(path) << fmt::format(R"(levels: [cluster, rack]
device_classes:
  H100: {{model: H100, memory_gib: 80}}
node_templates:
  4xH100: {{cpu_milli: 64000, memory_gib: 512, devices: {{count: 4, class: H100}}}}
topology:
  - {{name: r0, nodes: [{{count: 2, template: 4xH100}}]}}
facility:
  cooling: [{{domain: r0, capacity_kw: {}}}]
)",
                                       cooling_kw);
    return path;
  }
};

TEST_F(LiveLoopPowerCapsTest, ABudgetTheRackCannotMeetAtFullPowerIsMetWithCaps) {
  const uint64_t first = Submit(1, 4);
  ASSERT_TRUE(WaitForState(first, JobState::kRunning, 1));
  EXPECT_EQ(InState(first).placement[0].power_cap_w, 0u);

  const uint64_t second = Submit(1, 4);
  ASSERT_TRUE(WaitForState(second, JobState::kRunning, 1));
  EXPECT_EQ(InState(second).placement[0].power_cap_w, 560u);
  ASSERT_TRUE(testing::WaitFor([&] { return backend_->caps().size() == 1; }));
  EXPECT_EQ(backend_->caps()[0].id, first);
  const JobRecord capped = InState(first);
  EXPECT_EQ(capped.placement[0].power_cap_w, 560u);
  EXPECT_EQ(capped.starts, 1u);  // A cap is no new attempt.
  EXPECT_NE(capped.message.find("power capped (attempt 1) at 560 W per device, 92% of its "
                                "uncapped speed"),
            std::string::npos)
      << capped.message;
  loop_->Barrier();
  EXPECT_EQ(OnDisk(first).placement, capped.placement);
  EXPECT_EQ(OnDisk(second).placement[0].power_cap_w, 560u);
  {
    std::lock_guard lock(state_.mu);
    EXPECT_EQ(state_.power_caps_total, 1u);
  }

  // A restarted loop rebuilds its engine with both jobs under their caps, and decides nothing.
  StartLoop({});
  Iterated();
  EXPECT_EQ(backend_->caps().size(), 1u);
  EXPECT_EQ(InState(first).placement[0].power_cap_w, 560u);

  // The first ends: the second runs on uncapped.
  backend_->Report(BackendReport{.completions = {{.job = first, .exit_code = 0}}});
  loop_->Wake();
  ASSERT_TRUE(testing::WaitFor([&] { return backend_->caps().size() == 2; }));
  EXPECT_EQ(backend_->caps()[1].id, second);
  EXPECT_EQ(InState(second).placement[0].power_cap_w, 0u);
  EXPECT_NE(InState(second).message.find("power cap lifted"), std::string::npos);

  // The engine log replays: two starts and two caps come out the same.
  const EngineReplay replay = ReplayLog();
  EXPECT_EQ(replay.decisions(), 4u);
  EXPECT_EQ(replay.mismatch_count(), 0u);
}

}  // namespace
}  // namespace headroom::control
