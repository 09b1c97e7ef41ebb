// headroom_submit_bench: durable submission throughput and latency of headroomd, and
// submit-to-start latency when capacity is free. It starts a Daemon in-process (simulated
// backend, a generated building of --devices H100s, a fresh data dir under /tmp) and drives
// its HTTP API over loopback like real clients:
//
//  1. Throughput: --clients threads, each with a keep-alive connection, POST /v1/jobs (a
//     1-device job) back to back for --seconds. Every 201 means the job is durable (group
//     commit, SQLite WAL, synchronous=FULL). Reports submissions/s and p50/p99/max latency.
//  2. Submit-to-start: a fresh daemon; one client submits --start-jobs 1-device jobs of 2 s at
//     --start-rate per second (capacity stays free); a watcher long-polls /v1/events and notes
//     when each job's "started" event arrives. Reports p50/p99/max of (start seen − submit sent).
//
// Speed lives here, not in tests (STYLE.md §10). Threading: client threads plus the daemon's.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "control/daemon.h"
#include "control/logging.h"
#include "model/cluster_generator.h"
#include "model/cluster_yaml_writer.h"

namespace {

using headroom::control::BackendKind;
using headroom::control::Daemon;
using headroom::control::DaemonOptions;
using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

std::string JobBody(int runtime_s) {
  return nlohmann::json{{"kind", "Job"},
                        {"spec",
                         {{"timeLimit", "1h"},
                          {"runtime", runtime_s},
                          {"devices", {{"requests", {{{"count", 1}}}}}}}}}
      .dump();
}

struct Running {
  std::unique_ptr<Daemon> daemon;
  std::string dir;
  std::string token;
};

Running StartDaemon(const std::string& cluster_file, const std::string& tag) {
  Running out;
  out.dir = (std::filesystem::temp_directory_path() / ("headroom-submit-bench-" + tag)).string();
  std::filesystem::remove_all(out.dir);
  DaemonOptions options;
  options.data_dir = out.dir;
  options.backend = BackendKind::kSimulated;
  options.cluster_file = cluster_file;
  // Throughput, not admission: the default per-tenant limit (10,000 pending) would answer most
  // of a 10 s run with 429.
  options.admission = {.max_pending_per_tenant = 100'000'000, .max_pending = 100'000'000};
  auto daemon = Daemon::Start(options);
  if (!daemon) {
    std::fprintf(stderr, "headroomd did not start: %s\n", daemon.error().message.c_str());
    std::exit(1);
  }
  out.daemon = std::move(*daemon);
  std::ifstream in(out.daemon->admin_token_path());
  in >> out.token;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"headroomd submission benchmark"};
  int clients = 8;
  double seconds = 10;
  int64_t devices = 1024;
  int start_jobs = 300;
  double start_rate = 50;
  app.add_option("--clients", clients, "Concurrent submitting clients");
  app.add_option("--seconds", seconds, "Duration of the throughput phase");
  app.add_option("--devices", devices, "Devices in the generated building");
  app.add_option("--start-jobs", start_jobs, "Jobs in the submit-to-start phase");
  app.add_option("--start-rate", start_rate, "Submissions per second in that phase");
  CLI11_PARSE(app, argc, argv);
  headroom::control::SetLogLevel(headroom::control::LogLevel::kWarn);

  auto cluster = headroom::model::GenerateCluster({.devices = devices});
  if (!cluster) {
    std::fprintf(stderr, "%s\n", cluster.error().message.c_str());
    return 2;
  }
  const std::string cluster_file =
      (std::filesystem::temp_directory_path() / "headroom-submit-bench.yaml").string();
  std::ofstream(cluster_file) << headroom::model::WriteClusterYaml(*cluster);

