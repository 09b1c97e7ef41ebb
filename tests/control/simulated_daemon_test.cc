// The daemon on the simulated backend (tiny cluster: 4 nodes of 4 T4): submit → start →
// finish, services (replicas replaced, cancelled whole, scaled), the pending reason of a job
// that waits, and recovery after a restart on the same data dir (queue, running work with its
// placement, drains, tokens).
#include <cmath>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::JobBody;
using testing::Json;
using testing::TestDaemon;
using testing::WaitFor;

std::string StateOf(const TestDaemon& daemon, uint64_t id) {
  return daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body.value("state", "");
}

// Submits service "serve": two replicas of one device (shared at `share` milli), each running
// `runtime` (simulated).
testing::HttpReply SubmitServe(const TestDaemon& daemon, int share,
                               const std::string& runtime = "30s") {
  const std::string spec =
      "kind: Service\nmetadata: {name: serve}\nspec:\n  replicas: 2\n  timeLimit: 2h\n"
      "  runtime: " +
      runtime + "\n  devices: {requests: [{count: 1, share: " + std::to_string(share) + "}]}\n";
  return daemon.Post("/v1/jobs", daemon.admin(), spec, "application/yaml");
}

TEST(DaemonSimulated, SubmitStartFinish) {
  // 600 simulated seconds per real second: a 60 s job takes 0.1 s.
  TestDaemon daemon(TestDaemon::Simulated(600));
  auto submitted = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 60));
  ASSERT_EQ(submitted.status, 201);
  const uint64_t id = submitted.body["id"];
  EXPECT_EQ(submitted.body["state"], "pending");
  ASSERT_TRUE(WaitFor([&] { return StateOf(daemon, id) == "completed"; }));
  const Json job = daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  EXPECT_EQ(job["exit_code"], 0);
  ASSERT_EQ(job["placement"].size(), 1u);
  EXPECT_EQ(job["placement"][0]["devices"].size(), 2u);
  // One task inside one node runs at stretch 1: exactly 60 simulated seconds.
  EXPECT_NEAR(job["end_time"].get<double>() - job["start_time"].get<double>(), 60.0, 1.0);
  const Json events = daemon.Get("/v1/events?after=0", daemon.admin()).body;
  std::vector<std::string> types;
  for (const Json& event : events["events"]) types.push_back(event["type"]);
  EXPECT_EQ(types, (std::vector<std::string>{"submitted", "started", "finished"}));
  const auto metrics = httplib::Client("127.0.0.1", daemon.port()).Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("headroom_jobs{state=\"completed\"} 1"), std::string::npos);
  EXPECT_NE(metrics->body.find("headroom_cycle_seconds_count"), std::string::npos);
  EXPECT_NE(metrics->body.find("headroom_devices{class=\"T4\"} 16"), std::string::npos);
  // The one tenant's fair share, as the loop published it after a step: all of S is its own.
  std::string scraped;
  EXPECT_TRUE(WaitFor([&] {
    const auto scrape = httplib::Client("127.0.0.1", daemon.port()).Get("/metrics");
    scraped = scrape ? scrape->body : "";
    return scraped.find("headroom_tenant_share{tenant=\"default\"} 1\n") != std::string::npos;
  })) << scraped;
  EXPECT_NE(scraped.find("# TYPE headroom_tenant_fairshare gauge\nheadroom_tenant_fairshare{"
                         "tenant=\"default\"} "),
            std::string::npos)
      << scraped;
  EXPECT_NE(scraped.find("headroom_tenant_usage_device_seconds{tenant=\"default\"} "),
            std::string::npos);
}

// A job that declares its checkpoint cost pays it after each interval: 600 s of work with a 6 s
// pause every 60 s (its own interval; the default policy tells no longer one) takes 660 s.
TEST(DaemonSimulated, CheckpointPausesStretchAJob) {
  TestDaemon daemon(TestDaemon::Simulated(600));
  Json body = Json::parse(JobBody(1, 1, 600));
  body["spec"]["checkpointInterval"] = "60s";
  body["spec"]["checkpointCost"] = "6s";
  const uint64_t id = daemon.Post("/v1/jobs", daemon.admin(), body.dump()).body["id"];
  ASSERT_TRUE(WaitFor([&] { return StateOf(daemon, id) == "completed"; }));
  const Json job = daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  EXPECT_NEAR(job["end_time"].get<double>() - job["start_time"].get<double>(), 660.0, 1.0);
}

