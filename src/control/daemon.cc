#include "control/daemon.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "control/engine_log.h"
#include "control/engine_replay.h"
#include "control/logging.h"
#include "control/simulated_backend.h"
#include "engine/policy_yaml.h"
#include "model/cluster_yaml.h"
#include "sim/policy_files.h"

namespace headroom::control {
namespace {

constexpr const char* kClockOriginKey = "clock_origin_us";

// What the engine before this start had learned (fair-share usage, runtime history, the
// migration budget), as of the last step it logged: the newest snapshot of the engine log (a
// build record) and the records after it, followed (Engine::Follow: their recorded decisions
// executed, no queue pass), so recovery costs the reading of the tail, not the passes that made
// it. A damaged record ends the tail: what was followed up to it stands, with a warning naming
// it. None when the log has no readable snapshot (a new data dir, an older headroomd's log).
// It also sets each of `jobs`' preemption count, last requeue and attained service, which the
// rows do not keep, as the followed engine knows them.
engine::CarriedState RecoveredCarriedState(SqliteStore& store, std::vector<JobRecord>& jobs) {
  auto newest = store.NewestEngineLogBuild();
  if (!newest || !*newest) return {};
  const nlohmann::json body = nlohmann::json::parse((*newest)->body, nullptr, false);
  Result<engine::CarriedState> snapshot =
      body.is_object() && body.contains("build") && body["build"].is_object()
          ? CarriedOf(body["build"])
          : MakeError(ErrorCode::kInvalidArgument, "not a build record");
  if (!snapshot) {
    LogWarn("engine log record {}: {}; the engine starts without fair-share history",
            (*newest)->seq, snapshot.error().message);
    return {};
  }
  EngineReplay replay(ReplayMode::kFollow);
  if (auto built = replay.Apply(**newest); !built || replay.engine() == nullptr) {
    LogWarn("engine log record {}: {}; the engine starts from that snapshot's fair-share history",
            (*newest)->seq, built ? "no engine" : built.error().message);
    return *snapshot;
  }
  int64_t followed_seq = (*newest)->seq;
  const auto followed = store.ForEachEngineLogRecord(
      (*newest)->seq, [&](const EngineLogRecord& record) -> tl::expected<void, Error> {
        if (auto applied = replay.Apply(record); !applied) return applied;
        followed_seq = record.seq;
        return {};
      });
  if (!followed) {
    LogWarn("{}; the engine starts from its history as of record {}, the last that follows",
            followed.error().message, followed_seq);
  }
  for (JobRecord& job : jobs) {
    if (auto id = replay.EngineIdOf(job.id)) {
      job.preemptions = replay.engine()->preemptions(*id);
      const TimeUs pending_since_us = replay.engine()->pending_since_us(*id);
      if (pending_since_us > job.submit_us) job.requeued_us = pending_since_us;
      job.attained_device_us = replay.engine()->attained_device_us(*id);
      job.hold_reason = std::string(replay.engine()->hold_reason(*id));
      job.expedited = replay.engine()->requeued_by_fault(*id);
      job.checkpoint_interval_us = replay.engine()->told_checkpoint_interval_us(*id);
    }
  }
  // No earlier than the engine's last step, which a record refused after its first step (an
  // idle record's later times) may have passed.
  const TimeUs as_of_us = std::max(replay.last_step_us(), snapshot->as_of_us);
  LogInfo(
      "engine history recovered from the snapshot at engine log record {} and {} "
      "steps after it ({} events, {} decisions), as of {:.3f} s",
      (*newest)->seq, replay.steps(), replay.events(), replay.decisions(), UsToSeconds(as_of_us));
  return replay.engine()->Carried(as_of_us);
}

}  // namespace

Result<std::unique_ptr<Daemon>> Daemon::Start(const DaemonOptions& options) {
  if (options.data_dir.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "--data-dir is required");
  }
  if (!(options.time_scale > 0 && options.time_scale <= 1e6)) {
    return MakeError(ErrorCode::kInvalidArgument, "--time-scale: expected a number in (0, 1e6]");
  }
  if (options.admission.max_pending_per_tenant == 0 || options.admission.max_pending == 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--max-pending-per-tenant and --max-pending: expected at least 1");
  }
  if (!options.prometheus_url.empty()) {
    if (auto ok = ValidatePrometheusUrl(options.prometheus_url); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  auto policy = sim::LoadPolicyWithText(options.policy);
  if (!policy) return tl::unexpected(WithContext(policy.error(), "--policy"));
  std::shared_ptr<const model::Cluster> cluster;
  if (options.backend == BackendKind::kSimulated) {
    if (options.cluster_file.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--backend simulated needs --cluster FILE (e.g. configs/small.yaml)");
    }
    auto loaded = model::LoadClusterYaml(options.cluster_file);
    if (!loaded) return tl::unexpected(loaded.error());
    if (loaded->nodes().empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "{}: the cluster has no nodes",
                       options.cluster_file);
    }
    cluster = std::make_shared<const model::Cluster>(std::move(*loaded));
    if (policy->policy.recovery.spare_nodes > 0) {
      if (auto level = engine::SpareLevel(policy->policy.recovery, *cluster); !level) {
        return tl::unexpected(WithContext(level.error(), "--policy"));
      }
    }
  }
  if (auto ok = CreateDataDir(options.data_dir); !ok) return tl::unexpected(ok.error());
  auto lock = DataDirLock::Acquire(options.data_dir);
  if (!lock) return tl::unexpected(lock.error());
  if (auto ok = SecureDataFiles(options.data_dir); !ok) return tl::unexpected(ok.error());

  std::unique_ptr<Daemon> daemon(new Daemon());
  daemon->lock_ = std::move(*lock);
  daemon->wall_clock_ = options.clock ? std::shared_ptr<const Clock>(options.clock)
                                      : std::make_shared<const SystemClock>(1.0, TimeUs{0});
  daemon->state_.admission.set_limits(options.admission);
  auto store = SqliteStore::Open(options.data_dir + "/" + kStoreFileName);
  if (!store) return tl::unexpected(store.error());
  daemon->store_ = std::move(*store);
  auto snapshot = daemon->LoadStore(options);
  if (!snapshot) return tl::unexpected(snapshot.error());
  engine::CarriedState carried = RecoveredCarriedState(*daemon->store_, snapshot->jobs);
  daemon->journal_ = std::make_unique<Journal>(*daemon->store_);
  if (auto ok = daemon->ChoosePolicy(options, snapshot->meta, *policy); !ok) {
    return tl::unexpected(ok.error());
  }
  if (auto ok = daemon->Recover(options, std::move(*snapshot), cluster); !ok) {
    return tl::unexpected(ok.error());
  }
  daemon->admin_token_path_ = options.data_dir + "/" + kAdminTokenFileName;
  if (auto ok = daemon->EnsureAdminToken(); !ok) return tl::unexpected(ok.error());
  daemon->events_ =
      std::make_unique<EventLog>(static_cast<uint64_t>(daemon->clock_->WallNowUs()), 10'000);

  if (options.backend == BackendKind::kSimulated) {
    daemon->backend_ = std::make_unique<SimulatedBackend>(cluster);
  } else {
    auto agents = std::make_unique<AgentsBackend>(daemon->state_, *daemon->events_, *daemon->clock_,
                                                  options.agents);
    daemon->agents_ = agents.get();
    daemon->backend_ = std::move(agents);
  }
  daemon->loop_ = std::make_unique<LiveLoop>(
      daemon->state_, *daemon->journal_, *daemon->events_, *daemon->backend_, *daemon->clock_,
      daemon->cycle_seconds_,
      LoopOptions{.policy = policy->policy,
                  .policy_text = policy->text,
                  .series_interval_us = options.series_interval_us,
                  .keep_finished_us = options.keep_finished_us,
                  .max_finished = options.max_finished,
                  .engine_snapshot_interval_us = options.engine_snapshot_interval_us,
                  .engine_snapshot_events = options.engine_snapshot_events,
                  .engine_log_keep_us = options.engine_log_keep_us,
                  .carried = std::move(carried),
                  .autoscale_interval_us = options.autoscale_interval_us,
                  .load_report_max_age_us = options.load_report_max_age_us});
  daemon->loop_->Start();
  if (!options.prometheus_url.empty()) {
    daemon->prometheus_ = std::make_unique<PrometheusLoad>(
        options.prometheus_url, daemon->state_, *daemon->clock_, options.autoscale_interval_us);
    daemon->prometheus_->Start();
  }

  ApiContext context{daemon->state_,   *daemon->journal_,      *daemon->loop_,  daemon->tokens_,
                     *daemon->events_, daemon->cycle_seconds_, *daemon->clock_, daemon->agents_};
  auto server = ApiServer::Start(
      context, ApiServerOptions{.host = options.host,
                                .port = options.port,
                                .tls_cert = options.tls_cert,
                                .tls_key = options.tls_key,
                                .workers = options.http_workers,
                                .max_connections = options.max_connections,
                                .max_long_polls_per_token = options.max_long_polls_per_token});
  if (!server) {
    daemon->loop_->Stop();
    daemon->journal_->Stop();
    return tl::unexpected(server.error());
  }
  daemon->server_ = std::move(*server);
  LogInfo("headroomd serving on {}://{}:{} (data dir {}, {} backend, policy {})",
          options.tls_cert.empty() ? "http" : "https", options.host, daemon->port(),
          options.data_dir, options.backend == BackendKind::kSimulated ? "simulated" : "agents",
          policy->policy.name);
  return daemon;
}

tl::expected<void, Error> Daemon::ChoosePolicy(const DaemonOptions& options,
                                               const std::vector<MetaRecord>& meta,
                                               sim::PolicyWithText& chosen) {
  const auto stored = std::find_if(meta.begin(), meta.end(),
                                   [](const MetaRecord& m) { return m.key == kPolicyKey; });
  if (options.policy_given) {
    if (stored != meta.end() && stored->value == chosen.text) return {};
    return journal_->Commit({MetaRecord{kPolicyKey, chosen.text}});
  }
  // None chosen yet: the default runs and is not kept, so that it follows upgrades.
  if (stored == meta.end()) return {};
  auto kept = engine::ParsePolicyYaml(stored->value, "the policy kept in the data dir");
  if (!kept) {
    // Set through the API, so it parsed then; a newer headroomd may have dropped a piece it
    // names. Starting matters more than the choice: run the default and say so.
    LogError("{}; running the {} policy instead (set one with --policy or PUT /v1/policy)",
             kept.error().message, chosen.policy.name);
    return {};
  }
  chosen = {std::move(*kept), stored->value};
  return {};
}

Result<StoreSnapshot> Daemon::LoadStore(const DaemonOptions& options) {
  LoadedStore loaded;
  if (options.repair) {
    auto all = store_->LoadAll();
    if (!all) return tl::unexpected(all.error());
    loaded = std::move(*all);
  } else {
    auto snapshot = store_->Load();  // Refuses on a bad row, saying how to repair.
    if (!snapshot) return tl::unexpected(snapshot.error());
    loaded.snapshot = std::move(*snapshot);
  }
  // Before anything is written: a store that lost its tables or the admin's row is not
  // started as if it were new (admin.token would then open nothing, and the jobs are gone).
  if (auto mismatch =
          AdminTokenMismatch(options.data_dir, store_->missing_tables(), loaded.snapshot.tokens)) {
    return MakeError(ErrorCode::kInvalidArgument, "{}", *mismatch);
  }
  if (!options.repair) return std::move(loaded.snapshot);
  // A quarantined job's id stays taken: next_job_id moves past it in the same transaction.
  uint64_t next_job_id = 0;
  for (const MetaRecord& meta : loaded.snapshot.meta) {
    if (meta.key == kNextJobIdKey) next_job_id = std::strtoull(meta.value.c_str(), nullptr, 10);
  }
  std::vector<StoreWrite> writes;
  for (const BadRow& row : loaded.bad_rows) {
    LogWarn("repair: {}: moved to the quarantine table", DescribeBadRow(row));
    if (row.table == "jobs" && static_cast<uint64_t>(row.rowid) >= next_job_id) {
      next_job_id = static_cast<uint64_t>(row.rowid) + 1;
      writes.clear();
      writes.push_back(MetaRecord{kNextJobIdKey, std::to_string(next_job_id)});
    }
  }
  if (auto ok = store_->Quarantine(loaded.bad_rows, writes, wall_clock_->WallNowUs()); !ok) {
    return tl::unexpected(ok.error());
  }
  for (StoreWrite& write : writes) loaded.snapshot.meta.push_back(std::get<MetaRecord>(write));
  LogInfo("repair: {} bad rows moved to the quarantine table of {}/{}", loaded.bad_rows.size(),
          options.data_dir, kStoreFileName);
  return std::move(loaded.snapshot);
}

tl::expected<void, Error> Daemon::Recover(const DaemonOptions& options, StoreSnapshot snapshot,
                                          std::shared_ptr<const model::Cluster> cluster) {
  TimeUs origin_us = 0;
  uint64_t next_job_id = 1;
  for (const MetaRecord& meta : snapshot.meta) {
    if (meta.key == kClockOriginKey) origin_us = std::strtoll(meta.value.c_str(), nullptr, 10);
    if (meta.key == kNextJobIdKey) next_job_id = std::strtoull(meta.value.c_str(), nullptr, 10);
  }
  if (origin_us == 0) {
    origin_us = wall_clock_->WallNowUs();
    if (auto ok = journal_->Commit({MetaRecord{kClockOriginKey, std::to_string(origin_us)}}); !ok) {
      return ok;
    }
  }
  clock_ =
      options.clock
          ? options.clock
          : std::shared_ptr<Clock>(std::make_shared<SystemClock>(options.time_scale, origin_us));

  std::lock_guard lock(state_.mu);
  state_.health_rules = options.health_rules;
  size_t pending = 0;
  size_t running = 0;
  state_.next_job_id = std::max(state_.next_job_id, next_job_id);
  for (JobRecord& job : snapshot.jobs) {
    state_.next_job_id = std::max(state_.next_job_id, job.id + 1);
    pending += job.state == JobState::kPending ? 1 : 0;
    running += job.state == JobState::kRunning ? 1 : 0;
    state_.jobs.Put(std::move(job));
  }
  for (ServiceRecord& service : snapshot.services) {
    state_.next_service_id = std::max(state_.next_service_id, service.id + 1);
    state_.services.emplace(service.id, std::move(service));
  }
  std::map<std::string, NodeRecord> stored_nodes;
  for (NodeRecord& node : snapshot.nodes) stored_nodes.emplace(node.name, std::move(node));
  const TimeUs wall = clock_->WallNowUs();
  if (cluster != nullptr) {
    for (const model::Node& node : cluster->nodes()) {
      NodeStatus status;
      auto it = stored_nodes.find(node.name);
      status.record = it != stored_nodes.end() ? it->second : NodeRecord{.name = node.name};
      status.record.registered = false;
      state_.nodes.emplace(node.name, std::move(status));
    }
  } else {
    // Agents: known nodes get one grace period from now to heartbeat again.
    for (auto& [name, record] : stored_nodes) {
      if (!record.registered) continue;
      NodeStatus status;
      status.record = record;
      status.last_heartbeat_us = wall;
      state_.nodes.emplace(name, std::move(status));
    }
  }
  for (const MetaRecord& meta : snapshot.meta) {
    if (!meta.key.starts_with(kHealthKeyPrefix)) continue;
    const std::string name = meta.key.substr(kHealthKeyPrefix.size());
    // Text that is not JSON parses as "discarded", which FromJson refuses as not an object.
    auto book = DeviceHealthBook::FromJson(nlohmann::json::parse(meta.value, nullptr, false));
    if (!book) {
      // Health is judged again from the next heartbeats; only operators' moves are lost.
      LogWarn("meta row {}: {}; the node's device health starts afresh", meta.key,
              book.error().message);
      continue;
    }
    if (auto it = state_.nodes.find(name); it != state_.nodes.end()) {
      it->second.health_book = std::move(*book);
    } else {
      state_.parked_health_books[name] = std::move(*book);
    }
  }
  for (const TokenRecord& token : snapshot.tokens) tokens_.Add(token);
  LogInfo("recovered {} jobs ({} pending, {} running), {} services, {} nodes, {} tokens",
          state_.jobs.size(), pending, running, state_.services.size(), state_.nodes.size(),
          tokens_.size());
  return {};
}

tl::expected<void, Error> Daemon::EnsureAdminToken() {
  if (std::filesystem::exists(admin_token_path_)) return {};
  const std::string token = NewToken();
  const TokenRecord record{.hash_hex = Sha256Hex(token), .role = Role::kAdmin};
  if (auto ok = journal_->Commit({record}); !ok) return ok;
  tokens_.Add(record);
  // Written beside it and renamed into place: a crash never leaves an empty or partial
  // admin.token, which the next start would refuse (AdminTokenMismatch).
  const std::string temporary = admin_token_path_ + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return MakeError(ErrorCode::kIo, "cannot write {}: {}", temporary, std::strerror(errno));
  }
  const std::string line = token + "\n";
  const bool written = ::fchmod(fd, 0600) == 0 &&
                       ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                       ::fsync(fd) == 0;
  ::close(fd);
  if (!written || std::rename(temporary.c_str(), admin_token_path_.c_str()) != 0) {
    return MakeError(ErrorCode::kIo, "cannot write {}: {}", admin_token_path_,
                     std::strerror(errno));
  }
  LogInfo("wrote the admin token to {}", admin_token_path_);
  return {};
}

void Daemon::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (events_) events_->Close();
  if (server_) server_->Stop();
  if (prometheus_) prometheus_->Stop();
  if (loop_) loop_->Stop();
  if (journal_) journal_->Stop();
  LogInfo("headroomd stopped");
}

Daemon::~Daemon() { Stop(); }

}  // namespace headroom::control
