// headroomd --policy: an operator's policy file is what the daemon runs (GET /v1/cluster names
// it, and work is placed by its pieces), and a broken file keeps headroomd from starting:
// exit 2, one line naming the file, line and field.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli/client_test_support.h"
#include "daemon_fixture.h"
#include "testing/binaries.h"

namespace headroom::control {
namespace {

using testing::TempDir;
using testing::TestDaemon;

TEST(PolicyFile, TheDaemonRunsAnOperatorsPolicyFile) {
  const std::string dir = TempDir("policy-file");
  const std::string file = dir + "/first-fit.yaml";
  std::ofstream(file) << "name: operators-first-fit\n"
                         "description: per task, lowest node first\n"
                         "backfill: {mode: skip}\n"
                         "placement:\n  gang: per_task\n  domain_order: first_fit\n"
                         "  scorers: [{name: first_fit}]\n";
  DaemonOptions options = TestDaemon::Simulated();
  options.policy = file;
  TestDaemon daemon(options);
  const auto cluster = daemon.Get("/v1/cluster", daemon.admin());
  ASSERT_EQ(cluster.status, 200);
  EXPECT_EQ(cluster.body["policy"]["name"], "operators-first-fit");
  EXPECT_EQ(cluster.body["policy"]["description"], "per task, lowest node first");
  std::filesystem::remove_all(dir);
}

TEST(PolicyFile, ABrokenPolicyFileStopsHeadroomdWithExitTwoNamingTheLine) {
  const std::string dir = TempDir("policy-file-broken");
  const std::string file = dir + "/broken.yaml";
  std::ofstream(file) << "name: broken\nqueue:\n  order: lifo\n";
  const auto run = headroom::testing::RunProgram(
      {headroom::testing::BinaryPath("headroomd"), "--listen", "127.0.0.1:0", "--data-dir",
       dir + "/data", "--cluster", testing::TinyClusterFile(), "--policy", file});
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_NE(run.err.find(file + ":3: field 'queue.order': expected one of fifo, priority, "
                                "multifactor, got \"lifo\""),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;

  auto in_process = [&](const std::string& policy) {
    DaemonOptions options = TestDaemon::Simulated();
    options.data_dir = dir + "/data";
    options.policy = policy;
    return Daemon::Start(options);
  };
  auto missing = in_process(dir + "/missing.yaml");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find(dir + "/missing.yaml"), std::string::npos);
  auto unknown = in_process("lifo");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("policy 'lifo': expected one of fifo"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace headroom::control