TEST(DaemonSimulated, ServiceReplicasAreReplacedWhenTheyEnd) {
  TestDaemon daemon(TestDaemon::Simulated(600));
  auto submitted = SubmitServe(daemon, 500);
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  EXPECT_EQ(submitted.body["kind"], "service");
  ASSERT_EQ(submitted.body["jobs"].size(), 2u);
  const uint64_t first_replica = submitted.body["jobs"][0];
  // 30 simulated seconds are 50 ms: each replica ends and is replaced, so the service keeps
  // two live jobs while the first ones complete.
  Json service;
  ASSERT_TRUE(WaitFor([&] {
    // The replica's state first: a view of the service read before it ended would still list it.
    if (StateOf(daemon, first_replica) != "completed") return false;
    service = daemon.Get("/v1/services", daemon.admin()).body["services"][0];
    return service["running"] == 2;
  })) << service.dump();
  EXPECT_EQ(service["replicas"], 2);
  EXPECT_EQ(service["name"], "serve");
  for (const Json& id : service["jobs"]) EXPECT_GT(id.get<uint64_t>(), first_replica);
  const Json replica = daemon.Get("/v1/jobs/" + std::to_string(first_replica), daemon.admin()).body;
  EXPECT_EQ(replica["kind"], "service");
  EXPECT_EQ(replica["share_milli"], 500);
}

TEST(DaemonSimulated, CancellingAServiceStopsItsReplicasForGood) {
  TestDaemon daemon(TestDaemon::Simulated(600));
  auto submitted = SubmitServe(daemon, 1000);
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  const uint64_t service = submitted.body["id"];
  const std::string other_tenant = daemon.Token({{"role", "user"}, {"tenant", "team-b"}});
  const std::string cancel = "/v1/services/" + std::to_string(service) + "/cancel";
  EXPECT_EQ(daemon.Post(cancel, other_tenant, "").status, 403);

  auto cancelled = daemon.Post(cancel, daemon.admin(), "");
  ASSERT_EQ(cancelled.status, 200) << cancelled.body.dump();
  EXPECT_EQ(cancelled.body["name"], "serve");
  ASSERT_EQ(cancelled.body["jobs"].size(), 2u);  // The two live replicas.
  for (const Json& id : cancelled.body["jobs"]) {
    EXPECT_EQ(StateOf(daemon, id.get<uint64_t>()), "cancelled");
  }
  EXPECT_TRUE(daemon.Get("/v1/services", daemon.admin()).body["services"].empty());
  // No replica comes back once the loop has taken the cancel in, nothing runs.
  ASSERT_TRUE(daemon.WaitLoopPassed());
  EXPECT_TRUE(daemon.Get("/v1/jobs?state=running", daemon.admin()).body["jobs"].empty());
  EXPECT_TRUE(daemon.Get("/v1/jobs?state=pending", daemon.admin()).body["jobs"].empty());
  EXPECT_EQ(daemon.Post(cancel, daemon.admin(), "").status, 404);
  // Durable: after a restart the service is still gone.
  daemon.Stop();
  daemon.Start();
  EXPECT_TRUE(daemon.Get("/v1/services", daemon.admin()).body["services"].empty());
}

