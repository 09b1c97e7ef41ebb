// DeviceWithdrawn: a device whose health keeps new work off it is never allocated — not by a
// start, a move, nor a preemption's search — while the work already on it runs on; what that
// work frees is held until the device returns, and the books stay whole throughout.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/event.h"
#include "engine/presets.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::JobOf;
using testing::ShareJobOf;
using testing::TinyCluster;

constexpr TimeUs kSecond = kUsPerSecond;

PolicyConfig Preset(const char* name) {
  auto policy = PresetPolicy(name);
  EXPECT_TRUE(policy.has_value());
  return *policy;
}

std::set<uint32_t> DevicesOf(const StartJob& start) {
  std::set<uint32_t> out;
  for (const TaskAllocation& task : start.tasks) {
    for (DeviceId device : task.devices) out.insert(device.value());
  }
  return out;
}

TEST(DeviceWithdrawnTest, AWithdrawnDeviceTakesNoNewWorkUntilReturned) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 4}}).Build();
  Engine engine(cluster, Preset("fifo"));
  std::vector<Event> first = {DeviceWithdrawn{DeviceId(1), true},
                              JobSubmitted{JobId(0), JobOf(1, 4)}};
  EXPECT_TRUE(engine.Step(first, 0).starts.empty());  // Three usable devices: no room for four.
  EXPECT_EQ(engine.cluster_state().whole_free(NodeId(0), DeviceClassId(0)), 3u);
  std::vector<Event> cancel = {JobCancelled{JobId(0)}, JobSubmitted{JobId(1), JobOf(1, 3)}};
  Decisions decisions = engine.Step(cancel, kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(DevicesOf(decisions.starts[0]), (std::set<uint32_t>{0, 2, 3}));
  EXPECT_EQ(engine.CheckInvariants(), "");

  std::vector<Event> returned = {DeviceWithdrawn{DeviceId(1), false},
                                 JobSubmitted{JobId(2), JobOf(1, 1)}};
  decisions = engine.Step(returned, 2 * kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(DevicesOf(decisions.starts[0]), (std::set<uint32_t>{1}));
  EXPECT_EQ(engine.CheckInvariants(), "");
}

TEST(DeviceWithdrawnTest, WorkOnAWithdrawnDeviceRunsOnAndWhatItFreesIsHeld) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 2}}).Build();
  Engine engine(cluster, Preset("fifo"));
  std::vector<Event> submit = {JobSubmitted{JobId(0), ShareJobOf(1, 500)}};
  Decisions decisions = engine.Step(submit, 0);
  ASSERT_EQ(decisions.starts.size(), 1u);
  const DeviceId shared = decisions.starts[0].tasks[0].devices[0];

  // The shared device is withdrawn: job 0 keeps running; a share that would fit beside it goes
  // to the other device, and a second one finds no room.
  std::vector<Event> withdraw = {DeviceWithdrawn{shared, true},
                                 JobSubmitted{JobId(1), ShareJobOf(1, 400)}};
  decisions = engine.Step(withdraw, kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_NE(decisions.starts[0].tasks[0].devices[0], shared);
  EXPECT_EQ(engine.state(JobId(0)), JobState::kRunning);
  EXPECT_EQ(engine.cluster_state().free_milli(shared), 0u);
  EXPECT_EQ(engine.cluster_state().held_milli(shared), 500u);
  EXPECT_EQ(engine.CheckInvariants(), "");

  std::vector<Event> finish = {JobFinished{JobId(0)}, JobSubmitted{JobId(2), JobOf(1, 1)}};
  decisions = engine.Step(finish, 2 * kSecond);
  EXPECT_TRUE(decisions.starts.empty());  // The freed device stays out of use.
  EXPECT_EQ(engine.cluster_state().held_milli(shared), 1000u);
  EXPECT_EQ(engine.cluster_state().free_milli(shared), 0u);
  EXPECT_EQ(engine.CheckInvariants(), "");

  std::vector<Event> returned = {DeviceWithdrawn{shared, false}};
  decisions = engine.Step(returned, 3 * kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(decisions.starts[0].tasks[0].devices[0], shared);
  EXPECT_EQ(engine.cluster_state().held_milli(shared), 0u);
  EXPECT_EQ(engine.CheckInvariants(), "");
}

// A rebuilt engine learns of a withdrawal before it restores the job running on the device (the
// daemon's order): the job is restored in place, and what it frees stays held.
TEST(DeviceWithdrawnTest, AJobOnAWithdrawnDeviceIsRestoredInPlace) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 2}}).Build();
  Engine engine(cluster, Preset("fifo"));
  const TaskAllocation task{.node = NodeId(0), .devices = {DeviceId(1)}};
  std::vector<Event> rebuild = {DeviceWithdrawn{DeviceId(1), true},
                                JobRestored{JobId(0), JobOf(1, 1), {task}, 0}};
  engine.Step(rebuild, kSecond);
  EXPECT_EQ(engine.state(JobId(0)), JobState::kRunning);
  EXPECT_EQ(engine.cluster_state().held_milli(DeviceId(1)), 0u);
  EXPECT_EQ(engine.CheckInvariants(), "");
  std::vector<Event> finish = {JobFinished{JobId(0)}};
  engine.Step(finish, 2 * kSecond);
  EXPECT_EQ(engine.cluster_state().held_milli(DeviceId(1)), 1000u);
  EXPECT_EQ(engine.cluster_state().free_milli(DeviceId(1)), 0u);
  EXPECT_EQ(engine.CheckInvariants(), "");
}

