#include "control/data_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "control/logging.h"
#include "control/token_auth.h"

namespace headroom::control {
namespace {

std::string Join(std::span<const std::string> names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// "headroomd pid 4242" from the lock file's "4242 headroomd"; a generic name when the holder
// has not written it yet.
std::string Holder(const std::string& path) {
  std::ifstream in(path);
  std::string pid;
  std::string program;
  in >> pid;
  std::getline(in >> std::ws, program);
  const bool digits =
      !pid.empty() && pid.size() <= 10 &&
      std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) return "another process (its pid is not written yet)";
  if (program.empty() || program.size() > 40) program = "process";
  return fmt::format("{} pid {}", program, pid);
}

// chmod 0600 when `path` exists with any group or other bit, or the owner's execute bit.
tl::expected<void, Error> Tighten(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return {};
    return MakeError(ErrorCode::kIo, "{}: {}", path, std::strerror(errno));
  }
  if ((info.st_mode & 0777) == 0600 || (info.st_mode & 0177) == 0) return {};
  if (::chmod(path.c_str(), 0600) != 0) {
    return MakeError(ErrorCode::kIo, "{} is mode {:o} and cannot be made 0600: {}", path,
                     info.st_mode & 0777, std::strerror(errno));
  }
  LogWarn("{} was mode {:o}; made it 0600", path, info.st_mode & 0777);
  return {};
}

}  // namespace

Result<std::unique_ptr<DataDirLock>> DataDirLock::Acquire(const std::string& dir,
                                                          std::string_view holder) {
  return Take(dir, holder, O_CREAT);
}

Result<std::unique_ptr<DataDirLock>> DataDirLock::AcquireIfFree(const std::string& dir,
                                                                std::string_view holder) {
  auto lock = Take(dir, holder, 0);
  if (!lock) {
    if (lock.error().code == ErrorCode::kIo) return tl::unexpected(lock.error());
    return std::unique_ptr<DataDirLock>();
  }
  return lock;
}

Result<std::unique_ptr<DataDirLock>> DataDirLock::Take(const std::string& dir,
                                                       std::string_view holder, int create) {
  const std::string path = dir + "/" + kLockFileName;
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | create, 0600);
  if (fd < 0) {
    if (errno == ENOENT && create == 0) {
      return MakeError(ErrorCode::kNotFound, "no lock file {}", path);
    }
    return MakeError(ErrorCode::kIo, "cannot open the lock file {}: {}", path,
                     std::strerror(errno));
  }
  // flock, not fcntl: its lock belongs to this open file, so a second daemon in the same
  // process (tests) is refused too, and closing fd releases it.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error != EWOULDBLOCK) {
      return MakeError(ErrorCode::kIo, "cannot lock {}: {}", path, std::strerror(error));
    }
    return MakeError(ErrorCode::kInvalidArgument,
                     "data dir {} is in use by {} (lock {}); stop that one first, or give this "
                     "one another --data-dir",
                     dir, Holder(path), path);
  }
  const std::string line = fmt::format("{} {}\n", ::getpid(), holder);
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    const int error = errno;
    ::close(fd);
    return MakeError(ErrorCode::kIo, "cannot write {}: {}", path, std::strerror(error));
  }
  return std::unique_ptr<DataDirLock>(new DataDirLock(fd));
}

DataDirLock::~DataDirLock() { ::close(fd_); }

tl::expected<void, Error> CreateDataDir(const std::string& dir) {
  std::error_code error;
  if (std::filesystem::is_directory(dir, error)) return {};
  const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  if (error || (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)) {
    return MakeError(ErrorCode::kIo, "--data-dir {}: cannot create it: {}", dir,
                     error ? error.message() : std::strerror(errno));
  }
  // mkdir's mode passes through the umask; 0700 is what we promise.
  if (::chmod(dir.c_str(), 0700) != 0) {
    return MakeError(ErrorCode::kIo, "--data-dir {}: cannot make it 0700: {}", dir,
                     std::strerror(errno));
  }
  return {};
}

