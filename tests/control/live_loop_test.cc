// LiveLoop on its own, without the HTTP layer: a real SQLite journal, a fake clock and a scripted
// backend that records what the loop asks of it and reports what the test tells it to. Exact
// expectations on the tiny building (two racks of two 4-GPU nodes): a start is journaled before
// the backend hears of it, a completion frees the devices for the next job, a lost node sends
// its job back to the queue and it starts again as a new attempt, a cancel stops the job in the
// backend, and every change is on disk for a second connection with the spec kept intact.
#include "control/live_loop.h"

#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <set>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "control/engine_log.h"
#include "control/engine_replay.h"
#include "control/fake_clock.h"
#include "control/sqlite_store.h"
#include "daemon_fixture.h"
#include "engine/policy_yaml.h"
#include "engine/presets.h"
#include "live_loop_fixture.h"
#include "model/cluster_yaml.h"

namespace headroom::control {
namespace {

using live_loop_testing::DevicesOf;
using live_loop_testing::LiveLoopTest;

TEST_F(LiveLoopTest, AStartIsOnDiskBeforeTheBackendHearsOfIt) {
  // Read from the store at the moment the backend hears of the start.
  JobRecord row;
  backend_->on_start = [&](const JobRecord& job) { row = OnDisk(job.id); };
  const uint64_t id = Submit(1, 4);
  ASSERT_TRUE(testing::WaitFor([&] { return backend_->starts().size() == 1; }));
  // The row already said running, on one whole node.
  EXPECT_EQ(row.state, JobState::kRunning);
  EXPECT_EQ(row.starts, 1u);
  EXPECT_EQ(row.start_us, clock_.NowUs());
  ASSERT_EQ(row.placement.size(), 1u);
  EXPECT_EQ(row.placement[0].device_indices.size(), 4u);
  EXPECT_EQ(row.placement, backend_->starts()[0].placement);
  EXPECT_EQ(row.spec.command, std::vector<std::string>{"train"});
  EXPECT_TRUE(WaitForState(id, JobState::kRunning, 1));
  std::lock_guard lock(state_.mu);
  EXPECT_EQ(state_.placements_total, 1u);
}

TEST_F(LiveLoopTest, ACompletionFreesTheDevicesForTheNextJob) {
  const uint64_t whole = Submit(4, 4);  // All 16 devices.
  ASSERT_TRUE(WaitForState(whole, JobState::kRunning, 1));
  EXPECT_EQ(DevicesOf(InState(whole)), 16u);
  const uint64_t next = Submit(1, 1);
  ASSERT_TRUE(testing::WaitFor([&] { return loop_->Explain({next}).at(next).code == "capacity"; }));
  EXPECT_EQ(InState(next).state, JobState::kPending);

  clock_.AdvanceUs(60 * kUsPerSecond);
  // A call runs on the loop after it read its clock for that iteration: from here on, every
  // iteration's time is past the advance, and so is the completion's.
  loop_->Barrier();
  backend_->Report(BackendReport{
      .completions = {Completion{.job = whole, .exit_code = 0, .end_us = clock_.NowUs()}}});
  loop_->Wake();
  ASSERT_TRUE(WaitForState(whole, JobState::kCompleted, 1));
  ASSERT_TRUE(WaitForState(next, JobState::kRunning, 1));
  const JobRecord ended = OnDisk(whole);
  EXPECT_EQ(ended.state, JobState::kCompleted);
  EXPECT_EQ(ended.exit_code, 0);
  EXPECT_EQ(ended.end_us, clock_.NowUs());
  EXPECT_EQ(ended.spec.tasks, 4u);
  EXPECT_EQ(OnDisk(next).state, JobState::kRunning);
}

// Readers use the view the loop published: while the loop is busy (here: held inside a start it
// hands the backend), why a job waits and the metrics' reasons are answered at once, as of the
// last publication.
TEST_F(LiveLoopTest, ReadersDoNotWaitForABusyLoop) {
  const uint64_t whole = Submit(4, 4);  // All 16 devices.
  ASSERT_TRUE(WaitForState(whole, JobState::kRunning, 1));
  const uint64_t next = Submit(1, 1);
  ASSERT_TRUE(testing::WaitFor([&] { return loop_->Explain({next}).at(next).code == "capacity"; }));

  // The hook owns what it uses: the loop may still be leaving it when the test body ends.
  std::promise<void> release;
  const std::shared_future<void> released = release.get_future().share();
  // Released on every way out of the test, so that the loop can stop.
  std::shared_ptr<void> releaser(nullptr, [&release](void*) { release.set_value(); });
  const auto in_start = std::make_shared<std::atomic<bool>>(false);
  backend_->on_start = [released, in_start](const JobRecord&) {
    *in_start = true;
    released.wait();
  };
  backend_->Report(BackendReport{
      .completions = {Completion{.job = whole, .exit_code = 0, .end_us = clock_.NowUs()}}});
  loop_->Wake();
  ASSERT_TRUE(testing::WaitFor([&] { return in_start->load(); }));
  auto why = std::async(std::launch::async, [&] { return loop_->Explain({next}, true); });
  auto reasons = std::async(std::launch::async, [&] { return loop_->PendingByReason(); });
  const bool answered = why.wait_for(std::chrono::seconds(5)) == std::future_status::ready &&
                        reasons.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  releaser.reset();
  ASSERT_TRUE(answered);
  const PendingInfo info = why.get().at(next);
  EXPECT_EQ(info.code, "capacity");  // As published before the step now under way.
  ASSERT_TRUE(info.nodes.has_value());
  EXPECT_NE(info.message.find("Of 4 nodes:"), std::string::npos) << info.message;
  EXPECT_TRUE(WaitForState(next, JobState::kRunning, 1));
}

TEST_F(LiveLoopTest, ALostNodeRequeuesItsJobWhichStartsAgainAsTheNextAttempt) {
  const uint64_t id = Submit(1, 4);
  ASSERT_TRUE(WaitForState(id, JobState::kRunning, 1));
  const std::string lost = InState(id).placement.at(0).node;

  backend_->Report(BackendReport{.lost_nodes = {lost}});
  loop_->Wake();
  // Requeued (one more requeue), then placed again: a second start, a new attempt.
  ASSERT_TRUE(WaitForState(id, JobState::kRunning, 2));
  const JobRecord job = InState(id);
  EXPECT_EQ(job.requeues, 1u);
  EXPECT_EQ(DevicesOf(job), 4u);
  ASSERT_EQ(backend_->starts().size(), 2u);
  EXPECT_EQ(backend_->starts()[1].starts, 2u);
  const JobRecord row = OnDisk(id);
  EXPECT_EQ(row.requeues, 1u);
  EXPECT_EQ(row.starts, 2u);
  EXPECT_EQ(row.placement, job.placement);
}

TEST_F(LiveLoopTest, ACancelStopsTheRunningJobInTheBackendAndIsJournaled) {
  const uint64_t id = Submit(2, 4);
  ASSERT_TRUE(WaitForState(id, JobState::kRunning, 1));
  auto cancelled = loop_->Cancel(id);
  ASSERT_TRUE(cancelled.has_value());
  EXPECT_EQ(cancelled->state, JobState::kCancelled);
  EXPECT_EQ(backend_->stops(), std::vector<uint64_t>{id});
  EXPECT_EQ(InState(id).state, JobState::kCancelled);
  const JobRecord row = OnDisk(id);
  EXPECT_EQ(row.state, JobState::kCancelled);
  EXPECT_EQ(row.message, "cancelled by request");
  EXPECT_EQ(row.spec.tasks, 2u);
  // Cancelling again answers with the same record; an unknown job is a 404.
  EXPECT_EQ(loop_->Cancel(id)->state, JobState::kCancelled);
  EXPECT_EQ(loop_->Cancel(99).error().status, 404);
}

TEST_F(LiveLoopTest, AGangBlockedByFragmentationStartsAfterTheLoopMovesARunningJob) {
  // Eight two-device jobs fill the four 4-device nodes; two of them, on different nodes, end.
  std::vector<uint64_t> pairs;
  for (int i = 0; i < 8; ++i) pairs.push_back(Submit(1, 2));
  for (uint64_t id : pairs) ASSERT_TRUE(WaitForState(id, JobState::kRunning, 1));
  std::map<std::string, std::vector<uint64_t>> on_node;
  for (uint64_t id : pairs) on_node[InState(id).placement.at(0).node].push_back(id);
  ASSERT_EQ(on_node.size(), 4u);
  const std::string node_a = on_node.begin()->first;
  const std::string node_b = std::next(on_node.begin())->first;
  clock_.AdvanceUs(60 * kUsPerSecond);
  loop_->Barrier();
  backend_->Report(BackendReport{.completions = {{.job = on_node[node_a][0], .exit_code = 0},
                                                 {.job = on_node[node_b][0], .exit_code = 0}}});
  loop_->Wake();
  ASSERT_TRUE(WaitForState(on_node[node_b][0], JobState::kCompleted, 1));

  // Two devices free on each of two nodes: a four-device task fits only once one of the
  // remaining pairs there moves next to the other.
  const uint64_t gang = Submit(1, 4);
  ASSERT_TRUE(WaitForState(gang, JobState::kRunning, 1));
  ASSERT_EQ(backend_->migrations().size(), 1u);
  const JobRecord moved = backend_->migrations()[0];
  EXPECT_EQ(moved.starts, 2u);  // The restart on the new devices is its next attempt.
  const std::string from = moved.id == on_node[node_a][1] ? node_a : node_b;
  ASSERT_TRUE(moved.id == on_node[node_a][1] || moved.id == on_node[node_b][1]);
  ASSERT_EQ(moved.placement.size(), 1u);
  EXPECT_NE(moved.placement[0].node, from);
  EXPECT_EQ(InState(gang).placement.at(0).node, from);
  // Journaled before the backend heard of it, and counted.
  const JobRecord row = OnDisk(moved.id);
  EXPECT_EQ(row.state, JobState::kRunning);
  EXPECT_EQ(row.starts, 2u);
  EXPECT_EQ(row.placement, moved.placement);
  EXPECT_EQ(row.start_us, InState(moved.id).start_us);
  {
    std::lock_guard lock(state_.mu);
    EXPECT_EQ(state_.migrations_total, 1u);
  }
  // The engine log replays: the ten starts and the move come out the same.
  const EngineReplay replay = ReplayLog();
  EXPECT_EQ(replay.builds(), 1u);
  EXPECT_EQ(replay.decisions(), 10u);
  EXPECT_EQ(replay.mismatch_count(), 0u);
}

TEST_F(LiveLoopTest, TheEngineLogReplaysCompletionsCancelsAndLostNodesAndCatchesATamperedLog) {
  const uint64_t whole = Submit(4, 4);
  ASSERT_TRUE(WaitForState(whole, JobState::kRunning, 1));
  const uint64_t waiting = Submit(1, 2);
  const uint64_t cancelled = Submit(2, 4);
  ASSERT_TRUE(
      testing::WaitFor([&] { return loop_->Explain({waiting}).at(waiting).code == "capacity"; }));
  ASSERT_TRUE(loop_->Cancel(cancelled).has_value());
  clock_.AdvanceUs(60 * kUsPerSecond);
  loop_->Barrier();
  backend_->Report(BackendReport{.completions = {{.job = whole, .exit_code = 0}}});
  loop_->Wake();
  ASSERT_TRUE(WaitForState(waiting, JobState::kRunning, 1));
  clock_.AdvanceUs(60 * kUsPerSecond);
  loop_->Barrier();
  backend_->Report(BackendReport{.lost_nodes = {InState(waiting).placement.at(0).node}});
  loop_->Wake();
  ASSERT_TRUE(WaitForState(waiting, JobState::kRunning, 2));

  const EngineReplay replay = ReplayLog();
  EXPECT_EQ(replay.decisions(), 3u);  // whole, waiting, waiting again after its requeue.
  EXPECT_GE(replay.events(), 6u);     // 3 submits, finish, cancel, interrupt (the requeue).
  EXPECT_EQ(replay.mismatch_count(), 0u);

  // A start the log says went elsewhere is a mismatch, named with its record.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, R"sql(
        UPDATE engine_log SET body = replace(body, '\"devices\":[', '\"devices\":[9,')
        WHERE seq = (SELECT min(seq) FROM engine_log WHERE body LIKE '%"start"%'))sql",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_changes(db), 1);
    sqlite3_close(db);
  }
  auto reader = SqliteStore::Open(path_, StoreOpenOptions{.read_only = true});
  ASSERT_TRUE(reader.has_value());
  EngineReplay tampered;
  ASSERT_TRUE((*reader)
                  ->ForEachEngineLogRecord(
                      0, [&](const EngineLogRecord& record) { return tampered.Apply(record); })
                  .has_value());
  EXPECT_GE(tampered.mismatch_count(), 1u);
  ASSERT_FALSE(tampered.mismatches().empty());
  EXPECT_NE(tampered.mismatches()[0].recorded, tampered.mismatches()[0].replayed);
}