TEST(DeviceWithdrawnTest, AWithdrawalOfAnUnknownDeviceChangesNothing) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 2}}).Build();
  Engine engine(cluster, Preset("fifo"));
  std::vector<Event> events = {DeviceWithdrawn{DeviceId(99), true},
                               JobSubmitted{JobId(0), JobOf(1, 2)}};
  EXPECT_EQ(engine.Step(events, 0).starts.size(), 1u);
  EXPECT_EQ(engine.CheckInvariants(), "");
}

// A degraded device takes the work of a job that accepts degraded devices, and of no other;
// what that work frees is held back again.
TEST(DeviceWithdrawnTest, ADegradedDeviceTakesOnlyWorkThatAcceptsIt) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 4}}).Build();
  Engine engine(cluster, Preset("fifo"));
  std::vector<Event> first = {DeviceWithdrawn{DeviceId(1), true, true},
                              JobSubmitted{JobId(0), JobOf(1, 4)}};
  EXPECT_TRUE(engine.Step(first, 0).starts.empty());  // Three devices it may use.
  EXPECT_EQ(engine.cluster_state().free_milli(DeviceId(1)), 0u);
  const PendingStatus why = engine.Explain(JobId(0), ExplainDetail::kNodes);
  ASSERT_EQ(why.nodes.size(), 1u);
  EXPECT_EQ(why.nodes[0].constraint,
            "with room only on degraded devices, which the job does not accept");

  model::Job accepting = JobOf(1, 4);
  accepting.accepts_degraded = true;
  std::vector<Event> second = {JobCancelled{JobId(0)}, JobSubmitted{JobId(1), accepting}};
  Decisions decisions = engine.Step(second, kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(DevicesOf(decisions.starts[0]), (std::set<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(engine.cluster_state().held_milli(DeviceId(1)), 0u);
  EXPECT_EQ(engine.CheckInvariants(), "");

  // Ended, it leaves the degraded device held back: a job of one device that does not accept
  // it gets another, and the next such job waits.
  std::vector<Event> third = {JobFinished{JobId(1)}, JobSubmitted{JobId(2), JobOf(1, 3)},
                              JobSubmitted{JobId(3), JobOf(1, 1)}};
  decisions = engine.Step(third, 2 * kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(DevicesOf(decisions.starts[0]), (std::set<uint32_t>{0, 2, 3}));
  EXPECT_EQ(engine.state(JobId(3)), JobState::kPending);
  EXPECT_EQ(engine.cluster_state().held_milli(DeviceId(1)), 1000u);
  EXPECT_EQ(engine.CheckInvariants(), "");

  // Failed outright, it takes no work at all, even work that accepts degraded devices (job 3
  // leaves, so that nothing waits ahead of it under fifo).
  model::Job one_accepting = JobOf(1, 1);
  one_accepting.accepts_degraded = true;
  std::vector<Event> failed = {DeviceWithdrawn{DeviceId(1), true, false}, JobCancelled{JobId(3)},
                               JobSubmitted{JobId(4), one_accepting}};
  EXPECT_TRUE(engine.Step(failed, 3 * kSecond).starts.empty());
  std::vector<Event> degraded = {DeviceWithdrawn{DeviceId(1), true, true}};
  decisions = engine.Step(degraded, 4 * kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(decisions.starts[0].job, JobId(4));
  EXPECT_EQ(DevicesOf(decisions.starts[0]), (std::set<uint32_t>{1}));
  EXPECT_EQ(engine.CheckInvariants(), "");
}

// An engine following decisions refuses a start that puts a job on a degraded device it does
// not accept (a log that says so was not written by an engine).
TEST(DeviceWithdrawnTest, AFollowerRefusesADegradedDeviceToAJobThatDoesNotAcceptIt) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 2}}).Build();
  Engine follower(cluster, Preset("fifo"));
  const TaskAllocation task{.node = NodeId(0), .devices = {DeviceId(1)}};
  std::vector<Event> events = {DeviceWithdrawn{DeviceId(1), true, true},
                               JobSubmitted{JobId(0), JobOf(1, 1)}};
  Decisions decisions;
  decisions.starts.push_back(StartJob{JobId(0), {task}});
  EXPECT_NE(follower.Follow(events, decisions, 0).find("degraded device 1"), std::string::npos);
}

