// Journal (journal.h) on a real SQLite file: a Commit that returned is on disk (a second
// connection sees it before the journal stops), one caller's writes apply in the order given
// (a later write of a row replaces it, a removal deletes it), Stop commits what is queued, and
// a Commit after Stop fails without writing.
#include "control/journal.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "control/sqlite_store.h"
#include "daemon_fixture.h"

namespace headroom::control {
namespace {

JobRecord Job(uint64_t id, JobState state) {
  auto spec = ParseJobSpec(
      "metadata: {name: j}\nspec:\n  tenant: team-a\n  tasks: 1\n  timeLimit: 1h\n"
      "  devices: {requests: [{count: 1}]}\n");
  EXPECT_TRUE(spec.has_value());
  return JobRecord{.id = id, .spec = *spec, .state = state, .submit_us = 1000};
}

// What a second, read-only connection to the file sees now.
StoreSnapshot SeenFromOutside(const std::string& path) {
  auto reader = SqliteStore::Open(path, StoreOpenOptions{.read_only = true});
  EXPECT_TRUE(reader.has_value()) << reader.error().message;
  auto snapshot = (*reader)->Load();
  EXPECT_TRUE(snapshot.has_value()) << snapshot.error().message;
  return *snapshot;
}

TEST(JournalTest, ACommitThatReturnedIsOnDiskInTheOrderGiven) {
  const std::string dir = testing::TempDir("journal-order");
  const std::string path = dir + "/headroom.db";
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  Journal journal(**store);
  ASSERT_TRUE(journal.Commit({Job(1, JobState::kPending), Job(2, JobState::kPending)}));
  // One caller's writes in order: job 1 pending then running; job 2 written, then removed.
  JobRecord running = Job(1, JobState::kRunning);
  running.start_us = 2000;
  running.starts = 1;
  ASSERT_TRUE(journal.Commit({running, JobRemoval{2}}));
  const StoreSnapshot seen = SeenFromOutside(path);
  ASSERT_EQ(seen.jobs.size(), 1u);
  EXPECT_EQ(seen.jobs[0].id, 1u);
  EXPECT_EQ(seen.jobs[0].state, JobState::kRunning);
  EXPECT_EQ(seen.jobs[0].start_us, 2000);
  EXPECT_EQ(journal.writes(), 4u);
  journal.Stop();
  std::filesystem::remove_all(dir);
}

TEST(JournalTest, StopCommitsWhatIsQueuedAndLaterCommitsFail) {
  const std::string dir = testing::TempDir("journal-stop");
  const std::string path = dir + "/headroom.db";
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  {
    Journal journal(**store);
    ASSERT_TRUE(journal.Commit({Job(7, JobState::kPending)}));
    journal.Stop();
    const auto late = journal.Commit({Job(8, JobState::kPending)});
    ASSERT_FALSE(late.has_value());
    EXPECT_FALSE(late.error().message.empty());
    EXPECT_EQ(journal.writes(), 1u);
  }
  const StoreSnapshot seen = SeenFromOutside(path);
  ASSERT_EQ(seen.jobs.size(), 1u);
  EXPECT_EQ(seen.jobs[0].id, 7u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace headroom::control
