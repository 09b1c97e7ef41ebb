// The client verbs against a real headroomd (simulated backend, generated 32-GPU cluster):
// submit → queue shows the job with its state (and the reason while it waits) → explain gives
// every reason, the node counts and the expected start → cancel → it is gone from the queue;
// `--json` output parses as the API's JSON; a bad token gives exit 2 with the API's message; nodes
// lists every node. Skips while headroomd is not built here.
#include <fstream>
#include <functional>
#include <regex>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/client_test_support.h"
#include "testing/binaries.h"

namespace headroom::testing {
namespace {

using nlohmann::json;

class ClientAgainstDaemon : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!DaemonBuilt()) GTEST_SKIP() << "headroomd not built (" << BinaryPath("headroomd") << ")";
    daemon_.emplace(dir_.path());
    const std::string failure = daemon_->Start({.devices = 32});
    ASSERT_EQ(failure, "") << failure;
  }

  CommandOutcome Run(const std::vector<std::string>& args) {
    return RunHeadroom(args, daemon_->ClientEnv());
  }

  // Polls `headroom queue --json` until `done` holds for the job list, up to 15 s.
  json QueueUntil(const std::function<bool(const json&)>& done,
                  const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"queue", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    json jobs;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    do {
      const CommandOutcome run = Run(args);
      EXPECT_EQ(run.status, 0) << run.err;
      jobs = json::parse(run.out, nullptr, false);
      if (!jobs.is_discarded() && done(jobs["jobs"])) return jobs["jobs"];
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    } while (std::chrono::steady_clock::now() < deadline);
    return jobs.is_discarded() ? json() : jobs["jobs"];
  }

  static const json* Find(const json& jobs, int64_t id) {
    for (const json& job : jobs) {
      if (job.value("id", int64_t{-1}) == id) return &job;
    }
    return nullptr;
  }

  TestDir dir_;
  std::optional<Daemon> daemon_;
};

TEST_F(ClientAgainstDaemon, SubmitQueueCancel) {
  // Fills the cluster (4 nodes × 8) so the second job has to wait.
  const CommandOutcome big = Run({"submit", "--gpus-per-task", "8", "--ntasks", "4", "--time", "2h",
                                  "--name", "fill", "--", "sleep", "7200"});
  ASSERT_EQ(big.status, 0) << big.err;
  const int64_t fill_id = std::stoll(big.out);
  const CommandOutcome waiting =
      Run({"submit", "--gpus", "8", "--time", "1h", "--name", "waiter", "--", "sleep", "60"});
  ASSERT_EQ(waiting.status, 0) << waiting.err;
  const int64_t waiter_id = std::stoll(waiting.out);
  EXPECT_GT(waiter_id, fill_id);

  // The job's state comes from the store, its reason from the view the loop publishes after its
  // step (docs/api.md): wait for both, or a loaded machine shows the reason of the step before.
  const json jobs = QueueUntil([&](const json& list) {
    const json* fill = Find(list, fill_id);
    const json* waiter = Find(list, waiter_id);
    return fill != nullptr && (*fill)["state"] == "running" && waiter != nullptr &&
           (*waiter)["pending_reason"].is_object() &&
           (*waiter)["pending_reason"]["code"] == "capacity";
  });
  const json* fill = Find(jobs, fill_id);
  const json* waiter = Find(jobs, waiter_id);
  ASSERT_NE(fill, nullptr) << jobs.dump(2);
  ASSERT_NE(waiter, nullptr) << jobs.dump(2);
  EXPECT_EQ((*fill)["state"], "running");
  EXPECT_EQ((*fill)["placement"].size(), 4u);
  EXPECT_EQ((*waiter)["state"], "pending");
  EXPECT_EQ((*waiter)["name"], "waiter");

  // The table shows the same: the running job's nodes, the waiting job's reason.
  const CommandOutcome table = Run({"queue"});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("ID  NAME"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("fill"), std::string::npos) << table.out;
  EXPECT_TRUE(std::regex_search(table.out, std::regex("waiter .* pending .*\\("))) << table.out;

  // explain: every reason, the nodes each turns away (all four are full), and the start the
  // plan gives it: when the 2-hour job ends by its time limit.
  const CommandOutcome why = Run({"explain", std::to_string(waiter_id)});
  ASSERT_EQ(why.status, 0) << why.err;
  EXPECT_NE(why.out.find("reasons: capacity"), std::string::npos) << why.out;
  EXPECT_NE(why.out.find("4  with fewer than 8 free matching devices"), std::string::npos)
      << why.out;
  EXPECT_TRUE(std::regex_search(why.out, std::regex("expected start in 1:5\\d:\\d\\d|2:00:00")))
      << why.out;
  const CommandOutcome why_json = Run({"explain", std::to_string(waiter_id), "--json"});
  ASSERT_EQ(why_json.status, 0) << why_json.err;
  const json explained = json::parse(why_json.out);
  EXPECT_EQ(explained["pending_reason"]["nodes"][0]["nodes"], 4) << why_json.out;
  EXPECT_EQ(explained["pending_reason"]["reasons"][0], "capacity") << why_json.out;
  EXPECT_TRUE(explained["expected_start"].is_number()) << why_json.out;
  EXPECT_EQ(Run({"explain", "abc"}).status, 2);
  const CommandOutcome missing = Run({"explain", "99999"});
  EXPECT_EQ(missing.status, 2) << missing.err;
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;

  const CommandOutcome cancel = Run({"cancel", std::to_string(waiter_id)});
  ASSERT_EQ(cancel.status, 0) << cancel.err;
  EXPECT_EQ(cancel.out, std::to_string(waiter_id) + " cancelled\n");
  const json after = QueueUntil([&](const json& list) { return Find(list, waiter_id) == nullptr; });
  EXPECT_EQ(Find(after, waiter_id), nullptr) << after.dump(2);
  EXPECT_NE(Find(after, fill_id), nullptr);
  const json cancelled = QueueUntil(
      [&](const json& list) { return Find(list, waiter_id) != nullptr; }, {"--state", "cancelled"});
  ASSERT_NE(Find(cancelled, waiter_id), nullptr) << cancelled.dump(2);

  // Cancelling it again is idempotent or a conflict (docs/api.md); either way not a crash.
  const CommandOutcome again = Run({"cancel", std::to_string(waiter_id)});
  EXPECT_TRUE(again.status == 0 || again.status == 2) << again.err;
}

