// SqliteStore and Journal on a real file: every row kind round-trips, a reopened store sees
// what was committed, and concurrent commits are grouped into fewer transactions.
#include "control/sqlite_store.h"

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "control/journal.h"
#include "control/token_auth.h"
#include "daemon_fixture.h"

namespace headroom::control {
namespace {

JobRecord SampleJob(uint64_t id) {
  auto spec = ParseJobSpec(
      "metadata: {name: train}\nspec:\n  tenant: team-a\n  tasks: 2\n  timeLimit: 1h\n"
      "  devices: {requests: [{count: 4}]}\n");
  EXPECT_TRUE(spec.has_value());
  JobRecord job{
      .id = id, .spec = *spec, .state = JobState::kRunning, .submit_us = 1000, .start_us = 2000};
  job.placement = {TaskPlacement{.rank = 0,
                                 .node = "n0",
                                 .device_indices = {0, 1, 2, 3},
                                 .cpu_milli = 100,
                                 .memory_mib = 200},
                   TaskPlacement{.rank = 1, .node = "n1", .device_indices = {4, 5, 6, 7}}};
  job.starts = 1;
  job.exit_code = std::nullopt;
  return job;
}

TEST(ControlStore, RoundTripsEveryRowKindThroughAReopen) {
  const std::string dir = testing::TempDir("store-test");
  const std::string path = dir + "/headroom.db";
  {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.has_value()) << store.error().message;
    JobRecord done = SampleJob(2);
    done.state = JobState::kFailed;
    done.exit_code = 3;
    done.message = "rank 0 exited with code 3";
    NodeRecord node{.name = "n1",
                    .drained = true,
                    .drain_reason = "fan",
                    .registered = true,
                    .cpu_milli = 64000,
                    .memory_mib = 1024,
                    .devices = {model::RegisteredDevice{0, "GPU-0", "H100", 81559, "c1"}},
                    .address = "10.0.0.1"};
    std::vector<StoreWrite> writes = {SampleJob(1), done, node,
                                      TokenRecord{Sha256Hex("secret"), Role::kUser, "team-a", ""},
                                      MetaRecord{"k", "v"}};
    ASSERT_TRUE((*store)->Apply(writes).has_value());
    // Replacing a row keeps one row with the new contents.
    JobRecord requeued = SampleJob(1);
    requeued.state = JobState::kPending;
    requeued.placement.clear();
    requeued.requeues = 1;
    ASSERT_TRUE((*store)->Apply(std::vector<StoreWrite>{requeued}).has_value());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.has_value());
  auto snapshot = (*store)->Load();
  ASSERT_TRUE(snapshot.has_value()) << snapshot.error().message;
  ASSERT_EQ(snapshot->jobs.size(), 2u);
  EXPECT_EQ(snapshot->jobs[0].state, JobState::kPending);
  EXPECT_EQ(snapshot->jobs[0].requeues, 1u);
  EXPECT_TRUE(snapshot->jobs[0].placement.empty());
  EXPECT_TRUE(snapshot->jobs[0].spec == SampleJob(1).spec);
  EXPECT_EQ(snapshot->jobs[1].state, JobState::kFailed);
  EXPECT_EQ(snapshot->jobs[1].exit_code, 3);
  EXPECT_EQ(snapshot->jobs[1].placement, SampleJob(2).placement);
  EXPECT_EQ(snapshot->jobs[1].message, "rank 0 exited with code 3");
  ASSERT_EQ(snapshot->nodes.size(), 1u);
  EXPECT_TRUE(snapshot->nodes[0].drained);
  EXPECT_EQ(snapshot->nodes[0].devices.at(0).uuid, "GPU-0");
  EXPECT_EQ(snapshot->nodes[0].address, "10.0.0.1");
  ASSERT_EQ(snapshot->tokens.size(), 1u);
  EXPECT_EQ(snapshot->tokens[0].hash_hex, Sha256Hex("secret"));
  EXPECT_EQ(snapshot->tokens[0].tenant, "team-a");
  ASSERT_EQ(snapshot->meta.size(), 1u);
  EXPECT_EQ(snapshot->meta[0].value, "v");
  std::filesystem::remove_all(dir);
}

// A node's devices are stored in the register body's form (model::RegisteredDeviceJson); rows
// written before held clique_id "" where the form holds null, and both read back as "".
TEST(ControlStore, InventoryRowsReadInTheContractsFormAndTheEarlierOne) {
  const std::vector<model::RegisteredDevice> devices = {
      {.index = 0, .uuid = "GPU-0", .model = "H100", .memory_mib = 81559, .clique_id = "c.1"},
      {.index = 3, .uuid = "", .model = "H100", .memory_mib = 0, .clique_id = ""}};
  const std::string text = InventoryToJson(devices);
  EXPECT_EQ(nlohmann::json::parse(text)[1]["clique_id"], nullptr);
  auto read = InventoryFromJson(text);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(*read, devices);
  auto earlier =
      InventoryFromJson(R"([{"index":3,"uuid":"","model":"H100","memory_mib":0,"clique_id":""}])");
  ASSERT_TRUE(earlier.has_value()) << earlier.error().message;
  EXPECT_EQ(*earlier, std::vector<model::RegisteredDevice>{devices[1]});
  EXPECT_FALSE(InventoryFromJson(R"([{"index":3,"uuid":"","model":"H100"}])").has_value());
}

TEST(ControlStore, ProgressUpdatesAJobRowAndKeepsItsSpec) {
  const std::string dir = testing::TempDir("store-progress-test");
  const std::string path = dir + "/headroom.db";
  {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.has_value()) << store.error().message;
    ASSERT_TRUE((*store)->Apply(std::vector<StoreWrite>{SampleJob(1)}).has_value());
    JobRecord ended = SampleJob(1);
    ended.state = JobState::kFailed;
    ended.end_us = 9000;
    ended.exit_code = 137;
    ended.requeues = 2;
    ended.starts = 3;
    ended.message = "rank 1 killed";
    ASSERT_TRUE((*store)->Apply(std::vector<StoreWrite>{ProgressOf(ended)}).has_value());
    // No row to update: an error, and the transaction it was in writes nothing.
    const auto missing =
        (*store)->Apply(std::vector<StoreWrite>{MetaRecord{"k", "v"}, ProgressOf(SampleJob(7))});
    ASSERT_FALSE(missing.has_value());
    EXPECT_EQ(missing.error().message, "job 7 has no row to update");
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.has_value());
  auto snapshot = (*store)->Load();
  ASSERT_TRUE(snapshot.has_value()) << snapshot.error().message;
  ASSERT_EQ(snapshot->jobs.size(), 1u);
  const JobRecord& job = snapshot->jobs[0];
  EXPECT_TRUE(job.spec == SampleJob(1).spec);
  EXPECT_EQ(job.submit_us, 1000);
  EXPECT_EQ(job.start_us, 2000);
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.end_us, 9000);
  EXPECT_EQ(job.exit_code, 137);
  EXPECT_EQ(job.requeues, 2u);
  EXPECT_EQ(job.starts, 3u);
  EXPECT_EQ(job.message, "rank 1 killed");
  EXPECT_EQ(job.placement, SampleJob(1).placement);
  EXPECT_TRUE(snapshot->meta.empty());
  std::filesystem::remove_all(dir);
}

