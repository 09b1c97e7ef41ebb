#include "agent/agent_emulator.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>

#include "agent/agent_log.h"
#include "agent/daemon_client.h"
#include "agent/emulated_node.h"

namespace headroom::agent {
namespace {

using Clock = std::chrono::steady_clock;

TimeUs NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch())
      .count();
}

// Descriptors beyond the node connections: one minting client per worker, logs, slack.
constexpr rlim_t kSpareDescriptors = 64;

Result<void> RaiseDescriptorLimit(int nodes, int threads) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return MakeError(ErrorCode::kIo, "cannot read the open-file limit");
  }
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  const rlim_t needed =
      static_cast<rlim_t>(nodes) + static_cast<rlim_t>(threads) + kSpareDescriptors;
  if (limit.rlim_cur < needed) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--emulate {} needs about {} open files (a connection per node); the limit is "
                     "{} (raise the hard limit: ulimit -Hn, LimitNOFILE=)",
                     nodes, needed, limit.rlim_cur);
  }
  return {};
}

double PercentileMs(std::vector<TimeUs>& samples, double fraction) {
  if (samples.empty()) return 0;
  const size_t rank = std::min(samples.size() - 1,
                               static_cast<size_t>(fraction * static_cast<double>(samples.size())));
  std::nth_element(samples.begin(), samples.begin() + static_cast<ptrdiff_t>(rank), samples.end());
  return static_cast<double>(samples[rank]) / 1000.0;
}

// What the workers share: the stop flag and the first fatal error.
struct Shared {
  std::mutex mu;
  std::condition_variable wake;
  bool stopping = false;
  std::optional<Error> fatal;

  void Stop() {
    std::lock_guard lock(mu);
    stopping = true;
    wake.notify_all();
  }
  void Fail(Error error) {
    std::lock_guard lock(mu);
    if (!fatal) fatal = std::move(error);
    stopping = true;
    wake.notify_all();
  }
};

struct Tally {
  int registered = 0;
  int64_t registrations_ok = 0;
  int64_t registrations_failed = 0;
  int64_t tokens_failed = 0;
  int64_t heartbeats_sent = 0;
  int64_t heartbeats_failed = 0;
  EmulatedTaskCounts tasks;
  std::vector<TimeUs> latency_us;
  std::vector<TimeUs> lag_us;
};

class Worker {
 public:
  Worker(const EmulatorOptions& options, Shared& shared, int first, int stride, TimeUs start_us)
      : options_(options),
        shared_(shared),
        admin_(options.server.Origin()),
        jitter_(static_cast<unsigned>(first) * 2654435761u) {
    admin_.set_bearer_token_auth(options.admin_token.c_str());
    admin_.set_keep_alive(true);
    admin_.set_connection_timeout(3, 0);
    admin_.set_read_timeout(10, 0);
    const TimeUs interval_us = SecondsToUs(options.heartbeat_s);
    const TimeUs slot_us = std::max<TimeUs>(1, interval_us / options.nodes);
    std::uniform_int_distribution<TimeUs> within_slot(0, slot_us - 1);
    for (int k = first; k < options.nodes; k += stride) {
      Node node{
          .model = EmulatedNode(fmt::format("{}-{:05}", options.node_prefix, k),
                                options.devices_per_node, SecondsToUs(options.default_task_s)),
          .phase_us = start_us + interval_us * k / options.nodes + within_slot(jitter_)};
      node.due_us = start_us;  // Token and registration at once.
      nodes_.push_back(std::move(node));
    }
  }

  void Run() {
    using Entry = std::pair<TimeUs, size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    for (size_t i = 0; i < nodes_.size(); ++i) queue.emplace(nodes_[i].due_us, i);
    while (!queue.empty()) {
      const auto [due_us, i] = queue.top();
      {
        std::unique_lock lock(shared_.mu);
        const auto deadline = Clock::time_point(std::chrono::microseconds(due_us));
        shared_.wake.wait_until(lock, deadline, [&] { return shared_.stopping; });
        if (shared_.stopping) break;
        if (Clock::now() < deadline) continue;  // Woken early; wait again.
      }
      queue.pop();
      Node& node = nodes_[i];
      if (node.due_us != due_us) continue;  // A stale entry; the node was rescheduled.
      Step(node, due_us);
      queue.emplace(node.due_us, i);
    }
    for (const Node& node : nodes_) tally_.registered += node.registered ? 1 : 0;
  }

