// headroomd as a process: its log lines go to stderr through spdlog, each with the program and
// its level, and --log-level sets the least level logged; a bad level exits 2 naming the flag.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/client_test_support.h"
#include "control/daemon_fixture.h"
#include "testing/binaries.h"

namespace headroom::testing {
namespace {

// Starts headroomd with `extra` flags until it serves, stops it, and gives its stderr.
std::string LogOfAStartAndStop(const TestDir& dir, const std::vector<std::string>& extra) {
  const std::filesystem::path port = dir.path() / "port";
  std::filesystem::remove(port);
  std::vector<std::string> argv = {BinaryPath("headroomd"),
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--data-dir",
                                   (dir.path() / "data").string(),
                                   "--cluster",
                                   control::testing::TinyClusterFile(),
                                   "--port-file",
                                   port.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ChildProcess daemon;
  std::string error;
  const std::filesystem::path log = dir.path() / "headroomd.log";
  EXPECT_TRUE(daemon.Start(argv, log, &error)) << error;
  EXPECT_TRUE(control::testing::WaitFor([&] { return std::filesystem::exists(port); }))
      << ReadText(log);
  daemon.Stop();
  return ReadText(log);
}

TEST(HeadroomdMain, LogsGoToStderrWithTheirLevelAndLogLevelSetsTheLeast) {
  TestDir dir;
  const std::string info = LogOfAStartAndStop(dir, {});
  EXPECT_NE(info.find("[headroomd] [info] headroomd serving on http://127.0.0.1:"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find("[headroomd] [info] headroomd stopped"), std::string::npos) << info;
  EXPECT_EQ(info.find("[debug]"), std::string::npos) << info;

  const std::string errors_only = LogOfAStartAndStop(dir, {"--log-level", "error"});
  EXPECT_EQ(errors_only.find("[info]"), std::string::npos) << errors_only;

  const CommandOutcome bad = RunProgram({BinaryPath("headroomd"), "--data-dir",
                                         (dir.path() / "data").string(), "--log-level", "loud"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "headroomd: --log-level: loud not in {debug,info,warning,error}\n");
}

}  // namespace
}  // namespace headroom::testing
