// Exporter sources: the URL source scraping a real HTTP endpoint, the file source reading a file
// afresh at every sample, and the errors of each naming the URL or file.
#include "agent/exporter_source.h"

#include <filesystem>
#include <fstream>

#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

namespace headroom::agent {
namespace {

constexpr const char* kExporterText =
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"GPU-b\"} 43\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\"} 40\n"
    "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-b\"} 79\n";

TEST(AgentExporterSource, ExporterSourceScrapesAnEndpoint) {
  httplib::Server server;
  server.Get("/metrics", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(kExporterText, "text/plain; version=0.0.4");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  auto source = MakeExporterUrlSource({.url = base + "/metrics"});
  auto telemetry = source->Sample();
  auto missing = MakeExporterUrlSource({.url = base + "/nothing"})->Sample();
  server.stop();
  thread.join();
  ASSERT_TRUE(telemetry.has_value()) << telemetry.error().message;
  EXPECT_EQ(source->name(), "exporter");
  EXPECT_EQ(telemetry->size(), 2u);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "exporter " + base + "/nothing: HTTP status 404");
}

TEST(AgentExporterSource, UnreachableExporterIsAnError) {
  // Port 1 on loopback: nothing listens there.
  auto telemetry =
      MakeExporterUrlSource({.url = "http://127.0.0.1:1/metrics", .timeout_s = 0.5})->Sample();
  ASSERT_FALSE(telemetry.has_value());
  EXPECT_NE(telemetry.error().message.find("is the exporter running?"), std::string::npos);
}

TEST(AgentExporterSource, FileSourceReadsTheFileAtEverySample) {
  const std::filesystem::path path =
      std::filesystem::path(::testing::TempDir()) / "exporter_source_test.prom";
  const auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  auto source = MakeExporterFileSource(path.string());
  EXPECT_EQ(source->name(), "file");
  std::filesystem::remove(path);
  auto missing = source->Sample();
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, path.string() + ": cannot open file");
  write(kExporterText);
  auto first = source->Sample();
  ASSERT_TRUE(first.has_value()) << first.error().message;
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[1].xid_errors, 79);
  write("DCGM_FI_DEV_XID_ERRORS{gpu=\"1\"} 48\n");
  auto second = source->Sample();
  ASSERT_TRUE(second.has_value()) << second.error().message;
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].xid_errors, 48);
  write("DCGM_FI_DEV_XID_ERRORS{gpu=\"1\"} 48\nDCGM_FI_DEV_GPU_UTIL{gpu=\"1\"} 101\n");
  auto bad = source->Sample();
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(
      bad.error().message,
      path.string() + ": line 2: DCGM_FI_DEV_GPU_UTIL: expected a percentage in 0..100, got 101");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace headroom::agent
