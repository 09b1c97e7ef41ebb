// End to end, issue 10 item 4: a headroom-agent killed with -9 leaves its task running; the
// restarted agent stops that task's process group before it registers, and the daemon, told by
// the registration that the node runs nothing, requeues the job and starts it again as a new
// attempt — never beside the old one. Real headroomd (--backend agents) and real agents.
#include <signal.h>

#include <cctype>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "agent/child_process.h"
#include "agent/proc_stat.h"
#include "agent/task_record_file.h"
#include "agent_processes.h"

namespace headroom::agent {
namespace {

using nlohmann::json;
using testing::Bin;
using testing::FileExists;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WaitUntil;

// At scope exit, SIGKILLs the groups still alive, so a failing test leaves no sleep behind.
struct GroupsToKill {
  std::vector<TaskRecord> records;
  ~GroupsToKill() {
    for (const TaskRecord& record : records) {
      if (!LiveGroupMembers(record.pgid, record.start_ticks).empty()) kill(-record.pgid, SIGKILL);
    }
  }
};

TEST(AgentRestartEndToEnd, Issue10KilledAgentsTaskIsStoppedBeforeItRegistersAgain) {
  ScratchDir dir;
  const std::string data = dir.File("data");
  // A long grace: the agent comes back while its node is still up, the case in which nothing on
  // the daemon's side alone would notice that the task died with the agent.
  auto daemon =
      ChildProcess::Spawn({.argv = {Bin("headroomd"), "--listen", "127.0.0.1:0", "--data-dir", data,
                                    "--backend", "agents", "--port-file", dir.File("port"),
                                    "--grace-s", "60", "--heartbeat-interval-s", "0.2"},
                           .env = {"PATH=/usr/bin:/bin"},
                           .stdout_path = dir.File("headroomd.log"),
                           .stderr_path = dir.File("headroomd.log")});
  ASSERT_TRUE(daemon.has_value()) << daemon.error().message;
  const auto logs = [&] {
    return "headroomd log:\n" + ReadFile(dir.File("headroomd.log")) + "\nagent log:\n" +
           ReadFile(dir.File("agent.log"));
  };
  ASSERT_TRUE(WaitUntil([&] {
    return FileExists(dir.File("port")) && FileExists(data + "/admin.token");
  })) << logs();
  const int port = std::stoi(ReadFile(dir.File("port")));
  testing::DaemonApi admin(port, testing::AdminToken(data));
  auto token = admin.client().Post("/v1/tokens", json{{"role", "agent"}, {"node", "n1"}}.dump(),
                                   "application/json");
  ASSERT_TRUE(token && token->status == 201) << logs();
  std::ofstream(dir.File("n1.yaml"))
      << "cpu: 4\nmemory: 8Gi\ndevices:\n- {index: 0, uuid: GPU-n1, model: H100, memory: 80Gi}\n";
  const std::vector<std::string> agent_argv = {Bin("headroom-agent"),
                                               "--server",
                                               "http://127.0.0.1:" + std::to_string(port),
                                               "--token",
                                               json::parse(token->body)["token"].get<std::string>(),
                                               "--node",
                                               "n1",
                                               "--inventory",
                                               dir.File("n1.yaml"),
                                               "--work-dir",
                                               dir.File("work"),
                                               "--address",
                                               "127.0.0.1"};
  const auto start_agent = [&] {
    return ChildProcess::Spawn({.argv = agent_argv,
                                .env = {"PATH=/usr/bin:/bin"},
                                .stdout_path = dir.File("agent.log"),
                                .stderr_path = dir.File("agent.log")});
  };
  auto agent = start_agent();
  ASSERT_TRUE(agent.has_value()) << agent.error().message;

  const json spec = {{"apiVersion", "headroom/v1"},
                     {"kind", "Job"},
                     {"spec",
                      {{"tasks", 1},
                       {"timeLimit", 3600},
                       {"command", {"sleep", "1000"}},
                       {"devices", {{"requests", {{{"name", "gpus"}, {"count", 1}}}}}}}}};
  auto submitted = admin.client().Post("/v1/jobs", spec.dump(), "application/json");
  ASSERT_TRUE(submitted && submitted->status == 201) << logs();
  const std::string job_path =
      "/v1/jobs/" + std::to_string(json::parse(submitted->body)["id"].get<int64_t>());

  // The agent records the task it started: the attempt's process group and start time.
  const TaskRecordFile record_file(dir.File("work/state/tasks.json"));
  GroupsToKill cleanup;
  const auto recorded_attempt = [&](int64_t attempt) -> std::optional<TaskRecord> {
    auto records = record_file.Load();
    if (!records || records->size() != 1 || records->front().attempt != attempt) return {};
    return records->front();
  };
  ASSERT_TRUE(WaitUntil([&] { return recorded_attempt(1).has_value(); })) << logs();
  const TaskRecord first = *recorded_attempt(1);
  cleanup.records.push_back(first);
  EXPECT_EQ(first.pgid, first.pid);
  EXPECT_EQ(first.devices, std::vector<int>{0});
  ASSERT_EQ(LiveGroupMembers(first.pgid, first.start_ticks).size(), 1u);

  // kill -9: the agent cannot stop its task, which runs on as an orphan.
  kill(agent->pid(), SIGKILL);
  agent->Wait();
  ASSERT_FALSE(LiveGroupMembers(first.pgid, first.start_ticks).empty());

  // The restarted agent stops it, registers, and the job runs again as attempt 2, alone.
  agent = start_agent();
  ASSERT_TRUE(agent.has_value()) << agent.error().message;
  EXPECT_TRUE(WaitUntil([&] { return LiveGroupMembers(first.pgid, first.start_ticks).empty(); }))
      << logs();
  ASSERT_TRUE(WaitUntil([&] { return recorded_attempt(2).has_value(); })) << logs();
  const TaskRecord second = *recorded_attempt(2);
  cleanup.records.push_back(second);
  EXPECT_NE(second.pgid, first.pgid);
  EXPECT_TRUE(LiveGroupMembers(first.pgid, first.start_ticks).empty());
  EXPECT_EQ(LiveGroupMembers(second.pgid, second.start_ticks).size(), 1u);
  const json job = admin.Get(job_path);
  EXPECT_EQ(job["state"], "running") << job.dump();
  EXPECT_EQ(job["requeues"], 1) << job.dump();
  EXPECT_NE(ReadFile(dir.File("agent.log")).find("left by an earlier run"), std::string::npos)
      << logs();

  // A clean stop ends attempt 2 and leaves an empty record.
  agent->SignalGroup(SIGTERM);
  EXPECT_EQ(agent->Wait(), 0) << logs();
  EXPECT_TRUE(LiveGroupMembers(second.pgid, second.start_ticks).empty());
  auto records = record_file.Load();
  ASSERT_TRUE(records.has_value()) << records.error().message;
  EXPECT_TRUE(records->empty());
  daemon->SignalGroup(SIGTERM);
  EXPECT_EQ(daemon->Wait(), 0) << logs();
}

}  // namespace
}  // namespace headroom::agent
