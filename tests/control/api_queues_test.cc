// Queues live (docs/api.md "Queues"): an admin puts queues in force through the API, kept
// across restarts; a job past its queue's limit waits with the "quota" reason naming the queue;
// GET /v1/queues shows an admin every queue and a user its own with its fair share; /metrics
// exports usage and guarantees; bad bodies get 400 naming the line and field, users 403.
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <httplib.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::TestDaemon;

constexpr char kQueues[] = R"(# team-a is held to its guarantee
queues:
  - {name: team-a, guaranteed: {devices: 4}, borrowing_limit: {devices: 0}}
  - {name: team-b, guaranteed: {devices: 12}}
)";

const Json* QueueNamed(const Json& body, const std::string& name) {
  for (const Json& queue : body["queues"]) {
    if (queue["name"] == name) return &queue;
  }
  return nullptr;
}

bool WaitsForQuota(TestDaemon& daemon, const std::string& path) {
  const Json job = daemon.Get(path, daemon.admin()).body;
  return job["state"] == "pending" && job.contains("pending_reason") &&
         job["pending_reason"]["code"] == "quota";
}

// Submits two 4-device jobs of team-a's and waits until the first runs and the second waits for
// team-a's quota: the second's path and the message it waits with.
std::pair<std::string, std::string> SecondWaitsForQuota(TestDaemon& daemon) {
  std::string paths[2];
  for (std::string& path : paths) {
    const auto submitted =
        daemon.Post("/v1/jobs", daemon.admin(), testing::JobBody(1, 4, 0, "team-a"));
    EXPECT_EQ(submitted.status, 201) << submitted.body.dump();
    path = "/v1/jobs/" + std::to_string(submitted.body["id"].get<int64_t>());
  }
  EXPECT_TRUE(testing::WaitFor(
      [&] { return daemon.Get(paths[0], daemon.admin()).body["state"] == "running"; }));
  EXPECT_TRUE(testing::WaitFor([&] { return WaitsForQuota(daemon, paths[1]); }));
  const Json waiting = daemon.Get(paths[1], daemon.admin()).body;
  return {paths[1], waiting["pending_reason"]["message"].get<std::string>()};
}

// Whether GET /v1/queues shows `queue` with `amount` at `pointer` ("/usage/devices").
bool QueueShows(TestDaemon& daemon, const std::string& queue, const std::string& pointer,
                double amount) {
  const Json queues = daemon.Get("/v1/queues", daemon.admin()).body;
  const Json* found = QueueNamed(queues, queue);
  const Json::json_pointer at(pointer);
  return found != nullptr && found->contains(at) && (*found)[at] == amount;
}

