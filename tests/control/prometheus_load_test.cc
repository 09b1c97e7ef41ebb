// Autoscaling's Prometheus option: the instant-query replies it accepts and refuses, and the
// daemon (simulated backend, fake clock) scaling a service on what a Prometheus HTTP API
// answers — here a stand-in server on a loopback port that answers /api/v1/query as Prometheus
// does (tests/integration/prometheus_scrape_test.cc runs the real one).
#include "control/prometheus_load.h"

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

#include "control/fake_clock.h"
#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::Json;
using testing::TestDaemon;
using testing::WaitFor;

TEST(PrometheusQueryReply, AScalarOrAVectorsSumIsTheRate) {
  const auto rate_of = [](std::string_view body) {
    auto rate = ParsePrometheusQueryReply(body);
    EXPECT_TRUE(rate.has_value()) << rate.error().message;
    return rate.value_or(-1);
  };
  EXPECT_EQ(
      rate_of(R"({"status":"success","data":{"resultType":"scalar","result":[1.7e9,"12.5"]}})"),
      12.5);
  EXPECT_EQ(rate_of(R"({"status":"success","data":{"resultType":"vector","result":[
                    {"metric":{"pod":"a"},"value":[1.7e9,"3"]},
                    {"metric":{"pod":"b"},"value":[1.7e9,"4.5"]}]}})"),
            7.5);
  // No series: no traffic.
  EXPECT_EQ(rate_of(R"({"status":"success","data":{"resultType":"vector","result":[]}})"), 0.0);
}

TEST(PrometheusQueryReply, AnythingElseIsAnErrorThatSaysWhat) {
  const auto error_of = [](std::string_view body) {
    auto rate = ParsePrometheusQueryReply(body);
    return rate ? std::string("parsed") : rate.error().message;
  };
  EXPECT_EQ(error_of(R"({"status":"error","errorType":"bad_data","error":"parse error at 3"})"),
            "Prometheus answered an error: parse error at 3");
  EXPECT_EQ(error_of("<html>"), "Prometheus answered something that is not JSON");
  EXPECT_EQ(error_of(R"({"status":"success","data":{"resultType":"matrix","result":[]}})"),
            "Prometheus answered a matrix where a scalar or an instant vector was expected");
  EXPECT_EQ(error_of(R"({"status":"success","data":{"resultType":"scalar","result":[1,"NaN"]}})"),
            "Prometheus answered the value \"NaN\", not a finite rate >= 0");
  EXPECT_EQ(error_of(R"({"status":"success","data":{"resultType":"scalar","result":[1,"-2"]}})"),
            "Prometheus answered the value \"-2\", not a finite rate >= 0");
  EXPECT_EQ(
      error_of(R"({"status":"success","data":{"resultType":"vector","result":[{"value":[1]}]}})"),
      "Prometheus answered a sample that is not [time, \"value\"]");
  EXPECT_EQ(error_of(R"({"status":"success"})"), "Prometheus answered no data.result");
}

TEST(PrometheusQueryReply, TheUrlIsHttpHostAndPort) {
  EXPECT_TRUE(ValidatePrometheusUrl("http://127.0.0.1:9090"));
  EXPECT_TRUE(ValidatePrometheusUrl("http://prometheus.monitoring:9090"));
  for (const char* bad : {"", "127.0.0.1:9090", "https://p:9090", "http://", "http://p:9090/api"}) {
    auto ok = ValidatePrometheusUrl(bad);
    ASSERT_FALSE(ok) << bad;
    EXPECT_NE(ok.error().message.find("--prometheus-url: expected http://HOST:PORT"),
              std::string::npos);
  }
}

