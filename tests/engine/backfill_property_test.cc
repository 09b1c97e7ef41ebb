// EASY backfill never delays the reserved job. With exact estimates (estimate == runtime) and
// a FIFO-like queue (every job at one priority, so the order is arrival order and the blocked
// head stays the head until it starts), the time Explain(head).expected_start_us gives when the
// head is first reserved is a promise: the head starts at or before it, and no later
// reservation for it is later than the first. Driven through Engine::Step directly: the
// simulator's speed model stretches spread gangs past their estimates.
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

// slurm-like with the multifactor priority reduced to age alone: every job's priority then
// grows with its wait at the same rate, so the order is arrival order, as the property needs
// (job size and fair share would let a later, larger job overtake the reserved head, which
// EASY allows). Keeps slurm-like's 30 s backfill interval and its recalculation period.
PolicyConfig SlurmLikeByAge() {
  PolicyConfig policy = *PresetPolicy("slurm-like");
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
      if (status.expected_start_us == kNever) continue;
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
  CheckReservationsHold(spec.Build(), jobs, *PresetPolicy("headroom"));
}

RC_GTEST_PROP(BackfillPropertyTest, SlurmLikeNeverDelaysTheReservedJob, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const std::vector<JobSpec> jobs = *testing::GenWorkload(kExactFifo);
  CheckReservationsHold(spec.Build(), jobs, SlurmLikeByAge());
}

// A hand-made case: 2 nodes of 8; a 16-device gang blocked behind an 8-device job that ends at
// 100 s is reserved for t=100 s; a short 8-device job that ends by then is backfilled at t=0, a
// long one is not (it would hold a reserved node past 100 s).
TEST(BackfillPropertyTest, ReservesTheHeadAndBackfillsAroundIt) {
  const model::Cluster cluster = testing::TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  Engine engine(cluster, *PresetPolicy("headroom"));
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

}  // namespace
}  // namespace headroom::engine
