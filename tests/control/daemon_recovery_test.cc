// headroomd's recovery of what only the engine log keeps (daemon.cc, RecoveredCarriedState):
// a job's preemption count, which its per-job budget reads, survives a restart, and a damaged
// record at the end of the log loses only what came after the last record that follows, not
// everything since the snapshot.
#include <sqlite3.h>

#include <string>

#include <gtest/gtest.h>

#include "control/daemon_fixture.h"
#include "control/sqlite_store.h"

namespace headroom::control {
namespace {

using testing::TestDaemon;
using testing::WaitFor;

std::string Job(int priority) {
  const Json spec = {{"tasks", 1},
                     {"timeLimit", 3600},
                     {"command", {"true"}},
                     {"priority", priority},
                     {"devices", {{"requests", {{{"name", "gpus"}, {"count", 4}}}}}}};
  return Json{{"apiVersion", "headroom/v1"}, {"kind", "Job"}, {"spec", spec}}.dump();
}

void Sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int status = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  const std::string error = message != nullptr ? message : "";
  sqlite3_free(message);
  sqlite3_close(db);
  ASSERT_EQ(status, SQLITE_OK) << error;
}

// The preemption count of `job` in the submission or restore events after the newest snapshot:
// what the last start recovered and handed to its engine (0: none stated).
uint64_t PreemptionsAfterNewestSnapshot(const std::string& store_path, uint64_t job) {
  auto store = SqliteStore::Open(store_path, StoreOpenOptions{.read_only = true});
  EXPECT_TRUE(store.has_value());
  if (!store) return 0;
  auto newest = (*store)->NewestEngineLogBuild();
  EXPECT_TRUE(newest.has_value() && newest->has_value());
  if (!newest || !*newest) return 0;
  uint64_t preemptions = 0;
  auto read = (*store)->ForEachEngineLogRecord(
      (*newest)->seq, [&](const EngineLogRecord& record) -> tl::expected<void, Error> {
        const Json body = Json::parse(record.body, nullptr, false);
        if (!body.is_object() || !body.contains("step")) return {};
        for (const Json& event : body["step"]["events"]) {
          if (event.value("submit", uint64_t{0}) == job ||
              event.value("restore", uint64_t{0}) == job) {
            preemptions = event.value("preemptions", uint64_t{0});
          }
        }
        return {};
      });
  EXPECT_TRUE(read.has_value());
  return preemptions;
}

TEST(DaemonRecovery, APreemptionCountSurvivesARestartAndADamagedLastRecord) {
  DaemonOptions options = TestDaemon::Simulated();
  options.policy = "k8s-preemption";  // Priority preempts at once, across the cluster.
  TestDaemon daemon(options);
  const std::string store = daemon.options().data_dir + "/headroom.db";
  // Four low-priority jobs fill the 16 devices; an urgent one preempts one of them.
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(daemon.Post("/v1/jobs", daemon.admin(), Job(0)).status, 201);
  ASSERT_TRUE(WaitFor([&] {
    return daemon.Get("/v1/jobs?state=running", daemon.admin()).body["jobs"].size() == 4;
  }));
  const testing::HttpReply urgent = daemon.Post("/v1/jobs", daemon.admin(), Job(10));
  ASSERT_EQ(urgent.status, 201);
  uint64_t victim = 0;
  ASSERT_TRUE(WaitFor([&] {
    const testing::HttpReply pending = daemon.Get("/v1/jobs?state=pending", daemon.admin());
    for (const Json& job : pending.body["jobs"]) {
      if (job["message"].get<std::string>().starts_with("preempted")) {
        victim = job["id"].get<uint64_t>();
      }
    }
    return victim != 0;
  }));
  // One more step after the preemption's, then a restart: the count comes back from the log.
  ASSERT_EQ(daemon.Post("/v1/jobs", daemon.admin(), Job(0)).status, 201);
  ASSERT_TRUE(daemon.WaitLoopPassed());
  daemon.Stop();
  daemon.Start();
  ASSERT_TRUE(daemon.WaitLoopPassed());
  // Steps after the restart's snapshot and the step that hands the jobs to its engine.
  ASSERT_EQ(daemon.Post("/v1/jobs", daemon.admin(), Job(0)).status, 201);
  ASSERT_TRUE(daemon.WaitLoopPassed());
  daemon.Stop();
  EXPECT_EQ(PreemptionsAfterNewestSnapshot(store, victim), 1u);

  // A damaged last record: the records before it still follow, and the count still comes back.
  Sql(store,
      "UPDATE engine_log SET body = '{\"step\": 7}' WHERE seq = (SELECT MAX(seq) FROM "
      "engine_log)");
  daemon.Start();
  daemon.Stop();
  EXPECT_EQ(PreemptionsAfterNewestSnapshot(store, victim), 1u);
}

}  // namespace
}  // namespace headroom::control
