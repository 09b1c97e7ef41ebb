// The LiveLoop test fixture: a real SQLite journal, a fake clock and a scripted backend that
// records what the loop asks of it and reports what the test tells it to, on the tiny building
// (two racks of two 4-GPU nodes). Shared by the live loop's test files; each derives its own
// suite from LiveLoopTest.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <set>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "control/engine_log.h"
#include "control/engine_replay.h"
#include "control/fake_clock.h"
#include "control/live_loop.h"
#include "control/sqlite_store.h"
#include "daemon_fixture.h"
#include "engine/policy_yaml.h"
#include "engine/presets.h"
#include "model/cluster_yaml.h"

namespace headroom::control::live_loop_testing {

// Records starts and stops; Poll hands over the reports the test queued.
class ScriptedBackend : public Backend {
 public:
  explicit ScriptedBackend(std::shared_ptr<const model::Cluster> cluster)
      : cluster_(std::move(cluster)) {}

  std::shared_ptr<const model::Cluster> CurrentCluster() override { return cluster_; }
  void OnStart(const JobRecord& job, const std::vector<engine::TaskAllocation>&,
               const model::Cluster&) override {
    if (on_start) on_start(job);
    std::lock_guard lock(mu_);
    starts_.push_back(job);
  }
  void OnMigrate(const JobRecord& job, const engine::MigrateJob&, TimeUs,
                 const model::Cluster&) override {
    std::lock_guard lock(mu_);
    migrations_.push_back(job);
  }
  void OnPreempt(const JobRecord& job, const engine::PreemptJob&, TimeUs) override {
    std::lock_guard lock(mu_);
    preemptions_.push_back(job);
  }
  void OnCap(const JobRecord& job, const engine::CapJob&, TimeUs, const model::Cluster&) override {
    std::lock_guard lock(mu_);
    caps_.push_back(job);
  }
  void OnStop(uint64_t job) override {
    std::lock_guard lock(mu_);
    stops_.push_back(job);
  }
  BackendReport Poll(TimeUs) override {
    std::lock_guard lock(mu_);
    return std::exchange(queued_, BackendReport{});
  }
  TimeUs NextPollUs(TimeUs now_us) const override {
    std::lock_guard lock(mu_);
    const bool has_news = !queued_.completions.empty() || !queued_.lost_nodes.empty();
    return has_news ? now_us : kNever;
  }

  void Report(BackendReport report) {
    std::lock_guard lock(mu_);
    queued_ = std::move(report);
  }
  std::vector<JobRecord> starts() const {
    std::lock_guard lock(mu_);
    return starts_;
  }
  std::vector<uint64_t> stops() const {
    std::lock_guard lock(mu_);
    return stops_;
  }
  std::vector<JobRecord> migrations() const {
    std::lock_guard lock(mu_);
    return migrations_;
  }
  std::vector<JobRecord> preemptions() const {
    std::lock_guard lock(mu_);
    return preemptions_;
  }
  std::vector<JobRecord> caps() const {
    std::lock_guard lock(mu_);
    return caps_;
  }

  // Runs on the loop's thread inside OnStart; set before the loop starts anything.
  std::function<void(const JobRecord&)> on_start;

