// EASY backfill never delays the reserved job. With exact estimates (estimate == runtime) and
// a FIFO-like queue (every job at one priority, so the order is arrival order and the blocked
// head stays the head until it starts), the time Explain(head).expected_start_us gives when the
// head is first reserved is a promise: the head starts at or before it, and no later
// reservation for it is later than the first. Driven through Engine::Step directly: the
// simulator's speed model stretches spread gangs past their estimates.
// Also: with estimates too short, Explain never promises a start that has passed; and the
// reservation is planned again when a node drains (regression tests for both, which a reused
// reservation once got wrong).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/engine.h"
#include "engine/presets.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::ClusterSpec;
using testing::EngineDriver;
using testing::JobSpec;
using testing::StepInfo;

// A preset with its multifactor priority reduced to age alone: every job's priority then grows
// with its wait at the same rate, so the order is arrival order, as the property needs (job
// size and fair share would let a later, larger job overtake the reserved head, which EASY
// allows). Keeps the preset's backfill interval and recalculation period.
// The preset's multifactor order by age alone, with EASY reservations; for headroom, whose own
// order is least attained service and reserves nothing, its multifactor configuration
// (configs/examples/headroom-multifactor.yaml).
PolicyConfig ByAge(std::string_view preset) {
  PolicyConfig policy =
      preset == "headroom" ? testing::ExamplePolicy("headroom-multifactor") : *PresetPolicy(preset);
  policy.multifactor.fairshare = 0;
  policy.multifactor.job_size = 0;
  policy.multifactor.qos = 0;
  return *ValidatePolicy(std::move(policy));
}

void CheckReservationsHold(const model::Cluster& cluster, const std::vector<JobSpec>& specs,
                           const PolicyConfig& policy) {
  const std::vector<model::Job> jobs = testing::ToJobs(specs);
  EngineDriver driver(cluster, policy, jobs);
  std::map<uint32_t, TimeUs> first_reservation;  // Job → first expected start.
  size_t reservations = 0;
  const bool done = driver.Run([&](const StepInfo& step) {
    const Engine& engine = driver.engine();
    for (const StartJob& start : step.decisions->starts) {
      auto it = first_reservation.find(start.job.value());
      if (it != first_reservation.end() && step.now_us > it->second) {
        RC_FAIL(fmt::format("{}: job {} was reserved to start at {}us but started at {}us",
                            policy.name, start.job.value(), it->second, step.now_us));
      }
    }
    for (uint32_t j = 0; j < jobs.size(); ++j) {
      if (engine.state(JobId(j)) != JobState::kPending) continue;
      const PendingStatus status = engine.Explain(JobId(j));
      if (!status.reserved) continue;  // Other jobs' expected starts are estimates.
      RC_ASSERT(status.expected_start_us >= step.now_us);
      auto [it, inserted] = first_reservation.emplace(j, status.expected_start_us);
      if (inserted) {
        ++reservations;
      } else if (status.expected_start_us > it->second) {
        RC_FAIL(
            fmt::format("{}: at {}us job {} is reserved for {}us, later than its first "
                        "reservation {}us",
                        policy.name, step.now_us, j, status.expected_start_us, it->second));
      }
    }
  });
  RC_ASSERT(done);
  // Every reserved job ran: a reservation is only made for a job that fits an empty cluster.
  for (const auto& [job, start] : first_reservation) {
    RC_ASSERT(driver.start_us(JobId(job)) >= 0);
    RC_ASSERT(driver.start_us(JobId(job)) <= start);
  }
  RC_TAG(reservations > 0 ? "reserved" : "no reservation");
}

constexpr testing::WorkloadOptions kExactFifo{.exact_estimates = true, .equal_priority = true};

RC_GTEST_PROP(BackfillPropertyTest, HeadroomNeverDelaysTheReservedJob, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const std::vector<JobSpec> jobs = *testing::GenWorkload(kExactFifo);
  CheckReservationsHold(spec.Build(), jobs, ByAge("headroom"));
}

