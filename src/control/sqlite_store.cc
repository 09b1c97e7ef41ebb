#include "control/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace headroom::control {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY, service_id INTEGER NOT NULL, spec TEXT NOT NULL,
  state INTEGER NOT NULL, submit_us INTEGER NOT NULL, start_us INTEGER NOT NULL,
  end_us INTEGER NOT NULL, placement TEXT NOT NULL, exit_code INTEGER,
  requeues INTEGER NOT NULL, starts INTEGER NOT NULL, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS services (
  id INTEGER PRIMARY KEY, spec TEXT NOT NULL, submit_us INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
  name TEXT PRIMARY KEY, drained INTEGER NOT NULL, drain_reason TEXT NOT NULL,
  registered INTEGER NOT NULL, cpu_milli INTEGER NOT NULL, memory_mib INTEGER NOT NULL,
  devices TEXT NOT NULL, address TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
  hash TEXT PRIMARY KEY, role TEXT NOT NULL, tenant TEXT NOT NULL, node TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS engine_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, time_us INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS engine_log_builds (
  seq INTEGER PRIMARY KEY, time_us INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS quarantine (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, table_name TEXT NOT NULL, row_key TEXT NOT NULL,
  problem TEXT NOT NULL, row_json TEXT NOT NULL, quarantined_us INTEGER NOT NULL);
)sql";

void BindText(sqlite3_stmt* statement, int index, const std::string& text) {
  sqlite3_bind_text(statement, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

// The engine log record of a row selected as (seq, time_us, body).
EngineLogRecord LogRecordAt(sqlite3_stmt* statement) {
  const unsigned char* body = sqlite3_column_text(statement, 2);
  return EngineLogRecord{
      .seq = sqlite3_column_int64(statement, 0),
      .time_us = sqlite3_column_int64(statement, 1),
      .body = body != nullptr ? reinterpret_cast<const char*>(body) : std::string()};
}

void BindOptional(sqlite3_stmt* statement, int index, const std::optional<int32_t>& value) {
  if (value) {
    sqlite3_bind_int(statement, index, *value);
  } else {
    sqlite3_bind_null(statement, index);
  }
}

}  // namespace

// Written straight to text, in the form an nlohmann tree of it dumps to (members sorted): every
// start writes a placement twice (the job's row and the engine log), and building the tree cost
// more than the rest of the start's journaling. Only the node name is a string; the library
// quotes it.
std::string PlacementToJson(const std::vector<TaskPlacement>& placement) {
  fmt::memory_buffer out;
  out.push_back('[');
  for (const TaskPlacement& task : placement) {
    if (&task != &placement.front()) out.push_back(',');
    fmt::format_to(
        std::back_inserter(out),
        R"({{"cpu_milli":{},"devices":[{}],"memory_mib":{},"milli":{},"node":{},)", task.cpu_milli,
        fmt::join(task.device_indices, ","), task.memory_mib, task.milli_per_device,
        nlohmann::json(task.node).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    // Uncapped, as every placement was before caps: no member.
    if (task.power_cap_w != 0)
      fmt::format_to(std::back_inserter(out), R"("power_cap_w":{},)", task.power_cap_w);
    fmt::format_to(std::back_inserter(out), R"("rank":{}}})", task.rank);
  }
  out.push_back(']');
  return fmt::to_string(out);
}

Result<std::vector<TaskPlacement>> PlacementFromJson(std::string_view text) {
  if (text == "[]") return std::vector<TaskPlacement>();  // Every pending job's.
  try {
    const nlohmann::json in = nlohmann::json::parse(text);
    std::vector<TaskPlacement> placement;
    for (const nlohmann::json& task : in) {
      placement.push_back(
          TaskPlacement{.rank = task.at("rank").get<uint32_t>(),
                        .node = task.at("node").get<std::string>(),
                        .device_indices = task.at("devices").get<std::vector<uint32_t>>(),
                        .milli_per_device = task.at("milli").get<uint32_t>(),
                        .cpu_milli = task.at("cpu_milli").get<int64_t>(),
                        .memory_mib = task.at("memory_mib").get<int64_t>(),
                        .power_cap_w = task.value("power_cap_w", uint32_t{0})});
    }
    return placement;
  } catch (const nlohmann::json::exception& e) {
    return MakeError(ErrorCode::kInvalidArgument, "placement: {}", e.what());
  }
}

std::string InventoryToJson(const std::vector<model::RegisteredDevice>& devices) {
  nlohmann::json out = nlohmann::json::array();
  for (const model::RegisteredDevice& device : devices) {
    out.push_back(model::RegisteredDeviceJson(device));
  }
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<std::vector<model::RegisteredDevice>> InventoryFromJson(std::string_view text) {
  try {
    const nlohmann::json in = nlohmann::json::parse(text);
    std::vector<model::RegisteredDevice> devices;
    for (const nlohmann::json& device : in) {
      // Rows written before the contract's form held clique_id "" where it now holds null.
      const nlohmann::json& clique = device.at("clique_id");
      devices.push_back(model::RegisteredDevice{
          .index = device.at("index").get<uint32_t>(),
          .uuid = device.at("uuid").get<std::string>(),
          .model = device.at("model").get<std::string>(),
          .memory_mib = device.at("memory_mib").get<int64_t>(),
          .clique_id = clique.is_null() ? std::string() : clique.get<std::string>()});
    }
    return devices;
  } catch (const nlohmann::json::exception& e) {
    return MakeError(ErrorCode::kInvalidArgument, "devices: {}", e.what());
  }
}

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path,
                                                       const StoreOpenOptions& options) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (options.read_only) {
    flags =
        (options.sole_user ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
  }
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return MakeError(ErrorCode::kIo, "cannot open the store {}: {} (is the data dir writable?)",
                     path, message);
  }
  std::unique_ptr<SqliteStore> store(new SqliteStore(db, path, options.read_only));
  sqlite3_busy_timeout(db, 5000);
  if (auto ok = store->FindMissingTables(); !ok) {
    return MakeError(ErrorCode::kIo,
                     "store {}: {} (restore it from a backup, or move it away "
                     "to start with an empty store)",
                     path, ok.error().message);
  }
  if (options.read_only) {
    // A sole user's connection is writable so that its close may clean up; it writes no row.
    if (auto ok = store->Exec("PRAGMA query_only=1;"); !ok) return tl::unexpected(ok.error());
    return store;
  }
  for (const char* sql : {"PRAGMA journal_mode=WAL;", "PRAGMA synchronous=FULL;", kSchema}) {
    if (auto ok = store->Exec(sql); !ok) {
      return MakeError(ErrorCode::kIo, "store {}: {}", path, ok.error().message);
    }
  }
  if (auto ok = store->Prepare(); !ok) return tl::unexpected(ok.error());
  return store;
}

tl::expected<void, Error> SqliteStore::FindMissingTables() {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &statement,
                         nullptr) != SQLITE_OK) {
    return tl::unexpected(Failure("reading the schema"));
  }
  std::vector<std::string> present;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    const unsigned char* name = sqlite3_column_text(statement, 0);
    if (name != nullptr) present.emplace_back(reinterpret_cast<const char*>(name));
  }
  sqlite3_finalize(statement);
  if (rc != SQLITE_DONE) return tl::unexpected(Failure("reading the schema"));
  missing_tables_.clear();
  for (const std::string_view table : kStoreTables) {
    if (std::find(present.begin(), present.end(), table) == present.end()) {
      missing_tables_.emplace_back(table);
    }
  }
  return {};
}

