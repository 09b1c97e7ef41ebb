#include "agent/agent_emulator.h"

#include <netdb.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "agent/agent_log.h"
#include "agent/daemon_client.h"
#include "agent/emulated_node.h"
#include "agent/http_exchange.h"
#include "model/heartbeat_reader.h"

namespace headroom::agent {
namespace {

using Clock = std::chrono::steady_clock;

TimeUs NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch())
      .count();
}

// Descriptors beyond the node connections: an epoll set per worker, logs, slack.
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
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::optional<Error> fatal;

  void Fail(Error error) {
    std::lock_guard lock(mu);
    if (!fatal) fatal = std::move(error);
    stopping = true;
  }
};

// Where the daemon is: its resolved address, and the Host header and origin to name it by.
struct Target {
  sockaddr_storage address{};
  socklen_t address_length = 0;
  std::string host;    // "host:port", for the Host header.
  std::string origin;  // "http://host:port", for messages.
};

Result<Target> Resolve(const HttpUrl& server) {
  if (server.scheme != "http") {
    return MakeError(ErrorCode::kInvalidArgument, "--emulate speaks plain HTTP; --server {} is {}",
                     server.Origin(), server.scheme);
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(server.port);
  if (const int error = getaddrinfo(server.host.c_str(), port.c_str(), &hints, &found);
      error != 0) {
    return MakeError(ErrorCode::kInvalidArgument, "--server {}: cannot resolve {}: {}",
                     server.Origin(), server.host, gai_strerror(error));
  }
  Target target;
  std::memcpy(&target.address, found->ai_addr, found->ai_addrlen);
  target.address_length = found->ai_addrlen;
  freeaddrinfo(found);
  const bool v6 = server.host.find(':') != std::string::npos;
  target.host = v6 ? fmt::format("[{}]:{}", server.host, server.port)
                   : fmt::format("{}:{}", server.host, server.port);
  target.origin = server.Origin();
  return target;
}

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

// One event loop over the nodes k with k % stride == first: every node's call is a non-blocking
// HttpExchange on the node's own connection, so one thread keeps thousands of nodes on schedule.
class Worker {
 public:
  Worker(const EmulatorOptions& options, Shared& shared, const Target& target, int first,
         int stride, TimeUs start_us)
      : options_(options),
        shared_(shared),
        target_(target),
        setup_limit_(std::max(1, kSetupsInFlight / stride)),
        jitter_(static_cast<unsigned>(first) * 2654435761u) {
    const TimeUs interval_us = SecondsToUs(options.heartbeat_s);
    const TimeUs slot_us = std::max<TimeUs>(1, interval_us / options.nodes);
    std::uniform_int_distribution<TimeUs> within_slot(0, slot_us - 1);
    nodes_.reserve(static_cast<size_t>(options.nodes / stride + 1));
    for (int k = first; k < options.nodes; k += stride) {
      Node node{
          .model = EmulatedNode(fmt::format("{}-{:05}", options.node_prefix, k),
                                options.devices_per_node, SecondsToUs(options.default_task_s)),
          .phase_us = start_us + interval_us * k / options.nodes + within_slot(jitter_)};
      node.due_us = start_us;  // Token and registration at once.
      nodes_.push_back(std::move(node));
    }
  }

  ~Worker() {
    if (epoll_fd_ >= 0) close(epoll_fd_);
  }

  void Run() {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) {
      shared_.Fail(Error{ErrorCode::kIo, fmt::format("epoll_create1: {}", std::strerror(errno))});
      return;
    }
    for (size_t i = 0; i < nodes_.size(); ++i) due_.emplace(nodes_[i].due_us, i);
    std::vector<epoll_event> events(512);
    TimeUs next_sweep_us = 0;
    while (!shared_.stopping) {
      TimeUs now_us = NowUs();
      while (!due_.empty() && due_.top().first <= now_us) {
        const auto [due_us, i] = due_.top();
        due_.pop();
        if (nodes_[i].due_us != due_us || nodes_[i].call != Call::kNone) continue;  // Stale.
        if (nodes_[i].registered || setups_in_flight_ < setup_limit_) {
          Send(i, due_us, now_us);
        } else {
          waiting_setups_.push_back(i);
        }
      }
      const TimeUs wait_us =
          due_.empty() ? kMaxWaitUs : std::clamp<TimeUs>(due_.top().first - now_us, 0, kMaxWaitUs);
      const int ready = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                                   static_cast<int>((wait_us + 999) / 1000));
      for (int e = 0; e < ready; ++e) {
        const size_t i = events[static_cast<size_t>(e)].data.u64;
        const HttpExchange::Step step =
            nodes_[i].exchange.OnEvent(events[static_cast<size_t>(e)].events);
        if (step != HttpExchange::Step::kPending && nodes_[i].call != Call::kNone) Finish(i, step);
      }
      while (!finished_at_once_.empty()) {
        const auto [i, step] = finished_at_once_.back();
        finished_at_once_.pop_back();
        Finish(i, step);
      }
      now_us = NowUs();
      if (now_us >= next_sweep_us) {
        SweepTimeouts(now_us);
        next_sweep_us = now_us + kMaxWaitUs;
      }
    }
    for (Node& node : nodes_) {
      tally_.registered += node.registered ? 1 : 0;
      node.exchange.Close();
    }
  }

  Tally& tally() { return tally_; }

 private:
  // Token and registration calls in flight at once, over all workers: enough to keep the
  // daemon's registration path busy, few enough not to overflow its listen backlog.
  static constexpr int kSetupsInFlight = 256;
  static constexpr TimeUs kMaxWaitUs = 100'000;  // How often the stop flag and timeouts are seen.

  enum class Call { kNone, kToken, kRegister, kHeartbeat };

  struct Node {
    EmulatedNode model;
    std::string token;  // Minted with the admin token; empty until then.
    bool registered = false;
    double backoff_s = 0.5;
    TimeUs phase_us = 0;  // Regular heartbeats go at phase + k * interval.
    TimeUs due_us = 0;
    HttpExchange exchange;
    Call call = Call::kNone;  // In flight on `exchange`.
    TimeUs sent_us = 0;
    HeartbeatRequest heartbeat;  // The one in flight, for Answered.
    std::string body;            // The encoded heartbeat, while the model's version holds.
    uint64_t body_version = 0;
    std::string last_reply;  // The last heartbeat reply, and the tasks it parsed to.
    std::vector<DesiredTask> last_desired;
  };

  std::string Path(const Node& node, Call call) const {
    switch (call) {
      case Call::kToken:
        return "/v1/tokens";
      case Call::kRegister:
        return "/v1/agents/register";
      case Call::kHeartbeat:
      case Call::kNone:
        break;
    }
    return fmt::format("/v1/agents/{}/heartbeat", EncodePathSegment(node.model.name()));
  }

  static std::string Encode(const nlohmann::json& body) {
    return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  void Send(size_t i, TimeUs due_us, TimeUs now_us) {
    Node& node = nodes_[i];
    node.sent_us = now_us;
    std::string body;
    const std::string* token = &node.token;
    if (node.token.empty()) {
      node.call = Call::kToken;
      body = Encode({{"role", "agent"}, {"node", node.model.name()}});
      token = &options_.admin_token;
    } else if (!node.registered) {
      node.call = Call::kRegister;
      body = Encode(RegisterJson(node.model.Registration(options_.address)));
    } else {
      node.call = Call::kHeartbeat;
      tally_.lag_us.push_back(std::max<TimeUs>(0, now_us - due_us));
      node.heartbeat = node.model.Heartbeat(now_us);
      if (node.body.empty() || node.body_version != node.model.version()) {
        node.body = Encode(HeartbeatJson(node.heartbeat));
        node.body_version = node.model.version();
      }
      body = node.body;
    }
    if (node.call != Call::kHeartbeat) ++setups_in_flight_;
    const HttpExchange::Step step =
        node.exchange.Start(epoll_fd_, target_.address, target_.address_length,
                            JsonPostRequest(target_.host, Path(node, node.call), *token, body), i);
    // Finished at once (a refused connect): handled by the loop, not here, so that a chain of
    // such calls never recurses through Finish.
    if (step != HttpExchange::Step::kPending) finished_at_once_.emplace_back(i, step);
  }

  void SweepTimeouts(TimeUs now_us) {
    const TimeUs limit_us = SecondsToUs(kReadTimeoutS);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].call == Call::kNone || now_us - nodes_[i].sent_us < limit_us) continue;
      Finish(i, nodes_[i].exchange.Abandon(fmt::format("no reply within {} s", kReadTimeoutS)));
    }
  }

  void Finish(size_t i, HttpExchange::Step step) {
    Node& node = nodes_[i];
    const Call call = std::exchange(node.call, Call::kNone);
    const TimeUs now_us = NowUs();
    const bool replied = step == HttpExchange::Step::kDone;
    const auto body = [&]() -> DaemonResult<std::string> {
      const std::string url = target_.origin + Path(node, call);
      if (!replied) return tl::unexpected(Unreachable(url, node.exchange.error()));
      return ClassifyReply(url, node.exchange.status(), node.exchange.body());
    };
    switch (call) {
      case Call::kToken:
        Minted(node, replied, now_us);
        break;
      case Call::kRegister:
        Registered(node, body(), now_us);
        break;
      case Call::kHeartbeat:
        Heartbeated(node, body(), now_us);
        break;
      case Call::kNone:
        return;
    }
    if (call != Call::kHeartbeat) {
      --setups_in_flight_;
      while (!waiting_setups_.empty() && setups_in_flight_ < setup_limit_) {
        const size_t next = waiting_setups_.front();
        waiting_setups_.pop_front();
        Send(next, nodes_[next].due_us, now_us);
      }
    }
    if (!shared_.stopping) due_.emplace(node.due_us, i);
  }

  void Retry(Node& node, TimeUs now_us) {
    std::uniform_real_distribution<double> spread(0.8, 1.2);
    node.due_us = now_us + SecondsToUs(node.backoff_s * spread(jitter_));
    node.backoff_s = std::min(node.backoff_s * 2.0, 30.0);
  }

  // Moves the node's regular heartbeat to the first one after `now_us`.
  void AdvancePhase(Node& node, TimeUs now_us) const {
    const TimeUs interval_us = std::max<TimeUs>(1, SecondsToUs(options_.heartbeat_s));
    if (node.phase_us <= now_us) {
      node.phase_us += ((now_us - node.phase_us) / interval_us + 1) * interval_us;
    }
  }

  // The next regular heartbeat after `now_us`, or a task's exit if that comes first.
  void ScheduleHeartbeat(Node& node, TimeUs now_us) {
    AdvancePhase(node, now_us);
    node.due_us = std::min(node.phase_us, node.model.NextExitUs());
  }

  void Minted(Node& node, bool replied, TimeUs now_us) {
    const int status = replied ? node.exchange.status() : 0;
    if (status == 401 || status == 403) {
      shared_.Fail(Error{ErrorCode::kInvalidArgument,
                         fmt::format("POST /v1/tokens: HTTP {}: the emulator needs an admin token "
                                     "(--token or --token-file) to make its nodes' agent tokens",
                                     status)});
      return;
    }
    if (status == 201) {
      const auto document = nlohmann::json::parse(node.exchange.body(), nullptr, false);
      if (document.is_object() && document.contains("token") && document["token"].is_string()) {
        node.token = document["token"].get<std::string>();
      }
    }
    if (node.token.empty()) {
      ++tally_.tokens_failed;
      return Retry(node, now_us);
    }
    node.backoff_s = 0.5;
    node.due_us = now_us;
  }

  void Registered(Node& node, DaemonResult<std::string> body, TimeUs now_us) {
    if (body) {
      if (auto reply = ParseRegisterReply(*body); !reply) {
        body = tl::unexpected(
            DaemonError{DaemonError::Kind::kBadReply, "register reply: " + reply.error().message});
      }
    }
    if (!body) {
      ++tally_.registrations_failed;
      LogOnce(node, "register", body.error().message);
      return Retry(node, now_us);
    }
    ++tally_.registrations_ok;
    node.registered = true;
    node.backoff_s = 0.5;
    ScheduleHeartbeat(node, now_us);
  }

  void Heartbeated(Node& node, DaemonResult<std::string> body, TimeUs now_us) {
    ++tally_.heartbeats_sent;
    // A node's reply repeats itself while its tasks run: parsed once, kept with its text.
    if (body && *body != node.last_reply) {
      auto reply = model::ReadHeartbeatReply(*body);
      if (reply) {
        node.last_reply = std::move(*body);
        node.last_desired = std::move(*reply);
      } else {
        body = tl::unexpected(
            DaemonError{DaemonError::Kind::kBadReply, "heartbeat reply: " + reply.error().message});
      }
    }
    if (!body) {
      ++tally_.heartbeats_failed;
      LogOnce(node, "heartbeat", body.error().message);
      if (body.error().kind == DaemonError::Kind::kUnknownNode) {
        node.registered = false;
        node.due_us = now_us;
        return;
      }
      // Exits stay unacknowledged; the next regular heartbeat carries them again.
      AdvancePhase(node, now_us);
      node.due_us = node.phase_us;
      return;
    }
    tally_.latency_us.push_back(now_us - node.sent_us);
    node.model.Answered(node.heartbeat, node.last_desired, now_us, tally_.tasks);
    ScheduleHeartbeat(node, now_us);
  }

  // Each worker logs a failure once until its message changes.
  void LogOnce(const Node& node, std::string_view call, const std::string& message) {
    if (last_error_ == message) return;
    Log("{}: {} failed: {}", node.model.name(), call, message);
    last_error_ = message;
  }

  static constexpr int kReadTimeoutS = 10;

  const EmulatorOptions& options_;
  Shared& shared_;
  const Target& target_;
  const int setup_limit_;
  std::minstd_rand jitter_;
  std::vector<Node> nodes_;
  std::priority_queue<std::pair<TimeUs, size_t>, std::vector<std::pair<TimeUs, size_t>>,
                      std::greater<>>
      due_;
  std::deque<size_t> waiting_setups_;
  std::vector<std::pair<size_t, HttpExchange::Step>> finished_at_once_;
  int setups_in_flight_ = 0;
  int epoll_fd_ = -1;
  Tally tally_;
  std::string last_error_;
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
  const int threads = std::clamp(options.threads, 1, options.nodes);
  if (auto ok = RaiseDescriptorLimit(options.nodes, threads); !ok) {
    return tl::unexpected(ok.error());
  }
  auto target = Resolve(options.server);
  if (!target) return tl::unexpected(target.error());
  Shared shared;
  const TimeUs start_us = NowUs();
  std::vector<std::unique_ptr<Worker>> workers;
  for (int w = 0; w < threads; ++w) {
    workers.push_back(std::make_unique<Worker>(options, shared, *target, w, threads, start_us));
  }
  std::vector<std::thread> running;
  for (auto& worker : workers) running.emplace_back([&worker] { worker->Run(); });
  Log("emulating {} nodes of {} devices with {} threads; heartbeat every {} s", options.nodes,
      options.devices_per_node, threads, options.heartbeat_s);
  const TimeUs end_us = options.seconds > 0 ? start_us + SecondsToUs(options.seconds) : kNever;
  while (stop.requests() == 0 && !shared.stopping) {
    const TimeUs now_us = NowUs();
    if (now_us >= end_us) break;
    stop.WaitFor(std::min<TimeUs>(end_us - now_us, 100'000));
  }
  shared.stopping = true;
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
