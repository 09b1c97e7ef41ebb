// The backend contract (control/backend.h): the same scenarios over every backend — start and
// complete, the time limit, migrate (the next attempt on the new devices, the old attempt's end
// ignored), stop (nothing reported afterwards) and node lost. Each backend comes with a harness
// that plays its world: the simulated backend's is time alone; the agents backend's reports
// task exits and heartbeats as agents would.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "control/agents_backend.h"
#include "control/event_log.h"
#include "control/fake_clock.h"
#include "control/simulated_backend.h"

namespace headroom::control {
namespace {

constexpr TimeUs kT0 = 1'000 * kUsPerSecond;

// Two nodes, n0 and n1, of two devices each, registered as agents would register them.
void RegisterTwoNodes(DaemonState& state, TimeUs now_us) {
  for (const std::string name : {"n0", "n1"}) {
    NodeStatus status;
    status.record = NodeRecord{.name = name, .registered = true};
    status.record.cpu_milli = 8000;
    status.record.memory_mib = 16384;
    for (uint32_t index = 0; index < 2; ++index) {
      status.record.devices.push_back(
          model::RegisteredDevice{.index = index,
                                  .uuid = name + "-" + std::to_string(index),
                                  .model = "H100",
                                  .memory_mib = 80 * 1024});
    }
    status.last_heartbeat_us = now_us;
    state.nodes.emplace(name, std::move(status));
  }
}

class Harness {
 public:
  virtual ~Harness() = default;
  virtual Backend& backend() = 0;
  // The job's record as the loop journaled it (the agents backend reads it from the state).
  virtual void Record(const JobRecord& job) = 0;
  // The current attempt of `job` finishes its work at `now_us` or after: the time to poll at.
  virtual TimeUs Finish(const JobRecord& job, TimeUs now_us) = 0;
  // An earlier attempt's task ends with `exit_code` (a stopped task's SIGTERM exit).
  virtual void EndAttempt(const JobRecord& job, uint32_t attempt, int32_t exit_code) = 0;
  // `node` falls silent from `now_us` on: whether the backend can lose nodes at all.
  virtual bool LoseNode(const std::string& node, TimeUs now_us) = 0;
  // Time passes to `now_us` (the wall clock too); nodes not lost keep reporting.
  virtual void AdvanceTo(TimeUs now_us) = 0;

  const model::Cluster& cluster() const { return *cluster_; }
  // One device: node `node`'s device `index`.
  engine::TaskAllocation OneDevice(uint32_t node, uint32_t index) const {
    const model::Node& n = cluster_->node(NodeId(node));
    return engine::TaskAllocation{.node = n.id, .devices = {DeviceId(n.first_device + index)}};
  }
  std::vector<TaskPlacement> PlacementOf(const std::vector<engine::TaskAllocation>& tasks) const {
    std::vector<TaskPlacement> placement;
    for (uint32_t rank = 0; rank < tasks.size(); ++rank) {
      const model::Node& node = cluster_->node(tasks[rank].node);
      TaskPlacement task{.rank = rank, .node = node.name};
      for (DeviceId device : tasks[rank].devices) {
        task.device_indices.push_back(device.value() - node.first_device);
      }
      placement.push_back(std::move(task));
    }
    return placement;
  }

 protected:
  std::shared_ptr<const model::Cluster> cluster_;
};

class SimulatedHarness : public Harness {
 public:
  SimulatedHarness() {
    DaemonState state;
    RegisterTwoNodes(state, kT0);
    cluster_ = ClusterOfRegisteredNodes(state);
    backend_ = std::make_unique<SimulatedBackend>(cluster_);
  }
  Backend& backend() override { return *backend_; }
  void Record(const JobRecord&) override {}
  TimeUs Finish(const JobRecord&, TimeUs now_us) override {
    return std::max(now_us, backend_->NextPollUs(now_us));
  }
  void EndAttempt(const JobRecord&, uint32_t, int32_t) override {}
  bool LoseNode(const std::string&, TimeUs) override { return false; }
  void AdvanceTo(TimeUs) override {}

