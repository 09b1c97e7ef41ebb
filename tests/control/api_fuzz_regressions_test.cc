// Regressions found by fuzz/api_fuzz.cc: what an API error message may quote of a client's input
// (docs/api.md "Errors": at most 40 bytes, control bytes escaped, one line), what a heartbeat
// may put into /metrics (a telemetry tenant is a tenant name), and a policy that is not UTF-8.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "control/api_routes.h"
#include "control/job_spec.h"
#include "daemon_fixture.h"
#include "engine/presets.h"

namespace headroom::control {
namespace {

// Every byte of `text` printable ASCII or part of a UTF-8 sequence: no control byte.
bool NoControlBytes(const std::string& text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return false;
  }
  return true;
}

// GET /v1/jobs?limit=..., /v1/events?after=...: a query value with a newline and terminal
// escapes was quoted raw, and cut at 40 bytes in the middle of a UTF-8 sequence.
TEST(ApiFuzzRegressions, ParseIdQuotesAnEscapedExcerpt) {
  const std::string limit = "mit: 30m\n  comman\xc3\xa9\xc3\xa9\x1b[31m" + std::string(100, 'x');
  auto parsed = ParseId(limit, "limit");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().status, 400);
  const std::string& message = parsed.error().message;
  EXPECT_TRUE(NoControlBytes(message)) << message;
  EXPECT_NE(message.find("\\n"), std::string::npos) << message;
  EXPECT_NE(message.find("..."), std::string::npos) << message;
  EXPECT_LT(message.size(), 120u) << message;
  EXPECT_EQ(ParseId("42", "limit").value(), 42u);
}

// A job spec's unknown key was named in full in the message's field path ("field '<key>'"), so a
// 1 MiB key made a message of megabytes.
TEST(ApiFuzzRegressions, JobSpecFieldPathIsCut) {
  // Keys past YAML's 1024-byte limit on implicit keys, given explicitly ("? KEY"): one of NUL
  // bytes (YAML's "\0" escape, 2000 times), one of 5000 letters.
  std::string nuls;
  for (int i = 0; i < 2000; ++i) nuls += "\\0";
  const std::string yaml = "apiVersion: headroom/v1\nkind: Job\n? \"co" + nuls + "\"\n: 1\n";
  const std::string flow = "{? " + std::string(5000, 'k') + " : 1}";
  for (const std::string& text : {yaml, flow}) {
    auto parsed = ParseJobSpec(text, "request body");
    ASSERT_FALSE(parsed.has_value());
    const std::string& message = parsed.error().message;
    EXPECT_LT(message.size(), 1024u) << message;
    EXPECT_TRUE(NoControlBytes(message)) << message;
    EXPECT_NE(message.find("unknown key"), std::string::npos) << message;
  }
}

// A telemetry tenant was stored as any string and written into /metrics label values, where a
// carriage return (or a terminal escape, or a megabyte of text) broke or bloated every scrape.
TEST(ApiFuzzRegressions, HeartbeatTelemetryTenantIsATenantName) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.agents.grace_us = 120 * kUsPerSecond;
  testing::TestDaemon daemon(options);
  const testing::Json registration = {{"node", "n1"},
                                      {"cpu_milli", 64000},
                                      {"memory_mib", 524288},
                                      {"devices", {{{"index", 0}, {"model", "H100"}}}},
                                      {"address", "10.0.0.1"}};
  ASSERT_EQ(daemon.Post("/v1/agents/register", daemon.admin(), registration.dump()).status, 200);
  const auto heartbeat = [&](const testing::Json& tenant) {
    const testing::Json body = {
        {"telemetry", {{{"index", 0}, {"temp_c", 40.0}, {"tenant", tenant}}}}};
    return daemon.Post("/v1/agents/n1/heartbeat", daemon.admin(), body.dump());
  };
  const auto refused = heartbeat("a\rb\x1b[31m");
  ASSERT_EQ(refused.status, 400) << refused.body.dump();
  const std::string message = refused.body["error"]["message"];
  EXPECT_EQ(message.rfind("telemetry[0].tenant:", 0), 0u) << message;
  EXPECT_TRUE(NoControlBytes(message)) << message;
  EXPECT_EQ(heartbeat(std::string(300, 'x')).status, 400);
  EXPECT_EQ(heartbeat("team-a").status, 200);
  EXPECT_EQ(heartbeat("").status, 200);
  EXPECT_EQ(heartbeat(nullptr).status, 200);
}

// PUT /v1/policy took YAML with bytes that are not UTF-8 (yaml-cpp passes them through), and the
// loop thread's engine log record of the policy then threw from nlohmann::json::dump: the daemon
// died, and died again at every start from the journaled policy. YAML must be UTF-8.
TEST(ApiFuzzRegressions, APolicyThatIsNotUtf8IsRefusedAndTheDaemonServesOn) {
  testing::TestDaemon daemon(testing::TestDaemon::Simulated());
  const std::string fifo(*engine::PresetPolicyText("fifo"));
  const size_t name_line = fifo.find("name: fifo");
  ASSERT_NE(name_line, std::string::npos);
  const size_t line =
      static_cast<size_t>(std::count(fifo.begin(), fifo.begin() + name_line, '\n')) + 2;
  std::string broken = fifo;
  broken.insert(name_line + std::string("name: fifo").size(), "\n# caf\xff\xfe");
  const auto refused = daemon.Put("/v1/policy", daemon.admin(), broken);
  ASSERT_EQ(refused.status, 400) << refused.body.dump();
  EXPECT_EQ(refused.body["error"]["message"],
            fmt::format("body:{}: expected UTF-8 text, got byte 0xFF at column 6; save the file "
                        "as UTF-8",
                        line));
  EXPECT_EQ(daemon.Get("/v1/cluster", daemon.admin()).status, 200);
  EXPECT_EQ(daemon.Put("/v1/policy", daemon.admin(), fifo).status, 200);
  daemon.Stop();
  daemon.Start();
  const auto policy = daemon.Get("/v1/policy", daemon.admin());
  ASSERT_EQ(policy.status, 200);
  EXPECT_EQ(policy.body["name"], "fifo");
}

}  // namespace
}  // namespace headroom::control
