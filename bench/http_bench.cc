// headroom_http_bench: how headroomd's HTTP layer holds up, against a running daemon (its
// own process, so that the connections counted here and the daemon's do not share one
// open-file limit). Three measurements, each printed as one JSON line:
//
//  1. "baseline": --clients threads POST /v1/jobs (a 1-device job) for --seconds, keep-alive
//     or (--new-connection) a new connection per request, while a prober GETs /healthz every
//     20 ms on a fresh connection. Submissions/s, their p50/p99, /healthz p99, failures.
//  2. "loaded": the same after opening --idle-connections connections that send nothing and
//     --slow-connections that send half a request header and stop (slowloris), all held open
//     through the measurement.
//  3. The ratio loaded/baseline of submissions/s.
//
// Speed lives here, not in tests (STYLE.md §10). Threading: client threads, one prober.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

const std::string kJobBody =
    R"({"apiVersion":"headroom/v1","kind":"Job","spec":{"tasks":1,"timeLimit":3600,)"
    R"("runtime":3600,"command":["sleep","3600"],"devices":{"requests":[{"name":"gpus","count":1}]}}})";

struct Options {
  std::string host = "127.0.0.1";
  int port = 8470;
  std::string token;
  int clients = 64;
  double seconds = 10;
  bool new_connection = false;
};

int RawConnect(const Options& options) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(options.port));
  ::inet_pton(AF_INET, options.host.c_str(), &address.sin_addr);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

Json Measure(const Options& options, const std::string& name) {
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<double> submit_ms;
  std::vector<double> healthz_ms;
  uint64_t failures = 0;
  uint64_t healthz_failures = 0;
  const httplib::Headers headers = {{"Authorization", "Bearer " + options.token}};
  std::vector<std::thread> threads;
  const auto begin = Clock::now();
  for (int c = 0; c < options.clients; ++c) {
    threads.emplace_back([&] {
      std::vector<double> mine;
      uint64_t failed = 0;
      auto client = std::make_unique<httplib::Client>(options.host, options.port);
      client->set_keep_alive(!options.new_connection);
      client->set_tcp_nodelay(true);
      client->set_read_timeout(std::chrono::seconds(30));
      while (!stop) {
        if (options.new_connection) {
          client = std::make_unique<httplib::Client>(options.host, options.port);
          client->set_tcp_nodelay(true);
          client->set_read_timeout(std::chrono::seconds(30));
        }
        const auto sent = Clock::now();
        auto result = client->Post("/v1/jobs", headers, kJobBody, "application/json");
        if (!result || result->status != 201) {
          ++failed;
          continue;
        }
        mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
      }
      std::lock_guard lock(mu);
      submit_ms.insert(submit_ms.end(), mine.begin(), mine.end());
      failures += failed;
    });
  }
  std::thread prober([&] {
    while (!stop) {
      httplib::Client client(options.host, options.port);
      client.set_read_timeout(std::chrono::seconds(30));
      const auto sent = Clock::now();
      auto result = client.Get("/healthz");
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
      {
        std::lock_guard lock(mu);
        if (result && result->status == 200) {
          healthz_ms.push_back(ms);
        } else {
          ++healthz_failures;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  std::this_thread::sleep_for(std::chrono::duration<double>(options.seconds));
  stop = true;
  for (std::thread& thread : threads) thread.join();
  prober.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  return Json{{"phase", name},
              {"clients", options.clients},
              {"new_connection", options.new_connection},
              {"seconds", elapsed},
              {"submissions", submit_ms.size()},
              {"submissions_per_s", static_cast<double>(submit_ms.size()) / elapsed},
              {"submit_p50_ms", Percentile(submit_ms, 0.5)},
              {"submit_p99_ms", Percentile(submit_ms, 0.99)},
              {"failures", failures},
              {"healthz_probes", healthz_ms.size()},
              {"healthz_p99_ms", Percentile(healthz_ms, 0.99)},
              {"healthz_max_ms", Percentile(healthz_ms, 1.0)},
              {"healthz_failures", healthz_failures}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"headroomd HTTP benchmark (against a running daemon)"};
  Options options;
  std::string token_file;
  int idle = 0;
  int slow = 0;
  app.add_option("--host", options.host, "Daemon address (IPv4)");
  app.add_option("--port", options.port, "Daemon port")->required();
  app.add_option("--token-file", token_file, "File holding a user or admin token")->required();
  app.add_option("--clients", options.clients, "Concurrent submitting clients");
  app.add_option("--seconds", options.seconds, "Duration of each measurement");
  app.add_flag("--new-connection", options.new_connection, "A new connection per submission");
  app.add_option("--idle-connections", idle, "Connections held open sending nothing");
  app.add_option("--slow-connections", slow, "Connections held open after half a header");
  CLI11_PARSE(app, argc, argv);
  std::ifstream(token_file) >> options.token;
  if (options.token.empty()) {
    std::fprintf(stderr, "headroom_http_bench: no token in %s\n", token_file.c_str());
    return 2;
  }
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  setrlimit(RLIMIT_NOFILE, &files);

  const Json baseline = Measure(options, "baseline");
  std::printf("%s\n", baseline.dump().c_str());
  if (idle + slow == 0) return 0;
  std::vector<int> held;
  int refused = 0;
  for (int i = 0; i < idle + slow; ++i) {
    const int fd = RawConnect(options);
    if (fd < 0) {
      ++refused;
      continue;
    }
    if (i >= idle) {
      const std::string half = "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthoriz";
      (void)!::send(fd, half.data(), half.size(), MSG_NOSIGNAL);
    }
    held.push_back(fd);
  }
  Json loaded = Measure(options, "loaded");
  loaded["idle_connections"] = idle;
  loaded["slow_connections"] = slow;
  loaded["connections_refused"] = refused;
  // How many of the held connections the daemon still keeps open (it may close idle ones
  // after its idle timeout, which is longer than a measurement).
  int still_open = 0;
  for (int fd : held) {
    char byte;
    const ssize_t n = ::recv(fd, &byte, 1, MSG_DONTWAIT | MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) ++still_open;
  }
  loaded["connections_still_open"] = still_open;
  loaded["throughput_ratio"] =
      loaded["submissions_per_s"].get<double>() / baseline["submissions_per_s"].get<double>();
  std::printf("%s\n", loaded.dump().c_str());
  for (int fd : held) ::close(fd);
  return 0;
}