// The placement column is written without building a JSON tree: it must read back equal, and be
// the text a tree of it dumps to, which rows written before were.
TEST(ControlStore, PlacementTextReadsBackAndIsTheFormATreeDumpsTo) {
  const std::vector<std::vector<TaskPlacement>> placements = {
      {},
      SampleJob(1).placement,
      {TaskPlacement{.rank = 3,
                     .node = "rack \"7\"\\n\u00e9\tx",
                     .device_indices = {},
                     .milli_per_device = 250,
                     .cpu_milli = -1,
                     .memory_mib = int64_t{1} << 40}},
  };
  for (const std::vector<TaskPlacement>& placement : placements) {
    nlohmann::json tree = nlohmann::json::array();
    for (const TaskPlacement& task : placement) {
      tree.push_back({{"rank", task.rank},
                      {"node", task.node},
                      {"devices", task.device_indices},
                      {"milli", task.milli_per_device},
                      {"cpu_milli", task.cpu_milli},
                      {"memory_mib", task.memory_mib}});
    }
    const std::string text = PlacementToJson(placement);
    EXPECT_EQ(text, tree.dump());
    auto read = PlacementFromJson(text);
    ASSERT_TRUE(read.has_value()) << read.error().message;
    EXPECT_EQ(*read, placement);
  }
}

