// Evacuation in headroomd, driven over HTTP by fake agents: under recovery.evacuate a device
// whose telemetry makes it suspect (XID 94, a contained ECC error) takes no new work, the job on
// it moves to the other node as its next attempt, and the device, free now, is diagnosed; under
// a policy without it the job stays and the suspect device waits for it to end.
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::JobBody;
using testing::Json;
using testing::NodesOfJob;
using testing::RegisterAgents;
using testing::TempDir;
using testing::TestDaemon;
using testing::WaitFor;
using testing::XidTelemetry;

void RunsAfterASuspectDevice(bool evacuate) {
  const std::string dir = TempDir("evacuation-policy");
  const std::string file = dir + "/policy.yaml";
  std::ofstream(file) << "name: fifo-evacuate\nbackfill: {mode: skip}\nrecovery: {evacuate: "
                      << (evacuate ? "true" : "false") << "}\n";
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  options.policy = file;
  options.policy_given = true;
  options.health_rules.storm_share = 1.0;  // Two nodes: one suspect device is half of them.
  options.health_rules.diagnose_share = 1.0;
  TestDaemon daemon(options);
  std::map<std::string, std::string> tokens = RegisterAgents(daemon, {"n1", "n2"}, 2);
  std::map<std::string, int64_t> xid = {{"n1", 0}, {"n2", 0}};  // On each node's device 0.
  const auto heartbeat = [&](const std::string& node) {
    return daemon
        .Post("/v1/agents/" + node + "/heartbeat", tokens[node],
              Json{{"ready", true},
                   {"tasks", Json::array()},
                   {"telemetry", XidTelemetry(2, 0, xid[node])}}
                  .dump())
        .body["tasks"];
  };
  const auto job_record = [&](uint64_t id) {
    return daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  };
  heartbeat("n1");
  heartbeat("n2");
  const uint64_t job = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 0)).body["id"];
  std::set<std::string> first;
  ASSERT_TRUE(WaitFor([&] {
    first = NodesOfJob(daemon, job);
    return first.size() == 1;
  }));
  const std::string warned = *first.begin();
  const std::string other = warned == "n1" ? "n2" : "n1";
  // The agent of the warned node polls for diagnostics: headroomd knows it runs them.
  daemon.Get("/v1/agents/" + warned + "/diagnostics", tokens[warned]);

  xid[warned] = 94;
  heartbeat(warned);
  const auto wanted = [&] {
    return daemon.Get("/v1/agents/" + warned + "/diagnostics", tokens[warned]).body["diagnose"];
  };
  if (!evacuate) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(NodesOfJob(daemon, job), first);
    EXPECT_EQ(job_record(job)["attempt"], 1);
    EXPECT_EQ(wanted(), Json::array());  // In use: not diagnosed.
    return;
  }
  ASSERT_TRUE(WaitFor([&] { return NodesOfJob(daemon, job) == std::set<std::string>{other}; }))
      << job_record(job).dump();
  const Json record = job_record(job);
  EXPECT_EQ(record["state"], "running");
  EXPECT_EQ(record["attempt"], 2) << record.dump();  // The move is its next attempt.
  Json tasks;
  ASSERT_TRUE(WaitFor([&] {
    tasks = heartbeat(other);
    return tasks.size() == 1;
  }));
  EXPECT_EQ(tasks[0]["job"], job);
  EXPECT_EQ(tasks[0]["attempt"], 2);
  EXPECT_TRUE(heartbeat(warned).empty());
  // The suspect device, free now, goes to diagnostics.
  EXPECT_TRUE(WaitFor([&] {
    heartbeat(warned);
    return wanted() == Json::array({0});
  })) << wanted().dump();
  // It takes no new work meanwhile, nor does its node's other device take a two-device job.
  const uint64_t second = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 0)).body["id"];
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(job_record(second)["state"], "pending");
}

TEST(DaemonEvacuation, ASuspectDevicesJobMovesOffAndTheDeviceIsDiagnosed) {
  RunsAfterASuspectDevice(true);
}

TEST(DaemonEvacuation, WithoutThePolicyTheJobStaysOnTheSuspectDevice) {
  RunsAfterASuspectDevice(false);
}

}  // namespace
}  // namespace headroom::control