 private:
  std::unique_ptr<SimulatedBackend> backend_;
};

class AgentsHarness : public Harness {
 public:
  AgentsHarness() {
    RegisterTwoNodes(state_, kT0);
    cluster_ = ClusterOfRegisteredNodes(state_);
    backend_ = std::make_unique<AgentsBackend>(state_, events_, clock_,
                                               AgentsOptions{.grace_us = 10 * kUsPerSecond});
  }
  Backend& backend() override { return *backend_; }
  void Record(const JobRecord& job) override {
    std::lock_guard lock(state_.mu);
    state_.jobs.Put(job);
  }
  TimeUs Finish(const JobRecord& job, TimeUs now_us) override {
    std::vector<ReportedExit> exits;
    for (const TaskPlacement& task : job.placement) {
      exits.push_back({.job = job.id, .rank = task.rank, .exit_code = 0, .attempt = job.starts});
    }
    Report(std::move(exits));
    return now_us;
  }
  void EndAttempt(const JobRecord& job, uint32_t attempt, int32_t exit_code) override {
    // Straight to the backend: its own attempt check is under test, not the heartbeat's filter.
    backend_->Reported({{.job = job.id, .rank = 0, .exit_code = exit_code, .attempt = attempt}});
  }
  bool LoseNode(const std::string& node, TimeUs now_us) override {
    std::lock_guard lock(state_.mu);
    state_.nodes.at(node).last_heartbeat_us = now_us;
    lost_ = node;
    return true;
  }
  void AdvanceTo(TimeUs now_us) override {
    clock_.AdvanceUs(std::max<TimeUs>(now_us - clock_.NowUs(), 0));
    std::lock_guard lock(state_.mu);
    for (auto& [name, status] : state_.nodes) {
      if (name != lost_) status.last_heartbeat_us = now_us;
    }
  }

  DaemonState& state() { return state_; }
  // What `node`'s agent is told to run.
  std::vector<model::DesiredTask> Desired(const std::string& node) {
    std::lock_guard lock(state_.mu);
    return DesiredTasks(state_, node, 30);
  }
  // As the loop executes a move (or resize): journaled as the next attempt, then executed.
  void Move(JobRecord& job, const engine::MigrateJob& move, TimeUs now_us) {
    job.placement = PlacementOf(move.tasks);
    ++job.starts;
    Record(job);
    backend_->OnMigrate(job, move, now_us, *cluster_);
  }

 private:
  void Report(std::vector<ReportedExit> exits) {
    std::lock_guard lock(state_.mu);
    // As the heartbeat handler does: only exits the node may report reach the backend.
    const std::string node = state_.jobs.at(exits.front().job).placement.front().node;
    backend_->Reported(ExitsPlacedOn(state_, node, std::move(exits)));
  }

  DaemonState state_;
  EventLog events_{1, 100};
  FakeClock clock_{kT0};
  std::unique_ptr<AgentsBackend> backend_;
  std::string lost_;
};

using HarnessFactory = std::unique_ptr<Harness> (*)();

class BackendContract : public ::testing::TestWithParam<HarnessFactory> {
 protected:
  void SetUp() override { harness_ = GetParam()(); }

  JobRecord Job(uint64_t id, TimeUs runtime_us, TimeUs time_limit_us) const {
    JobRecord job{.id = id, .state = JobState::kRunning, .submit_us = kT0, .start_us = kT0};
    job.spec.tenant = "team";
    job.spec.devices = 1;
    job.spec.command = {"train"};
    job.spec.runtime_us = runtime_us;
    job.spec.time_limit_us = time_limit_us;
    return job;
  }
  // Starts `job` on `tasks` at its start_us, as the loop does after journaling it.
  void Start(JobRecord& job, std::vector<engine::TaskAllocation> tasks) {
    job.placement = harness_->PlacementOf(tasks);
    ++job.starts;
    harness_->Record(job);
    harness_->backend().OnStart(job, tasks, harness_->cluster());
  }
  std::vector<Completion> CompletionsAt(TimeUs now_us) {
    return harness_->backend().Poll(now_us).completions;
  }

