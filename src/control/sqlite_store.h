// SqliteStore: the daemon's durable state in one embedded SQLite file (DATA_DIR/headroom.db),
// WAL mode with synchronous=FULL, so a committed transaction survives a crash of the process
// and of the machine. Rows are the structs of records.h; Apply writes a batch in one
// transaction (the journal's group commit), Load reads everything back at start.
//
// Promises: Apply is all-or-nothing; after it returns success the rows are on disk. Errors are
// Result values carrying SQLite's message.
// Threading: not thread-safe; the journal's writer thread is the only user after start.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "base/result.h"
#include "control/records.h"

struct sqlite3;
struct sqlite3_stmt;

namespace headroom::control {

class SqliteStore {
 public:
  // Opens (creating if needed) the database at `path` and its schema.
  static Result<std::unique_ptr<SqliteStore>> Open(const std::string& path);
  ~SqliteStore();
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  Result<StoreSnapshot> Load();
  tl::expected<void, Error> Apply(std::span<const StoreWrite> writes);

 private:
  explicit SqliteStore(sqlite3* db) : db_(db) {}
  tl::expected<void, Error> Exec(const char* sql);
  tl::expected<void, Error> Prepare();
  tl::expected<void, Error> Write(const StoreWrite& write);
  Error Failure(std::string_view what) const;

  sqlite3* db_;
  sqlite3_stmt* put_job_ = nullptr;
  sqlite3_stmt* put_service_ = nullptr;
  sqlite3_stmt* put_node_ = nullptr;
  sqlite3_stmt* put_token_ = nullptr;
  sqlite3_stmt* put_meta_ = nullptr;
  sqlite3_stmt* delete_job_ = nullptr;
  sqlite3_stmt* delete_service_ = nullptr;
};

// JSON forms used in the store's text columns (and by tests).
std::string PlacementToJson(const std::vector<TaskPlacement>& placement);
Result<std::vector<TaskPlacement>> PlacementFromJson(std::string_view text);
std::string InventoryToJson(const std::vector<DeviceInventory>& devices);
Result<std::vector<DeviceInventory>> InventoryFromJson(std::string_view text);

}  // namespace headroom::control
