// headroomd's /metrics scraped by a real Prometheus (Debian's 2.42): a prometheus.yml scraping
// it every second, Prometheus on a free loopback port with its TSDB in a temp dir, and
// /api/v1/query polled until headroom_devices and headroom_jobs{state="running"} carry the
// values the daemon's state implies. The exposition is also checked with `promtool check
// metrics` when promtool is installed. Every process is stopped by the test. Skips while
// headroomd is not built or prometheus is missing. Samples become queryable ~5–6 s after
// Prometheus starts (its discovery manager throttles the first scrape).
#include <fstream>
#include <optional>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "cli/client_test_support.h"
#include "testing/binaries.h"

namespace headroom::testing {
namespace {

using nlohmann::json;

// Sum of an instant query's values, or nullopt while it has no result.
std::optional<double> QuerySum(httplib::Client& prometheus, const std::string& query) {
  auto answer = prometheus.Get("/api/v1/query?query=" + httplib::detail::encode_query_param(query));
  if (!answer || answer->status != 200) return std::nullopt;
  const json body = json::parse(answer->body, nullptr, false);
  if (body.is_discarded() || body["status"] != "success" || body["data"]["result"].empty()) {
    return std::nullopt;
  }
  double sum = 0;
  for (const json& sample : body["data"]["result"])
    sum += std::stod(sample["value"][1].get<std::string>());
  return sum;
}

// Starts Prometheus on 127.0.0.1:`port` scraping job `job` at 127.0.0.1:`target_port` every
// second, its TSDB and log in `dir`; "" when it started, else why not.
std::string StartPrometheus(ChildProcess& prometheus, const std::filesystem::path& binary,
                            const TestDir& dir, int port, const std::string& job, int target_port) {
  const std::filesystem::path config = dir.path() / "prometheus.yml";
  std::ofstream(config) << "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                        << "scrape_configs:\n"
                        << "  - job_name: " << job << "\n"
                        << "    static_configs: [{targets: ['127.0.0.1:" << target_port << "']}]\n";
  std::string error;
  if (prometheus.Start({binary.string(), "--config.file=" + config.string(),
                        "--storage.tsdb.path=" + (dir.path() / "tsdb").string(),
                        "--web.listen-address=127.0.0.1:" + std::to_string(port)},
                       dir.path() / "prometheus.log", &error)) {
    return "";
  }
  return error.empty() ? "prometheus did not start" : error;
}

TEST(PrometheusScrape, RealPrometheusSeesDevicesAndRunningJobs) {
  if (!DaemonBuilt()) GTEST_SKIP() << "headroomd not built (" << BinaryPath("headroomd") << ")";
  const auto prometheus_bin = FindProgram("prometheus");
  if (!prometheus_bin) GTEST_SKIP() << "prometheus not installed (apt-get install prometheus)";
  TestDir dir;
  Daemon daemon(dir.path());
  const std::string failure = daemon.Start({.devices = 32});
  ASSERT_EQ(failure, "") << failure;
  for (const char* name : {"one", "two"}) {
    const CommandOutcome run = RunHeadroom(
        {"submit", "--gpus-per-task", "8", "--time", "2h", "--name", name, "--", "sleep", "7200"},
        daemon.ClientEnv());
    ASSERT_EQ(run.status, 0) << run.err;
  }

  httplib::Client scrape("127.0.0.1", daemon.port());
  auto metrics = scrape.Get("/metrics");
  ASSERT_TRUE(metrics);
  ASSERT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("headroom_devices"), std::string::npos) << metrics->body;
  if (const auto promtool = FindProgram("promtool")) {
    const CommandOutcome check =
        RunProgram({promtool->string(), "check", "metrics"}, {}, metrics->body);
    // promtool exits 1 for lint findings too; only a parse error would say "error while".
    EXPECT_EQ(check.err.find("error while linting"), std::string::npos) << check.err;
    EXPECT_EQ(check.status, 0) << check.out << check.err << "\n" << metrics->body;
  }