  std::unique_ptr<Harness> harness_;
};

TEST_P(BackendContract, AStartedJobCompletesOnceWithExitCodeZero) {
  JobRecord job = Job(7, 100 * kUsPerSecond, 3600 * kUsPerSecond);
  Start(job, {harness_->OneDevice(0, 0)});
  EXPECT_TRUE(CompletionsAt(kT0).empty());
  const TimeUs done = harness_->Finish(job, kT0 + kUsPerSecond);
  const std::vector<Completion> completions = CompletionsAt(done);
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].job, 7u);
  EXPECT_EQ(completions[0].exit_code, 0);
  EXPECT_TRUE(CompletionsAt(done + 7200 * kUsPerSecond).empty());
}

TEST_P(BackendContract, AJobStillRunningAtItsTimeLimitFailsWithCode124) {
  JobRecord job = Job(3, 7200 * kUsPerSecond, 3600 * kUsPerSecond);
  Start(job, {harness_->OneDevice(1, 1)});
  EXPECT_TRUE(CompletionsAt(kT0 + 3599 * kUsPerSecond).empty());
  EXPECT_LE(harness_->backend().NextPollUs(kT0), kT0 + 3600 * kUsPerSecond);
  const std::vector<Completion> completions = CompletionsAt(kT0 + 3600 * kUsPerSecond);
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].exit_code, 124);
  EXPECT_EQ(completions[0].end_us, kT0 + 3600 * kUsPerSecond);
}

TEST_P(BackendContract, AMovedJobRunsItsNextAttemptAndTheOldAttemptsEndIsIgnored) {
  JobRecord job = Job(5, 100 * kUsPerSecond, 3600 * kUsPerSecond);
  Start(job, {harness_->OneDevice(0, 1)});
  const TimeUs moved_at = kT0 + 40 * kUsPerSecond;
  EXPECT_TRUE(CompletionsAt(moved_at).empty());
  const engine::MigrateJob move{
      .job = JobId(0), .tasks = {harness_->OneDevice(1, 0)}, .pause_us = 10 * kUsPerSecond};
  job.placement = harness_->PlacementOf(move.tasks);
  ++job.starts;
  harness_->Record(job);
  harness_->backend().OnMigrate(job, move, moved_at, harness_->cluster());
  // The first attempt's task exits on its checkpoint signal: that does not end the job.
  harness_->EndAttempt(job, 1, 143);
  EXPECT_TRUE(CompletionsAt(moved_at + kUsPerSecond).empty());
  const TimeUs done = harness_->Finish(job, moved_at + kUsPerSecond);
  EXPECT_GE(done, moved_at);
  const std::vector<Completion> completions = CompletionsAt(done);
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].job, 5u);
  EXPECT_EQ(completions[0].exit_code, 0);
}

TEST_P(BackendContract, APreemptedJobIsReportedOnlyWhenItsNextAttemptEnds) {
  JobRecord job = Job(11, 100 * kUsPerSecond, 3600 * kUsPerSecond);
  Start(job, {harness_->OneDevice(0, 0)});
  const TimeUs preempted_at = kT0 + 40 * kUsPerSecond;
  EXPECT_TRUE(CompletionsAt(preempted_at).empty());
  job.state = JobState::kPending;
  job.placement.clear();
  harness_->Record(job);
  const engine::PreemptJob preemption{.job = JobId(0),
                                      .checkpoint_interval_us = 30 * kUsPerSecond,
                                      .lost_us = 10 * kUsPerSecond,
                                      .restart_us = 5 * kUsPerSecond};
  harness_->backend().OnPreempt(job, preemption, preempted_at);
  // The attempt's task exits on its checkpoint signal: that does not end the job.
  harness_->EndAttempt(job, 1, 143);
  EXPECT_TRUE(CompletionsAt(preempted_at + kUsPerSecond).empty());
  EXPECT_TRUE(CompletionsAt(kT0 + 3 * 3600 * kUsPerSecond).empty());  // Past its old limit.

  job.state = JobState::kRunning;
  job.start_us = kT0 + 3 * 3600 * kUsPerSecond;
  Start(job, {harness_->OneDevice(1, 1)});
  const TimeUs done = harness_->Finish(job, job.start_us + kUsPerSecond);
  const std::vector<Completion> completions = CompletionsAt(done);
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].job, 11u);
  EXPECT_EQ(completions[0].exit_code, 0);
}