// Retention of the engine log: everything before the newest build at or before the cut goes,
// so what remains still starts with a build; a cut before every build drops nothing.
TEST(ControlStore, EngineLogTrimKeepsTheNewestBuildAtOrBeforeTheCut) {
  const std::string dir = testing::TempDir("store-trim-test");
  auto opened = SqliteStore::Open(dir + "/headroom.db");
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  SqliteStore& store = **opened;
  auto seqs = [&] {
    std::vector<std::pair<int64_t, TimeUs>> out;  // (seq, time)
    EXPECT_TRUE(store
                    .ForEachEngineLogRecord(0,
                                            [&](const EngineLogRecord& record) {
                                              out.emplace_back(record.seq, record.time_us);
                                              return tl::expected<void, Error>();
                                            })
                    .has_value());
    return out;
  };
  std::vector<StoreWrite> log;
  for (TimeUs time = 10; time <= 60; time += 10) {
    // Builds at 10, 30 and 50; steps between.
    log.push_back(EngineLogAppend{time, time % 20 == 10 ? R"({"build":{}})" : R"({"idle":[]})",
                                  time % 20 == 10});
  }
  ASSERT_TRUE(store.Apply(log).has_value());
  ASSERT_EQ(seqs().size(), 6u);
  ASSERT_TRUE(store.Apply(std::vector<StoreWrite>{EngineLogTrim{5}}).has_value());
  EXPECT_EQ(seqs().size(), 6u) << "no build at or before 5: nothing may go";
  ASSERT_TRUE(store.Apply(std::vector<StoreWrite>{EngineLogTrim{45}}).has_value());
  EXPECT_EQ(seqs(), (std::vector<std::pair<int64_t, TimeUs>>{{3, 30}, {4, 40}, {5, 50}, {6, 60}}));
  auto newest = store.NewestEngineLogBuild();
  ASSERT_TRUE(newest.has_value() && newest->has_value());
  EXPECT_EQ((*newest)->seq, 5);
  EXPECT_EQ((*newest)->body, R"({"build":{}})");
  ASSERT_TRUE(store.Apply(std::vector<StoreWrite>{EngineLogTrim{1000}}).has_value());
  EXPECT_EQ(seqs(), (std::vector<std::pair<int64_t, TimeUs>>{{5, 50}, {6, 60}}));
  std::filesystem::remove_all(dir);
}

TEST(ControlStore, JournalGroupsConcurrentCommits) {
  const std::string dir = testing::TempDir("journal-test");
  auto store = SqliteStore::Open(dir + "/headroom.db");
  ASSERT_TRUE(store.has_value());
  constexpr int kThreads = 8;
  constexpr int kPerThread = 50;
  {
    Journal journal(**store);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&journal, t] {
        for (int i = 0; i < kPerThread; ++i) {
          JobRecord job = SampleJob(static_cast<uint64_t>(t * kPerThread + i + 1));
          EXPECT_TRUE(journal.Commit({job}).has_value());
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(journal.writes(), uint64_t{kThreads * kPerThread});
    // Callers waiting together share a transaction.
    EXPECT_LT(journal.batches(), uint64_t{kThreads * kPerThread});
  }
  auto snapshot = (*store)->Load();
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(snapshot->jobs.size(), size_t{kThreads * kPerThread});
  std::filesystem::remove_all(dir);
}

TEST(ControlStore, TokensAreHashedAndLookedUp) {
  TokenAuth auth;
  const std::string token = NewToken();
  EXPECT_EQ(token.size(), 64u);
  EXPECT_NE(token, NewToken());
  auth.Add(TokenRecord{Sha256Hex(token), Role::kAgent, "", "n7"});
  auto principal = auth.Authenticate("Bearer " + token);
  ASSERT_TRUE(principal.has_value());
  EXPECT_EQ(principal->role, Role::kAgent);
  EXPECT_EQ(principal->node, "n7");
  EXPECT_FALSE(auth.Authenticate("Bearer " + token + "x").has_value());
  EXPECT_FALSE(auth.Authenticate(token).has_value());
  // FIPS 180-2's examples: one block, two blocks, and the empty text.
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace headroom::control