SqliteStore::~SqliteStore() {
  for (sqlite3_stmt* statement :
       {put_job_, update_job_, put_service_, put_node_, put_token_, put_meta_, delete_job_,
        delete_service_, append_log_, index_build_, trim_log_, trim_builds_}) {
    sqlite3_finalize(statement);
  }
  sqlite3_close(db_);
}

Error SqliteStore::Failure(std::string_view what) const {
  return Error{ErrorCode::kIo, fmt::format("{}: {}", what, sqlite3_errmsg(db_))};
}

tl::expected<void, Error> SqliteStore::Exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    Error error{ErrorCode::kIo, message != nullptr ? message : "unknown SQLite error"};
    sqlite3_free(message);
    return tl::unexpected(error);
  }
  return {};
}

tl::expected<void, Error> SqliteStore::Prepare() {
  const std::pair<sqlite3_stmt**, const char*> statements[] = {
      {&put_job_,
       "INSERT OR REPLACE INTO jobs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"},
      {&update_job_,
       "UPDATE jobs SET state = ?2, start_us = ?3, end_us = ?4, placement = ?5, exit_code = ?6, "
       "requeues = ?7, starts = ?8, message = ?9 WHERE id = ?1"},
      {&put_service_, "INSERT OR REPLACE INTO services VALUES (?1, ?2, ?3)"},
      {&put_node_, "INSERT OR REPLACE INTO nodes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
      {&put_token_, "INSERT OR REPLACE INTO tokens VALUES (?1, ?2, ?3, ?4)"},
      {&put_meta_, "INSERT OR REPLACE INTO meta VALUES (?1, ?2)"},
      {&delete_job_, "DELETE FROM jobs WHERE id = ?1"},
      {&delete_service_, "DELETE FROM services WHERE id = ?1"},
      {&append_log_, "INSERT INTO engine_log (time_us, body) VALUES (?1, ?2)"},
      {&index_build_, "INSERT INTO engine_log_builds (seq, time_us) VALUES (?1, ?2)"},
      {&trim_log_,
       "DELETE FROM engine_log WHERE seq < "
       "(SELECT max(seq) FROM engine_log_builds WHERE time_us <= ?1)"},
      {&trim_builds_,
       "DELETE FROM engine_log_builds WHERE seq < "
       "(SELECT max(seq) FROM engine_log_builds WHERE time_us <= ?1)"},
  };
  for (const auto& [statement, sql] : statements) {
    if (sqlite3_prepare_v2(db_, sql, -1, statement, nullptr) != SQLITE_OK) {
      return tl::unexpected(Failure("prepare"));
    }
  }
  return {};
}

tl::expected<void, Error> SqliteStore::Write(const StoreWrite& write) {
  sqlite3_stmt* statement = nullptr;
  if (const auto* job = std::get_if<JobRecord>(&write)) {
    statement = put_job_;
    sqlite3_bind_int64(statement, 1, static_cast<int64_t>(job->id));
    sqlite3_bind_int64(statement, 2, static_cast<int64_t>(job->service_id));
    BindText(statement, 3, SpecJson(*job));
    sqlite3_bind_int(statement, 4, static_cast<int>(job->state));
    sqlite3_bind_int64(statement, 5, job->submit_us);
    sqlite3_bind_int64(statement, 6, job->start_us);
    sqlite3_bind_int64(statement, 7, job->end_us);
    BindText(statement, 8, PlacementToJson(job->placement));
    BindOptional(statement, 9, job->exit_code);
    sqlite3_bind_int64(statement, 10, job->requeues);
    sqlite3_bind_int64(statement, 11, job->starts);
    BindText(statement, 12, job->message);
  } else if (const auto* progress = std::get_if<JobProgress>(&write)) {
    statement = update_job_;
    sqlite3_bind_int64(statement, 1, static_cast<int64_t>(progress->id));
    sqlite3_bind_int(statement, 2, static_cast<int>(progress->state));
    sqlite3_bind_int64(statement, 3, progress->start_us);
    sqlite3_bind_int64(statement, 4, progress->end_us);
    BindText(statement, 5, PlacementToJson(progress->placement));
    BindOptional(statement, 6, progress->exit_code);
    sqlite3_bind_int64(statement, 7, progress->requeues);
    sqlite3_bind_int64(statement, 8, progress->starts);
    BindText(statement, 9, progress->message);
  } else if (const auto* service = std::get_if<ServiceRecord>(&write)) {
    statement = put_service_;
    sqlite3_bind_int64(statement, 1, static_cast<int64_t>(service->id));
    BindText(statement, 2, JobSpecToJson(service->spec));
    sqlite3_bind_int64(statement, 3, service->submit_us);
  } else if (const auto* node = std::get_if<NodeRecord>(&write)) {
    statement = put_node_;
    BindText(statement, 1, node->name);
    sqlite3_bind_int(statement, 2, node->drained ? 1 : 0);
    BindText(statement, 3, node->drain_reason);
    sqlite3_bind_int(statement, 4, node->registered ? 1 : 0);
    sqlite3_bind_int64(statement, 5, node->cpu_milli);
    sqlite3_bind_int64(statement, 6, node->memory_mib);
    BindText(statement, 7, InventoryToJson(node->devices));
    BindText(statement, 8, node->address);
  } else if (const auto* token = std::get_if<TokenRecord>(&write)) {
    statement = put_token_;
    BindText(statement, 1, token->hash_hex);
    BindText(statement, 2, std::string(RoleName(token->role)));
    BindText(statement, 3, token->tenant);
    BindText(statement, 4, token->node);
  } else if (const auto* meta = std::get_if<MetaRecord>(&write)) {
    statement = put_meta_;
    BindText(statement, 1, meta->key);
    BindText(statement, 2, meta->value);
  } else if (const auto* removal = std::get_if<JobRemoval>(&write)) {
    statement = delete_job_;
    sqlite3_bind_int64(statement, 1, static_cast<int64_t>(removal->id));
  } else if (const auto* service_removal = std::get_if<ServiceRemoval>(&write)) {
    statement = delete_service_;
    sqlite3_bind_int64(statement, 1, static_cast<int64_t>(service_removal->id));
  } else if (const auto* record = std::get_if<EngineLogAppend>(&write)) {
    statement = append_log_;
    sqlite3_bind_int64(statement, 1, record->time_us);
    BindText(statement, 2, record->body);
    if (auto ok = Run(statement); !ok) return ok;
    if (!record->build) return {};
    statement = index_build_;
    sqlite3_bind_int64(statement, 1, sqlite3_last_insert_rowid(db_));
    sqlite3_bind_int64(statement, 2, record->time_us);
  } else {
    // The log's rows go first: the builds' index still names the cut.
    const TimeUs keep_from_us = std::get<EngineLogTrim>(write).keep_from_us;
    sqlite3_bind_int64(trim_log_, 1, keep_from_us);
    if (auto ok = Run(trim_log_); !ok) return ok;
    statement = trim_builds_;
    sqlite3_bind_int64(statement, 1, keep_from_us);
  }
  if (auto ok = Run(statement); !ok) return ok;
  if (statement == update_job_ && sqlite3_changes(db_) != 1) {
    return MakeError(ErrorCode::kNotFound, "job {} has no row to update",
                     std::get<JobProgress>(write).id);
  }
  return {};
}

tl::expected<void, Error> SqliteStore::Run(sqlite3_stmt* statement) {
  const int rc = sqlite3_step(statement);
  sqlite3_reset(statement);
  sqlite3_clear_bindings(statement);
  if (rc != SQLITE_DONE) return tl::unexpected(Failure("write"));
  return {};
}

Result<std::optional<EngineLogRecord>> SqliteStore::NewestEngineLogBuild() {
  std::optional<EngineLogRecord> newest;
  sqlite3_stmt* statement = nullptr;
  // A file from before the builds' index has none to name (read-only opens do not create it).
  if (sqlite3_prepare_v2(db_,
                         "SELECT e.seq, e.time_us, e.body FROM engine_log_builds b JOIN "
                         "engine_log e ON e.seq = b.seq ORDER BY b.seq DESC LIMIT 1",
                         -1, &statement, nullptr) != SQLITE_OK) {
    sqlite3_finalize(statement);
    return newest;
  }
  const int rc = sqlite3_step(statement);
  if (rc == SQLITE_ROW) {
    newest = LogRecordAt(statement);
  }
  sqlite3_finalize(statement);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    return tl::unexpected(Failure("reading the engine log"));
  }
  return newest;
}