TEST_P(BackendContract, ARestoreAfterAnEngineRebuildKeepsTheJobsProgress) {
  JobRecord job = Job(6, 100 * kUsPerSecond, 3600 * kUsPerSecond);
  Start(job, {harness_->OneDevice(0, 0)});
  const engine::MigrateJob move{
      .job = JobId(0), .tasks = {harness_->OneDevice(1, 1)}, .pause_us = 10 * kUsPerSecond};
  job.placement = harness_->PlacementOf(move.tasks);
  ++job.starts;
  harness_->Record(job);
  const TimeUs moved_at = kT0 + 40 * kUsPerSecond;
  harness_->backend().OnMigrate(job, move, moved_at, harness_->cluster());
  const TimeUs next_poll = harness_->backend().NextPollUs(moved_at);
  // The loop rebuilt its engine (a policy change, a registration) and restores the job as is.
  harness_->backend().OnStart(job, move.tasks, harness_->cluster());
  EXPECT_EQ(harness_->backend().NextPollUs(moved_at), next_poll);
  const TimeUs done = harness_->Finish(job, moved_at + kUsPerSecond);
  const std::vector<Completion> completions = CompletionsAt(done);
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].exit_code, 0);
}

TEST_P(BackendContract, AStoppedJobIsNeverReported) {
  JobRecord job = Job(9, 100 * kUsPerSecond, 3600 * kUsPerSecond);
  Start(job, {harness_->OneDevice(0, 0)});
  const TimeUs done = harness_->Finish(job, kT0);
  harness_->backend().OnStop(job.id);
  EXPECT_TRUE(CompletionsAt(done).empty());
  EXPECT_TRUE(CompletionsAt(kT0 + 7200 * kUsPerSecond).empty());
}

TEST_P(BackendContract, ALostNodeIsReportedOnceOrNeverForAlwaysReachableNodes) {
  JobRecord job = Job(4, 7200 * kUsPerSecond, 36000 * kUsPerSecond);
  Start(job, {harness_->OneDevice(1, 0)});
  const bool can_lose = harness_->LoseNode("n1", kT0);
  // Polled every second for a minute (the agents backend's grace here is 10 s).
  std::vector<std::string> lost;
  for (TimeUs t = kT0; t <= kT0 + 60 * kUsPerSecond; t += kUsPerSecond) {
    harness_->AdvanceTo(t);
    const BackendReport report = harness_->backend().Poll(t);
    lost.insert(lost.end(), report.lost_nodes.begin(), report.lost_nodes.end());
    EXPECT_TRUE(report.completions.empty());
  }
  EXPECT_EQ(lost, can_lose ? std::vector<std::string>{"n1"} : std::vector<std::string>{});
}

std::unique_ptr<Harness> Simulated() { return std::make_unique<SimulatedHarness>(); }
std::unique_ptr<Harness> Agents() { return std::make_unique<AgentsHarness>(); }

std::string BackendName(const ::testing::TestParamInfo<HarnessFactory>& param) {
  return param.param == &Simulated ? "Simulated" : "Agents";
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, BackendContract, ::testing::Values(&Simulated, &Agents),
                         BackendName);

// The simulated backend keeps a moved job's done work: started at T0 for 100 s of work, moved
// at T0+40 s with a 10 s pause, it ends at T0+40+10+60 s on equal devices.
TEST(SimulatedBackendMigration, KeepsDoneWorkAndAddsThePause) {
  SimulatedHarness harness;
  JobRecord job{.id = 1, .state = JobState::kRunning, .start_us = kT0, .starts = 1};
  job.spec.runtime_us = 100 * kUsPerSecond;
  job.spec.time_limit_us = 3600 * kUsPerSecond;
  harness.backend().OnStart(job, {harness.OneDevice(0, 0)}, harness.cluster());
  EXPECT_EQ(harness.backend().NextPollUs(kT0), kT0 + 100 * kUsPerSecond);
  const engine::MigrateJob move{
      .job = JobId(0), .tasks = {harness.OneDevice(1, 1)}, .pause_us = 10 * kUsPerSecond};
  job.starts = 2;
  harness.backend().OnMigrate(job, move, kT0 + 40 * kUsPerSecond, harness.cluster());
  EXPECT_EQ(harness.backend().NextPollUs(kT0), kT0 + 110 * kUsPerSecond);
  // A pause that runs past the time limit ends the job there, as a time-out.
  job.spec.time_limit_us = 105 * kUsPerSecond;
  harness.backend().OnStop(job.id);
  harness.backend().OnStart(job, {harness.OneDevice(0, 0)}, harness.cluster());
  harness.backend().OnMigrate(job, move, kT0 + 40 * kUsPerSecond, harness.cluster());
  const std::vector<Completion> completions =
      harness.backend().Poll(kT0 + 200 * kUsPerSecond).completions;
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].exit_code, 124);
  EXPECT_EQ(completions[0].end_us, kT0 + 105 * kUsPerSecond);
}