// Snapshots and retention: every minute of the loop's clock the engine is built anew, carrying
// the tenant's usage; records before the newest snapshot older than the kept window are gone,
// and what remains still replays every decision. A loop started later on the newest snapshot's
// carried state (as headroomd does at a start) builds its engine on it.
TEST_F(LiveLoopTest, SnapshotsCarryFairShareAndRetentionKeepsALogThatReplays) {
  StartLoop(LoopOptions{.engine_snapshot_interval_us = 60 * kUsPerSecond,
                        .engine_log_keep_us = 100 * kUsPerSecond});
  const uint64_t whole = Submit(4, 4);
  ASSERT_TRUE(WaitForState(whole, JobState::kRunning, 1));
  for (int snapshot = 0; snapshot < 3; ++snapshot) {
    clock_.AdvanceUs(61 * kUsPerSecond);
    Iterated();
  }
  backend_->Report(BackendReport{.completions = {{.job = whole, .exit_code = 0}}});
  loop_->Wake();
  ASSERT_TRUE(WaitForState(whole, JobState::kCompleted, 1)) << "snapshots restart nothing";
  const uint64_t next = Submit(4, 4);
  ASSERT_TRUE(WaitForState(next, JobState::kRunning, 1));

  const EngineReplay replay = ReplayLog();
  const std::vector<EngineLogRecord> records = LogRecords();
  ASSERT_FALSE(records.empty());
  // Builds at 10 s (the start), 71 s, 132 s and 193 s; the last trim cut at 93 s.
  EXPECT_EQ(records.front().time_us, 71 * kUsPerSecond);
  EXPECT_TRUE(records.front().body.starts_with(R"({"build":)")) << records.front().body;
  EXPECT_EQ(replay.builds(), 3u);
  EXPECT_EQ(replay.decisions(), 1u);  // `next`; `whole` was restored by each snapshot.
  EXPECT_EQ(replay.mismatch_count(), 0u);

  auto reader = SqliteStore::Open(path_, StoreOpenOptions{.read_only = true});
  ASSERT_TRUE(reader.has_value());
  auto newest = (*reader)->NewestEngineLogBuild();
  ASSERT_TRUE(newest.has_value() && newest->has_value());
  EXPECT_EQ((*newest)->time_us, 193 * kUsPerSecond);
  auto carried = CarriedOf(nlohmann::json::parse((*newest)->body)["build"]);
  ASSERT_TRUE(carried.has_value()) << carried.error().message;
  EXPECT_EQ(carried->as_of_us, 193 * kUsPerSecond);
  // 16 devices from 10 s to 193 s, in milli-device-seconds (a week's half-life barely decays).
  EXPECT_NEAR(carried->tenant_usage.at("team-a"), 16000.0 * 183, 16000.0);

  StartLoop(LoopOptions{.carried = *carried});
  Iterated();
  loop_->Stop();
  auto after = SqliteStore::Open(path_, StoreOpenOptions{.read_only = true});
  ASSERT_TRUE(after.has_value());
  auto restarted = (*after)->NewestEngineLogBuild();
  ASSERT_TRUE(restarted.has_value() && restarted->has_value());
  EXPECT_GT((*restarted)->seq, (*newest)->seq);
  auto restarted_carried = CarriedOf(nlohmann::json::parse((*restarted)->body)["build"]);
  ASSERT_TRUE(restarted_carried.has_value());
  EXPECT_EQ(*restarted_carried, *carried);
}