// A stand-in for Prometheus' query API: answers every query with `answer` (a vector of one
// series with `rate`, or whatever body is set) and remembers the last query.
class StandInPrometheus {
 public:
  StandInPrometheus() {
    server_.Get("/api/v1/query", [this](const httplib::Request& request, httplib::Response& reply) {
      std::lock_guard lock(mu_);
      last_query_ = request.get_param_value("query");
      reply.status = status_;
      reply.set_content(body_, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~StandInPrometheus() {
    server_.stop();
    thread_.join();
  }
  void AnswerRate(double rate) {
    Answer(200, Json{{"status", "success"},
                     {"data",
                      {{"resultType", "vector"},
                       {"result",
                        {{{"metric", Json::object()}, {"value", {1.7e9, std::to_string(rate)}}}}}}}}
                    .dump());
  }
  void Answer(int status, std::string body) {
    std::lock_guard lock(mu_);
    status_ = status;
    body_ = std::move(body);
  }
  std::string last_query() {
    std::lock_guard lock(mu_);
    return last_query_;
  }
  int port() const { return port_; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  int status_ = 200;
  std::string body_;
  std::string last_query_;
};

TEST(PrometheusLoadDaemon, AServiceScalesOnItsQuerysAnswerAndShowsWhyAQueryFailed) {
  StandInPrometheus prometheus;
  prometheus.AnswerRate(20);
  auto clock = std::make_shared<FakeClock>(1'800'000'000 * kUsPerSecond);
  DaemonOptions options = TestDaemon::Simulated();
  options.clock = clock;
  options.prometheus_url = "http://127.0.0.1:" + std::to_string(prometheus.port());
  TestDaemon daemon(options);
  // 5 requests/s per replica (10 at a 50% target).
  const std::string query = R"(sum(rate(vllm:request_success_total{model_name="chat"}[1m])))";
  const std::string spec =
      "kind: Service\nmetadata: {name: chat}\nspec:\n  replicas: 1\n"
      "  autoscaling:\n    maxReplicas: 8\n    requestsPerReplica: 10\n"
      "    targetUtilization: 50\n    prometheusQuery: '" +
      query + "'\n  timeLimit: 30d\n  devices: {requests: [{count: 1}]}\n";
  auto submitted = daemon.Post("/v1/jobs", daemon.admin(), spec, "application/yaml");
  ASSERT_EQ(submitted.status, 201) << submitted.body.dump();
  const auto service = [&] {
    return daemon.Get("/v1/services", daemon.admin()).body["services"][0];
  };
  EXPECT_EQ(service()["autoscaling"]["prometheusQuery"], query);
  // The poller asks the query, records 20 requests/s; the next sync scales to 4.
  ASSERT_TRUE(WaitFor([&] {
    const Json load = service()["load"];
    return load.is_object() && load.value("requestsPerSecond", 0.0) == 20.0;
  })) << service().dump();
  EXPECT_EQ(prometheus.last_query(), query);
  clock->AdvanceUs(15 * kUsPerSecond);
  ASSERT_TRUE(WaitFor([&] { return service()["replicas"] == 4; })) << service().dump();

  // A failing query is shown and leaves the count alone.
  prometheus.Answer(400, R"({"status":"error","errorType":"bad_data","error":"unknown metric"})");
  ASSERT_TRUE(WaitFor(
      [&] { return service()["load"].is_object() && service()["load"].contains("queryError"); }));
  EXPECT_EQ(service()["load"]["queryError"], "Prometheus answered an error: unknown metric");
  clock->AdvanceUs(15 * kUsPerSecond);
  ASSERT_TRUE(daemon.WaitLoopPassed());
  EXPECT_EQ(service()["replicas"], 4);
  // It answers again, higher: the error clears and the service grows.
  prometheus.AnswerRate(40);
  ASSERT_TRUE(WaitFor([&] { return !service()["load"].contains("queryError"); }));
  clock->AdvanceUs(15 * kUsPerSecond);
  ASSERT_TRUE(WaitFor([&] { return service()["replicas"] == 8; })) << service().dump();
}

TEST(PrometheusLoadDaemon, ABadUrlIsRefusedAtStart) {
  DaemonOptions options = TestDaemon::Simulated();
  options.data_dir = testing::TempDir("headroomd-prometheus");
  options.prometheus_url = "prometheus:9090";
  auto daemon = Daemon::Start(options);
  ASSERT_FALSE(daemon.has_value());
  EXPECT_NE(daemon.error().message.find("--prometheus-url: expected http://HOST:PORT"),
            std::string::npos);
  std::filesystem::remove_all(options.data_dir);
}

}  // namespace
}  // namespace headroom::control
