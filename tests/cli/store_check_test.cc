// `headroom store check --data-dir DIR` run as the real binary (issue 10, "the data dir"): exit
// 0 on a clean store, 1 listing each bad row by table and key (and a store that is not the one
// admin.token was made with), 2 on bad usage; it changes nothing it reads. And `headroomd
// --repair` as a real process: it starts on that store, and the check is clean afterwards.
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli/client_test_support.h"
#include "control/daemon_fixture.h"
#include "testing/binaries.h"

namespace headroom::testing {
namespace {

std::string Sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string error;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    error = sqlite3_errmsg(db);
  } else {
    char* message = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      error = message != nullptr ? message : "sqlite3_exec failed";
    }
    sqlite3_free(message);
  }
  sqlite3_close(db);
  return error;
}

// A data dir with one job (id 1) and one user token, made by a daemon that then stopped.
void MakeDataDir(const std::string& dir) {
  control::DaemonOptions options = control::testing::TestDaemon::Simulated();
  options.data_dir = dir;
  auto daemon = control::Daemon::Start(options);
  ASSERT_TRUE(daemon.has_value()) << daemon.error().message;
  const std::string admin = control::testing::ReadToken((*daemon)->admin_token_path());
  const int port = (*daemon)->port();
  ASSERT_EQ(control::testing::Call(port, "POST", "/v1/jobs", admin,
                                   control::testing::JobBody(1, 1, 0, "team-a"))
                .status,
            201);
  ASSERT_EQ(control::testing::Call(port, "POST", "/v1/tokens", admin,
                                   R"({"role": "user", "tenant": "team-a"})")
                .status,
            201);
}

TEST(CliStoreCheck, Issue10CleanStoreExitsZero) {
  TestDir dir;
  const std::string data = (dir.path() / "data").string();
  MakeDataDir(data);
  const auto before = std::filesystem::last_write_time(data + "/headroom.db");
  const CommandOutcome clean = RunHeadroom({"store", "check", "--data-dir", data});
  EXPECT_EQ(clean.status, 0) << clean.out << clean.err;
  EXPECT_EQ(clean.out, data +
                           "/headroom.db: 1 jobs, 0 services, 0 nodes, 2 tokens loaded; 0 bad "
                           "rows; 0 rows in quarantine\n");
  // It wrote nothing, and left no -wal or -shm file (owned by whoever ran it) behind.
  EXPECT_EQ(std::filesystem::last_write_time(data + "/headroom.db"), before);
  EXPECT_FALSE(std::filesystem::exists(data + "/headroom.db-wal"));
  EXPECT_FALSE(std::filesystem::exists(data + "/headroom.db-shm"));

  // Beside a running headroomd it reads the store as it is, and leaves that daemon's files be.
  control::DaemonOptions options = control::testing::TestDaemon::Simulated();
  options.data_dir = data;
  auto daemon = control::Daemon::Start(options);
  ASSERT_TRUE(daemon.has_value()) << daemon.error().message;
  const CommandOutcome live = RunHeadroom({"store", "check", "--data-dir", data});
  EXPECT_EQ(live.status, 0) << live.out << live.err;
  EXPECT_NE(live.out.find("1 jobs"), std::string::npos) << live.out;
  EXPECT_TRUE(std::filesystem::exists(data + "/headroom.db-wal"));
  const std::string admin = control::testing::ReadToken((*daemon)->admin_token_path());
  EXPECT_EQ(control::testing::Call((*daemon)->port(), "POST", "/v1/jobs", admin,
                                   control::testing::JobBody(1, 1, 0, "team-a"))
                .status,
            201);
}