// Random withdrawals, returns, submissions and ends under the preset that preempts, migrates
// and backfills: no decision ever gives a job a device withdrawn at the time, nor a degraded
// one unless the job accepts degraded devices, an engine following the decisions agrees, and
// the books (free + held + held by jobs = one device) hold after every step.
TEST(DeviceWithdrawnTest, PropertyNoDecisionEverUsesAWithdrawnDevice) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}}).Rack("r1", {{"n2", 4}, {"n3", 4}}).Build();
  for (const char* preset : {"fifo", "slurm-like", "headroom"}) {
    uint32_t starts_on_degraded = 0;  // The case the property is about did happen.
    uint32_t evacuations = 0;         // Moves off a device withdrawn outright (recovery.evacuate).
    for (uint32_t seed = 0; seed < 40; ++seed) {
      SCOPED_TRACE(::testing::Message() << preset << " seed " << seed);
      std::mt19937 rng(seed);
      Engine engine(cluster, Preset(preset));
      Engine follower(cluster, Preset(preset));
      std::set<uint32_t> withdrawn;
      std::set<uint32_t> degraded;  // Of the withdrawn.
      std::set<uint32_t> accepting;
      std::set<uint32_t> live;
      std::map<uint32_t, std::set<uint32_t>> devices_of;  // Of each job placed.
      uint32_t next_job = 0;
      for (int step = 0; step < 60; ++step) {
        std::vector<Event> events;
        const uint32_t device = rng() % 16;
        if (rng() % 3 == 0) {
          const bool out = withdrawn.count(device) == 0;
          const bool is_degraded = out && rng() % 2 == 0;
          events.push_back(DeviceWithdrawn{DeviceId(device), out, is_degraded});
          if (out) {
            withdrawn.insert(device);
          } else {
            withdrawn.erase(device);
          }
          if (is_degraded) {
            degraded.insert(device);
          } else {
            degraded.erase(device);
          }
        }
        for (int i = 0; i < 2; ++i) {
          model::Job job = rng() % 4 == 0 ? ShareJobOf(1 + rng() % 2, 250 + 250 * (rng() % 3))
                                          : JobOf(1 + rng() % 2, 1 + rng() % 4);
          job.priority = static_cast<int32_t>(rng() % 3);
          // A fifth run an hour: long enough to be worth moving off a withdrawn device.
          job.runtime_us = (rng() % 5 == 0 ? 3600 : 5 + rng() % 40) * kSecond;
          job.runtime_estimate_us = job.runtime_us;
          job.accepts_degraded = rng() % 3 == 0;
          if (job.accepts_degraded) accepting.insert(next_job);
          events.push_back(JobSubmitted{JobId(next_job), std::move(job)});
          live.insert(next_job++);
        }
        if (!live.empty() && rng() % 2 == 0) {
          auto it = live.begin();
          std::advance(it, rng() % live.size());
          events.push_back(JobFinished{JobId(*it)});
          live.erase(it);
        }
        std::vector<Event> followed = events;
        const Decisions decisions = engine.Step(events, step * 10 * kSecond);
        for (const StartJob& start : decisions.starts) {
          const bool accepts = accepting.count(start.job.value()) != 0;
          for (uint32_t d : DevicesOf(start)) {
            ASSERT_TRUE(withdrawn.count(d) == 0 || (accepts && degraded.count(d) != 0))
                << "device " << d << " to job " << start.job.value();
            starts_on_degraded += degraded.count(d);
          }
          devices_of[start.job.value()] = DevicesOf(start);
        }
        for (const MigrateJob& move : decisions.migrations) {
          std::set<uint32_t>& devices = devices_of[move.job.value()];
          evacuations += std::any_of(devices.begin(), devices.end(), [&](uint32_t d) {
            return withdrawn.count(d) != 0 && degraded.count(d) == 0;
          });
          devices.clear();
          for (const TaskAllocation& task : move.tasks) {
            for (DeviceId d : task.devices) {
              ASSERT_EQ(withdrawn.count(d.value()), 0u);
              devices.insert(d.value());
            }
          }
        }
        ASSERT_EQ(engine.CheckInvariants(), "");
        ASSERT_EQ(follower.Follow(followed, decisions, step * 10 * kSecond), "");
      }
    }
    EXPECT_GT(starts_on_degraded, 0u) << preset;
    // Only the headroom preset evacuates (fifo and slurm-like move nothing at all).
    if (Preset(preset).recovery.evacuate) {
      EXPECT_GT(evacuations, 0u) << preset;
    } else {
      EXPECT_EQ(evacuations, 0u) << preset;
    }
  }
}

}  // namespace
}  // namespace headroom::engine
