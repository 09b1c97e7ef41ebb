// Test fixtures for headroomd: a Daemon started in-process on 127.0.0.1 port 0 with a fresh
// temporary data dir, and a small JSON-over-HTTP client for its API.
// Threading: one test thread drives a fixture; the daemon runs its own threads.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "control/daemon.h"

namespace headroom::control::testing {

using Json = nlohmann::json;

inline std::string TempDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return pattern;
}

inline std::string TinyClusterFile() {
  return std::string(HEADROOM_SOURCE_DIR) + "/configs/tiny-test.yaml";
}

struct HttpReply {
  int status = 0;  // 0: no answer (connection failed).
  Json body;
};

inline HttpReply Call(int port, const std::string& method, const std::string& path,
                      const std::string& token, const std::string& body = "",
                      const std::string& content_type = "application/json") {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(std::chrono::seconds(40));
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  httplib::Result result = method == "GET" ? client.Get(path.c_str(), headers)
                           : method == "PUT"
                               ? client.Put(path.c_str(), headers, body, content_type.c_str())
                               : client.Post(path.c_str(), headers, body, content_type.c_str());
  HttpReply reply;
  if (!result) return reply;
  reply.status = result->status;
  reply.body = Json::parse(result->body, nullptr, false);
  return reply;
}

inline std::string ReadToken(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  in >> token;
  return token;
}