TEST(ApiQueues, AnAdminPutsQueuesInForceAndJobsWaitForTheirQuota) {
  TestDaemon daemon(TestDaemon::Simulated());
  const std::string user = daemon.Token({{"role", "user"}, {"tenant", "team-a"}});
  const auto none = daemon.Get("/v1/queues", daemon.admin());
  ASSERT_EQ(none.status, 200);
  EXPECT_TRUE(none.body["queues"].empty());

  const auto broken =
      daemon.Put("/v1/queues", daemon.admin(), "queues:\n  - name: a\n    guaranteed: {gpus: 3}\n");
  EXPECT_EQ(broken.status, 400);
  EXPECT_EQ(broken.body["error"]["message"],
            "body:3: field 'queues[0].guaranteed.gpus': expected one of the keys devices, cpu, "
            "memory_gib, device_models, got unknown key \"gpus\"");
  EXPECT_EQ(daemon.Put("/v1/queues", user, kQueues).status, 403);
  const auto set = daemon.Put("/v1/queues", daemon.admin(), kQueues);
  ASSERT_EQ(set.status, 200) << set.body.dump();
  EXPECT_EQ(set.body["queues"], 2);
  EXPECT_EQ(set.body["policy"], "headroom");

  const auto held = SecondWaitsForQuota(daemon);
  const std::string& held_path = held.first;
  EXPECT_NE(held.second.find("Queue 'team-a' uses 4 devices of the 4 devices it may"),
            std::string::npos)
      << held.second;

  // An admin sees every queue (and the tenants no queue lists); the user its own and its share.
  EXPECT_TRUE(
      testing::WaitFor([&] { return QueueShows(daemon, "team-a", "/usage/devices", 4.0); }));
  const auto all = daemon.Get("/v1/queues", daemon.admin());
  ASSERT_EQ(all.body["queues"].size(), 3u) << all.body.dump();
  const Json& a = *QueueNamed(all.body, "team-a");
  EXPECT_EQ(a["guaranteed"]["devices"], 4.0);
  EXPECT_EQ(a["borrowing_limit"]["devices"], 0.0);
  EXPECT_FALSE(a["lending_limit"].contains("devices"));
  EXPECT_EQ(a["borrowing"], false);
  EXPECT_TRUE(a["parent"].is_null());
  // Fair share by guarantee: 4 of 4 + 12 + 1 ((unqueued) has 1).
  EXPECT_DOUBLE_EQ(a["fair_share"]["share"].get<double>(), 4.0 / 17) << a.dump();
  EXPECT_TRUE(a["fair_share"]["usage_device_s"].is_number());
  // team-b has used nothing: its level is infinite, written as null.
  EXPECT_TRUE((*QueueNamed(all.body, "team-b"))["fair_share"]["level_fairshare"].is_null());
  ASSERT_NE(QueueNamed(all.body, "(unqueued)"), nullptr);
  const auto mine = daemon.Get("/v1/queues", user);
  ASSERT_EQ(mine.status, 200);
  ASSERT_EQ(mine.body["queues"].size(), 1u) << mine.body.dump();
  EXPECT_EQ(mine.body["queues"][0]["name"], "team-a");
  EXPECT_EQ(mine.body["fair_share"]["tenant"], "team-a");

  const auto metrics = httplib::Client("127.0.0.1", daemon.port()).Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("headroom_queue_usage_devices{queue=\"team-a\"} 4"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("headroom_queue_guaranteed_devices{queue=\"team-b\"} 12"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("headroom_queue_level_fairshare{queue=\"team-b\"} +Inf"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("headroom_queue_share{queue=\"team-a\"} 0.235"), std::string::npos);

  // Kept across a restart, and the job still waits for team-a's quota.
  daemon.Stop();
  daemon.Start();
  // The policy in force holds the queues as the admin wrote them, comments included.
  const std::string policy_text =
      daemon.Get("/v1/policy", daemon.admin()).body["text"].get<std::string>();
  EXPECT_NE(policy_text.find(kQueues), std::string::npos) << policy_text;
  EXPECT_TRUE(testing::WaitFor([&] { return WaitsForQuota(daemon, held_path); }));
  // An empty list removes them: the job starts.
  ASSERT_EQ(daemon.Put("/v1/queues", daemon.admin(), "queues: []\n").status, 200);
  EXPECT_TRUE(testing::WaitFor(
      [&] { return daemon.Get(held_path, daemon.admin()).body["state"] == "running"; }));
  EXPECT_TRUE(daemon.Get("/v1/queues", daemon.admin()).body["queues"].empty());
}

// Quotas by device model live: the tiny building's devices are T4s.
TEST(ApiQueues, QuotasByDeviceModelHoldJobsAndShowInTheApiAndMetrics) {
  TestDaemon daemon(TestDaemon::Simulated());
  // The queues name a model the nodes have: wait until the live loop lists them, or the reply
  // warns that no node has it yet.
  ASSERT_TRUE(testing::WaitFor(
      [&] { return !daemon.Get("/v1/nodes", daemon.admin()).body["nodes"].empty(); }));
  const auto set = daemon.Put("/v1/queues", daemon.admin(), R"(queues:
  - name: team-a
    guaranteed: {device_models: {T4: 4}}
    borrowing_limit: {device_models: {T4: 0}}
  - {name: team-b, guaranteed: {device_models: {T4: 12}}}
)");
  ASSERT_EQ(set.status, 200) << set.body.dump();
  EXPECT_TRUE(set.body["warnings"].empty()) << set.body.dump();
  const std::string message = SecondWaitsForQuota(daemon).second;
  EXPECT_NE(message.find("Queue 'team-a' uses 4 T4 devices of the 4 T4 devices it may"),
            std::string::npos)
      << message;
  EXPECT_TRUE(testing::WaitFor(
      [&] { return QueueShows(daemon, "team-a", "/usage/device_models/T4", 4.0); }));
  const Json queues = daemon.Get("/v1/queues", daemon.admin()).body;
  ASSERT_NE(QueueNamed(queues, "team-a"), nullptr) << queues.dump();
  const Json a = *QueueNamed(queues, "team-a");
  EXPECT_EQ(a["guaranteed"]["device_models"]["T4"], 4.0);
  EXPECT_EQ(a["borrowing_limit"]["device_models"]["T4"], 0.0);
  EXPECT_FALSE(a["lending_limit"]["device_models"].contains("T4"));
  EXPECT_FALSE(a["guaranteed"].contains("devices"));  // Devices of any model: not governed.
  const auto metrics = httplib::Client("127.0.0.1", daemon.port()).Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(
      metrics->body.find("headroom_queue_usage_devices_by_model{queue=\"team-a\",model=\"T4\"} 4"),
      std::string::npos)
      << metrics->body;
  EXPECT_NE(metrics->body.find(
                "headroom_queue_guaranteed_devices_by_model{queue=\"team-b\",model=\"T4\"} 12"),
            std::string::npos);
  // A model no node has (a misspelling, or agents not yet registered) is put in force, and the
  // reply says so.
  const auto typo =
      daemon.Put("/v1/queues", daemon.admin(),
                 "queues:\n  - {name: team-a, guaranteed: {device_models: {T5: 4}}}\n");
  ASSERT_EQ(typo.status, 200) << typo.body.dump();
  ASSERT_EQ(typo.body["warnings"].size(), 1u) << typo.body.dump();
  EXPECT_EQ(typo.body["warnings"][0],
            "device model 'T5' is on no node (the nodes have: T4); its quotas count nothing until "
            "a node with it registers");
}

}  // namespace
}  // namespace headroom::control
