// Property: with migration enabled (cheap moves, a generous budget, so that plans happen often),
// over random small clusters and workloads, under every preset's placement and queue rules:
//  1. engine.CheckInvariants() is empty after every step;
//  2. a step's decisions name each job at most once (a start or a move), only running jobs
//     move, a moved job keeps its gang size, and the blocked job is never among the moved;
//  3. independently of the engine, applying the decisions (starts, moves: old tasks released,
//     new ones taken; finishes) never books a device share past 1000 milli or a node past its
//     CPU or memory;
//  4. no job is dropped or duplicated: at the end nothing runs, every job that started finished
//     exactly once, and every job that never started is unschedulable;
//  5. an engine that follows the decisions (Engine::Follow, as recovery does from the engine
//     log) with the same events accepts each step's, keeps its invariants, has every job in the
//     same state and carries the same learned state (Carried) after every step.
// The driver finishes a job `runtime` after it starts plus every migration pause, continuing
// its remaining work after each move, as the simulator does.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "engine/engine.h"
#include "engine/presets.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::ClusterSpec;
using testing::FreeCapacity;
using testing::JobSpec;

uint64_t g_migrations_seen = 0;

void CheckRun(const model::Cluster& cluster, const std::vector<model::Job>& jobs,
              std::string_view preset) {
  auto policy = PresetPolicy(preset);
  RC_ASSERT(policy.has_value());
  policy->migration.enabled = true;
  policy->migration.checkpoint_us = 5 * kUsPerSecond;
  policy->migration.restart_us = 5 * kUsPerSecond;
  policy->migration.horizon_us = 3600 * kUsPerSecond;
  policy->migration.budget_device_s_per_hour = 1'000'000;
  // Moves alone: preemption (headroom's) has its own property (preemption_property_test.cc).
  policy->preemption.enabled = false;
  Engine engine(cluster, *policy);
  Engine follower(cluster, *policy);

  FreeCapacity free = FreeCapacity::Empty(cluster);
  std::map<uint32_t, std::vector<TaskAllocation>> running;  // The test's own view.
  std::vector<int> finished(jobs.size(), 0);
  std::vector<int> started(jobs.size(), 0);
  std::vector<TimeUs> remaining_us(jobs.size(), 0);
  std::vector<TimeUs> work_start_us(jobs.size(), 0);
  std::set<std::pair<TimeUs, uint32_t>> completions;
  std::vector<TimeUs> completion_of(jobs.size(), kNever);

  auto schedule = [&](uint32_t job, TimeUs at) {
    if (completion_of[job] != kNever) completions.erase({completion_of[job], job});
    completion_of[job] = at;
    completions.insert({at, job});
  };

  size_t next = 0;
  TimeUs last = jobs.empty() ? 0 : jobs.front().submit_time_us;
  std::vector<Event> events;
  for (size_t steps = 0; steps < 20'000; ++steps) {
    TimeUs now = kNever;
    if (next < jobs.size()) now = jobs[next].submit_time_us;
    if (!completions.empty()) now = std::min(now, completions.begin()->first);
    const TimeUs wakeup = engine.NextWakeupUs();
    if (wakeup != kNever && (now != kNever || engine.running_count() == 0)) {
      now = std::min(now, std::max(wakeup, last));
    }
    if (now == kNever) break;
    last = now;
    events.clear();
    while (next < jobs.size() && jobs[next].submit_time_us == now) {
      events.push_back(JobSubmitted{JobId(static_cast<uint32_t>(next)), jobs[next]});
      ++next;
    }
    bool finished_any = false;
    while (!completions.empty() && completions.begin()->first == now) {
      const uint32_t job = completions.begin()->second;
      completions.erase(completions.begin());
      completion_of[job] = kNever;
      for (const TaskAllocation& task : running.at(job)) free.Apply(task, -1);
      running.erase(job);
      ++finished[job];
      finished_any = true;
      events.push_back(JobFinished{JobId(job)});
    }
    const size_t running_before = engine.running_count();
    std::vector<Event> followed_events = events;  // Step consumes its events.
    const Decisions decisions = engine.Step(events, now);
    RC_ASSERT(engine.CheckInvariants() == "");
    RC_ASSERT(follower.Follow(followed_events, decisions, now) == "");
    RC_ASSERT(follower.CheckInvariants() == "");
    RC_ASSERT(follower.Carried(now) == engine.Carried(now));
    for (size_t i = 0; i < next; ++i) {
      const JobId id(static_cast<uint32_t>(i));
      RC_ASSERT(follower.state(id) == engine.state(id));
    }

    std::set<uint32_t> named;
    for (const MigrateJob& move : decisions.migrations) {
      const uint32_t job = move.job.value();
      RC_ASSERT(named.insert(job).second);
      RC_ASSERT(running.count(job) == 1u);
      RC_ASSERT(move.tasks.size() == jobs[job].task_count);
      RC_ASSERT(engine.state(move.job) == JobState::kRunning);
      for (const TaskAllocation& task : running[job]) free.Apply(task, -1);
      running[job] = move.tasks;
      // Work done so far is kept; the rest resumes after the pause.
      remaining_us[job] -= std::max<TimeUs>(now - work_start_us[job], 0);
      remaining_us[job] = std::max<TimeUs>(remaining_us[job], 0);
      work_start_us[job] = now + move.pause_us;
      schedule(job, work_start_us[job] + remaining_us[job]);
      ++g_migrations_seen;
    }
    for (const StartJob& start : decisions.starts) {
      const uint32_t job = start.job.value();
      RC_ASSERT(named.insert(job).second);
      RC_ASSERT(running.count(job) == 0u);
      RC_ASSERT(start.tasks.size() == jobs[job].task_count);
      ++started[job];
      running[job] = start.tasks;
      remaining_us[job] = std::max<TimeUs>(jobs[job].runtime_us, 0);
      work_start_us[job] = now;
      schedule(job, now + remaining_us[job]);
    }
    // Apply every new allocation only after all releases of the step (a start may use devices
    // a move freed in the same step).
    for (const MigrateJob& move : decisions.migrations) {
      for (const TaskAllocation& task : move.tasks) free.Apply(task, +1);
    }
    for (const StartJob& start : decisions.starts) {
      for (const TaskAllocation& task : start.tasks) free.Apply(task, +1);
    }
    for (int64_t milli : free.device_milli) RC_ASSERT(milli >= 0);
    for (int64_t cpu : free.node_cpu_milli) RC_ASSERT(cpu >= 0);
    for (int64_t memory : free.node_memory_mib) RC_ASSERT(memory >= 0);
    RC_ASSERT(engine.running_count() == running.size());
    if (events.empty() && !finished_any && decisions.starts.empty() &&
        decisions.migrations.empty() && completions.empty() && next == jobs.size() &&
        running_before == 0) {
      break;
    }
  }
  RC_ASSERT(running.empty());
  for (size_t i = 0; i < jobs.size(); ++i) {
    RC_ASSERT(started[i] <= 1);
    RC_ASSERT(finished[i] == started[i]);
    if (started[i] == 0) {
      const PendingStatus status = engine.Explain(JobId(static_cast<uint32_t>(i)));
      RC_ASSERT(!status.reasons.empty());
      RC_ASSERT(status.reasons.front() == PendingCode::kUnschedulable);
    }
  }
}

TEST(DefragProperty, MigrationsNeverDropDuplicateOrDoubleBook) {
  g_migrations_seen = 0;
  EXPECT_TRUE(rc::check("migrations never drop, duplicate or double-book", [] {
    const ClusterSpec spec = *testing::GenClusterSpec();
    const model::Cluster cluster = spec.Build();
    testing::WorkloadOptions options;
    options.max_jobs = 30;
    const std::vector<JobSpec> specs = *testing::GenWorkload(options);
    std::vector<model::Job> jobs = testing::ToJobs(specs);
    // Runtimes of at least 50 s, so that moves happen while jobs still have work left.
    for (model::Job& job : jobs) {
      job.runtime_us = std::max<TimeUs>(job.runtime_us, 50 * kUsPerSecond);
      job.runtime_estimate_us = std::max(job.runtime_estimate_us, job.runtime_us);
    }
    const std::string preset =
        *rc::gen::element<std::string>("headroom", "fifo", "slurm-like", "spread");
    CheckRun(cluster, jobs, preset);
  }));
  // The property is only worth its name if plans happen: over its runs, some must.
  EXPECT_GT(g_migrations_seen, 0u);
}

}  // namespace
}  // namespace headroom::engine
