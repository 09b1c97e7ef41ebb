// The data dir (issue 10, "the data dir"): one headroomd per dir (a second exits 2 naming the
// holder; kill -9 leaves no stale lock), private files (0700 dir, 0600 store, WAL, shm and
// admin.token, tightened at start), no empty start under an existing admin.token, and a bad
// row that refuses start by name until `--repair` moves it to the quarantine table.
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli/client_test_support.h"
#include "control/data_dir.h"
#include "control/sqlite_store.h"
#include "daemon_fixture.h"
#include "testing/binaries.h"

namespace headroom::control {
namespace {

using testing::JobBody;
using testing::TestDaemon;

// Runs `sql` on the database at `path`; returns SQLite's error message, "" on success.
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

unsigned Mode(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? info.st_mode & 0777 : 01000;
}

DaemonOptions Options(const std::string& dir) {
  DaemonOptions options = TestDaemon::Simulated();
  options.data_dir = dir;
  return options;
}

// Starts a daemon on `dir`, submits one job as the admin (id 1 on a new store), stops it.
void StartSubmitStop(const std::string& dir) {
  auto daemon = Daemon::Start(Options(dir));
  ASSERT_TRUE(daemon.has_value()) << daemon.error().message;
  const std::string admin = testing::ReadToken((*daemon)->admin_token_path());
  const auto reply =
      testing::Call((*daemon)->port(), "POST", "/v1/jobs", admin, JobBody(1, 1, 0, "team-a"));
  ASSERT_EQ(reply.status, 201) << reply.body.dump();
  (*daemon)->Stop();
}

TEST(DataDir, Issue10SecondDaemonInTheSameProcessIsRefused) {
  const std::string dir = testing::TempDir("datadir-lock");
  auto first = Daemon::Start(Options(dir));
  ASSERT_TRUE(first.has_value()) << first.error().message;
  auto second = Daemon::Start(Options(dir));
  ASSERT_FALSE(second.has_value());
  EXPECT_NE(second.error().message.find("pid " + std::to_string(::getpid())), std::string::npos)
      << second.error().message;
  EXPECT_NE(second.error().message.find(dir + "/headroomd.lock"), std::string::npos);
  // Stopped and destroyed, the first lets the next one in.
  first->reset();
  auto third = Daemon::Start(Options(dir));
  EXPECT_TRUE(third.has_value()) << third.error().message;
  third->reset();
  std::filesystem::remove_all(dir);
}

TEST(DataDir, Issue10SecondHeadroomdExitsTwoNamingTheHolderAndKillNineLeavesNoStaleLock) {
  const auto timeout = headroom::testing::FindProgram("timeout");
  ASSERT_TRUE(timeout.has_value()) << "coreutils' timeout is needed to bound a second daemon";
  const std::string dir = testing::TempDir("datadir-lock-process");
  auto headroomd = [&](const std::string& port_file) {
    return std::vector<std::string>{headroom::testing::BinaryPath("headroomd"),
                                    "--listen",
                                    "127.0.0.1:0",
                                    "--data-dir",
                                    dir,
                                    "--cluster",
                                    testing::TinyClusterFile(),
                                    "--port-file",
                                    port_file};
  };
  headroom::testing::ChildProcess first;
  std::string error;
  ASSERT_TRUE(first.Start(headroomd(dir + "/port1"), dir + "/first.log", &error)) << error;
  ASSERT_TRUE(testing::WaitFor([&] { return std::filesystem::exists(dir + "/port1"); }))
      << headroom::testing::ReadText(dir + "/first.log");
  EXPECT_EQ(headroom::testing::ReadText(dir + "/headroomd.lock"),
            std::to_string(first.pid()) + " headroomd\n");

  // Bounded by timeout: the old code let the second one run and serve (exit 124 then).
  std::vector<std::string> second_argv = headroomd(dir + "/port2");
  second_argv.insert(second_argv.begin(), {timeout->string(), "20"});
  const auto second = headroom::testing::RunProgram(second_argv);
  EXPECT_EQ(second.status, 2) << second.err;
  EXPECT_NE(second.err.find("pid " + std::to_string(first.pid())), std::string::npos) << second.err;
  EXPECT_NE(second.err.find(dir + "/headroomd.lock"), std::string::npos) << second.err;
  EXPECT_EQ(second.err.find('\n'), second.err.size() - 1) << "one line: " << second.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/port2"));

  // kill -9 the holder: the kernel drops its lock with it, and the next one starts.
  ASSERT_EQ(::kill(first.pid(), SIGKILL), 0);
  first.Stop();
  headroom::testing::ChildProcess third;
  ASSERT_TRUE(third.Start(headroomd(dir + "/port3"), dir + "/third.log", &error)) << error;
  EXPECT_TRUE(testing::WaitFor([&] { return std::filesystem::exists(dir + "/port3"); }))
      << headroom::testing::ReadText(dir + "/third.log");
  third.Stop();
  std::filesystem::remove_all(dir);
}

TEST(DataDir, Issue10FilesArePrivateAndTightenedAtStart) {
  const std::string root = testing::TempDir("datadir-modes");
  const std::string dir = root + "/var/headroom";  // headroomd creates it.
  const std::string db = dir + "/headroom.db";
  {
    auto daemon = Daemon::Start(Options(dir));
    ASSERT_TRUE(daemon.has_value()) << daemon.error().message;
    EXPECT_EQ(Mode(dir), 0700u);
    // The WAL and shm files exist while the store is open.
    ASSERT_TRUE(std::filesystem::exists(db + "-wal"));
    for (const std::string& path : {db, db + "-wal", db + "-shm", dir + "/admin.token"}) {
      EXPECT_EQ(Mode(path), 0600u) << path;
    }
    (*daemon)->Stop();
  }
  // Loosened (as an older headroomd left them): tightened at the next start.
  for (const std::string& path : {db, dir + "/admin.token"}) {
    ASSERT_EQ(::chmod(path.c_str(), 0644), 0) << path;
  }
  ASSERT_EQ(::chmod(dir.c_str(), 0750), 0);

  // An existing dir keeps its mode; the files are 0600 again, and the WAL and shm files
  // SQLite makes anew take the store's mode.
  auto daemon = Daemon::Start(Options(dir));
  ASSERT_TRUE(daemon.has_value()) << daemon.error().message;
  for (const std::string& path : {db, db + "-wal", db + "-shm", dir + "/admin.token"}) {
    EXPECT_EQ(Mode(path), 0600u) << path;
  }
  EXPECT_EQ(Mode(dir), 0750u);
  daemon->reset();
  std::filesystem::remove_all(root);
}

TEST(DataDir, Issue10EmptyStoreUnderAnExistingAdminTokenIsRefused) {
  const std::string dir = testing::TempDir("datadir-empty");
  const std::string db = dir + "/headroom.db";
  StartSubmitStop(dir);

  // A zero-length database.
  std::filesystem::copy_file(db, dir + "/backup.db");
  std::filesystem::resize_file(db, 0);
  std::filesystem::remove(db + "-wal");
  std::filesystem::remove(db + "-shm");
  auto refused = Daemon::Start(Options(dir));
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("holds no tables"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("from a backup"), std::string::npos);
  EXPECT_NE(refused.error().message.find("move admin.token away"), std::string::npos);

  // The tokens table gone.
  std::filesystem::copy_file(dir + "/backup.db", db,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(Sql(db, "DROP TABLE tokens"), "");
  refused = Daemon::Start(Options(dir));
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("lacks the tables tokens"), std::string::npos)
      << refused.error().message;

  // The table there, the admin's row not.
  std::filesystem::copy_file(dir + "/backup.db", db,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(Sql(db, "DELETE FROM tokens"), "");
  refused = Daemon::Start(Options(dir));
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("has no valid row for that admin token"),
            std::string::npos)
      << refused.error().message;

  // Restored from the backup, it starts with its job; with admin.token moved away, it starts
  // as it is and writes a new admin token that works.
  std::filesystem::copy_file(dir + "/backup.db", db,
                             std::filesystem::copy_options::overwrite_existing);
  auto restored = Daemon::Start(Options(dir));
  ASSERT_TRUE(restored.has_value()) << restored.error().message;
  const std::string admin = testing::ReadToken(dir + "/admin.token");
  EXPECT_EQ(testing::Call((*restored)->port(), "GET", "/v1/jobs/1", admin).status, 200);
  restored->reset();
  ASSERT_EQ(Sql(db, "DELETE FROM tokens"), "");
  std::filesystem::rename(dir + "/admin.token", dir + "/admin.token.old");
  auto fresh = Daemon::Start(Options(dir));
  ASSERT_TRUE(fresh.has_value()) << fresh.error().message;
  const std::string new_admin = testing::ReadToken(dir + "/admin.token");
  EXPECT_NE(new_admin, admin);
  EXPECT_EQ(testing::Call((*fresh)->port(), "GET", "/v1/jobs/1", new_admin).status, 200);
  EXPECT_EQ(testing::Call((*fresh)->port(), "GET", "/v1/jobs/1", admin).status, 401);
  fresh->reset();
  std::filesystem::remove_all(dir);
}

TEST(DataDir, Issue10BadRowRefusesByNameUntilRepairQuarantinesIt) {
  const std::string dir = testing::TempDir("datadir-repair");
  const std::string db = dir + "/headroom.db";
  StartSubmitStop(dir);
  ASSERT_EQ(Sql(db, "UPDATE jobs SET state = 9 WHERE id = 1"), "");

  auto refused = Daemon::Start(Options(dir));
  ASSERT_FALSE(refused.has_value());
  const std::string& message = refused.error().message;
  EXPECT_NE(message.find("jobs id 1: column 'state': expected an integer in [0, 4], got 9"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("headroom store check --data-dir " + dir), std::string::npos) << message;
  EXPECT_NE(message.find("headroomd --repair"), std::string::npos) << message;

  DaemonOptions repair = Options(dir);
  repair.repair = true;
  auto repaired = Daemon::Start(repair);
  ASSERT_TRUE(repaired.has_value()) << repaired.error().message;
  const int port = (*repaired)->port();
  const std::string admin = testing::ReadToken(dir + "/admin.token");
  EXPECT_EQ(testing::Call(port, "GET", "/v1/jobs/1", admin).status, 404);
  // The quarantined job's id is not handed out again.
  const auto next = testing::Call(port, "POST", "/v1/jobs", admin, JobBody(1, 1, 0, "team-a"));
  ASSERT_EQ(next.status, 201) << next.body.dump();
  EXPECT_EQ(next.body["id"], 2);
  repaired->reset();

  // The row is in the quarantine table, whole; a plain start now works.
  auto store = SqliteStore::Open(db, StoreOpenOptions{.read_only = true});
  ASSERT_TRUE(store.has_value()) << store.error().message;
  EXPECT_EQ((*store)->QuarantinedRows().value_or(-1), 1);
  store->reset();
  std::string quarantined;
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  sqlite3_exec(
      handle, "SELECT table_name || ' ' || row_key || ' ' || row_json FROM quarantine",
      [](void* out, int, char** values, char**) {
        *static_cast<std::string*>(out) = values[0] != nullptr ? values[0] : "";
        return 0;
      },
      &quarantined, nullptr);
  sqlite3_close(handle);
  EXPECT_EQ(quarantined.rfind("jobs id 1 {", 0), 0u) << quarantined;
  EXPECT_NE(quarantined.find("\"state\":9"), std::string::npos) << quarantined;
  auto plain = Daemon::Start(Options(dir));
  ASSERT_TRUE(plain.has_value()) << plain.error().message;
  EXPECT_EQ(testing::Call((*plain)->port(), "GET", "/v1/jobs/2", admin).status, 200);
  plain->reset();
  std::filesystem::remove_all(dir);
}

TEST(DataDir, Issue10EveryTableReportsItsBadRowsByKey) {
  const std::string dir = testing::TempDir("datadir-rows");
  const std::string db = dir + "/headroom.db";
  StartSubmitStop(dir);
  const std::string hash(64, 'a');
  ASSERT_EQ(Sql(db,
                "INSERT INTO jobs SELECT 5, 0, 'spec: [', 0, 1, 0, 0, '[]', NULL, 0, 0, '' ;"
                "INSERT INTO jobs SELECT 6, 0, spec, 0, 1, 0, 0, 'not json', NULL, 0, 0, '' "
                "  FROM jobs WHERE id = 1;"
                "INSERT INTO services VALUES (3, 'kind: Job', 1);"
                "INSERT INTO nodes VALUES ('n9', 'yes', '', 0, 0, 0, '[]', '');"
                "INSERT INTO nodes VALUES (NULL, 0, '', 0, 0, 0, '[]', '');"
                "INSERT INTO tokens VALUES ('" +
                    hash +
                    "', 'root', '', '');"
                    "INSERT INTO tokens VALUES ('short', 'user', 't', '');"
                    "INSERT INTO meta VALUES ('x', x'00ff');"),
            "");
  auto store = SqliteStore::Open(db);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto loaded = (*store)->LoadAll();
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  std::vector<std::string> described;
  for (const BadRow& row : loaded->bad_rows) described.push_back(DescribeBadRow(row));
  ASSERT_EQ(described.size(), 8u) << ::testing::PrintToString(described);
  EXPECT_EQ(described[0].rfind("jobs id 5: column 'spec': store job 5", 0), 0u) << described[0];
  EXPECT_EQ(described[1].rfind("jobs id 6: column 'placement': placement:", 0), 0u) << described[1];
  EXPECT_EQ(described[2].rfind("services id 3: column 'spec'", 0), 0u) << described[2];
  EXPECT_EQ(described[3].rfind("nodes rowid ", 0), 0u) << described[3];  // NULL sorts first.
  EXPECT_NE(described[3].find("column 'name': expected text, got NULL"), std::string::npos);
  EXPECT_EQ(described[4], "nodes name \"n9\": column 'drained': expected an integer, got \"yes\"");
  EXPECT_EQ(described[5],
            "tokens hash \"aaaaaaaaaaaa...\": column 'role': unknown role \"root\" (admin, user "
            "or agent)");
  EXPECT_EQ(described[6],
            "tokens hash \"short\": column 'hash': expected 64 lowercase hex digits (a SHA-256)");
  EXPECT_EQ(described[7], "meta key \"x\": column 'value': expected text, got a blob");
  // The good rows still load: the job, the admin's token, the clock origin.
  EXPECT_EQ(loaded->snapshot.jobs.size(), 1u);
  EXPECT_EQ(loaded->snapshot.tokens.size(), 1u);
  EXPECT_FALSE(loaded->snapshot.meta.empty());
  // Load refuses on the first, counting the others.
  auto refused = (*store)->Load();
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("(and 7 more)"), std::string::npos)
      << refused.error().message;
  store->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace headroom::control