  // Phase 1: throughput.
  {
    Running run = StartDaemon(cluster_file, "throughput");
    const int port = run.daemon->port();
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::vector<double> latencies_ms;
    uint64_t failures = 0;
    std::vector<std::thread> threads;
    std::atomic<int> connected{0};
    std::atomic<bool> go{false};
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        httplib::Client client("127.0.0.1", port);
        client.set_keep_alive(true);
        client.set_tcp_nodelay(true);
        const httplib::Headers headers = {{"Authorization", "Bearer " + run.token}};
        const std::string body = JobBody(3600);
        std::vector<double> mine;
        uint64_t failed = 0;
        // Connect one at a time (httplib's listen backlog is 5), so the timed part is steady
        // state rather than SYN retries.
        while (connected.load() != c) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        client.Get("/healthz");
        ++connected;
        while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        while (!stop) {
          const auto sent = Clock::now();
          auto result = client.Post("/v1/jobs", headers, body, "application/json");
          if (!result || result->status != 201) {
            if (failed++ == 0) {
              std::fprintf(stderr, "first failure: %s\n",
                           result ? (std::to_string(result->status) + " " + result->body).c_str()
                                  : httplib::to_string(result.error()).c_str());
            }
            continue;
          }
          mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
        }
        std::lock_guard lock(mu);
        latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
        failures += failed;
      });
    }
    while (connected < clients) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto begin = Clock::now();
    go = true;
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (std::thread& thread : threads) thread.join();
    const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
    std::printf(
        "throughput: %d clients, %.1f s: %zu durable submissions, %.0f/s, latency p50 %.2f "
        "ms, p99 %.2f ms, max %.2f ms, %llu failed\n",
        clients, elapsed, latencies_ms.size(), static_cast<double>(latencies_ms.size()) / elapsed,
        Percentile(latencies_ms, 0.5), Percentile(latencies_ms, 0.99),
        Percentile(latencies_ms, 1.0), static_cast<unsigned long long>(failures));
    run.daemon->Stop();
    std::filesystem::remove_all(run.dir);
  }

  // Phase 2: submit-to-start with free capacity.
  {
    Running run = StartDaemon(cluster_file, "start");
    const int port = run.daemon->port();
    std::mutex mu;
    std::map<uint64_t, Clock::time_point> sent_at;
    std::map<uint64_t, Clock::time_point> started_at;
    std::atomic<bool> stop{false};
    std::thread watcher([&] {
      httplib::Client client("127.0.0.1", port);
      client.set_read_timeout(std::chrono::seconds(5));
      client.set_tcp_nodelay(true);
      const httplib::Headers headers = {{"Authorization", "Bearer " + run.token}};
      uint64_t after = 0;
      while (!stop) {
        auto result =
            client.Get(("/v1/events?wait_s=1&after=" + std::to_string(after)).c_str(), headers);
        const auto seen = Clock::now();
        if (!result || result->status != 200) continue;
        const auto body = nlohmann::json::parse(result->body);
        after = body["next"].get<uint64_t>();
        std::lock_guard lock(mu);
        for (const auto& event : body["events"]) {
          if (event["type"] == "started") started_at[event["job"].get<uint64_t>()] = seen;
        }
      }
    });
    httplib::Client client("127.0.0.1", port);
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);
    const httplib::Headers headers = {{"Authorization", "Bearer " + run.token}};
    const std::string body = JobBody(2);
    const auto interval = std::chrono::duration<double>(1.0 / start_rate);
    auto next = Clock::now();
    for (int i = 0; i < start_jobs; ++i) {
      std::this_thread::sleep_until(next);
      next += std::chrono::duration_cast<Clock::duration>(interval);
      const auto sent = Clock::now();
      auto result = client.Post("/v1/jobs", headers, body, "application/json");
      if (!result || result->status != 201) continue;
      std::lock_guard lock(mu);
      sent_at[nlohmann::json::parse(result->body)["id"].get<uint64_t>()] = sent;
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
    stop = true;
    watcher.join();
    std::vector<double> delays_ms;
    for (const auto& [id, sent] : sent_at) {
      auto it = started_at.find(id);
      if (it != started_at.end()) {
        delays_ms.push_back(std::chrono::duration<double, std::milli>(it->second - sent).count());
      }
    }
    std::printf(
        "submit-to-start: %zu of %zu jobs seen starting, p50 %.1f ms, p99 %.1f ms, max "
        "%.1f ms\n",
        delays_ms.size(), sent_at.size(), Percentile(delays_ms, 0.5), Percentile(delays_ms, 0.99),
        Percentile(delays_ms, 1.0));
    run.daemon->Stop();
    std::filesystem::remove_all(run.dir);
  }
  std::filesystem::remove(cluster_file);
  return 0;
}
