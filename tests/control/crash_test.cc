// Crash consistency of the real headroomd process: a burst of submissions from several client
// threads, kill -9 in the middle of it, restart on the same data dir. Every acknowledged job is
// there, none twice, none started twice; SIGTERM then stops the daemon with exit code 0.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>

#include <gtest/gtest.h>

#include "control/sqlite_store.h"
#include "daemon_fixture.h"
#include "testing/binaries.h"

extern char** environ;

namespace headroom::control {
namespace {

using testing::JobBody;
using testing::Json;

std::string HeadroomdPath() { return headroom::testing::BinaryPath("headroomd"); }

// Starts headroomd on the data dir; returns its pid and port (0 when it did not come up).
std::pair<pid_t, int> Spawn(const std::string& dir) {
  const std::string port_file = dir + "/port";
  std::filesystem::remove(port_file);
  std::vector<std::string> args = {HeadroomdPath(), "--listen",  "127.0.0.1:0",
                                   "--data-dir",    dir,         "--backend",
                                   "simulated",     "--cluster", testing::TinyClusterFile(),
                                   "--port-file",   port_file};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return {0, 0};
  int port = 0;
  testing::WaitFor([&] {
    std::ifstream in(port_file);
    return static_cast<bool>(in >> port);
  });
  return {pid, port};
}

TEST(DaemonCrash, KillNineMidBurstLosesNoAcknowledgedJob) {
  const std::string dir = testing::TempDir("headroomd-crash");
  // Named copies, not structured bindings: the clients' lambdas capture them (C++20 allows a
  // binding to be captured, Clang before 16 does not).
  const auto spawned = Spawn(dir);
  const pid_t pid = spawned.first;
  const int port = spawned.second;
  ASSERT_GT(pid, 0);
  ASSERT_GT(port, 0) << "headroomd did not start: " << HeadroomdPath();
  const std::string admin = testing::ReadToken(dir + "/admin.token");

  std::mutex mu;
  std::vector<uint64_t> acknowledged;
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int t = 0; t < 6; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(true);
      const httplib::Headers headers = {{"Authorization", "Bearer " + admin}};
      const std::string body = JobBody(1, 1, 0, "tenant-" + std::to_string(t));
      while (!stop) {
        auto result = client.Post("/v1/jobs", headers, body, "application/json");
        if (!result) break;  // The daemon is gone.
        if (result->status != 201) continue;
        const uint64_t id = Json::parse(result->body)["id"];
        std::lock_guard lock(mu);
        acknowledged.push_back(id);
      }
    });
  }
  testing::WaitFor([&] {
    std::lock_guard lock(mu);
    return acknowledged.size() >= 300;
  });
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  stop = true;
  for (std::thread& client : clients) client.join();
  ASSERT_GE(acknowledged.size(), 300u);

  auto [again, again_port] = Spawn(dir);
  ASSERT_GT(again_port, 0);
  const Json jobs = testing::Call(again_port, "GET", "/v1/jobs?limit=100000", admin).body["jobs"];
  std::set<uint64_t> present;
  for (const Json& job : jobs) EXPECT_TRUE(present.insert(job["id"].get<uint64_t>()).second);
  for (uint64_t id : acknowledged) EXPECT_TRUE(present.contains(id)) << "lost job " << id;
  EXPECT_EQ(std::set<uint64_t>(acknowledged.begin(), acknowledged.end()).size(),
            acknowledged.size());

  ASSERT_EQ(::kill(again, SIGTERM), 0);
  ASSERT_EQ(::waitpid(again, &status, 0), again);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  auto store = SqliteStore::Open(dir + "/headroom.db");
  ASSERT_TRUE(store.has_value());
  auto snapshot = (*store)->Load();
  ASSERT_TRUE(snapshot.has_value());
  size_t running = 0;
  for (const JobRecord& job : snapshot->jobs) {
    EXPECT_LE(job.starts, 1u) << "job " << job.id << " started twice";
    if (job.state == JobState::kRunning) {
      ++running;
      EXPECT_EQ(job.starts, 1u);
    }
  }
  EXPECT_EQ(running, 16u);  // The tiny cluster's 16 devices, one job each.
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace headroom::control