  Tally& tally() { return tally_; }

 private:
  struct Node {
    EmulatedNode model;
    std::optional<DaemonClient> client;
    bool registered = false;
    double backoff_s = 0.5;
    TimeUs phase_us = 0;  // Regular heartbeats go at phase + k * interval.
    TimeUs due_us = 0;
  };

  void Step(Node& node, TimeUs due_us) {
    const TimeUs now_us = NowUs();
    if (!node.client) return MintToken(node, now_us);
    if (!node.registered) return Register(node, now_us);
    tally_.lag_us.push_back(std::max<TimeUs>(0, now_us - due_us));
    Heartbeat(node, now_us);
  }

  void Retry(Node& node, TimeUs now_us) {
    std::uniform_real_distribution<double> spread(0.8, 1.2);
    node.due_us = now_us + SecondsToUs(node.backoff_s * spread(jitter_));
    node.backoff_s = std::min(node.backoff_s * 2.0, 30.0);
  }

  // The next regular heartbeat after `now_us`, or a task's exit if that comes first.
  void ScheduleHeartbeat(Node& node, TimeUs now_us) {
    const TimeUs interval_us = std::max<TimeUs>(1, SecondsToUs(options_.heartbeat_s));
    if (node.phase_us <= now_us) {
      node.phase_us += ((now_us - node.phase_us) / interval_us + 1) * interval_us;
    }
    node.due_us = std::min(node.phase_us, node.model.NextExitUs());
  }

  void MintToken(Node& node, TimeUs now_us) {
    const std::string body = nlohmann::json{{"role", "agent"}, {"node", node.model.name()}}.dump();
    const httplib::Result reply = admin_.Post("/v1/tokens", body, "application/json");
    if (reply && (reply->status == 401 || reply->status == 403)) {
      shared_.Fail(Error{ErrorCode::kInvalidArgument,
                         fmt::format("POST /v1/tokens: HTTP {}: the emulator needs an admin token "
                                     "(--token or --token-file) to make its nodes' agent tokens",
                                     reply->status)});
      return;
    }
    std::string token;
    if (reply && reply->status == 201) {
      const auto document = nlohmann::json::parse(reply->body, nullptr, false);
      if (document.is_object() && document.contains("token") && document["token"].is_string()) {
        token = document["token"].get<std::string>();
      }
    }
    if (token.empty()) {
      ++tally_.tokens_failed;
      return Retry(node, now_us);
    }
    node.client.emplace(
        DaemonClientOptions{.server = options_.server, .token = token, .node = node.model.name()});
    node.backoff_s = 0.5;
    node.due_us = now_us;
  }

  void Register(Node& node, TimeUs now_us) {
    auto reply = node.client->Register(node.model.Registration(options_.address));
    if (!reply) {
      ++tally_.registrations_failed;
      if (last_error_ != reply.error().message) {
        Log("{}: register failed: {}", node.model.name(), reply.error().message);
        last_error_ = reply.error().message;
      }
      return Retry(node, now_us);
    }
    ++tally_.registrations_ok;
    node.registered = true;
    node.backoff_s = 0.5;
    ScheduleHeartbeat(node, now_us);
  }

  void Heartbeat(Node& node, TimeUs now_us) {
    const HeartbeatRequest request = node.model.Heartbeat(now_us);
    auto reply = node.client->Heartbeat(request);
    const TimeUs done_us = NowUs();
    ++tally_.heartbeats_sent;
    if (!reply) {
      ++tally_.heartbeats_failed;
      if (last_error_ != reply.error().message) {
        Log("{}: heartbeat failed: {}", node.model.name(), reply.error().message);
        last_error_ = reply.error().message;
      }
      if (reply.error().kind == DaemonError::Kind::kUnknownNode) {
        node.registered = false;
        node.due_us = done_us;
        return;
      }
      // Exits stay unacknowledged; the next regular heartbeat carries them again.
      const TimeUs interval_us = std::max<TimeUs>(1, SecondsToUs(options_.heartbeat_s));
      if (node.phase_us <= done_us) {
        node.phase_us += ((done_us - node.phase_us) / interval_us + 1) * interval_us;
      }
      node.due_us = node.phase_us;
      return;
    }
    tally_.latency_us.push_back(done_us - now_us);
    node.model.Answered(request, *reply, done_us, tally_.tasks);
    ScheduleHeartbeat(node, done_us);
  }

