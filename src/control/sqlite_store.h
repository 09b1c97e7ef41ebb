// SqliteStore: the daemon's durable state in one embedded SQLite file (DATA_DIR/headroom.db),
// WAL mode with synchronous=FULL, so a committed transaction survives a crash of the process
// and of the machine. Rows are the structs of records.h; Apply writes a batch in one
// transaction (the journal's group commit), Load reads everything back at start.
//
// Promises:
//  1. Apply is all-or-nothing; after it returns success the rows are on disk.
//  2. Loading judges every row (sqlite_store_load.cc): a row that does not make a valid record
//     is a BadRow naming its table, its key and what is wrong, never a crash. Load refuses on
//     one; LoadAll skips and lists them; Quarantine moves them out of the way in one
//     transaction (docs/control.md "The data dir").
//  3. A read-only store (StoreOpenOptions) creates neither the file nor its schema and writes
//     no row.
// Errors are Result values carrying SQLite's message.
// Threading: not thread-safe; the journal's writer thread is the only user after start.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "control/records.h"

struct sqlite3;
struct sqlite3_stmt;

namespace headroom::control {

// The tables a store must hold. (The quarantine table is made by Open too, but a store from
// before it existed lacks it, and that is fine.)
inline constexpr std::array<std::string_view, 5> kStoreTables = {"jobs", "services", "nodes",
                                                                 "tokens", "meta"};

// A row that does not load. `table` is "jobs", "services", "nodes", "tokens" or "meta"; `key`
// names the row as an operator would ("id 7", "name \"n1\"", escaped and cut short);
// `problem` is one line. `rowid` and `row_json` (the row's columns as a JSON object) are what
// Quarantine moves.
struct BadRow {
  std::string table;
  std::string key;
  std::string problem;
  int64_t rowid = 0;
  std::string row_json;
};

// "jobs id 7: column 'state': expected an integer in [0, 4], got 9"
std::string DescribeBadRow(const BadRow& row);

// Everything LoadAll read: the good rows, and the bad ones by table (jobs, services, nodes,
// tokens, meta), then key.
struct LoadedStore {
  StoreSnapshot snapshot;
  std::vector<BadRow> bad_rows;
};

struct StoreOpenOptions {
  // Open an existing file as it is, creating neither it nor its schema, and write no row
  // (`headroom store check`); Apply and Quarantine then fail.
  bool read_only = false;
  // With read_only: no other process has the store open (the caller holds the data dir's
  // lock), so this connection is SQLite's last at close, which removes the -wal and -shm files
  // (after moving what a crashed writer left in the WAL into the database, as any open does).
  // Without it SQLite opens the database read-only and leaves those files behind.
  bool sole_user = false;
};

// A record of the engine log as stored.
struct EngineLogRecord {
  int64_t seq = 0;
  TimeUs time_us = 0;
  std::string body;
};

class SqliteStore {
 public:
  // Opens (creating if needed, unless read-only) the database at `path` and its schema.
  static Result<std::unique_ptr<SqliteStore>> Open(const std::string& path,
                                                   const StoreOpenOptions& options = {});
  ~SqliteStore();
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  // The schema's tables (jobs, services, nodes, tokens, meta) that the file lacked when Open
  // found it: all of them for a new or zero-length file. Open creates them unless read-only.
  const std::vector<std::string>& missing_tables() const { return missing_tables_; }

  // Every row; the first bad row refuses, with a message that names its table, key and
  // problem and says how to go on (`headroom store check`, `headroomd --repair`).
  Result<StoreSnapshot> Load();
  // Every row, judged: good ones into the snapshot, bad ones listed. Fails only when SQLite
  // does.
  Result<LoadedStore> LoadAll();
  // Calls `visit` with every engine log record after `after_seq`, in order, until one fails.
  tl::expected<void, Error> ForEachEngineLogRecord(
      int64_t after_seq,
      const std::function<tl::expected<void, Error>(const EngineLogRecord&)>& visit);
  // The newest build record of the engine log (engine_log.h), if it has one.
  Result<std::optional<EngineLogRecord>> NewestEngineLogBuild();
  // Moves `rows` (from LoadAll) into the quarantine table and applies `writes`, in one
  // transaction.
  tl::expected<void, Error> Quarantine(std::span<const BadRow> rows,
                                       std::span<const StoreWrite> writes, TimeUs now_us);
  // How many rows the quarantine table holds (0 when it does not exist).
  Result<int64_t> QuarantinedRows();

  tl::expected<void, Error> Apply(std::span<const StoreWrite> writes);

 private:
  SqliteStore(sqlite3* db, std::string path, bool read_only)
      : db_(db), path_(std::move(path)), read_only_(read_only) {}
  tl::expected<void, Error> Exec(const char* sql);
  tl::expected<void, Error> Prepare();
  tl::expected<void, Error> FindMissingTables();
  tl::expected<void, Error> Write(const StoreWrite& write);
  // Steps a prepared write and resets it for the next.
  tl::expected<void, Error> Run(sqlite3_stmt* statement);
  tl::expected<void, Error> MoveToQuarantine(const BadRow& row, TimeUs now_us);
  Error Failure(std::string_view what) const;

  sqlite3* db_;
  std::string path_;
  bool read_only_ = false;
  std::vector<std::string> missing_tables_;
  sqlite3_stmt* put_job_ = nullptr;
  sqlite3_stmt* update_job_ = nullptr;
  sqlite3_stmt* put_service_ = nullptr;
  sqlite3_stmt* put_node_ = nullptr;
  sqlite3_stmt* put_token_ = nullptr;
  sqlite3_stmt* put_meta_ = nullptr;
  sqlite3_stmt* delete_job_ = nullptr;
  sqlite3_stmt* delete_service_ = nullptr;
  sqlite3_stmt* append_log_ = nullptr;
  sqlite3_stmt* index_build_ = nullptr;
  sqlite3_stmt* trim_log_ = nullptr;
  sqlite3_stmt* trim_builds_ = nullptr;
};

// JSON forms used in the store's text columns (and by tests).
std::string PlacementToJson(const std::vector<TaskPlacement>& placement);
Result<std::vector<TaskPlacement>> PlacementFromJson(std::string_view text);
std::string InventoryToJson(const std::vector<model::RegisteredDevice>& devices);
Result<std::vector<model::RegisteredDevice>> InventoryFromJson(std::string_view text);

}  // namespace headroom::control