TEST(DaemonSimulated, ScalingAServiceAddsReplicasOrCancelsTheSurplus) {
  TestDaemon daemon(TestDaemon::Simulated());  // Real time: the replicas run for the hour.
  auto submitted = SubmitServe(daemon, 1000, "1h");
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  const uint64_t service = submitted.body["id"];
  const uint64_t first = submitted.body["jobs"][0];
  ASSERT_TRUE(WaitFor([&] { return StateOf(daemon, first) == "running"; }));
  const std::string scale = "/v1/services/" + std::to_string(service) + "/scale";
  auto scale_to = [&](int replicas) {
    return daemon.Post(scale, daemon.admin(), Json{{"replicas", replicas}}.dump());
  };
  const std::string other_tenant = daemon.Token({{"role", "user"}, {"tenant", "team-b"}});
  EXPECT_EQ(daemon.Post(scale, other_tenant, R"({"replicas": 3})").status, 403);
  auto bad = scale_to(-1);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body["error"]["message"], "replicas: expected an integer in [0, 10000], got -1");
  EXPECT_EQ(daemon.Post(scale, daemon.admin(), "{}").status, 400);
  EXPECT_EQ(daemon.Post("/v1/services/99/scale", daemon.admin(), R"({"replicas": 1})").status, 404);

  // 20 replicas of one T4 on 16 T4s: 16 run, 4 wait.
  auto up = scale_to(20);
  ASSERT_EQ(up.status, 200) << up.body.dump();
  EXPECT_EQ(up.body["replicas"], 20);
  EXPECT_EQ(up.body["added"].size(), 18u);
  EXPECT_TRUE(up.body["cancelled"].empty());
  Json view;
  ASSERT_TRUE(WaitFor([&] {
    view = daemon.Get("/v1/services", daemon.admin()).body["services"][0];
    return view["running"] == 16 && view["jobs"].size() == 20;
  })) << view.dump();

  // Down to 17: the three cancelled are waiting ones; all 16 running keep running.
  auto down = scale_to(17);
  ASSERT_EQ(down.status, 200) << down.body.dump();
  ASSERT_EQ(down.body["cancelled"].size(), 3u);
  for (const Json& id : down.body["cancelled"]) {
    EXPECT_EQ(StateOf(daemon, id.get<uint64_t>()), "cancelled");
  }
  view = daemon.Get("/v1/services", daemon.admin()).body["services"][0];
  EXPECT_EQ(view["running"], 16);
  EXPECT_EQ(view["jobs"].size(), 17u);

  // Down to 1: the waiting one and the 15 newest running go; the first replica stays.
  ASSERT_EQ(scale_to(1).body["cancelled"].size(), 16u);
  view = daemon.Get("/v1/services", daemon.admin()).body["services"][0];
  EXPECT_EQ(view["replicas"], 1);
  EXPECT_EQ(view["jobs"], Json::array({first}));
  EXPECT_EQ(StateOf(daemon, first), "running");

  // Durable: the count and the replica survive a restart; 0 keeps the service, empty.
  daemon.Stop();
  daemon.Start();
  view = daemon.Get("/v1/services", daemon.admin()).body["services"][0];
  EXPECT_EQ(view["replicas"], 1);
  EXPECT_EQ(view["jobs"], Json::array({first}));
  EXPECT_EQ(scale_to(0).body["cancelled"], Json::array({first}));
  view = daemon.Get("/v1/services", daemon.admin()).body["services"][0];
  EXPECT_EQ(view["replicas"], 0);
  EXPECT_TRUE(view["jobs"].empty());
}