RC_GTEST_PROP(BackfillPropertyTest, SlurmLikeNeverDelaysTheReservedJob, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const std::vector<JobSpec> jobs = *testing::GenWorkload(kExactFifo);
  CheckReservationsHold(spec.Build(), jobs, ByAge("slurm-like"));
}

// With estimates that may be too short, a reservation can outlive its expected start; Explain
// must then not promise a start time that has already passed.
RC_GTEST_PROP(BackfillPropertyTest, ExpectedStartIsNeverInThePast, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  std::vector<JobSpec> jobs = *testing::GenWorkload({.equal_priority = true});
  for (JobSpec& job : jobs) job.estimate_s = job.runtime_s / *rc::gen::inRange<int64_t>(1, 4);
  const model::Cluster cluster = spec.Build();
  for (std::string_view preset : {"headroom", "slurm-like"}) {
    EngineDriver driver(cluster, *PresetPolicy(preset), testing::ToJobs(jobs));
    RC_ASSERT(driver.Run([&](const StepInfo& step) {
      for (uint32_t j = 0; j < jobs.size(); ++j) {
        const PendingStatus status = driver.engine().Explain(JobId(j));
        if (status.expected_start_us != kNever && status.expected_start_us < step.now_us) {
          RC_FAIL(fmt::format("{}: at {}us job {} is expected to start at {}us ({})", preset,
                              step.now_us, j, status.expected_start_us, status.message));
        }
      }
    }));
  }
}

// A hand-made case (arrival order: headroom's order by age alone): 2 nodes of 8; a 16-device gang
// blocked behind an 8-device job that ends at 100 s is reserved for t=100 s; a short 8-device job
// that ends by then is backfilled at t=0, a long one is not (it would hold a reserved node past 100
// s).
TEST(BackfillPropertyTest, ReservesTheHeadAndBackfillsAroundIt) {
  const model::Cluster cluster = testing::TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  Engine engine(cluster, ByAge("headroom"));
  std::vector<Event> events;
  events.push_back(JobSubmitted{JobId(0), testing::JobOf(1, 8, "", 0, 0, 100, 100, 0)});
  events.push_back(JobSubmitted{JobId(1), testing::JobOf(2, 8, "", 0, 0, 50, 50, 0)});
  events.push_back(JobSubmitted{JobId(2), testing::JobOf(1, 8, "", 0, 0, 200, 200, 0)});
  events.push_back(JobSubmitted{JobId(3), testing::JobOf(1, 8, "", 0, 0, 100, 100, 0)});
  const Decisions at_zero = engine.Step(events, 0);
  ASSERT_EQ(at_zero.starts.size(), 2u);
  EXPECT_EQ(at_zero.starts[0].job, JobId(0));
  EXPECT_EQ(at_zero.starts[1].job, JobId(3));
  EXPECT_EQ(engine.Explain(JobId(1)).expected_start_us, SecondsToUs(100));
  const std::vector<PendingCode> reasons = engine.Explain(JobId(2)).reasons;
  EXPECT_NE(std::find(reasons.begin(), reasons.end(), PendingCode::kReservation), reasons.end());

  std::vector<Event> finished = {JobFinished{JobId(0)}, JobFinished{JobId(3)}};
  const Decisions at_100 = engine.Step(finished, SecondsToUs(100));
  ASSERT_EQ(at_100.starts.size(), 1u);
  EXPECT_EQ(at_100.starts[0].job, JobId(1));
  EXPECT_EQ(engine.CheckInvariants(), "");
}

