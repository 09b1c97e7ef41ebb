// recovery.keep_nodes live (slurm-expedite): a gang a device fault requeued keeps its other node
// from other work until it starts again, driven over HTTP by fake agents, as the engine does it
// in the simulator (tests/engine/kept_nodes_test.cc).
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "control/fake_clock.h"
#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::JobBody;
using testing::Json;
using testing::NodesOfJob;
using testing::RegisterAgents;
using testing::TestDaemon;
using testing::WaitFor;
using testing::XidTelemetry;

TEST(DaemonKeptNodes, AFaultedGangsOtherNodeWaitsForItsRestart) {
  // A fake clock, so that the test can move time past slurm-like's 30 s backfill interval.
  auto clock = std::make_shared<FakeClock>(1'800'000'000 * kUsPerSecond);
  DaemonOptions options;
  options.clock = clock;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  options.policy = "slurm-expedite";
  options.policy_given = true;
  options.health_rules.storm_share = 1.0;  // Three nodes: one failed device is a third of them.
  TestDaemon daemon(options);
  const std::vector<std::string> names = {"n1", "n2", "n3"};
  std::map<std::string, std::string> tokens = RegisterAgents(daemon, names, 1);
  std::map<std::string, int64_t> xid;  // What each agent reports for its one device.
  const auto heartbeat = [&](const std::string& node) {
    return daemon
        .Post("/v1/agents/" + node + "/heartbeat", tokens[node],
              Json{{"ready", true},
                   {"tasks", Json::array()},
                   {"telemetry", XidTelemetry(1, 0, xid[node])}}
                  .dump())
        .body["tasks"];
  };
  const auto job = [&](uint64_t id) {
    return daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  };
  const auto nodes_of = [&](uint64_t id) { return NodesOfJob(daemon, id); };
  for (const std::string& node : names) heartbeat(node);
  const uint64_t gang = daemon.Post("/v1/jobs", daemon.admin(), JobBody(2, 1, 0)).body["id"];
  ASSERT_TRUE(WaitFor([&] { return job(gang)["state"] == "running"; }));
  const std::set<std::string> first = nodes_of(gang);
  const std::string faulted = *first.begin();
  const std::string other = *first.rbegin();
  std::string spare;
  for (const std::string& node : names) {
    if (first.count(node) == 0) spare = node;
  }
  const uint64_t single = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  ASSERT_TRUE(WaitFor([&] { return job(single)["state"] == "running"; }));
  ASSERT_EQ(nodes_of(single), std::set<std::string>{spare});

  // XID 79 fails the gang's device on `faulted`: the gang is requeued and waits, its node on
  // `other` kept; a new one-node job may not take it, though it would end before the gang's
  // reservation (EASY backfill, without kept nodes, starts it there).
  xid[faulted] = 79;
  heartbeat(faulted);
  ASSERT_TRUE(WaitFor([&] { return job(gang)["state"] == "pending"; })) << job(gang).dump();
  const uint64_t late =
      daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0, "", 60)).body["id"];
  for (int i = 0; i < 4; ++i) {  // Two minutes in 30 s steps: backfill passes fall due.
    clock->AdvanceUs(30 * kUsPerSecond);
    for (const std::string& node : names) heartbeat(node);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(job(late)["state"], "pending") << job(late).dump();
  EXPECT_EQ(job(gang)["state"], "pending");

  // The single job ends: the gang restarts on `other` and `spare` at once, ahead of `late`.
  ASSERT_EQ(
      daemon.Post("/v1/jobs/" + std::to_string(single) + "/cancel", daemon.admin(), "").status,
      200);
  ASSERT_TRUE(WaitFor([&] { return job(gang)["state"] == "running"; })) << job(gang).dump();
  EXPECT_EQ(nodes_of(gang), (std::set<std::string>{other, spare}));
  EXPECT_EQ(job(late)["state"], "pending");
}

}  // namespace
}  // namespace headroom::control