// A service's replicas spread across the two racks, two in each, where best fit alone would
// put all four one-device replicas on one 4-device node; the same after a restart, which
// restores them into a new engine; and two added by scaling go one to each rack.
TEST(DaemonSimulated, AServicesReplicasSpreadAcrossRacks) {
  TestDaemon daemon(TestDaemon::Simulated());  // Real time: the replicas run for the hour.
  const std::string spec =
      "kind: Service\nmetadata: {name: spread}\nspec:\n  replicas: 4\n  timeLimit: 2h\n"
      "  runtime: 1h\n  devices: {requests: [{count: 1}]}\n";
  auto submitted = daemon.Post("/v1/jobs", daemon.admin(), spec, "application/yaml");
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  Json replicas = submitted.body["jobs"];
  ASSERT_EQ(replicas.size(), 4u);
  // Running replicas by rack; empty while any is not running.
  auto per_rack = [&] {
    std::map<std::string, int> racks;
    for (const Json& id : replicas) {
      const Json job =
          daemon.Get("/v1/jobs/" + std::to_string(id.get<uint64_t>()), daemon.admin()).body;
      if (job["state"] != "running") return std::map<std::string, int>{};
      const std::string node = job["placement"][0]["node"];
      ++racks[node.substr(0, node.find('-'))];
    }
    return racks;
  };
  std::map<std::string, int> seen;
  const std::map<std::string, int> four = {{"rack0", 2}, {"rack1", 2}};
  ASSERT_TRUE(WaitFor([&] { return (seen = per_rack()) == four; })) << seen.size();
  daemon.Stop();
  daemon.Start();
  EXPECT_EQ(per_rack(), four);
  const std::string scale =
      "/v1/services/" + std::to_string(submitted.body["id"].get<uint64_t>()) + "/scale";
  auto up = daemon.Post(scale, daemon.admin(), R"({"replicas": 6})");
  ASSERT_EQ(up.status, 200) << up.body.dump();
  for (const Json& id : up.body["added"]) replicas.push_back(id);
  const std::map<std::string, int> six = {{"rack0", 3}, {"rack1", 3}};
  ASSERT_TRUE(WaitFor([&] { return (seen = per_rack()) == six; })) << seen.size();
}

TEST(DaemonSimulated, ScalingUpAndDownLosesNoReplica) {
  TestDaemon daemon(TestDaemon::Simulated());
  auto submitted = SubmitServe(daemon, 500, "1h");
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  const std::string scale = "/v1/services/" + submitted.body["id"].dump() + "/scale";
  std::set<uint64_t> live, cancelled;
  for (const Json& id : submitted.body["jobs"]) live.insert(id.get<uint64_t>());
  for (int replicas : {5, 3, 40, 0, 7, 7, 1, 33, 2}) {
    auto scaled = daemon.Post(scale, daemon.admin(), Json{{"replicas", replicas}}.dump());
    ASSERT_EQ(scaled.status, 200) << scaled.body.dump();
    for (const Json& id : scaled.body["added"]) {
      EXPECT_TRUE(live.insert(id.get<uint64_t>()).second) << "id reused: " << id;
    }
    for (const Json& id : scaled.body["cancelled"]) {
      EXPECT_EQ(live.erase(id.get<uint64_t>()), 1u) << "not a live replica: " << id;
      cancelled.insert(id.get<uint64_t>());
    }
    ASSERT_EQ(live.size(), static_cast<size_t>(replicas));
    // The service lists exactly the live replicas; every job is live or cancelled.
    const Json view = daemon.Get("/v1/services", daemon.admin()).body["services"][0];
    EXPECT_EQ(view["jobs"].get<std::set<uint64_t>>(), live) << "after scaling to " << replicas;
    const Json jobs = daemon.Get("/v1/jobs", daemon.admin()).body["jobs"];
    EXPECT_EQ(jobs.size(), live.size() + cancelled.size());
    for (const Json& job : jobs) {
      const bool is_live = live.contains(job["id"].get<uint64_t>());
      EXPECT_EQ(job["state"] == "cancelled", !is_live) << job.dump();
    }
  }
}

TEST(DaemonSimulated, WaitingJobSaysWhy) {
  TestDaemon daemon(TestDaemon::Simulated());
  const uint64_t big = daemon.Post("/v1/jobs", daemon.admin(), JobBody(4, 4, 0)).body["id"];
  ASSERT_TRUE(WaitFor([&] { return StateOf(daemon, big) == "running"; }));
  const uint64_t waiting = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  Json job;
  ASSERT_TRUE(WaitFor([&] {
    job = daemon.Get("/v1/jobs/" + std::to_string(waiting), daemon.admin()).body;
    return job["pending_reason"].is_object() && job["pending_reason"]["code"] == "capacity";
  })) << job.dump();
  EXPECT_EQ(daemon.Get("/v1/cluster", daemon.admin()).body["allocated_milli"], 16000);
  // Cancelling the big job frees the cluster: the waiting one starts.
  EXPECT_EQ(
      daemon.Post("/v1/jobs/" + std::to_string(big) + "/cancel", daemon.admin(), "").body["state"],
      "cancelled");
  EXPECT_TRUE(WaitFor([&] { return StateOf(daemon, waiting) == "running"; }));
  EXPECT_EQ(daemon.Post("/v1/jobs/" + std::to_string(big) + "/cancel", daemon.admin(), "").status,
            200);  // Idempotent.
}