tl::expected<void, Error> SecureDataFiles(const std::string& dir) {
  const std::string store = dir + "/" + kStoreFileName;
  const int fd = ::open(store.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
  } else if (errno != EEXIST) {
    return MakeError(ErrorCode::kIo, "cannot create {}: {} (is the data dir writable?)", store,
                     std::strerror(errno));
  }
  for (const std::string& path :
       {store, store + "-wal", store + "-shm", dir + "/" + kAdminTokenFileName}) {
    if (auto ok = Tighten(path); !ok) return ok;
  }
  return {};
}

std::optional<std::string> AdminTokenMismatch(const std::string& dir,
                                              std::span<const std::string> missing_tables,
                                              std::span<const TokenRecord> tokens) {
  const std::string token_path = dir + "/" + kAdminTokenFileName;
  std::error_code error;
  if (!std::filesystem::exists(token_path, error)) return std::nullopt;
  std::string what;
  if (missing_tables.size() == kStoreTables.size()) {
    what =
        fmt::format("{}/{} holds no tables (it is new, empty or zero-length)", dir, kStoreFileName);
  } else if (!missing_tables.empty()) {
    what = fmt::format("{}/{} lacks the tables {}", dir, kStoreFileName, Join(missing_tables));
  } else {
    std::ifstream in(token_path);
    std::string token;
    in >> token;
    const std::string hash = Sha256Hex(token);
    const bool known = std::any_of(tokens.begin(), tokens.end(), [&](const TokenRecord& row) {
      return row.role == Role::kAdmin && row.hash_hex == hash;
    });
    if (known) return std::nullopt;
    what = token.empty()
               ? fmt::format("{} holds no token", token_path)
               : fmt::format("{}/{} has no valid row for that admin token", dir, kStoreFileName);
  }
  return fmt::format(
      "{} exists, but {}: this is not the store that token was made with. Restore {} (with its "
      "-wal file) from a backup; or, to go on with the store as it is, move {} away and "
      "headroomd writes a new admin token",
      token_path, what, kStoreFileName, kAdminTokenFileName);
}

Result<OfflineStore> OpenStoreOffline(const std::string& dir, std::string_view holder) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    return MakeError(ErrorCode::kNotFound, "--data-dir {}: not a directory", dir);
  }
  OfflineStore offline;
  offline.path = dir + "/" + kStoreFileName;
  if (!std::filesystem::exists(offline.path, error)) {
    return MakeError(ErrorCode::kNotFound, "{}: no such file (is {} a headroomd data dir?)",
                     offline.path, dir);
  }
  // With no headroomd on the dir, the reader holds the lock itself, and its connection is the
  // store's only one: SQLite then removes the -wal and -shm files it opened at close, rather
  // than leave them owned by whoever ran the reader (root, say), where headroomd could not open
  // them. Beside a running headroomd those files exist already.
  auto lock = DataDirLock::AcquireIfFree(dir, holder);
  if (!lock) return tl::unexpected(lock.error());
  offline.lock = std::move(*lock);
  auto store = SqliteStore::Open(
      offline.path, StoreOpenOptions{.read_only = true, .sole_user = offline.lock != nullptr});
  if (!store) return tl::unexpected(store.error());
  offline.store = std::move(*store);
  return offline;
}

Result<StoreCheck> CheckStore(const std::string& dir) {
  auto offline = OpenStoreOffline(dir, "headroom store check");
  if (!offline) return tl::unexpected(offline.error());
  StoreCheck check;
  check.store_path = offline->path;
  SqliteStore& store = *offline->store;
  auto loaded = store.LoadAll();
  if (!loaded) return tl::unexpected(loaded.error());
  auto quarantined = store.QuarantinedRows();
  if (!quarantined) return tl::unexpected(quarantined.error());
  const std::vector<std::string>& missing = store.missing_tables();
  if (auto mismatch = AdminTokenMismatch(dir, missing, loaded->snapshot.tokens)) {
    check.problems.push_back(*mismatch);
  } else if (!missing.empty() && missing.size() < kStoreTables.size()) {
    check.problems.push_back(fmt::format("{} lacks the tables {} (headroomd would make them empty)",
                                         check.store_path, Join(missing)));
  }
  check.bad_rows = std::move(loaded->bad_rows);
  check.jobs = loaded->snapshot.jobs.size();
  check.services = loaded->snapshot.services.size();
  check.nodes = loaded->snapshot.nodes.size();
  check.tokens = loaded->snapshot.tokens.size();
  check.quarantined = *quarantined;
  return check;
}

}  // namespace headroom::control