  const EmulatorOptions& options_;
  Shared& shared_;
  httplib::Client admin_;
  std::minstd_rand jitter_;
  std::vector<Node> nodes_;
  Tally tally_;
  std::string last_error_;  // Each worker logs a failure once until it changes.
};

}  // namespace

nlohmann::json EmulatorSummary::ToJson() const {
  return {{"nodes", nodes},
          {"registered", registered},
          {"registrations_ok", registrations_ok},
          {"registrations_failed", registrations_failed},
          {"tokens_failed", tokens_failed},
          {"heartbeats_sent", heartbeats_sent},
          {"heartbeats_failed", heartbeats_failed},
          {"heartbeat_p50_ms", heartbeat_p50_ms},
          {"heartbeat_p99_ms", heartbeat_p99_ms},
          {"heartbeat_max_ms", heartbeat_max_ms},
          {"send_lag_p99_ms", send_lag_p99_ms},
          {"tasks_started", tasks_started},
          {"tasks_exited", tasks_exited},
          {"tasks_stopped", tasks_stopped},
          {"seconds", seconds}};
}

Result<EmulatorSummary> RunEmulator(const EmulatorOptions& options, StopSignal& stop) {
  if (options.nodes < 1) {
    return MakeError(ErrorCode::kInvalidArgument, "--emulate: expected at least 1 node");
  }
  const int threads =
      options.threads > 0 ? std::min(options.threads, options.nodes) : std::min(options.nodes, 256);
  if (auto ok = RaiseDescriptorLimit(options.nodes, threads); !ok) {
    return tl::unexpected(ok.error());
  }
  Shared shared;
  const TimeUs start_us = NowUs();
  std::vector<std::unique_ptr<Worker>> workers;
  for (int w = 0; w < threads; ++w) {
    workers.push_back(std::make_unique<Worker>(options, shared, w, threads, start_us));
  }
  std::vector<std::thread> running;
  for (auto& worker : workers) running.emplace_back([&worker] { worker->Run(); });
  Log("emulating {} nodes of {} devices with {} threads; heartbeat every {} s", options.nodes,
      options.devices_per_node, threads, options.heartbeat_s);
  const TimeUs end_us = options.seconds > 0 ? start_us + SecondsToUs(options.seconds) : kNever;
  while (stop.requests() == 0) {
    {
      std::lock_guard lock(shared.mu);
      if (shared.stopping) break;
    }
    const TimeUs now_us = NowUs();
    if (now_us >= end_us) break;
    stop.WaitFor(std::min<TimeUs>(end_us - now_us, 100'000));
  }
  shared.Stop();
  for (std::thread& thread : running) thread.join();
  if (shared.fatal) return tl::unexpected(*shared.fatal);

  EmulatorSummary summary{.nodes = options.nodes, .seconds = UsToSeconds(NowUs() - start_us)};
  std::vector<TimeUs> latency;
  std::vector<TimeUs> lag;
  for (auto& worker : workers) {
    Tally& tally = worker->tally();
    summary.registered += tally.registered;
    summary.registrations_ok += tally.registrations_ok;
    summary.registrations_failed += tally.registrations_failed;
    summary.tokens_failed += tally.tokens_failed;
    summary.heartbeats_sent += tally.heartbeats_sent;
    summary.heartbeats_failed += tally.heartbeats_failed;
    summary.tasks_started += tally.tasks.started;
    summary.tasks_exited += tally.tasks.exited;
    summary.tasks_stopped += tally.tasks.stopped;
    latency.insert(latency.end(), tally.latency_us.begin(), tally.latency_us.end());
    lag.insert(lag.end(), tally.lag_us.begin(), tally.lag_us.end());
  }
  summary.heartbeat_p50_ms = PercentileMs(latency, 0.50);
  summary.heartbeat_p99_ms = PercentileMs(latency, 0.99);
  summary.heartbeat_max_ms = PercentileMs(latency, 1.0);
  summary.send_lag_p99_ms = PercentileMs(lag, 0.99);
  return summary;
}

}  // namespace headroom::agent
