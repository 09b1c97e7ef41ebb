// The dashboard end to end: a real headroomd (simulated backend, generated cluster) serves the
// page at GET /; jobs are submitted with the real `headroom submit`; real headless Chromium
// loads http://127.0.0.1:PORT/#token=... and its DOM shows every rack of GET /v1/floor and the
// pending jobs' names. A 1400x900 screenshot is kept under <build>/test-artifacts/ and checked
// to be a real, non-blank PNG. Skips while headroomd is not built or chromium is missing.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "cli/client_test_support.h"
#include "testing/binaries.h"
#include "web/headless_chromium.h"

namespace headroom::testing {
namespace {

using nlohmann::json;

TEST(DashboardAgainstDaemon, ShowsRacksAndQueuedJobsAndScreenshots) {
  if (!DaemonBuilt()) GTEST_SKIP() << "headroomd not built (" << BinaryPath("headroomd") << ")";
  const auto chromium = FindChromium();
  if (!chromium) GTEST_SKIP() << "chromium not installed (apt-get install chromium)";
  TestDir dir;
  Daemon daemon(dir.path());
  const std::string failure = daemon.Start({.devices = 64});
  ASSERT_EQ(failure, "") << failure;
  const auto env = daemon.ClientEnv();

  const std::vector<std::vector<std::string>> submissions = {
      {"--gpus-per-task", "8", "--ntasks", "6", "--time", "4h", "--name", "pretrain-70b"},
      {"--gpus-per-task", "8", "--ntasks", "4", "--time", "2h", "--name", "finetune-queued"},
      {"--share", "500", "--time", "1h", "--name", "notebook-half"},
      {"--gpus-per-task", "8", "--ntasks", "8", "--time", "1h", "--name", "whole-floor-queued"},
  };
  for (const auto& flags : submissions) {
    std::vector<std::string> args = {"submit"};
    args.insert(args.end(), flags.begin(), flags.end());
    const CommandOutcome run = RunHeadroom(args, env);
    ASSERT_EQ(run.status, 0) << run.err;
  }

  // The racks the API reports, and the jobs it says are pending once the first cycle ran.
  httplib::Client api("127.0.0.1", daemon.port());
  api.set_bearer_token_auth(daemon.admin_token());
  json floor;
  json pending;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  do {
    auto floor_answer = api.Get("/v1/floor");
    auto pending_answer = api.Get("/v1/jobs?state=pending");
    ASSERT_TRUE(floor_answer && pending_answer);
    floor = json::parse(floor_answer->body);
    pending = json::parse(pending_answer->body);
    if (pending["jobs"].size() == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  } while (std::chrono::steady_clock::now() < deadline);
  ASSERT_EQ(pending["jobs"].size(), 2u) << pending.dump(2);
  ASSERT_GE(floor["racks"].size(), 2u) << floor.dump(2);

  const std::string url = daemon.url() + "/#token=" + daemon.admin_token();
  std::string error;
  const std::string dom = DumpDom(*chromium, url, 6000, dir.path() / "profile", &error);
  ASSERT_FALSE(dom.empty()) << error;
  for (const json& rack : floor["racks"]) {
    const std::string name = rack["name"].get<std::string>();
    EXPECT_NE(dom.find("data-rack=\"" + name + "\""), std::string::npos) << name << "\n" << dom;
    for (const json& node : rack["nodes"]) {
      EXPECT_NE(dom.find("data-node=\"" + node["name"].get<std::string>() + "\""),
                std::string::npos);
    }
  }
  for (const char* name : {"finetune-queued", "whole-floor-queued"}) {
    EXPECT_NE(dom.find(name), std::string::npos) << name;
  }
  EXPECT_EQ(dom.find("pretrain-70b"), std::string::npos) << "running jobs are not in the queue";
  EXPECT_NE(dom.find("id=\"allocation-chart\""), std::string::npos);
  EXPECT_EQ(dom.find("class=\"shown\">"), std::string::npos) << "no error banner expected";

  const std::filesystem::path artifacts =
      std::filesystem::path(HEADROOM_BINARY_DIR) / "test-artifacts";
  std::filesystem::create_directories(artifacts);
  const std::filesystem::path png = artifacts / "dashboard.png";
  ASSERT_TRUE(Screenshot(*chromium, url, 6000, png, dir.path() / "profile-shot", &error)) << error;
  const PngFacts facts = InspectPng(png);
  EXPECT_TRUE(facts.signature_ok);
  EXPECT_EQ(facts.width, 1400u);
  EXPECT_EQ(facts.height, 900u);
  // A blank 1400x900 page compresses to a few kB; racks, text and a chart do not.
  EXPECT_GT(facts.file_bytes, 20000u);
  if (facts.distinct_colours >= 0) {
    EXPECT_GT(facts.distinct_colours, 20) << "the screenshot is nearly a single colour";
  }
}

}  // namespace
}  // namespace headroom::testing