TEST(CliStoreCheck, Issue10ListsBadRowsAndExitsOne) {
  TestDir dir;
  const std::string data = (dir.path() / "data").string();
  MakeDataDir(data);
  const std::string db = data + "/headroom.db";
  ASSERT_EQ(Sql(db,
                "UPDATE jobs SET placement = '{' WHERE id = 1;"
                "UPDATE tokens SET role = 'superuser' WHERE role = 'user'"),
            "");
  const CommandOutcome bad = RunHeadroom({"store", "check", "--data-dir", data});
  EXPECT_EQ(bad.status, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("bad row: jobs id 1: column 'placement': placement:"), std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find("column 'role': unknown role \"superuser\""), std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find("bad row: tokens hash \""), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("2 bad rows"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("headroomd --repair"), std::string::npos) << bad.out;

  // headroomd refuses it, naming the row; with --repair it starts, and the check is clean.
  const auto headroomd = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {BinaryPath("headroomd"),
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--data-dir",
                                     data,
                                     "--cluster",
                                     control::testing::TinyClusterFile(),
                                     "--port-file",
                                     (dir.path() / "port").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  };
  const CommandOutcome refused = RunProgram(headroomd({}));
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find("jobs id 1"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("headroom store check --data-dir " + data), std::string::npos)
      << refused.err;
  ChildProcess repaired;
  std::string error;
  ASSERT_TRUE(repaired.Start(headroomd({"--repair"}), dir.path() / "repair.log", &error)) << error;
  ASSERT_TRUE(control::testing::WaitFor([&] {
    return std::filesystem::exists(dir.path() / "port");
  })) << ReadText(dir.path() / "repair.log");
  repaired.Stop();
  const std::string log = ReadText(dir.path() / "repair.log");
  EXPECT_NE(log.find("repair: jobs id 1: column 'placement'"), std::string::npos) << log;
  EXPECT_NE(log.find("repair: 2 bad rows moved to the quarantine table"), std::string::npos) << log;
  const CommandOutcome after = RunHeadroom({"store", "check", "--data-dir", data});
  EXPECT_EQ(after.status, 0) << after.out << after.err;
  EXPECT_NE(after.out.find("0 bad rows; 2 rows in quarantine"), std::string::npos) << after.out;
}

TEST(CliStoreCheck, Issue10StoreNotMadeForTheAdminTokenExitsOne) {
  TestDir dir;
  const std::string data = (dir.path() / "data").string();
  MakeDataDir(data);
  std::filesystem::resize_file(data + "/headroom.db", 0);
  const CommandOutcome empty = RunHeadroom({"store", "check", "--data-dir", data});
  EXPECT_EQ(empty.status, 1) << empty.out << empty.err;
  EXPECT_NE(empty.out.find("problem: " + data + "/admin.token exists, but " + data +
                           "/headroom.db holds no tables"),
            std::string::npos)
      << empty.out;
  // Read-only: the zero-length file stays zero-length.
  EXPECT_EQ(std::filesystem::file_size(data + "/headroom.db"), 0u);
}

TEST(CliStoreCheck, Issue10UsageErrorsExitTwo) {
  TestDir dir;
  const CommandOutcome no_flag = RunHeadroom({"store", "check"});
  EXPECT_EQ(no_flag.status, 2) << no_flag.err;
  EXPECT_NE(no_flag.err.find("--data-dir"), std::string::npos) << no_flag.err;
  const CommandOutcome no_verb = RunHeadroom({"store"});
  EXPECT_EQ(no_verb.status, 2) << no_verb.err;
  const CommandOutcome missing =
      RunHeadroom({"store", "check", "--data-dir", (dir.path() / "nowhere").string()});
  EXPECT_EQ(missing.status, 2) << missing.err;
  EXPECT_NE(missing.err.find("not a directory"), std::string::npos) << missing.err;
  const CommandOutcome no_store =
      RunHeadroom({"store", "check", "--data-dir", dir.path().string()});
  EXPECT_EQ(no_store.status, 2) << no_store.err;
  EXPECT_NE(no_store.err.find("headroom.db: no such file"), std::string::npos) << no_store.err;
}

}  // namespace
}  // namespace headroom::testing
