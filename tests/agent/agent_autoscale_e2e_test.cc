// End to end, an autoscaled service with real processes: headroomd on the agents backend
// (autoscaler syncing every 0.5 s) under a policy that preempts, one headroom-agent of four fake
// devices. A low-priority training job holds three devices, a service one. The load reported
// for the service rises: the autoscaler asks for three replicas, the training job gets its
// checkpoint signal and gives its devices to the new replicas, which run. The load falls: once
// the scale-down window has passed two replicas are cancelled (their tasks stop) and the
// training job runs again from its checkpoint, as attempt 2.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agent_processes.h"

namespace headroom::agent {
namespace {

using nlohmann::json;
using testing::FileExists;
using testing::ScratchDir;
using testing::WaitUntil;

TEST(AgentAutoscaleEndToEnd, ALoadRiseTakesTrainingsDevicesAndItsFallGivesThemBack) {
  ScratchDir dir;
  {
    std::ofstream policy(dir.File("preempting.yaml"));
    policy << "name: preempting\nqueue: {order: priority}\nbackfill: {mode: skip}\n"
              "victim_selector: lowest_priority\n"
              "preemption: {enabled: true, checkpoint_interval_s: 3600, restart_s: 0}\n";
  }
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start(dir.File("preempting.yaml"), {"a1"}, 4, {"--autoscale-interval-s", "0.5"}),
            "");
  testing::DaemonApi& admin = floor.admin();
  const auto logs = [&] { return floor.Logs(); };

  // Each attempt writes run-JOB-ATTEMPT; SIGTERM makes it write ckpt-JOB-ATTEMPT and exit.
  const std::string script = testing::CheckpointingTask(dir.File(""));
  const auto file_of = [&](const std::string& kind, int64_t job, int attempt) {
    return dir.File(kind + "-" + std::to_string(job) + "-" + std::to_string(attempt));
  };
  const json resources = {{"cpu", "0.5"}, {"memory", "1Gi"}};
  const json command = {"/bin/sh", "-c", script};

  auto [training_status, training] =
      admin.Post("/v1/jobs", {{"metadata", {{"name", "train"}}},
                              {"spec",
                               {{"tenant", "research"},
                                {"priority", 0},
                                {"timeLimit", "1h"},
                                {"checkpointInterval", "10m"},
                                {"command", command},
                                {"resources", resources},
                                {"devices", {{"requests", {{{"name", "gpus"}, {"count", 3}}}}}}}}});
  ASSERT_EQ(training_status, 201) << training.dump();
  const int64_t train = training["id"];
  ASSERT_TRUE(WaitUntil([&] { return FileExists(file_of("run", train, 1)); })) << logs();

  // One replica of one device serves 10 requests/s, held at 50%: 5 requests/s each.
  auto [service_status, submitted] =
      admin.Post("/v1/jobs", {{"kind", "Service"},
                              {"metadata", {{"name", "chat"}}},
                              {"spec",
                               {{"tenant", "inference"},
                                {"priority", 100},
                                {"replicas", 1},
                                {"autoscaling",
                                 {{"minReplicas", 1},
                                  {"maxReplicas", 3},
                                  {"requestsPerReplica", 10},
                                  {"targetUtilization", 50},
                                  {"scaleDownWindow", "2s"}}},
                                {"timeLimit", "1h"},
                                {"command", command},
                                {"resources", resources},
                                {"devices", {{"requests", {{{"name", "gpus"}, {"count", 1}}}}}}}}});
  ASSERT_EQ(service_status, 201) << submitted.dump();
  const int64_t first = submitted["jobs"][0];
  ASSERT_TRUE(WaitUntil([&] { return FileExists(file_of("run", first, 1)); })) << logs();
  const std::string service = "/v1/services/" + submitted["id"].dump();
  const auto report = [&](double requests_per_s) {
    auto [status, reply] = admin.Post(service + "/load", {{"requestsPerSecond", requests_per_s}});
    EXPECT_EQ(status, 200) << reply.dump();
  };
  const auto service_view = [&] { return admin.Get("/v1/services")["services"][0]; };

  // 15 requests/s: three replicas, two of them on the training job's devices.
  report(15);
  json view;
  ASSERT_TRUE(WaitUntil(
      [&] {
        view = service_view();
        return view["replicas"] == 3 && view["running"] == 3;
      },
      std::chrono::milliseconds(20'000)))
      << view.dump() << logs();
  for (const json& replica : view["jobs"]) {
    EXPECT_TRUE(WaitUntil([&] { return FileExists(file_of("run", replica.get<int64_t>(), 1)); }))
        << logs();
  }
  EXPECT_TRUE(WaitUntil([&] { return FileExists(file_of("ckpt", train, 1)); })) << logs();
  EXPECT_EQ(admin.Get("/v1/jobs/" + std::to_string(train))["state"], "pending");

  // 1 request/s: one replica once the 2 s window has passed; the two newest replicas stop and
  // the training job runs again, as attempt 2.
  const json replicas = view["jobs"];
  ASSERT_TRUE(WaitUntil(
      [&] {
        report(1);
        view = service_view();
        return view["replicas"] == 1 && view["jobs"].size() == 1;
      },
      std::chrono::milliseconds(20'000)))
      << view.dump() << logs();
  EXPECT_EQ(view["jobs"][0], first);
  for (const json& replica : replicas) {
    if (replica == first) continue;
    EXPECT_TRUE(WaitUntil([&] { return FileExists(file_of("ckpt", replica.get<int64_t>(), 1)); }))
        << logs();
    EXPECT_EQ(admin.Get("/v1/jobs/" + replica.dump())["state"], "cancelled");
  }
  ASSERT_TRUE(WaitUntil([&] { return FileExists(file_of("run", train, 2)); },
                        std::chrono::milliseconds(20'000)))
      << logs();
  EXPECT_EQ(admin.Get("/v1/jobs/" + std::to_string(train))["state"], "running");
  EXPECT_EQ(floor.Stop(), "");
}

}  // namespace
}  // namespace headroom::agent
