// DCGM telemetry: the four device fields read by `gpu` label with their units converted, strict
// about the label, and the exporter source scraping a real HTTP endpoint.
#include "agent/dcgm_telemetry.h"

#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

namespace headroom::agent {
namespace {

Result<std::vector<DeviceTelemetry>> FromText(const std::string& text) {
  auto samples = ParsePrometheusText(text);
  if (!samples) return tl::unexpected(samples.error());
  return DcgmTelemetryFromSamples(*samples);
}

constexpr const char* kExporterText =
    "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"
    "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"GPU-b\",device=\"nvidia1\",Hostname=\"node1\"} 43\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",Hostname=\"node1\"} 40\n"
    "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\"} 312.5\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\"} 93\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",GPU_I_ID=\"1\"} 5\n"
    "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-b\"} 79\n"
    "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-b\"} NaN\n"
    "DCGM_FI_DEV_FB_USED{gpu=\"0\"} 1024\n";

TEST(AgentDcgmTelemetry, ReadsTheFourFieldsByGpuLabel) {
  auto telemetry = FromText(kExporterText);
  ASSERT_TRUE(telemetry.has_value()) << telemetry.error().message;
  ASSERT_EQ(telemetry->size(), 2u);
  const DeviceTelemetry& gpu0 = (*telemetry)[0];
  EXPECT_EQ(gpu0.index, 0);
  EXPECT_EQ(gpu0.temp_c, 40.0);
  EXPECT_EQ(gpu0.power_w, 312.5);
  EXPECT_EQ(gpu0.util, 0.93);  // The first sample per (field, gpu) wins over the MIG one.
  EXPECT_FALSE(gpu0.xid_errors.has_value());
  const DeviceTelemetry& gpu1 = (*telemetry)[1];
  EXPECT_EQ(gpu1.index, 1);
  EXPECT_EQ(gpu1.temp_c, 43.0);
  EXPECT_FALSE(gpu1.power_w.has_value());  // NaN is a blank reading.
  EXPECT_FALSE(gpu1.util.has_value());
  EXPECT_EQ(gpu1.xid_errors, 79);
}

TEST(AgentDcgmTelemetry, RejectsMissingOrBadGpuLabelsAndRanges) {
  EXPECT_EQ(FromText("x 1\nDCGM_FI_DEV_GPU_TEMP{UUID=\"a\"} 40\n").error().message,
            "line 2: DCGM_FI_DEV_GPU_TEMP: expected a 'gpu' label holding the device index, got "
            "none");
  EXPECT_EQ(FromText("DCGM_FI_DEV_GPU_TEMP{gpu=\"-1\"} 40\n").error().message,
            "line 1: DCGM_FI_DEV_GPU_TEMP: expected label 'gpu' to hold a device index 0..1023, "
            "got \"-1\"");
  EXPECT_FALSE(FromText("DCGM_FI_DEV_GPU_TEMP{gpu=\"01\"} 40\n").has_value());
  EXPECT_EQ(FromText("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 140\n").error().message,
            "line 1: DCGM_FI_DEV_GPU_UTIL: expected a percentage in 0..100, got 140");
  EXPECT_EQ(FromText("DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} 1.5\n").error().message,
            "line 1: DCGM_FI_DEV_XID_ERRORS: expected a non-negative integer XID, got 1.5");
}

TEST(AgentDcgmTelemetry, ExporterSourceScrapesAnEndpoint) {
  httplib::Server server;
  server.Get("/metrics", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(kExporterText, "text/plain; version=0.0.4");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  auto source = MakeDcgmExporterSource({.url = base + "/metrics"});
  auto telemetry = source->Sample();
  auto missing = MakeDcgmExporterSource({.url = base + "/nothing"})->Sample();
  server.stop();
  thread.join();
  ASSERT_TRUE(telemetry.has_value()) << telemetry.error().message;
  EXPECT_EQ(source->name(), "dcgm");
  EXPECT_EQ(telemetry->size(), 2u);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "dcgm-exporter " + base + "/nothing: HTTP status 404");
}

TEST(AgentDcgmTelemetry, UnreachableExporterIsAnError) {
  // Port 1 on loopback: nothing listens there.
  auto telemetry =
      MakeDcgmExporterSource({.url = "http://127.0.0.1:1/metrics", .timeout_s = 0.5})->Sample();
  ASSERT_FALSE(telemetry.has_value());
  EXPECT_NE(telemetry.error().message.find("is the exporter running?"), std::string::npos);
}

}  // namespace
}  // namespace headroom::agent
