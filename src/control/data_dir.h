// DataDir: what headroomd does to its data directory before it trusts the store in it
// (docs/control.md "The data dir").
//
// Promises:
//  1. One daemon per data dir: DataDirLock holds an exclusive flock(2) on DIR/headroomd.lock,
//     which names the holder ("4242 headroomd"). The kernel drops the lock when the process
//     dies, however it dies, so kill -9 never leaves a stale lock. A second Acquire, from
//     another process or the same one, fails with a message naming the holder's pid and the
//     lock file.
//  2. Private files: a data dir headroomd creates is 0700; headroom.db (and so the -wal and -shm
//     files SQLite makes beside it, which take its mode) and admin.token are created 0600, and
//     any of them found looser is tightened to 0600.
//  3. No silent empty start: AdminTokenMismatch says why a store cannot be the one an existing
//     admin.token was made with (tables missing, no row for the admin's token).
//  4. CheckStore reads a data dir without changing it (the store is opened read-only) and
//     lists everything headroomd's start would refuse.
// Threading: plain functions; a DataDirLock is owned by one Daemon.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "control/records.h"
#include "control/sqlite_store.h"

namespace headroom::control {

inline constexpr const char* kLockFileName = "headroomd.lock";
inline constexpr const char* kStoreFileName = "headroom.db";
inline constexpr const char* kAdminTokenFileName = "admin.token";

class DataDirLock {
 public:
  // Takes the lock for `holder` (the program's name), creating the file; fails, naming the
  // holder, while another has it.
  static Result<std::unique_ptr<DataDirLock>> Acquire(const std::string& dir,
                                                      std::string_view holder = "headroomd");
  // Takes it only when the file exists and nobody holds it, else gives nullptr: for a tool that
  // must not create a file another user's headroomd could not open.
  static Result<std::unique_ptr<DataDirLock>> AcquireIfFree(const std::string& dir,
                                                            std::string_view holder);
  ~DataDirLock();  // Closing the file releases the lock; the file itself stays.
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

 private:
  explicit DataDirLock(int fd) : fd_(fd) {}
  static Result<std::unique_ptr<DataDirLock>> Take(const std::string& dir, std::string_view holder,
                                                   int create);
  int fd_;
};

// Creates `dir` (and its parents) when missing, the dir itself with mode 0700.
tl::expected<void, Error> CreateDataDir(const std::string& dir);

// Creates DIR/headroom.db empty with mode 0600 when missing (SQLite gives its -wal and -shm
// files the database's mode), and tightens headroom.db, -wal, -shm and admin.token to 0600
// where they are looser.
tl::expected<void, Error> SecureDataFiles(const std::string& dir);

// When DIR/admin.token exists but the store (its `missing_tables` at open, its token rows)
// lacks the tables or the admin token's row: a message saying what is wrong and how to
// recover. nullopt when the store may be used.
std::optional<std::string> AdminTokenMismatch(const std::string& dir,
                                              std::span<const std::string> missing_tables,
                                              std::span<const TokenRecord> tokens);

// A data dir's store opened read-only by an offline reader (`headroom store check`, `headroom
// replay`): beside a running headroomd, or holding the dir's lock itself when none runs, so
// that no daemon starts on it meanwhile.
struct OfflineStore {
  std::string path;
  std::unique_ptr<DataDirLock> lock;  // nullptr beside a running headroomd.
  std::unique_ptr<SqliteStore> store;
};
Result<OfflineStore> OpenStoreOffline(const std::string& dir, std::string_view holder);

// What `headroom store check` finds in a data dir.
struct StoreCheck {
  std::string store_path;
  std::vector<std::string> problems;  // Whole-store problems: tables missing, the admin token.
  std::vector<BadRow> bad_rows;
  size_t jobs = 0;
  size_t services = 0;
  size_t nodes = 0;
  size_t tokens = 0;
  int64_t quarantined = 0;  // Rows an earlier --repair moved to the quarantine table.
  bool clean() const { return problems.empty() && bad_rows.empty(); }
};

// Reads DIR/headroom.db read-only. Fails when DIR or the store is not there or cannot be read.
Result<StoreCheck> CheckStore(const std::string& dir);

}  // namespace headroom::control