TEST_F(ClientAgainstDaemon, NodesAndJsonParse) {
  const CommandOutcome nodes = Run({"nodes", "--json"});
  ASSERT_EQ(nodes.status, 0) << nodes.err;
  const json parsed = json::parse(nodes.out);
  ASSERT_EQ(parsed["nodes"].size(), 4u) << nodes.out;
  const CommandOutcome table = Run({"nodes"});
  ASSERT_EQ(table.status, 0) << table.err;
  for (const json& node : parsed["nodes"]) {
    EXPECT_NE(table.out.find(node["name"].get<std::string>()), std::string::npos) << table.out;
  }
  const CommandOutcome services = Run({"services", "--json"});
  ASSERT_EQ(services.status, 0) << services.err;
  EXPECT_TRUE(json::parse(services.out).contains("services"));
}

TEST_F(ClientAgainstDaemon, QueuesSetAndList) {
  const std::string file = (dir_.path() / "queues.yaml").string();
  std::ofstream(file) << "queues:\n  - {name: research, guaranteed: {devices: 24}}\n"
                         "  - {name: vision, parent: research, guaranteed: {devices: 16},"
                         " borrowing_limit: {devices: 4}}\n";
  const CommandOutcome set = Run({"queues", "set", file});
  ASSERT_EQ(set.status, 0) << set.err;
  EXPECT_EQ(set.out, "2 queue(s) in force in policy 'headroom'\n");
  const CommandOutcome table = Run({"queues"});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_TRUE(
      std::regex_search(table.out, std::regex(R"(vision +research +0 +16 +4 +- +no +1 +inf)")))
      << table.out;
  const CommandOutcome listed = Run({"queues", "--json"});
  ASSERT_EQ(listed.status, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out)["queues"].size(), 3u) << listed.out;  // With (unqueued).
  // By device model (the daemon's building has T4s): used of guaranteed, per model.
  std::ofstream(file) << "queues:\n  - {name: research, guaranteed: {device_models: {T4: 8}}}\n";
  ASSERT_EQ(Run({"queues", "set", file}).status, 0);
  const CommandOutcome by_model = Run({"queues"});
  EXPECT_TRUE(std::regex_search(by_model.out, std::regex(R"(research .* T4 0/8)"))) << by_model.out;
  std::ofstream(file) << "queues:\n  - {name: research, guaranteed: {device_models: {T5: 8}}}\n";
  const CommandOutcome typo = Run({"queues", "set", file});
  EXPECT_EQ(typo.status, 0) << typo.err;
  EXPECT_NE(typo.err.find("warning: device model 'T5' is on no node"), std::string::npos)
      << typo.err;
  // A bad file is named by its own line, and nothing is sent.
  std::ofstream(file) << "queues:\n  - name: x\n    lending_limit: {devices: 2}\n";
  const CommandOutcome bad = Run({"queues", "set", file});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find(file + ":2: field 'queues': queue 'x': devices: a lending limit of 2 "
                                "devices is above the guarantee, 0 devices"),
            std::string::npos)
      << bad.err;
}