tl::expected<void, Error> SqliteStore::ForEachEngineLogRecord(
    int64_t after_seq,
    const std::function<tl::expected<void, Error>(const EngineLogRecord&)>& visit) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_,
                         "SELECT seq, time_us, body FROM engine_log WHERE seq > ?1 ORDER BY seq",
                         -1, &statement, nullptr) != SQLITE_OK) {
    return tl::unexpected(Failure("reading the engine log"));
  }
  sqlite3_bind_int64(statement, 1, after_seq);
  int rc = SQLITE_ROW;
  tl::expected<void, Error> result;
  while (result && (rc = sqlite3_step(statement)) == SQLITE_ROW) {
    result = visit(LogRecordAt(statement));
  }
  sqlite3_finalize(statement);
  if (!result) return result;
  if (rc != SQLITE_DONE) return tl::unexpected(Failure("reading the engine log"));
  return {};
}

tl::expected<void, Error> SqliteStore::Apply(std::span<const StoreWrite> writes) {
  if (writes.empty()) return {};
  if (read_only_) return MakeError(ErrorCode::kIo, "store {} is open read-only", path_);
  if (auto ok = Exec("BEGIN IMMEDIATE"); !ok) return ok;
  for (const StoreWrite& write : writes) {
    if (auto ok = Write(write); !ok) {
      (void)Exec("ROLLBACK");
      return ok;
    }
  }
  if (auto ok = Exec("COMMIT"); !ok) {
    (void)Exec("ROLLBACK");
    return ok;
  }
  return {};
}

}  // namespace headroom::control