// A resize (an elastic job shrunk, engine_elastic.cc): 100 s of work for its 2 tasks, shrunk to
// one at T0+40 s with a 10 s pause, it does the remaining 60 s of full-width work at half the
// pace: 120 s, ending at T0+170 s.
TEST(SimulatedBackendResize, TheRestOfTheWorkRunsAtTheNewWidthsPace) {
  SimulatedHarness harness;
  JobRecord job{.id = 1, .state = JobState::kRunning, .start_us = kT0, .starts = 1};
  job.spec.tasks = 2;
  job.spec.min_tasks = 1;
  job.spec.runtime_us = 100 * kUsPerSecond;
  job.spec.time_limit_us = 3600 * kUsPerSecond;
  harness.backend().OnStart(job, {harness.OneDevice(0, 0), harness.OneDevice(0, 1)},
                            harness.cluster());
  EXPECT_EQ(harness.backend().NextPollUs(kT0), kT0 + 100 * kUsPerSecond);
  const engine::MigrateJob shrink{
      .job = JobId(0), .tasks = {harness.OneDevice(0, 0)}, .pause_us = 10 * kUsPerSecond};
  job.starts = 2;
  harness.backend().OnMigrate(job, shrink, kT0 + 40 * kUsPerSecond, harness.cluster());
  EXPECT_EQ(harness.backend().NextPollUs(kT0), kT0 + 170 * kUsPerSecond);
}

// The simulated backend resumes a preempted job from its last checkpoint: 100 s of work from
// T0, preempted at T0+40 s with checkpoints every 30 s, it keeps 30 s; started again at
// T0+200 s, it pauses 5 s to restart and does the remaining 70 s, ending at T0+275 s.
TEST(SimulatedBackendPreemption, ResumesFromTheLastCheckpointAfterTheRestartPause) {
  SimulatedHarness harness;
  JobRecord job{.id = 1, .state = JobState::kRunning, .start_us = kT0, .starts = 1};
  job.spec.runtime_us = 100 * kUsPerSecond;
  job.spec.time_limit_us = 3600 * kUsPerSecond;
  harness.backend().OnStart(job, {harness.OneDevice(0, 0)}, harness.cluster());
  const engine::PreemptJob preemption{.job = JobId(0),
                                      .checkpoint_interval_us = 30 * kUsPerSecond,
                                      .lost_us = 10 * kUsPerSecond,
                                      .restart_us = 5 * kUsPerSecond};
  harness.backend().OnPreempt(job, preemption, kT0 + 40 * kUsPerSecond);
  EXPECT_EQ(harness.backend().NextPollUs(kT0), kNever);
  job.start_us = kT0 + 200 * kUsPerSecond;
  job.starts = 2;
  harness.backend().OnStart(job, {harness.OneDevice(1, 0)}, harness.cluster());
  EXPECT_EQ(harness.backend().NextPollUs(kT0), kT0 + 275 * kUsPerSecond);
  // Preempted again, then stopped while it waits: the saved work is forgotten with the job.
  harness.backend().OnPreempt(job, preemption, kT0 + 210 * kUsPerSecond);
  harness.backend().OnStop(job.id);
  job.start_us = kT0 + 400 * kUsPerSecond;
  harness.backend().OnStart(job, {harness.OneDevice(1, 0)}, harness.cluster());
  EXPECT_EQ(harness.backend().NextPollUs(kT0), kT0 + 500 * kUsPerSecond);
}

