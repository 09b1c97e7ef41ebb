// TaskLauncher against real processes: the exact environment a task sees, exit codes, the
// SIGTERM-then-SIGKILL stop of a process group, exits reported until acknowledged, tasks that
// cannot start, and no new tasks while the node is not ready.
#include "agent/task_launcher.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "agent/agent.h"
#include "agent/task_environment.h"
#include "agent_test_files.h"

namespace headroom::agent {
namespace {

using testing::FileExists;
using testing::ProcessExists;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WaitUntil;

const std::vector<std::string> kAgentEnv = {"PATH=/usr/bin:/bin", "LANG=C"};

TaskLauncher MakeLauncher(const ScratchDir& dir) {
  auto launcher = TaskLauncher::Create(
      {.work_dir = dir.path(), .agent_env = kAgentEnv, .device_indices = {0, 1, 2, 3}});
  EXPECT_TRUE(launcher.has_value());
  return std::move(*launcher);
}

DesiredTask Shell(int64_t job, int rank, const std::string& script, int64_t grace_s = 5) {
  return DesiredTask{.key = {.job = job, .rank = rank},
                     .world_size = 2,
                     .devices = {rank * 2, rank * 2 + 1},
                     .command = {"/bin/sh", "-c", script},
                     .env = {{"JOB_VAR", "from the job"}},
                     .rendezvous = "10.1.2.3:29500",
                     .stop_grace_s = grace_s,
                     .tenant = "team-a"};
}

// Polls the launcher until no task runs (or 10 s pass).
bool PollUntilIdle(TaskLauncher& launcher) {
  return WaitUntil([&] {
    launcher.Poll(SteadyNowUs());
    return !launcher.HasRunningTasks();
  });
}

std::set<std::string> Lines(const std::string& text) {
  std::set<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.insert(line);
  return lines;
}

TEST(AgentTaskLauncher, TaskSeesExactlyTheDocumentedEnvironment) {
  ScratchDir dir;
  TaskLauncher launcher = MakeLauncher(dir);
  const DesiredTask task = Shell(42, 1, "env > " + dir.File("env.txt"));
  launcher.Reconcile({task}, Admission::kStartNew, SteadyNowUs());
  ASSERT_TRUE(PollUntilIdle(launcher));
  std::set<std::string> expected;
  for (const std::string& entry : TaskEnvironment(task, kAgentEnv)) expected.insert(entry);
  // dash exports PWD on its own; the task runs in the agent's working directory.
  expected.insert("PWD=" + std::filesystem::current_path().string());
  EXPECT_EQ(Lines(ReadFile(dir.File("env.txt"))), expected);
  EXPECT_TRUE(expected.contains("CUDA_VISIBLE_DEVICES=2,3"));
  EXPECT_TRUE(expected.contains("HEADROOM_RANK=1"));
  EXPECT_TRUE(expected.contains("MASTER_ADDR=10.1.2.3"));
  EXPECT_TRUE(expected.contains("JOB_VAR=from the job"));
}

TEST(AgentTaskLauncher, ReportsExitCodesAndOutputFiles) {
  ScratchDir dir;
  TaskLauncher launcher = MakeLauncher(dir);
  launcher.Reconcile({Shell(1, 0, "echo out; echo err >&2; exit 3"), Shell(2, 0, "kill -9 $$")},
                     Admission::kStartNew, SteadyNowUs());
  ASSERT_TRUE(PollUntilIdle(launcher));
  const std::vector<TaskReport> reports = launcher.Reports();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].state, TaskState::kExited);
  EXPECT_EQ(reports[0].exit_code, 3);
  EXPECT_GT(reports[0].pid, 0);
  EXPECT_EQ(reports[1].exit_code, 128 + SIGKILL);
  EXPECT_EQ(ReadFile(launcher.StdoutPath({1, 0})), "out\n");
  EXPECT_EQ(ReadFile(launcher.StderrPath({1, 0})), "err\n");
  EXPECT_FALSE(ProcessExists(reports[0].pid));  // Reaped: not even a zombie.
}

