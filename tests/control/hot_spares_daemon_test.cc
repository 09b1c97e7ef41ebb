// recovery.hot_spares live: with agents over HTTP, a node is kept idle for the jobs faults
// requeue; new work waits, saying so, and a gang a device fault requeued restarts on the spare
// at once, as the engine does it in the simulator (tests/engine/hot_spares_test.cc). A policy
// naming a level the floor lacks is refused, at start and by PUT /v1/policy.
#include <filesystem>
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

constexpr const char* kSparesPolicy =
    "name: fifo-spares\n"
    "backfill: {mode: skip}\n"
    "recovery:\n"
    "  expedite: true\n"
    "  hot_spares: {nodes: 1, level: cluster}\n";

TEST(DaemonHotSpares, NewWorkWaitsAndAFaultedGangRestartsOnTheSpareAtOnce) {
  const std::string dir = TempDir("hot-spares-policy");
  const std::string file = dir + "/spares.yaml";
  std::ofstream(file) << kSparesPolicy;
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  options.policy = file;
  options.policy_given = true;
  options.health_rules.storm_share = 1.0;  // Three nodes: one failed device is a third of them.
  TestDaemon daemon(options);
  const std::vector<std::string> names = {"n1", "n2", "n3"};
  std::map<std::string, std::string> tokens = RegisterAgents(daemon, names, 1);
  std::map<std::string, int64_t> xid;  // What each agent reports for its one device.
  const auto heartbeat = [&](const std::string& node) {
    daemon.Post(
        "/v1/agents/" + node + "/heartbeat", tokens[node],
        Json{
            {"ready", true}, {"tasks", Json::array()}, {"telemetry", XidTelemetry(1, 0, xid[node])}}
            .dump());
  };
  const auto job = [&](uint64_t id) {
    return daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  };
  const auto nodes_of = [&](uint64_t id) { return NodesOfJob(daemon, id); };
  for (const std::string& node : names) heartbeat(node);
  const uint64_t gang = daemon.Post("/v1/jobs", daemon.admin(), JobBody(2, 1, 0)).body["id"];
  ASSERT_TRUE(WaitFor([&] { return job(gang)["state"] == "running"; })) << job(gang).dump();
  const std::set<std::string> first = nodes_of(gang);
  ASSERT_EQ(first.size(), 2u) << job(gang).dump();
  std::string spare;
  for (const std::string& node : names) {
    if (first.count(node) == 0) spare = node;
  }
  // The third node is the spare: a one-node job waits, and says why.
  const uint64_t single = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  ASSERT_TRUE(WaitFor([&] {
    return job(single).dump().find("hot spares kept for jobs a fault requeues") !=
           std::string::npos;
  })) << job(single).dump();
  EXPECT_EQ(job(single)["state"], "pending");
  // Operators see it: GET /v1/nodes and /metrics.
  const auto spares_listed = [&] {
    std::set<std::string> out;
    const Json nodes = daemon.Get("/v1/nodes", daemon.admin()).body;
    for (const Json& node : nodes["nodes"]) {
      if (node["hot_spare"].get<bool>()) out.insert(node["name"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(spares_listed(), std::set<std::string>{spare});
  const auto metrics = httplib::Client("127.0.0.1", daemon.port()).Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("headroom_hot_spare_nodes 1\n"), std::string::npos);

  // XID 79 fails the gang's device on one node: the gang comes back at once on its other node
  // and the spare, while the one-node job still waits (no spare is left, none is free).
  const std::string faulted = *first.begin();
  const std::string other = *first.rbegin();
  xid[faulted] = 79;
  heartbeat(faulted);
  ASSERT_TRUE(WaitFor([&] {
    return job(gang)["state"] == "running" && nodes_of(gang) == std::set<std::string>{other, spare};
  })) << job(gang).dump();
  EXPECT_EQ(job(single)["state"], "pending");
  EXPECT_TRUE(spares_listed().empty());
  std::filesystem::remove_all(dir);
}

TEST(DaemonHotSpares, ALevelTheFloorLacksIsRefused) {
  const std::string dir = TempDir("hot-spares-level");
  const std::string file = dir + "/spares.yaml";
  std::ofstream(file) << "name: p\nrecovery:\n  hot_spares: {nodes: 1, level: pod}\n";
  DaemonOptions options = TestDaemon::Simulated();
  options.data_dir = dir + "/data";
  options.policy = file;
  auto refused = Daemon::Start(options);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("no level \"pod\""), std::string::npos)
      << refused.error().message;

  TestDaemon daemon(TestDaemon::Simulated());
  const auto put = daemon.Put("/v1/policy", daemon.admin(),
                              "name: p\nrecovery:\n  hot_spares: {nodes: 1, level: pod}\n");
  EXPECT_EQ(put.status, 400);
  EXPECT_NE(put.body.dump().find("no level"), std::string::npos) << put.body.dump();
  const auto kept = daemon.Put("/v1/policy", daemon.admin(),
                               "name: p\nrecovery:\n  hot_spares: {nodes: 1, level: rack}\n");
  EXPECT_EQ(kept.status, 200) << kept.body.dump();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace headroom::control
