// Daemon: headroomd assembled — store and journal, state recovered from the store, the live
// loop with its backend, the HTTP API. Start recovers everything the store holds (queue,
// running jobs with their placements, node drains, tokens) before it serves; the loop's
// engine rebuild then restores running work exactly where it was. Stop flushes and joins.
//
// Data dir: headroom.db (SQLite, WAL) and admin.token (mode 0600, written on first start unless
// it exists), and headroomd.lock, locked for the daemon's lifetime (control/data_dir.h: one
// daemon per dir, files 0600, no empty store under an existing admin.token).
// Threading: Start/Stop from one thread; everything else runs on the daemon's own threads.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "control/agents_backend.h"
#include "control/api_server.h"
#include "control/backend.h"
#include "control/clock.h"
#include "control/daemon_state.h"
#include "control/data_dir.h"
#include "control/event_log.h"
#include "control/journal.h"
#include "control/live_loop.h"
#include "control/metrics.h"
#include "control/prometheus_load.h"
#include "control/sqlite_store.h"
#include "control/token_auth.h"

namespace headroom::sim {
struct PolicyWithText;
}

namespace headroom::control {

enum class BackendKind { kSimulated, kAgents };

struct DaemonOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string data_dir;
  // Start with the store's bad rows moved to its quarantine table (each one logged) instead of
  // refusing to start on them.
  bool repair = false;
  BackendKind backend = BackendKind::kSimulated;
  std::string cluster_file;  // Simulated backend.
  double time_scale = 1.0;   // Simulated backend.
  // Tests: the daemon's clock instead of a SystemClock (time_scale then unused).
  std::shared_ptr<Clock> clock;
  // The policy in force is the last one set: by --policy at a start (policy_given), or by
  // PUT /v1/policy, kept in the store; a start without --policy keeps the stored one, and runs
  // `policy` (not kept) when none was ever set.
  std::string policy = "headroom";
  bool policy_given = false;
  std::string tls_cert;
  std::string tls_key;
  AgentsOptions agents;
  // Thresholds that judge device health from telemetry (device_health.h).
  HealthRules health_rules;
  TimeUs series_interval_us = 5 * kUsPerSecond;
  TimeUs keep_finished_us = 24 * 3600 * kUsPerSecond;  // LoopOptions.
  size_t max_finished = 100'000;
  TimeUs engine_snapshot_interval_us = 3600 * kUsPerSecond;  // LoopOptions.
  uint64_t engine_snapshot_events = 250'000;                 // LoopOptions.
  TimeUs engine_log_keep_us = 7 * 24 * 3600 * kUsPerSecond;  // LoopOptions.
  TimeUs autoscale_interval_us = 15 * kUsPerSecond;          // LoopOptions.
  TimeUs load_report_max_age_us = 60 * kUsPerSecond;         // LoopOptions.
  // Prometheus' address (http://HOST:PORT) for services' autoscaling.prometheusQuery
  // (prometheus_load.h); empty: such queries are not run.
  std::string prometheus_url;
  // Pending jobs taken per tenant and in total (admission.h).
  AdmissionLimits admission;
  // HTTP: threads that run complete requests (connections hold none), open connections at
  // most, parked long-polls per token.
  size_t http_workers = 64;
  unsigned max_connections = 30000;
  size_t max_long_polls_per_token = 16;
};

class Daemon {
 public:
  static Result<std::unique_ptr<Daemon>> Start(const DaemonOptions& options);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  int port() const { return server_->port(); }
  const std::string& admin_token_path() const { return admin_token_path_; }
  // Idempotent.
  void Stop();

 private:
  Daemon() = default;
  // The policy to run (promise on DaemonOptions::policy), written to the store when it is new.
  tl::expected<void, Error> ChoosePolicy(const DaemonOptions& options,
                                         const std::vector<MetaRecord>& meta,
                                         sim::PolicyWithText& chosen);
  tl::expected<void, Error> Recover(const DaemonOptions& options, StoreSnapshot snapshot,
                                    std::shared_ptr<const model::Cluster> cluster);
  tl::expected<void, Error> EnsureAdminToken();
  Result<StoreSnapshot> LoadStore(const DaemonOptions& options);

  std::unique_ptr<DataDirLock> lock_;  // First member: released after everything else.
  std::string admin_token_path_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Journal> journal_;
  DaemonState state_;
  TokenAuth tokens_;
  std::unique_ptr<EventLog> events_;
  // Unix time before the store says where the daemon's clock starts (options.clock in tests).
  std::shared_ptr<const Clock> wall_clock_;
  std::shared_ptr<Clock> clock_;
  Histogram cycle_seconds_{{0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5}};
  std::unique_ptr<Backend> backend_;
  AgentsBackend* agents_ = nullptr;
  std::unique_ptr<LiveLoop> loop_;
  std::unique_ptr<PrometheusLoad> prometheus_;  // With --prometheus-url.
  std::unique_ptr<ApiServer> server_;
  bool stopped_ = false;
};

}  // namespace headroom::control