TEST(AgentTaskLauncher, ExitIsReportedUntilUndesiredAndAcknowledged) {
  ScratchDir dir;
  TaskLauncher launcher = MakeLauncher(dir);
  const DesiredTask task = Shell(5, 0, "exit 0");
  launcher.Reconcile({task}, Admission::kStartNew, SteadyNowUs());
  ASSERT_TRUE(PollUntilIdle(launcher));
  // Still desired: reported every time and never restarted.
  launcher.Acknowledge(launcher.Reports());
  launcher.Reconcile({task}, Admission::kStartNew, SteadyNowUs());
  ASSERT_EQ(launcher.Reports().size(), 1u);
  EXPECT_EQ(launcher.Reports()[0].state, TaskState::kExited);
  EXPECT_FALSE(launcher.HasRunningTasks());
  // No longer desired and acknowledged: forgotten.
  launcher.Reconcile({}, Admission::kStartNew, SteadyNowUs());
  EXPECT_TRUE(launcher.Reports().empty());
}

TEST(AgentTaskLauncher, ANewAttemptWaitsForTheOldOneToReleaseItsDevices) {
  ScratchDir dir;
  TaskLauncher launcher = MakeLauncher(dir);
  // Attempt 1 checkpoints for a while when told to stop.
  const std::string first = "trap 'sleep 0.3; exit 0' TERM; echo up > " + dir.File("up") +
                            "; while true; do sleep 0.05; done";
  launcher.Reconcile({Shell(4, 0, first)}, Admission::kStartNew, SteadyNowUs());
  ASSERT_TRUE(WaitUntil([&] { return FileExists(dir.File("up")); }));
  // The job was requeued and placed here again, same rank and devices: attempt 2.
  DesiredTask second = Shell(4, 0, "echo $HEADROOM_ATTEMPT > " + dir.File("attempt"));
  second.key.attempt = 2;
  launcher.Reconcile({second}, Admission::kStartNew, SteadyNowUs());
  std::vector<TaskReport> reports = launcher.Reports();
  ASSERT_EQ(reports.size(), 1u);  // Attempt 1 stopping; attempt 2 not started on its devices.
  EXPECT_EQ(reports[0].key, (TaskKey{4, 0, 1}));
  EXPECT_EQ(reports[0].state, TaskState::kRunning);
  ASSERT_TRUE(WaitUntil([&] {
    launcher.Poll(SteadyNowUs());
    launcher.Reconcile({second}, Admission::kStartNew, SteadyNowUs());
    return FileExists(dir.File("attempt"));
  }));
  EXPECT_EQ(ReadFile(dir.File("attempt")), "2\n");
  ASSERT_TRUE(PollUntilIdle(launcher));
  reports = launcher.Reports();
  ASSERT_EQ(reports.size(), 2u);  // Both exits, each under its own attempt.
  EXPECT_EQ(reports[0].key.attempt, 1);
  EXPECT_EQ(reports[1].key.attempt, 2);
  EXPECT_EQ(reports[1].exit_code, 0);
}

TEST(AgentTaskLauncher, StopForwardsSigtermForACheckpoint) {
  ScratchDir dir;
  TaskLauncher launcher = MakeLauncher(dir);
  const std::string script = "trap 'echo saved > " + dir.File("checkpoint") +
                             "; exit 0' TERM; echo up > " + dir.File("up") +
                             "; while true; do sleep 0.05; done";
  launcher.Reconcile({Shell(9, 0, script)}, Admission::kStartNew, SteadyNowUs());
  ASSERT_TRUE(WaitUntil([&] { return FileExists(dir.File("up")); }));
  launcher.Reconcile({}, Admission::kStartNew, SteadyNowUs());
  // Stopping but not yet reaped: still reported running, so the daemon keeps the devices busy.
  EXPECT_EQ(launcher.Reports().at(0).state, TaskState::kRunning);
  ASSERT_TRUE(PollUntilIdle(launcher));
  EXPECT_EQ(ReadFile(dir.File("checkpoint")), "saved\n");
  const std::vector<TaskReport> reports = launcher.Reports();
  ASSERT_EQ(reports.size(), 1u);  // The exit of a stopped task is reported once more.
  EXPECT_EQ(reports[0].exit_code, 0);
  launcher.Acknowledge(reports);
  launcher.Reconcile({}, Admission::kStartNew, SteadyNowUs());
  EXPECT_TRUE(launcher.Reports().empty());
}

