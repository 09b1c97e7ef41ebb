// headroomd --policy: an operator's policy file is what the daemon runs (GET /v1/cluster names
// it, and work is placed by its pieces), and a broken file keeps headroomd from starting:
// exit 2, one line naming the file, line and field.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli/client_test_support.h"
#include "control/data_dir.h"
#include "control/live_loop.h"
#include "control/sqlite_store.h"
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
                                "multifactor, qssf, las, got \"lifo\""),
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

constexpr const char* kSpreadFile =
    "name: operators-spread\n"
    "description: spread work over nodes\n"
    "placement:\n  scorers: [{name: least_allocated}]\n";

std::string PolicyName(const TestDaemon& daemon) {
  const auto cluster = daemon.Get("/v1/cluster", daemon.admin());
  EXPECT_EQ(cluster.status, 200);
  return cluster.body["policy"]["name"].get<std::string>();
}

TEST(PolicyFile, PutReplacesThePolicyAndItStaysUntilAFlagSetsAnother) {
  TestDaemon daemon(TestDaemon::Simulated());
  EXPECT_EQ(PolicyName(daemon), "headroom");

  // A broken file: 400 naming the body's line and field; nothing changes.
  const auto broken =
      daemon.Put("/v1/policy", daemon.admin(), "name: broken\nqueue:\n  order: lifo\n");
  EXPECT_EQ(broken.status, 400);
  EXPECT_EQ(
      broken.body["error"]["message"],
      "body:3: field 'queue.order': expected one of fifo, priority, multifactor, qssf, las, got "
      "\"lifo\"");
  EXPECT_EQ(PolicyName(daemon), "headroom");
  // Only an admin sets it; a user reads it.
  const std::string user = daemon.Token({{"role", "user"}, {"tenant", "team-a"}});
  EXPECT_EQ(daemon.Put("/v1/policy", user, kSpreadFile).status, 403);

  const auto set = daemon.Put("/v1/policy", daemon.admin(), kSpreadFile);
  ASSERT_EQ(set.status, 200) << set.body.dump();
  EXPECT_EQ(set.body["name"], "operators-spread");
  const auto read = daemon.Get("/v1/policy", user);
  ASSERT_EQ(read.status, 200);
  EXPECT_EQ(read.body["name"], "operators-spread");
  EXPECT_EQ(read.body["description"], "spread work over nodes");
  EXPECT_EQ(read.body["text"], kSpreadFile);
  EXPECT_EQ(PolicyName(daemon), "operators-spread");
  // The engine was rebuilt on it and places work.
  const auto job = daemon.Post("/v1/jobs", daemon.admin(), testing::JobBody(1, 2, 600));
  ASSERT_EQ(job.status, 201) << job.body.dump();
  const std::string job_path = "/v1/jobs/" + std::to_string(job.body["id"].get<int64_t>());
  EXPECT_TRUE(testing::WaitFor(
      [&] { return daemon.Get(job_path, daemon.admin()).body["state"] == "running"; }));

  // Kept across a restart without --policy; a restart with --policy sets another, kept too.
  daemon.Stop();
  daemon.Start();
  EXPECT_EQ(PolicyName(daemon), "operators-spread");
  EXPECT_EQ(daemon.Get("/v1/policy", daemon.admin()).body["text"], kSpreadFile);
  daemon.Stop();
  daemon.mutable_options().policy = "fifo";
  daemon.mutable_options().policy_given = true;
  daemon.Start();
  EXPECT_EQ(PolicyName(daemon), "fifo");
  daemon.Stop();
  daemon.mutable_options().policy = "headroom";
  daemon.mutable_options().policy_given = false;
  daemon.Start();
  EXPECT_EQ(PolicyName(daemon), "fifo");
}

TEST(PolicyFile, AKeptPolicyThatNoLongerParsesDoesNotStopAStart) {
  const std::string dir = TempDir("policy-kept-broken");
  {
    auto store = SqliteStore::Open(dir + "/" + kStoreFileName);
    ASSERT_TRUE(store.has_value()) << store.error().message;
    ASSERT_TRUE((*store)
                    ->Apply(std::vector<StoreWrite>{MetaRecord{
                        kPolicyKey, "name: old\nplacement:\n  scorers: [{name: gone}]\n"}})
                    .has_value());
  }
  DaemonOptions options = TestDaemon::Simulated();
  options.data_dir = dir;
  options.policy = "spread";
  TestDaemon daemon(options);
  EXPECT_EQ(PolicyName(daemon), "spread");
}

}  // namespace
}  // namespace headroom::control