// A job asking for part of a GPU, through the API, is placed by the headroom policy's share
// scoring: a 300-milli job beside a running 500 goes to a free GPU (left beside the 500 it
// would leave 200 milli that neither shape can use), where the node scorers' best fit would
// take the tighter, shared GPU.
TEST(DaemonSimulated, AFractionalJobIsPlacedByShareScoring) {
  TestDaemon daemon(TestDaemon::Simulated());
  auto submit = [&](int share) -> uint64_t {
    const std::string spec =
        "kind: Job\nmetadata: {name: part}\nspec:\n  timeLimit: 2h\n  runtime: 1h\n"
        "  devices: {requests: [{count: 1, share: " +
        std::to_string(share) + "}]}\n";
    auto reply = daemon.Post("/v1/jobs", daemon.admin(), spec, "application/yaml");
    EXPECT_EQ(reply.status, 201) << reply.body.dump();
    return reply.body.value("id", uint64_t{0});
  };
  auto device_of = [&](uint64_t id) {
    Json job;
    EXPECT_TRUE(WaitFor([&] {
      job = daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
      return job.value("state", "") == "running";
    })) << job.dump();
    EXPECT_EQ(job["placement"].size(), 1u) << job.dump();
    if (job["placement"].size() != 1) return Json();
    return Json::array({job["placement"][0]["node"], job["placement"][0]["devices"]});
  };
  const Json first = device_of(submit(500));
  const Json second = device_of(submit(300));
  ASSERT_FALSE(first.is_null());
  ASSERT_FALSE(second.is_null());
  EXPECT_NE(first, second) << first.dump() << " " << second.dump();
  EXPECT_EQ(daemon.Get("/v1/cluster", daemon.admin()).body["allocated_milli"], 800);
}

// spec.topology through the API: a gang that requires one rack waits while no rack has room
// (though two nodes in two racks do), starts inside one rack once it has; level names the
// cluster lacks are refused with the levels it has.
TEST(DaemonSimulated, RequiredTopologyLevelKeepsTheGangInOneRack) {
  TestDaemon daemon(TestDaemon::Simulated());
  const auto gang = [](const std::string& topology) {
    return "spec:\n  tasks: 2\n  timeLimit: 1h\n  command: [\"true\"]\n"
           "  devices: {requests: [{count: 4}]}\n  topology: " +
           topology + "\n";
  };
  for (const char* node : {"rack0-n0", "rack1-n0"}) {
    ASSERT_EQ(daemon
                  .Post(std::string("/v1/nodes/") + node + "/drain", daemon.admin(),
                        R"({"reason":"maintenance"})")
                  .status,
              200);
  }
  const auto submitted =
      daemon.Post("/v1/jobs", daemon.admin(), gang("{required: rack}"), "application/yaml");
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  const uint64_t id = submitted.body["id"];
  Json job;
  ASSERT_TRUE(WaitFor([&] {
    job = daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
    return job["pending_reason"].is_object();
  })) << job.dump();
  EXPECT_EQ(job["state"], "pending");
  EXPECT_EQ(job["topology"], Json::parse(R"({"required": "rack", "preferred": null})"));
  ASSERT_EQ(daemon.Post("/v1/nodes/rack0-n0/undrain", daemon.admin(), "{}").status, 200);
  ASSERT_TRUE(WaitFor([&] { return StateOf(daemon, id) == "running"; }));
  job = daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  std::set<std::string> nodes;
  for (const Json& task : job["placement"]) nodes.insert(task["node"]);
  EXPECT_EQ(nodes, (std::set<std::string>{"rack0-n0", "rack0-n1"})) << job.dump();

  const auto unknown =
      daemon.Post("/v1/jobs", daemon.admin(), gang("{required: pod}"), "application/yaml");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(unknown.body.dump().find("expected one of this cluster's levels (cluster, rack)"),
            std::string::npos)
      << unknown.body.dump();
  const auto upside_down = daemon.Post(
      "/v1/jobs", daemon.admin(), gang("{required: rack, preferred: cluster}"), "application/yaml");
  EXPECT_EQ(upside_down.status, 400);
  EXPECT_NE(upside_down.body.dump().find("spec.topology.preferred"), std::string::npos)
      << upside_down.body.dump();
}