TEST(AgentTaskLauncher, SigkillsTheGroupAfterTheGrace) {
  ScratchDir dir;
  TaskLauncher launcher = MakeLauncher(dir);
  // Ignores TERM and has a child in its group that ignores it too.
  const std::string script =
      "trap '' TERM; (trap '' TERM; sleep 30) & "
      "echo $! > " +
      dir.File("child") + "; echo up > " + dir.File("up") + "; wait";
  launcher.Reconcile({Shell(3, 0, script, /*grace_s=*/0)}, Admission::kStartNew, SteadyNowUs());
  ASSERT_TRUE(WaitUntil([&] { return FileExists(dir.File("up")); }));
  const pid_t child = std::stoi(ReadFile(dir.File("child")));
  ASSERT_TRUE(ProcessExists(child));
  launcher.Reconcile({}, Admission::kStartNew, SteadyNowUs());
  ASSERT_TRUE(PollUntilIdle(launcher));
  EXPECT_EQ(launcher.Reports().at(0).exit_code, 128 + SIGKILL);
  // The child was in the task's group: killed too (and reaped by init, not left running).
  EXPECT_TRUE(WaitUntil([&] {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid, name, state;
    return !(stat >> pid >> name >> state) || state == "Z";
  }));
}

TEST(AgentTaskLauncher, LeftoverGroupMembersAreKilledWhenTheLeaderExits) {
  ScratchDir dir;
  TaskLauncher launcher = MakeLauncher(dir);
  const std::string script = "sleep 30 & echo $! > " + dir.File("child") + "; exit 0";
  launcher.Reconcile({Shell(4, 0, script)}, Admission::kStartNew, SteadyNowUs());
  ASSERT_TRUE(PollUntilIdle(launcher));
  const pid_t child = std::stoi(ReadFile(dir.File("child")));
  EXPECT_TRUE(WaitUntil([&] {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid, name, state;
    return !(stat >> pid >> name >> state) || state == "Z";
  }));
}

TEST(AgentTaskLauncher, TasksThatCannotStartAreReportedWithAReason) {
  ScratchDir dir;
  TaskLauncher launcher = MakeLauncher(dir);
  DesiredTask missing = Shell(6, 0, "");
  missing.command = {"/nonexistent/program"};
  DesiredTask bad_device = Shell(7, 0, "true");
  bad_device.devices = {9};
  launcher.Reconcile({missing, bad_device}, Admission::kStartNew, SteadyNowUs());
  const std::vector<TaskReport> reports = launcher.Reports();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].state, TaskState::kExited);
  EXPECT_EQ(reports[0].exit_code, kCannotStartExitCode);
  EXPECT_EQ(reports[0].message, "cannot start '/nonexistent/program': No such file or directory");
  EXPECT_EQ(reports[0].pid, 0);
  EXPECT_EQ(reports[1].message, "this node has no device 9");
  EXPECT_NE(ReadFile(launcher.StderrPath({6, 0})).find("No such file"), std::string::npos);
}

TEST(AgentTaskLauncher, NotReadyStartsNothingButKeepsRunningTasks) {
  ScratchDir dir;
  TaskLauncher launcher = MakeLauncher(dir);
  const DesiredTask running = Shell(1, 0, "sleep 30");
  launcher.Reconcile({running}, Admission::kStartNew, SteadyNowUs());
  launcher.Reconcile({running, Shell(2, 0, "sleep 30")}, Admission::kHoldNew, SteadyNowUs());
  const std::vector<TaskReport> reports = launcher.Reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].key, (TaskKey{1, 0}));
  EXPECT_EQ(reports[0].state, TaskState::kRunning);
  const std::map<int, DeviceUser> users = launcher.DeviceUsers();
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users.at(0).job, 1);
  EXPECT_EQ(users.at(1).tenant, "team-a");
  const pid_t pid = reports[0].pid;
  launcher.StopAll(SteadyNowUs());
  ASSERT_TRUE(PollUntilIdle(launcher));
  EXPECT_FALSE(ProcessExists(pid));
}

TEST(AgentTaskLauncher, DestroyingTheLauncherKillsAndReapsItsTasks) {
  ScratchDir dir;
  pid_t pid = 0;
  {
    TaskLauncher launcher = MakeLauncher(dir);
    launcher.Reconcile({Shell(1, 0, "sleep 30")}, Admission::kStartNew, SteadyNowUs());
    pid = launcher.Reports().at(0).pid;
    ASSERT_TRUE(ProcessExists(pid));
  }
  EXPECT_FALSE(ProcessExists(pid));
}

}  // namespace
}  // namespace headroom::agent
