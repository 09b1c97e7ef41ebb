// The daemon's autoscaler on the simulated backend (tiny cluster: 16 T4s), on a fake clock so
// that each sync of the HPA loop (every 15 s) happens when the test moves time: a service
// follows the load reported to POST /v1/services/{id}/load up to its maxReplicas, holds its
// count through the scale-down window and while no recent report exists, refuses a manual
// count outside its bounds, and keeps its count and bounds across a restart.
#include <gtest/gtest.h>

#include "control/fake_clock.h"
#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::Json;
using testing::TestDaemon;
using testing::WaitFor;

constexpr TimeUs kSyncUs = 15 * kUsPerSecond;

// Replicas of one T4, each serving 10 requests/s, held at 50% utilisation: 5 requests/s each.
constexpr const char* kChat = R"(kind: Service
metadata: {name: chat}
spec:
  replicas: 1
  autoscaling:
    minReplicas: 1
    maxReplicas: 12
    requestsPerReplica: 10
    targetUtilization: 50
    scaleDownWindow: 60s
  timeLimit: 30d
  devices: {requests: [{count: 1}]}
)";

class AutoscaleTest : public ::testing::Test {
 protected:
  AutoscaleTest() : clock_(std::make_shared<FakeClock>(1'800'000'000 * kUsPerSecond)) {
    DaemonOptions options = TestDaemon::Simulated();
    options.clock = clock_;
    daemon_ = std::make_unique<TestDaemon>(options);
  }

  Json Service() const {
    return daemon_->Get("/v1/services", daemon_->admin()).body["services"][0];
  }
  testing::HttpReply Report(uint64_t service, double requests_per_s) const {
    return daemon_->Post("/v1/services/" + std::to_string(service) + "/load", daemon_->admin(),
                         Json{{"requestsPerSecond", requests_per_s}}.dump());
  }
  // Moves the clock one sync on and waits until the loop has run past it.
  void Sync() {
    clock_->AdvanceUs(kSyncUs);
    ASSERT_TRUE(daemon_->WaitLoopPassed());
  }
  // Waits until the service runs `replicas` replicas, all of them placed.
  bool Runs(int replicas) const {
    return WaitFor([&] {
      const Json service = Service();
      return service["replicas"] == replicas && service["running"] == replicas &&
             service["jobs"].size() == static_cast<size_t>(replicas);
    });
  }

  std::shared_ptr<FakeClock> clock_;
  std::unique_ptr<TestDaemon> daemon_;
};

TEST_F(AutoscaleTest, ReplicasFollowTheReportedLoadWithinTheirBounds) {
  auto submitted = daemon_->Post("/v1/jobs", daemon_->admin(), kChat, "application/yaml");
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  const uint64_t service = submitted.body["id"];
  ASSERT_TRUE(Runs(1));
  EXPECT_EQ(Service()["autoscaling"]["maxReplicas"], 12);
  EXPECT_EQ(Service()["autoscaling"]["requestsPerReplica"], 10.0);

  // No report yet: the count holds, as the HPA's does without its metric.
  Sync();
  EXPECT_TRUE(Runs(1));
  EXPECT_FALSE(Service().contains("load"));

  // 20 requests/s at 5 per replica: 4 replicas from the next sync.
  auto reported = Report(service, 20);
  ASSERT_EQ(reported.status, 200) << reported.body.dump();
  EXPECT_EQ(reported.body["autoscaled"], true);
  Sync();
  ASSERT_TRUE(Runs(4)) << Service().dump();
  EXPECT_EQ(Service()["load"]["desiredReplicas"], 4);
  EXPECT_EQ(Service()["load"]["requestsPerSecond"], 20.0);

  // A manual count outside [minReplicas, maxReplicas] is refused; inside, it is taken.
  auto outside = daemon_->Post("/v1/services/" + std::to_string(service) + "/scale",
                               daemon_->admin(), R"({"replicas": 13})");
  EXPECT_EQ(outside.status, 409);
  EXPECT_EQ(outside.body["error"]["message"],
            "service " + std::to_string(service) +
                " autoscales within [1, 12] replicas (spec.autoscaling); a count of 13 is "
                "outside it");

  // 100 requests/s asks for 20: the service grows by at most 4 replicas or 100% a sync (the
  // HPA's default rate) and stops at its maxReplicas, 12.
  Report(service, 100);
  for (int sync = 0; sync < 4 && Service()["replicas"] != 12; ++sync) {
    Sync();
    EXPECT_LE(Service()["replicas"].get<int>(), 12);
  }
  ASSERT_TRUE(Runs(12)) << Service().dump();

  // The load falls to 10 requests/s (2 replicas): the count holds while the 60 s scale-down
  // window still remembers the higher recommendations, then falls to 2.
  for (int sync = 0; sync < 3; ++sync) {
    Report(service, 10);
    Sync();
    EXPECT_TRUE(Runs(12)) << "sync " << sync << ": " << Service().dump();
  }
  for (int sync = 0; sync < 2; ++sync) {
    Report(service, 10);
    Sync();
  }
  ASSERT_TRUE(Runs(2)) << Service().dump();

  // A report older than a minute counts for nothing: a burst reported and then silence leaves
  // the count where it was.
  Report(service, 100);
  clock_->AdvanceUs(61 * kUsPerSecond);
  ASSERT_TRUE(daemon_->WaitLoopPassed());
  Sync();
  EXPECT_TRUE(Runs(2)) << Service().dump();

  httplib::Client client("127.0.0.1", daemon_->port());
  const auto text = client.Get("/metrics");
  ASSERT_TRUE(text);
  EXPECT_NE(text->body.find("headroom_service_replicas{service=\"" + std::to_string(service) +
                            "\",name=\"chat\"} 2"),
            std::string::npos)
      << text->body;
  EXPECT_NE(text->body.find("headroom_service_requests_per_second{service=\"" +
                            std::to_string(service) + "\",name=\"chat\"} 100"),
            std::string::npos);

  // The count, the bounds and the replicas survive a restart; the load does not (it is
  // observed, not stored), and the first syncs after it change nothing without a report.
  daemon_->Stop();
  daemon_->Start();
  ASSERT_TRUE(Runs(2)) << Service().dump();
  EXPECT_EQ(Service()["autoscaling"]["minReplicas"], 1);
  EXPECT_FALSE(Service().contains("load"));
  Sync();
  EXPECT_TRUE(Runs(2));
  // After the restart a scale-up is immediate (a scale-down would wait a whole window).
  Report(service, 30);
  Sync();
  ASSERT_TRUE(Runs(6)) << Service().dump();
}

TEST_F(AutoscaleTest, LoadReportsAreCheckedAndBelongToTheServicesTenant) {
  auto submitted = daemon_->Post("/v1/jobs", daemon_->admin(), kChat, "application/yaml");
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  const std::string load = "/v1/services/" + submitted.body["id"].dump() + "/load";
  const auto error_of = [&](const std::string& body) {
    auto reply = daemon_->Post(load, daemon_->admin(), body);
    EXPECT_EQ(reply.status, 400) << body;
    return reply.body["error"]["message"].get<std::string>();
  };
  EXPECT_EQ(error_of(R"({"requestsPerSecond": -1})"),
            "requestsPerSecond: expected a number of requests/s in [0, 1e+09], got -1");
  EXPECT_EQ(error_of("{}"), "requestsPerSecond: expected a number of requests/s in [0, 1e+09]");
  EXPECT_NE(error_of(R"({"requestsPerSecond": "many"})").find("expected a number"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"requestsPerSecond": 1, "tokens": 2})").find("tokens"), std::string::npos);
  const std::string other = daemon_->Token({{"role", "user"}, {"tenant", "team-b"}});
  EXPECT_EQ(daemon_->Post(load, other, R"({"requestsPerSecond": 1})").status, 403);
  EXPECT_EQ(
      daemon_->Post("/v1/services/99/load", daemon_->admin(), R"({"requestsPerSecond": 1})").status,
      404);
  // A new service starts within its bounds.
  auto outside = daemon_->Post("/v1/jobs", daemon_->admin(),
                               "kind: Service\nspec:\n  replicas: 5\n  autoscaling: {maxReplicas: "
                               "4, requestsPerReplica: 1}\n  timeLimit: 1d\n",
                               "application/yaml");
  EXPECT_EQ(outside.status, 400);
  EXPECT_EQ(outside.body["error"]["message"],
            "field 'spec.replicas': expected a count within spec.autoscaling's [1, 4], got 5");
  // A service without autoscaling takes reports too (a metric), and keeps its count.
  auto fixed = daemon_->Post(
      "/v1/jobs", daemon_->admin(),
      "kind: Service\nspec:\n  replicas: 1\n  timeLimit: 1d\n  devices: {requests: [{count: 1}]}\n",
      "application/yaml");
  ASSERT_EQ(fixed.status, 201);
  auto reply = daemon_->Post("/v1/services/" + fixed.body["id"].dump() + "/load", daemon_->admin(),
                             R"({"requestsPerSecond": 50})");
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  EXPECT_EQ(reply.body["autoscaled"], false);
  Sync();
  const Json services = daemon_->Get("/v1/services", daemon_->admin()).body["services"];
  ASSERT_EQ(services.size(), 2u);
  EXPECT_EQ(services[1]["replicas"], 1);
}

}  // namespace
}  // namespace headroom::control