// The agents backend hands the moved job out as its next attempt on the new node only: the old
// node's agent no longer has it in its desired set, so it sends the task its checkpoint signal.
TEST(AgentsBackendMigration, TheNewNodeRunsTheNextAttemptAndTheOldOneStopsIt) {
  AgentsHarness harness;
  JobRecord job{.id = 2, .state = JobState::kRunning, .start_us = kT0, .starts = 1};
  job.spec.command = {"train"};
  job.spec.time_limit_us = 3600 * kUsPerSecond;
  job.placement = harness.PlacementOf({harness.OneDevice(0, 1)});
  harness.Record(job);
  ASSERT_EQ(harness.Desired("n0").size(), 1u);
  EXPECT_EQ(harness.Desired("n0")[0].key.attempt, 1);
  harness.Move(job, {.job = JobId(0), .tasks = {harness.OneDevice(1, 0)}}, kT0 + kUsPerSecond);
  EXPECT_TRUE(harness.Desired("n0").empty());
  ASSERT_EQ(harness.Desired("n1").size(), 1u);
  EXPECT_EQ(harness.Desired("n1")[0].key.attempt, 2);
  EXPECT_EQ(harness.Desired("n1")[0].devices, std::vector<int>{0});
}

// A gang shrunk from two ranks to one restarts as its next attempt with a world of one; the
// rank it gave up leaves its node's desired set (and gets its checkpoint signal).
TEST(AgentsBackendResize, TheShrunkGangRestartsWithItsNewWorldSize) {
  AgentsHarness harness;
  JobRecord job{.id = 3, .state = JobState::kRunning, .start_us = kT0, .starts = 1};
  job.spec.command = {"train"};
  job.spec.tasks = 2;
  job.spec.min_tasks = 1;
  job.spec.time_limit_us = 3600 * kUsPerSecond;
  const std::vector<engine::TaskAllocation> tasks = {harness.OneDevice(0, 0),
                                                     harness.OneDevice(1, 0)};
  job.placement = harness.PlacementOf(tasks);
  harness.Record(job);
  harness.backend().OnStart(job, tasks, harness.cluster());
  ASSERT_EQ(harness.Desired("n1").size(), 1u);
  EXPECT_EQ(harness.Desired("n1")[0].world_size, 2);
  harness.Move(job, {.job = JobId(0), .tasks = {tasks[0]}}, kT0 + kUsPerSecond);
  EXPECT_TRUE(harness.Desired("n1").empty());
  ASSERT_EQ(harness.Desired("n0").size(), 1u);
  EXPECT_EQ(harness.Desired("n0")[0].key.attempt, 2);
  EXPECT_EQ(harness.Desired("n0")[0].world_size, 1);
  // The new attempt's one rank ends the job.
  auto& agents = static_cast<AgentsBackend&>(harness.backend());
  agents.Reported({{.job = 3, .rank = 0, .exit_code = 0, .attempt = 2}});
  const std::vector<Completion> completions = agents.Poll(kT0 + 2 * kUsPerSecond).completions;
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].exit_code, 0);
}

// A two-rank gang whose rank 0 exited before an engine rebuild completes when rank 1 exits:
// the restore keeps the exits seen.
TEST(AgentsBackendRestore, KeepsTheExitsOfTheAttemptItTracks) {
  AgentsHarness harness;
  JobRecord job{.id = 8, .state = JobState::kRunning, .start_us = kT0, .starts = 1};
  job.spec.command = {"train"};
  job.spec.time_limit_us = 3600 * kUsPerSecond;
  const std::vector<engine::TaskAllocation> tasks = {harness.OneDevice(0, 0),
                                                     harness.OneDevice(0, 1)};
  job.placement = harness.PlacementOf(tasks);
  harness.Record(job);
  harness.backend().OnStart(job, tasks, harness.cluster());
  auto& agents = static_cast<AgentsBackend&>(harness.backend());
  agents.Reported({{.job = 8, .rank = 0, .exit_code = 0, .attempt = 1}});
  EXPECT_TRUE(agents.Poll(kT0).completions.empty());
  agents.OnStart(job, tasks, harness.cluster());
  agents.Reported({{.job = 8, .rank = 1, .exit_code = 0, .attempt = 1}});
  const std::vector<Completion> completions = agents.Poll(kT0).completions;
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].message, "every rank exited 0");
}

}  // namespace
}  // namespace headroom::control