TEST_F(ClientAgainstDaemon, DrainAndUndo) {
  const std::string node =
      json::parse(Run({"nodes", "--json"}).out)["nodes"][0]["name"].get<std::string>();
  const CommandOutcome drain = Run({"drain", node, "--reason", "fan replacement"});
  ASSERT_EQ(drain.status, 0) << drain.err;
  EXPECT_EQ(drain.out, node + " drained\n");
  const CommandOutcome listed = Run({"nodes"});
  EXPECT_TRUE(std::regex_search(listed.out, std::regex(node + " +drained .*fan replacement")))
      << listed.out;
  const CommandOutcome undo = Run({"drain", "--undo", node});
  ASSERT_EQ(undo.status, 0) << undo.err;
  EXPECT_EQ(undo.out, node + " up\n");
  const CommandOutcome unknown = Run({"drain", "no-such-node", "--reason", "x"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_EQ(unknown.err.rfind("headroom: ", 0), 0u);
}

TEST_F(ClientAgainstDaemon, BadTokenExitsTwoWithTheApisMessage) {
  auto env = daemon_->ClientEnv();
  env["HEADROOM_TOKEN"] = "0000";
  const CommandOutcome run = RunHeadroom({"queue"}, env);
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err.rfind("headroom: ", 0), 0u) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
  EXPECT_TRUE(run.out.empty());
  // The message is the API's, not an HTTP status line made up by the CLI.
  EXPECT_EQ(run.err.find("answered HTTP"), std::string::npos) << run.err;
}

TEST_F(ClientAgainstDaemon, InvalidSpecIsRefusedWithTheFieldNamed) {
  TestDir dir;
  std::ofstream(dir.path() / "bad.yaml")
      << "apiVersion: headroom/v1\nkind: Job\nmetadata: {name: bad}\nspec:\n  timeLimit: 1h\n"
         "  devices:\n    requests:\n    - name: gpus\n      deviceClassName: gpu\n"
         "      count: eight\n";
  const CommandOutcome run = Run({"submit", "-f", (dir.path() / "bad.yaml").string()});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("count"), std::string::npos) << run.err;
}

TEST_F(ClientAgainstDaemon, PolicySetPutsAFileInForceAndABrokenOneExitsTwoNamingTheLine) {
  const CommandOutcome before = Run({"policy", "current"});
  ASSERT_EQ(before.status, 0) << before.err;
  EXPECT_EQ(before.out.rfind("headroom: ", 0), 0u) << before.out;

  TestDir dir;
  const std::string broken = (dir.path() / "broken.yaml").string();
  std::ofstream(broken) << "name: broken\nplacement:\n  gang: sometimes\n";
  const CommandOutcome refused = Run({"policy", "set", broken});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find(broken + ":3: field 'placement.gang'"), std::string::npos)
      << refused.err;

  const std::string file = (dir.path() / "mine.yaml").string();
  const std::string text = "name: mine\ndescription: an operator's own\nqueue: {order: priority}\n";
  std::ofstream(file) << text;
  const CommandOutcome set = Run({"policy", "set", file});
  ASSERT_EQ(set.status, 0) << set.err;
  EXPECT_EQ(set.out, "policy 'mine' in force\n");
  EXPECT_EQ(Run({"policy", "current"}).out, "mine: an operator's own\n");
  EXPECT_EQ(Run({"policy", "current", "--text"}).out, text);
  // A preset by name.
  ASSERT_EQ(Run({"policy", "set", "fifo"}).status, 0);
  EXPECT_EQ(Run({"policy", "current"}).out.rfind("fifo: ", 0), 0u);
}

}  // namespace
}  // namespace headroom::testing
