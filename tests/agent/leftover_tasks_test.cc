// The agent's record of its task processes and what a restarted agent does with it: the record
// file round-trips and refuses corrupt contents; StopLeftoverTasks stops a recorded group that
// is still the task's (SIGTERM, SIGKILL after the grace for one that ignores it) and leaves
// alone a process whose pid matches but whose start time does not (a reused pid); the launcher
// keeps the record in step with what runs.
#include "agent/leftover_tasks.h"

#include <signal.h>

#include <fstream>

#include <gtest/gtest.h>

#include "agent/child_process.h"
#include "agent/proc_stat.h"
#include "agent/task_launcher.h"
#include "agent/task_record_file.h"
#include "agent_test_files.h"

namespace headroom::agent {
namespace {

using testing::ScratchDir;
using testing::WaitUntil;

ChildProcess Spawn(const ScratchDir& dir, const std::string& script) {
  auto child = ChildProcess::Spawn({.argv = {"/bin/sh", "-c", script},
                                    .env = {"PATH=/usr/bin:/bin"},
                                    .stdout_path = dir.File("out"),
                                    .stderr_path = dir.File("out")});
  EXPECT_TRUE(child.has_value());
  return std::move(*child);
}

TaskRecord RecordOf(const ChildProcess& child) {
  const std::optional<ProcStat> stat = ReadProcStat(child.pid());
  EXPECT_TRUE(stat.has_value());
  return TaskRecord{.job = 7,
                    .rank = 0,
                    .attempt = 1,
                    .pid = child.pid(),
                    .pgid = child.pid(),
                    .start_ticks = stat ? stat->start_ticks : 0,
                    .devices = {0, 1}};
}

TEST(TaskRecordFile, RoundTripsAndRefusesCorruptContents) {
  ScratchDir dir;
  const TaskRecordFile file(dir.File("state/tasks.json"));
  auto empty = file.Load();
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
  const std::vector<TaskRecord> records = {{.job = 3,
                                            .rank = 1,
                                            .attempt = 2,
                                            .pid = 4242,
                                            .pgid = 4242,
                                            .start_ticks = 99,
                                            .devices = {4, 5},
                                            .started_unix_s = 1700000000}};
  ASSERT_TRUE(file.Save(records).has_value());
  auto loaded = file.Load();
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(*loaded, records);

  std::ofstream(dir.File("state/tasks.json")) << R"({"tasks": [{"job": 1}]})";
  auto corrupt = file.Load();
  ASSERT_FALSE(corrupt.has_value());
  EXPECT_NE(corrupt.error().message.find("tasks[0]"), std::string::npos) << corrupt.error().message;
  std::ofstream(dir.File("state/tasks.json")) << "{\"tasks\": [";
  EXPECT_FALSE(file.Load().has_value());
}

TEST(StopLeftoverTasks, StopsTheRecordedGroupAndEscalatesToSigkill) {
  ScratchDir dir;
  ChildProcess polite = Spawn(dir, "sleep 1000 & wait");
  ChildProcess stubborn = Spawn(dir, "trap '' TERM; sleep 1000 & wait");
  const TaskRecord polite_record = RecordOf(polite);
  const TaskRecord stubborn_record = RecordOf(stubborn);
  // Both groups have their shell and its sleep.
  ASSERT_TRUE(WaitUntil([&] {
    return LiveGroupMembers(polite.pid(), polite_record.start_ticks).size() == 2 &&
           LiveGroupMembers(stubborn.pid(), stubborn_record.start_ticks).size() == 2;
  }));
  auto stopped =
      StopLeftoverTasks({polite_record, stubborn_record}, {.term_grace_us = kUsPerSecond / 2});
  ASSERT_TRUE(stopped.has_value()) << stopped.error().message;
  ASSERT_EQ(stopped->size(), 2u);
  EXPECT_FALSE((*stopped)[0].needed_kill);
  EXPECT_TRUE((*stopped)[1].needed_kill);
  EXPECT_TRUE(LiveGroupMembers(polite.pid(), polite_record.start_ticks).empty());
  EXPECT_TRUE(LiveGroupMembers(stubborn.pid(), stubborn_record.start_ticks).empty());
  EXPECT_EQ(polite.Wait(), 128 + SIGTERM);
  EXPECT_EQ(stubborn.Wait(), 128 + SIGKILL);
}

TEST(StopLeftoverTasks, LeavesAProcessWhosePidWasReusedAlone) {
  ScratchDir dir;
  ChildProcess unrelated = Spawn(dir, "sleep 1000");
  TaskRecord record = RecordOf(unrelated);
  record.start_ticks += 1;  // The task started at another time: this is not its process.
  auto stopped = StopLeftoverTasks({record}, {.term_grace_us = kUsPerSecond / 2});
  ASSERT_TRUE(stopped.has_value()) << stopped.error().message;
  EXPECT_TRUE(stopped->empty());
  EXPECT_FALSE(unrelated.Poll().has_value());  // Still running, never signalled.
}

TEST(TaskLauncherRecord, ListsEveryUnreapedTask) {
  ScratchDir dir;
  const std::string path = dir.File("state/tasks.json");
  auto launcher = TaskLauncher::Create({.work_dir = dir.path(),
                                        .agent_env = {"PATH=/usr/bin:/bin"},
                                        .device_indices = {0, 1},
                                        .record_path = path});
  ASSERT_TRUE(launcher.has_value());
  const auto task = [](int64_t job, int device, const std::string& script) {
    return DesiredTask{.key = {.job = job, .rank = 0, .attempt = 3},
                       .devices = {device},
                       .command = {"/bin/sh", "-c", script},
                       .stop_grace_s = 1};
  };
  launcher->Reconcile({task(1, 0, "sleep 1000"), task(2, 1, "exit 0")}, Admission::kStartNew, 0);
  auto records = TaskRecordFile(path).Load();
  ASSERT_TRUE(records.has_value()) << records.error().message;
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].job, 1);
  EXPECT_EQ((*records)[0].attempt, 3);
  EXPECT_EQ((*records)[0].devices, std::vector<int>{0});
  EXPECT_EQ((*records)[0].pgid, (*records)[0].pid);
  EXPECT_EQ(ReadProcStat((*records)[0].pid)->start_ticks, (*records)[0].start_ticks);
  // Job 2 exits: it leaves the record; job 1 still runs.
  ASSERT_TRUE(WaitUntil([&] {
    launcher->Poll(0);
    records = TaskRecordFile(path).Load();
    return records && records->size() == 1;
  }));
  EXPECT_EQ(records->front().job, 1);
  launcher->StopAll(0);
  ASSERT_TRUE(WaitUntil([&] {
    launcher->Poll(0);
    return !launcher->HasRunningTasks();
  }));
  records = TaskRecordFile(path).Load();
  ASSERT_TRUE(records.has_value());
  EXPECT_TRUE(records->empty());
}

}  // namespace
}  // namespace headroom::agent