// Polls `condition` every 20 ms for up to `timeout`; true when it held.
inline bool WaitFor(const std::function<bool()>& condition,
                    std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

class TestDaemon {
 public:
  explicit TestDaemon(DaemonOptions options) : options_(std::move(options)) {
    if (options_.data_dir.empty()) options_.data_dir = TempDir("headroomd-test");
    options_.host = "127.0.0.1";
    options_.port = 0;
    Start();
  }
  ~TestDaemon() {
    Stop();
    std::error_code ignored;
    std::filesystem::remove_all(options_.data_dir, ignored);
  }

  static DaemonOptions Simulated(double time_scale = 1.0) {
    DaemonOptions options;
    options.backend = BackendKind::kSimulated;
    options.cluster_file = TinyClusterFile();
    options.time_scale = time_scale;
    options.http_workers = 16;
    return options;
  }

  void Start() {
    auto daemon = Daemon::Start(options_);
    ASSERT_TRUE(daemon.has_value()) << daemon.error().message;
    daemon_ = std::move(*daemon);
    admin_ = ReadToken(daemon_->admin_token_path());
  }
  void Stop() {
    if (daemon_) daemon_->Stop();
    daemon_.reset();
  }

  int port() const { return daemon_->port(); }
  const std::string& admin() const { return admin_; }
  std::string admin_token_path() const { return options_.data_dir + "/admin.token"; }
  const DaemonOptions& options() const { return options_; }
  // For the next Start, after a Stop (the data dir stays).
  DaemonOptions& mutable_options() { return options_; }

  HttpReply Get(const std::string& path, const std::string& token) const {
    return Call(port(), "GET", path, token);
  }
  HttpReply Post(const std::string& path, const std::string& token, const std::string& body,
                 const std::string& content_type = "application/json") const {
    return Call(port(), "POST", path, token, body, content_type);
  }
  HttpReply Put(const std::string& path, const std::string& token, const std::string& body,
                const std::string& content_type = "application/yaml") const {
    return Call(port(), "PUT", path, token, body, content_type);
  }
  // The loop's finished iterations (headroom_cycle_seconds_count in /metrics); 0 if unread.
  uint64_t LoopIterations() const {
    httplib::Client client("127.0.0.1", port());
    const auto metrics = client.Get("/metrics");
    if (!metrics || metrics->status != 200) return 0;
    constexpr std::string_view kName = "\nheadroom_cycle_seconds_count ";
    const size_t at = metrics->body.find(kName);
    return at == std::string::npos ? 0 : std::stoull(metrics->body.substr(at + kName.size()));
  }
  // Waits until the loop has finished two iterations from now, so that a whole one began after
  // everything sent before: whatever the loop would do about it is done. For "nothing happened"
  // checks, instead of sleeping a guess. `meanwhile` runs at each poll (an agent's heartbeat,
  // where silence would take its node down).
  bool WaitLoopPassed(const std::function<void()>& meanwhile = {}) const {
    const uint64_t before = LoopIterations();
    return WaitFor([&] {
      if (meanwhile) meanwhile();
      return LoopIterations() >= before + 2;
    });
  }
  // A new token for `role_body` ({"role": ...}), as the admin.
  std::string Token(const Json& role_body) const {
    HttpReply reply = Post("/v1/tokens", admin_, role_body.dump());
    EXPECT_EQ(reply.status, 201) << reply.body.dump();
    return reply.body.value("token", "");
  }

 private:
  DaemonOptions options_;
  std::unique_ptr<Daemon> daemon_;
  std::string admin_;
};

// A heartbeat's telemetry for `devices` devices, device `failing_index` (-1: none) reporting
// XID `xid`.
inline Json XidTelemetry(int devices, int failing_index, int64_t xid) {
  Json list = Json::array();
  for (int i = 0; i < devices; ++i) {
    list.push_back({{"index", i}, {"xid_errors", i == failing_index ? xid : 0}});
  }
  return list;
}

// A job spec as JSON: `tasks` tasks of `devices` devices, running `runtime_s` (0: until the limit).
inline std::string JobBody(int tasks, int devices, int runtime_s, const std::string& tenant = "",
                           int time_limit_s = 3600) {
  // A command, which the agents backend requires (its test agents never run it).
  Json spec = {{"tasks", tasks}, {"timeLimit", time_limit_s}, {"command", {"true"}}};
  if (runtime_s > 0) spec["runtime"] = runtime_s;
  if (!tenant.empty()) spec["tenant"] = tenant;
  if (devices > 0) spec["devices"] = {{"requests", {{{"name", "gpus"}, {"count", devices}}}}};
  return Json{{"apiVersion", "headroom/v1"}, {"kind", "Job"}, {"spec", spec}}.dump();
}

// An agent's registration body for `node`: `devices` of `model` (H100s unless said) with
// indices 0.. and UUIDs GPU-0.., ready, at 10.0.0.11.
inline Json AgentRegistration(const std::string& node, int devices,
                              const std::string& model = "H100") {
  Json list = Json::array();
  for (int i = 0; i < devices; ++i) {
    list.push_back({{"index", i},
                    {"uuid", "GPU-" + std::to_string(i)},
                    {"model", model},
                    {"memory_mib", 81559},
                    {"clique_id", nullptr}});
  }
  return {{"node", node},          {"cpu_milli", 64000},      {"memory_mib", 524288},
          {"ready", true},         {"readiness_message", ""}, {"devices", list},
          {"address", "10.0.0.11"}};
}

// The nodes job `id`'s placement names (none while it is not placed).
inline std::set<std::string> NodesOfJob(const TestDaemon& daemon, uint64_t id) {
  std::set<std::string> out;
  const Json job = daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  if (!job.contains("placement") || !job["placement"].is_array()) return out;
  for (const Json& task : job["placement"]) out.insert(task["node"].get<std::string>());
  return out;
}

// Registers an agent of `devices` H100s for each of `nodes` (EXPECTs 200); returns each node's
// agent token.
inline std::map<std::string, std::string> RegisterAgents(TestDaemon& daemon,
                                                         const std::vector<std::string>& nodes,
                                                         int devices) {
  std::map<std::string, std::string> tokens;
  for (const std::string& node : nodes) {
    tokens[node] = daemon.Token({{"role", "agent"}, {"node", node}});
    EXPECT_EQ(
        daemon.Post("/v1/agents/register", tokens[node], AgentRegistration(node, devices).dump())
            .status,
        200);
  }
  return tokens;
}

}  // namespace headroom::control::testing