// A snapshot also comes once engine_snapshot_events events were logged since the last, however
// little time passed (it bounds the tail a restart follows); the restores that complete a
// snapshot do not count toward the next.
TEST_F(LiveLoopTest, ASnapshotComesAfterTheConfiguredNumberOfEvents) {
  StartLoop(LoopOptions{.engine_snapshot_events = 3});
  // The first build, before any job: a job already in the state when the loop builds its engine
  // is resubmitted by the build, so part of the snapshot rather than of its tail.
  Iterated();
  for (int i = 0; i < 3; ++i) {
    const uint64_t job = Submit(1, 1);
    ASSERT_TRUE(WaitForState(job, JobState::kRunning, 1));
  }
  for (int i = 0; i < 3; ++i) Iterated();
  const EngineReplay replay = ReplayLog();
  EXPECT_EQ(replay.decisions(), 3u);
  EXPECT_EQ(replay.mismatch_count(), 0u);
  // Counted from the first submission on (the loop SetUp started may have logged a build too):
  // one snapshot, whose first step restores the three jobs, and nothing after it.
  size_t submits = 0;
  size_t builds = 0;
  size_t restores = 0;
  for (const EngineLogRecord& record : LogRecords()) {
    const nlohmann::json body = nlohmann::json::parse(record.body);
    if (body.contains("build")) builds += submits > 0 ? 1 : 0;
    if (!body.contains("step")) continue;
    for (const nlohmann::json& event : body["step"]["events"]) {
      submits += event.contains("submit") ? 1 : 0;
      restores += event.contains("restore") ? 1 : 0;
    }
  }
  EXPECT_EQ(submits, 3u);
  EXPECT_EQ(builds, 1u);
  EXPECT_EQ(restores, 3u);
}

}  // namespace
}  // namespace headroom::control