TEST(DaemonSimulated, RestartRecoversQueueRunningWorkAndDrains) {
  auto options = TestDaemon::Simulated();
  TestDaemon daemon(options);
  const std::string user = daemon.Token({{"role", "user"}, {"tenant", "team-a"}});
  const uint64_t running = daemon.Post("/v1/jobs", daemon.admin(), JobBody(2, 4, 0)).body["id"];
  ASSERT_TRUE(WaitFor([&] { return StateOf(daemon, running) == "running"; }));
  const Json placement =
      daemon.Get("/v1/jobs/" + std::to_string(running), daemon.admin()).body["placement"];
  // Drain the two free nodes: the next job must wait.
  const Json nodes = daemon.Get("/v1/nodes", daemon.admin()).body["nodes"];
  for (const Json& node : nodes) {
    if (node["allocated_milli"] == 0) {
      ASSERT_EQ(daemon
                    .Post("/v1/nodes/" + node["name"].get<std::string>() + "/drain", daemon.admin(),
                          R"({"reason":"maintenance"})")
                    .status,
                200);
    }
  }
  const uint64_t pending = daemon.Post("/v1/jobs", user, JobBody(1, 4, 0)).body["id"];
  const uint64_t cancelled = daemon.Post("/v1/jobs", user, JobBody(1, 4, 0)).body["id"];
  ASSERT_EQ(daemon.Post("/v1/jobs/" + std::to_string(cancelled) + "/cancel", user, "").status, 200);
  ASSERT_TRUE(WaitFor([&] { return StateOf(daemon, pending) == "pending"; }));

  daemon.Stop();
  daemon.Start();

  EXPECT_EQ(StateOf(daemon, running), "running");
  EXPECT_EQ(daemon.Get("/v1/jobs/" + std::to_string(running), daemon.admin()).body["placement"],
            placement);
  EXPECT_EQ(StateOf(daemon, pending), "pending");
  EXPECT_EQ(StateOf(daemon, cancelled), "cancelled");
  EXPECT_EQ(daemon.Get("/v1/jobs", user).status, 200);  // Tokens survive.
  int drained = 0;
  const Json after_restart = daemon.Get("/v1/nodes", daemon.admin()).body["nodes"];
  for (const Json& node : after_restart) {
    drained += node["state"] == "drained" ? 1 : 0;
  }
  EXPECT_EQ(drained, 2);
  // The restored job still holds its devices: the pending job waits until it is cancelled.
  ASSERT_TRUE(daemon.WaitLoopPassed());
  EXPECT_EQ(StateOf(daemon, pending), "pending");
  ASSERT_EQ(
      daemon.Post("/v1/jobs/" + std::to_string(running) + "/cancel", daemon.admin(), "").status,
      200);
  EXPECT_TRUE(WaitFor([&] { return StateOf(daemon, pending) == "running"; }));
  // A job submitted after the restart gets a new id.
  const uint64_t later = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  EXPECT_GT(later, cancelled);
}

// A tenant's decayed usage (fair share) as /metrics exports it once the loop has published a
// view naming the tenant; -1 when it does not appear within the wait.
double TenantUsage(const TestDaemon& daemon, const std::string& tenant) {
  const std::string line = "headroom_tenant_usage_device_seconds{tenant=\"" + tenant + "\"} ";
  double usage = -1;
  WaitFor([&] {
    const auto scrape = httplib::Client("127.0.0.1", daemon.port()).Get("/metrics");
    const size_t at = scrape ? scrape->body.find(line) : std::string::npos;
    if (at != std::string::npos) usage = std::stod(scrape->body.substr(at + line.size()));
    return usage > 0;
  });
  return usage;
}