// Draining a node the reservation holds invalidates it. Rack r0 has four H100 nodes, rack r1
// one A100 node. At t=0 four H100 jobs fill r0 (two end at 100 s, two at 1000 s); at t=1 the
// gang H (2 × 8, any model) is blocked and reserved at t=100 on the two r0 nodes that free up
// then. At t=10 one of those nodes is drained, so H's earliest start is t=100 on the other one
// and n4. A long job J arriving at t=20 must not take n4: it would delay H to t=1000.
TEST(BackfillPropertyTest, DrainingAReservedNodeMovesTheReservation) {
  const model::Cluster cluster =
      testing::TinyCluster()
          .Rack("r0", {{"n0", 8, "H100"}, {"n1", 8, "H100"}, {"n2", 8, "H100"}, {"n3", 8, "H100"}})
          .Rack("r1", {{"n4", 8, "A100"}})
          .Build();
  Engine engine(cluster, ByAge("headroom"));
  const std::string h100 = "model == \"H100\"";
  std::vector<Event> at_0;
  at_0.push_back(JobSubmitted{JobId(0), testing::JobOf(1, 8, h100, 0, 0, 100, 100, 0)});
  at_0.push_back(JobSubmitted{JobId(1), testing::JobOf(1, 8, h100, 0, 0, 100, 100, 0)});
  at_0.push_back(JobSubmitted{JobId(2), testing::JobOf(1, 8, h100, 0, 0, 1000, 1000, 0)});
  at_0.push_back(JobSubmitted{JobId(3), testing::JobOf(1, 8, h100, 0, 0, 1000, 1000, 0)});
  ASSERT_EQ(engine.Step(at_0, 0).starts.size(), 4u);

  std::vector<Event> at_1;
  at_1.push_back(JobSubmitted{JobId(4), testing::JobOf(2, 8, "", 0, 0, 50, 50, 1)});
  ASSERT_TRUE(engine.Step(at_1, SecondsToUs(1)).starts.empty());
  ASSERT_EQ(engine.Explain(JobId(4)).expected_start_us, SecondsToUs(100));

  const NodeId drained = (*engine.allocations(JobId(1)))[0].node;
  std::vector<Event> at_10 = {NodeDrained{drained, true}};
  ASSERT_TRUE(engine.Step(at_10, SecondsToUs(10)).starts.empty());

  std::vector<Event> at_20;
  at_20.push_back(JobSubmitted{JobId(5), testing::JobOf(1, 8, "", 0, 0, 5000, 5000, 20)});
  EXPECT_TRUE(engine.Step(at_20, SecondsToUs(20)).starts.empty())
      << "the long job took the node the reserved gang needs";

  std::vector<Event> at_100 = {JobFinished{JobId(0)}, JobFinished{JobId(1)}};
  const Decisions decisions = engine.Step(at_100, SecondsToUs(100));
  ASSERT_FALSE(decisions.starts.empty());
  EXPECT_EQ(decisions.starts[0].job, JobId(4));
  EXPECT_EQ(engine.CheckInvariants(), "");
}

// A job that overruns its estimate keeps the reserved head waiting; the head's expected start
// moves with the clock instead of staying in the past.
TEST(BackfillPropertyTest, OverrunningJobDoesNotLeaveAPastReservation) {
  const model::Cluster cluster = testing::TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  Engine engine(cluster, ByAge("headroom"));
  std::vector<Event> at_0;
  at_0.push_back(JobSubmitted{JobId(0), testing::JobOf(1, 8, "", 0, 0, 300, 100, 0)});
  ASSERT_EQ(engine.Step(at_0, 0).starts.size(), 1u);
  std::vector<Event> at_1;
  at_1.push_back(JobSubmitted{JobId(1), testing::JobOf(1, 8, "", 0, 0, 100, 100, 1)});
  ASSERT_TRUE(engine.Step(at_1, SecondsToUs(1)).starts.empty());
  EXPECT_EQ(engine.Explain(JobId(1)).expected_start_us, SecondsToUs(100));
  // t=200: job 0 should have ended by its estimate but still runs; a CPU-only job arrives.
  std::vector<Event> at_200;
  at_200.push_back(JobSubmitted{JobId(2), testing::JobOf(1, 0, "", 0, 0, 10, 10, 200)});
  engine.Step(at_200, SecondsToUs(200));
  EXPECT_GE(engine.Explain(JobId(1)).expected_start_us, SecondsToUs(200));
}

}  // namespace
}  // namespace headroom::engine