  const int port = FreePort();
  ChildProcess prometheus;
  ASSERT_EQ(StartPrometheus(prometheus, *prometheus_bin, dir, port, "headroomd", daemon.port()),
            "");
  ASSERT_TRUE(WaitForHttp(port, "/-/ready", std::chrono::seconds(20)))
      << ReadText(dir.path() / "prometheus.log");

  httplib::Client query("127.0.0.1", port);
  std::optional<double> devices;
  std::optional<double> running;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    devices = QuerySum(query, "sum(headroom_devices)");
    running = QuerySum(query, "sum(headroom_jobs{state=\"running\"})");
    if (devices == 32 && running == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(devices, std::optional<double>(32)) << ReadText(dir.path() / "prometheus.log");
  EXPECT_EQ(running, std::optional<double>(2));
  EXPECT_EQ(QuerySum(query, "up{job=\"headroomd\"}"), std::optional<double>(1));

  prometheus.Stop();
  daemon.Stop();
  EXPECT_FALSE(prometheus.Running());
}

// The other direction: headroomd asks a real Prometheus for a service's load. Prometheus
// scrapes an exporter (a stand-in model server on a loopback port serving
// chat_requests_per_second 30); the service's autoscaling.prometheusQuery sums that gauge, and
// headroomd --prometheus-url syncing every 0.5 s scales the service to ceil(30 / (10 × 0.5)) = 6.
TEST(PrometheusScrape, AServiceAutoscalesOnARealPrometheusQuery) {
  if (!DaemonBuilt()) GTEST_SKIP() << "headroomd not built (" << BinaryPath("headroomd") << ")";
  const auto prometheus_bin = FindProgram("prometheus");
  if (!prometheus_bin) GTEST_SKIP() << "prometheus not installed (apt-get install prometheus)";
  TestDir dir;
  httplib::Server exporter;
  exporter.Get("/metrics", [](const httplib::Request&, httplib::Response& reply) {
    reply.set_content(
        "# TYPE chat_requests_per_second gauge\nchat_requests_per_second{pod=\"a\"} 18\n"
        "chat_requests_per_second{pod=\"b\"} 12\n",
        "text/plain; version=0.0.4");
  });
  const int exporter_port = exporter.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { exporter.listen_after_bind(); });
  const int port = FreePort();
  ChildProcess prometheus;
  ASSERT_EQ(StartPrometheus(prometheus, *prometheus_bin, dir, port, "chat", exporter_port), "");
  Daemon daemon(dir.path());
  const std::string failure =
      daemon.Start({.devices = 32,
                    .flags = {"--prometheus-url", "http://127.0.0.1:" + std::to_string(port),
                              "--autoscale-interval-s", "0.5"}});
  ASSERT_EQ(failure, "") << failure;
  httplib::Client api("127.0.0.1", daemon.port());
  api.set_bearer_token_auth(daemon.admin_token().c_str());
  const std::string spec =
      "kind: Service\nmetadata: {name: chat}\nspec:\n  replicas: 1\n  autoscaling:\n"
      "    maxReplicas: 8\n    requestsPerReplica: 10\n    targetUtilization: 50\n"
      "    prometheusQuery: sum(chat_requests_per_second)\n  timeLimit: 30d\n"
      "  devices: {requests: [{count: 1}]}\n";
  auto submitted = api.Post("/v1/jobs", spec, "application/yaml");
  ASSERT_TRUE(submitted);
  ASSERT_EQ(submitted->status, 201) << submitted->body;

  json service;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while (std::chrono::steady_clock::now() < deadline) {
    auto listed = api.Get("/v1/services");
    if (listed && listed->status == 200) service = json::parse(listed->body)["services"][0];
    if (service["replicas"] == 6) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(service["replicas"], 6) << service.dump() << "\n"
                                    << ReadText(dir.path() / "prometheus.log") << daemon.Log();
  EXPECT_EQ(service["load"]["requestsPerSecond"], 30.0) << service.dump();
  prometheus.Stop();
  daemon.Stop();
  exporter.stop();
  serving.join();
}

}  // namespace
}  // namespace headroom::testing