// Recovery is the newest engine-log snapshot and the records after it: the usage a job earned
// after the snapshot the daemon took at its start survives the restart, where the snapshot alone
// would know of none.
TEST(DaemonSimulated, RestartRecoversFairShareUsageFromTheEngineLogTail) {
  // 60x: the engine charges usage until it learns of the end, which a loaded machine delays by
  // milliseconds — at 600x that was over a simulated second (2 device-s) past the tolerance.
  TestDaemon daemon(TestDaemon::Simulated(60));
  const uint64_t id = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 2, 60)).body["id"];
  ASSERT_TRUE(WaitFor([&] { return StateOf(daemon, id) == "completed"; }));
  // Two devices for 60 simulated seconds; a week's half-life takes almost nothing of it. The
  // fair shares are published after steps, at a bounded rate: wait for the one after the end.
  EXPECT_TRUE(WaitFor([&] { return std::abs(TenantUsage(daemon, "default") - 120.0) <= 0.5; }))
      << TenantUsage(daemon, "default");
  const double before = TenantUsage(daemon, "default");

  daemon.Stop();
  daemon.Start();
  ASSERT_TRUE(daemon.WaitLoopPassed());
  EXPECT_NEAR(TenantUsage(daemon, "default"), before, 0.5);
}

// Retention: finished jobs beyond the newest max_finished, or ended longer than keep_finished
// ago, leave the state, the API and the store; ids stay unique after a restart.
TEST(DaemonSimulated, FinishedJobsAreForgottenAndIdsNeverReused) {
  DaemonOptions options = TestDaemon::Simulated(/*time_scale=*/100);
  options.max_finished = 2;
  TestDaemon daemon(options);
  std::vector<uint64_t> ids;
  for (int i = 0; i < 4; ++i) {
    ids.push_back(
        daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, /*runtime_s=*/1)).body["id"]);
  }
  auto known = [&] {
    std::vector<uint64_t> out;
    const Json listed = daemon.Get("/v1/jobs", daemon.admin()).body;
    for (const Json& job : listed["jobs"]) {
      out.push_back(job["id"]);
    }
    return out;
  };
  // All four finish within a few simulated seconds; within 10 more the oldest two are forgotten.
  ASSERT_TRUE(WaitFor([&] { return known().size() == 2; }, std::chrono::seconds(5)));
  const std::vector<uint64_t> kept = known();
  for (uint64_t id : kept) EXPECT_TRUE(id == ids[2] || id == ids[3]) << id;
  EXPECT_EQ(daemon.Get("/v1/jobs/" + std::to_string(ids[0]), daemon.admin()).status, 404);

  // The forgotten rows left the store: a restart brings back only the two kept.
  daemon.Stop();
  auto restart = [&](TimeUs keep_finished_us) {
    DaemonOptions restarted = options;
    restarted.data_dir = daemon.options().data_dir;
    restarted.max_finished = 100;
    restarted.keep_finished_us = keep_finished_us;
    return std::make_unique<TestDaemon>(restarted);
  };
  auto listed = [](const TestDaemon& d) { return d.Get("/v1/jobs", d.admin()).body["jobs"]; };
  auto second = restart(3600 * kUsPerSecond);
  EXPECT_EQ(listed(*second).size(), 2u);
  // A short window forgets every one of them, the newest included ...
  second->Stop();
  auto third = restart(5 * kUsPerSecond);  // Simulated seconds.
  ASSERT_TRUE(WaitFor([&] { return listed(*third).empty(); }, std::chrono::seconds(5)));
  // ... and with no job left in the store, a new job still gets an id never used before.
  third->Stop();
  auto fourth = restart(3600 * kUsPerSecond);
  const uint64_t next = fourth->Post("/v1/jobs", fourth->admin(), JobBody(1, 1, 1)).body["id"];
  EXPECT_GT(next, ids[3]);
}

}  // namespace
}  // namespace headroom::control