 private:
  std::shared_ptr<const model::Cluster> cluster_;
  mutable std::mutex mu_;
  std::vector<JobRecord> starts_;
  std::vector<uint64_t> stops_;
  std::vector<JobRecord> migrations_;
  std::vector<JobRecord> preemptions_;
  std::vector<JobRecord> caps_;
  BackendReport queued_;
};

class LiveLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir("live-loop");
    path_ = dir_ + "/headroom.db";
    auto store = SqliteStore::Open(path_);
    ASSERT_TRUE(store.has_value()) << store.error().message;
    store_ = std::move(*store);
    journal_ = std::make_unique<Journal>(*store_);
    auto cluster = model::LoadClusterYaml(ClusterFile());
    ASSERT_TRUE(cluster.has_value()) << cluster.error().message;
    // As the daemon recovers a fixed building: every node known, up and ready.
    for (const model::Node& node : cluster->nodes()) {
      state_.nodes.emplace(node.name, NodeStatus{.record = NodeRecord{.name = node.name}});
    }
    backend_ =
        std::make_unique<ScriptedBackend>(std::make_shared<model::Cluster>(std::move(*cluster)));
    StartLoop({});
  }

  // The building the backend runs (written under dir_ where a test needs its own).
  virtual std::string ClusterFile() { return testing::TinyClusterFile(); }

  // A new loop on the same state, journal and backend (the fixture's first one stopped).
  // `extra_policy`: YAML appended to the headroom preset's.
  // The headroom preset with the top-level keys of `extra_policy` put in (in place of the
  // preset's own: YAML allows a key once).
  void StartLoop(LoopOptions options, std::string_view extra_policy = "") {
    if (loop_ != nullptr) loop_->Stop();
    options.policy_text = std::string(*engine::PresetPolicyText("headroom"));
    if (!extra_policy.empty()) {
      YAML::Node policy_node = YAML::Load(options.policy_text);
      for (const auto& entry : YAML::Load(std::string(extra_policy))) {
        policy_node[entry.first.as<std::string>()] = entry.second;
      }
      YAML::Emitter emitter;
      emitter << policy_node;
      options.policy_text = std::string(emitter.c_str()) + "\n";
    }
    auto policy = engine::ParsePolicyYaml(options.policy_text, "headroom.yaml");
    ASSERT_TRUE(policy.has_value()) << policy.error().message;
    options.policy = *policy;
    loop_ = std::make_unique<LiveLoop>(state_, *journal_, events_, *backend_, clock_, cycle_,
                                       std::move(options));
    loop_->Start();
  }

  // Lets the loop run one whole iteration at the clock's present time.
  void Iterated() {
    loop_->Barrier();
    loop_->Barrier();
  }

  // The engine log's records as stored.
  std::vector<EngineLogRecord> LogRecords() {
    auto reader = SqliteStore::Open(path_, StoreOpenOptions{.read_only = true});
    EXPECT_TRUE(reader.has_value()) << reader.error().message;
    std::vector<EngineLogRecord> records;
    EXPECT_TRUE((*reader)
                    ->ForEachEngineLogRecord(0,
                                             [&](const EngineLogRecord& record) {
                                               records.push_back(record);
                                               return tl::expected<void, Error>();
                                             })
                    .has_value());
    return records;
  }

  void TearDown() override {
    loop_->Stop();
    journal_->Stop();
    std::filesystem::remove_all(dir_);
  }

  // What the API's submit does: journal the pending job, put it in the state, tell the loop.
  // `extra_spec`: more lines of the spec, each "  key: value\n".
  uint64_t Submit(int tasks, int devices_per_task, int priority = 0,
                  std::string_view extra_spec = "") {
    auto spec = ParseJobSpec(fmt::format(
        "metadata: {{name: j}}\nspec:\n  tenant: team-a\n  priority: {}\n  tasks: {}\n"
        "  timeLimit: 1h\n  command: [train]\n  devices: {{requests: [{{count: {}}}]}}\n{}",
        priority, tasks, devices_per_task, extra_spec));
    EXPECT_TRUE(spec.has_value()) << spec.error().message;
    JobRecord job{.spec = *spec, .submit_us = clock_.NowUs()};
    {
      std::lock_guard lock(state_.mu);
      job.id = state_.next_job_id++;
    }
    EXPECT_TRUE(journal_->Commit({job}).has_value());
    {
      std::lock_guard lock(state_.mu);
      state_.jobs.Put(job);
    }
    loop_->Submitted(job.id);
    return job.id;
  }

  JobRecord InState(uint64_t id) {
    std::lock_guard lock(state_.mu);
    return state_.jobs.at(id);
  }

  bool WaitForState(uint64_t id, JobState state, uint32_t starts) {
    return testing::WaitFor([&] {
      const JobRecord job = InState(id);
      return job.state == state && job.starts == starts;
    });
  }

  // The engine log as `headroom replay` reads it, once the loop stopped (and flushed it).
  EngineReplay ReplayLog() {
    loop_->Stop();
    auto reader = SqliteStore::Open(path_, StoreOpenOptions{.read_only = true});
    EXPECT_TRUE(reader.has_value()) << reader.error().message;
    EngineReplay replay;
    auto ok = (*reader)->ForEachEngineLogRecord(
        0, [&](const EngineLogRecord& record) { return replay.Apply(record); });
    EXPECT_TRUE(ok.has_value()) << ok.error().message;
    return replay;
  }

  // The job's row as a second connection reads it.
  JobRecord OnDisk(uint64_t id) {
    auto reader = SqliteStore::Open(path_, StoreOpenOptions{.read_only = true});
    EXPECT_TRUE(reader.has_value()) << reader.error().message;
    auto snapshot = (*reader)->Load();
    EXPECT_TRUE(snapshot.has_value()) << snapshot.error().message;
    for (const JobRecord& job : snapshot->jobs) {
      if (job.id == id) return job;
    }
    ADD_FAILURE() << "job " << id << " has no row";
    return {};
  }

  std::string dir_;
  std::string path_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Journal> journal_;
  DaemonState state_;
  EventLog events_{1, 1000};
  FakeClock clock_{10 * kUsPerSecond};
  Histogram cycle_{{0.001, 0.01, 0.1, 1}};
  std::unique_ptr<ScriptedBackend> backend_;
  std::unique_ptr<LiveLoop> loop_;
};

inline size_t DevicesOf(const JobRecord& job) {
  size_t devices = 0;
  for (const TaskPlacement& task : job.placement) devices += task.device_indices.size();
  return devices;
}

}  // namespace headroom::control::live_loop_testing
