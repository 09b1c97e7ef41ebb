#include "agent/task_record_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace headroom::agent {
namespace {

constexpr uintmax_t kMaxFileBytes = 4 << 20;

using Json = nlohmann::json;

Result<int64_t> IntegerAt(const Json& object, const char* key, const std::string& path) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) {
    return MakeError(ErrorCode::kInvalidArgument, "field '{}.{}': expected an integer", path, key);
  }
  return it->get<int64_t>();
}

Result<TaskRecord> RecordFrom(const Json& item, const std::string& path) {
  if (!item.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument, "field '{}': expected an object", path);
  }
  TaskRecord record;
  for (const auto& [key, target] : {std::pair<const char*, int64_t*>{"job", &record.job},
                                    {"attempt", &record.attempt},
                                    {"started_unix_s", &record.started_unix_s}}) {
    auto value = IntegerAt(item, key, path);
    if (!value) return tl::unexpected(value.error());
    *target = *value;
  }
  auto rank = IntegerAt(item, "rank", path);
  auto pid = IntegerAt(item, "pid", path);
  auto pgid = IntegerAt(item, "pgid", path);
  if (!rank) return tl::unexpected(rank.error());
  if (!pid) return tl::unexpected(pid.error());
  if (!pgid) return tl::unexpected(pgid.error());
  if (*pid <= 0 || *pgid <= 0) {
    return MakeError(ErrorCode::kInvalidArgument, "field '{}.pid': expected a positive pid", path);
  }
  record.rank = static_cast<int>(*rank);
  record.pid = static_cast<pid_t>(*pid);
  record.pgid = static_cast<pid_t>(*pgid);
  auto ticks = item.find("start_ticks");
  if (ticks == item.end() || !ticks->is_number_unsigned()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "field '{}.start_ticks': expected a non-negative integer", path);
  }
  record.start_ticks = ticks->get<uint64_t>();
  auto devices = item.find("devices");
  if (devices == item.end() || !devices->is_array()) {
    return MakeError(ErrorCode::kInvalidArgument, "field '{}.devices': expected a list", path);
  }
  for (const Json& device : *devices) {
    if (!device.is_number_integer()) {
      return MakeError(ErrorCode::kInvalidArgument, "field '{}.devices': expected integers", path);
    }
    record.devices.push_back(device.get<int>());
  }
  return record;
}

Result<void> SyncDirectory(const std::filesystem::path& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return MakeError(ErrorCode::kIo, "cannot open {}: {}", dir.string(), std::strerror(errno));
  }
  const int rc = fsync(fd);
  const int error = errno;
  close(fd);
  if (rc != 0) {
    return MakeError(ErrorCode::kIo, "cannot sync {}: {}", dir.string(), std::strerror(error));
  }
  return {};
}

}  // namespace

Result<std::vector<TaskRecord>> TaskRecordFile::Load() const {
  std::vector<TaskRecord> records;
  std::error_code error;
  if (!std::filesystem::exists(path_, error)) return records;
  const uintmax_t size = std::filesystem::file_size(path_, error);
  if (error) {
    return MakeError(ErrorCode::kIo, "{}: cannot read: {}", path_, error.message());
  }
  if (size > kMaxFileBytes) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: {} bytes, more than a task list holds",
                     path_, size);
  }
  std::ifstream in(path_, std::ios::binary);
  if (!in) return MakeError(ErrorCode::kIo, "{}: cannot open: {}", path_, std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  const Json document = Json::parse(text.str(), nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: not a JSON object", path_);
  }
  auto tasks = document.find("tasks");
  if (tasks == document.end() || !tasks->is_array()) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: field 'tasks': expected a list", path_);
  }
  for (size_t i = 0; i < tasks->size(); ++i) {
    auto record = RecordFrom((*tasks)[i], fmt::format("tasks[{}]", i));
    if (!record) return tl::unexpected(WithContext(record.error(), path_));
    records.push_back(std::move(*record));
  }
  return records;
}

Result<void> TaskRecordFile::Save(const std::vector<TaskRecord>& records) const {
  const std::filesystem::path file(path_);
  const std::filesystem::path dir = file.parent_path();
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return MakeError(ErrorCode::kIo, "cannot create {}: {}", dir.string(), error.message());
  }
  Json tasks = Json::array();
  for (const TaskRecord& record : records) {
    tasks.push_back({{"job", record.job},
                     {"rank", record.rank},
                     {"attempt", record.attempt},
                     {"pid", record.pid},
                     {"pgid", record.pgid},
                     {"start_ticks", record.start_ticks},
                     {"devices", record.devices},
                     {"started_unix_s", record.started_unix_s}});
  }
  const std::string text = Json{{"tasks", std::move(tasks)}}.dump() + "\n";
  const std::string temporary = path_ + ".tmp";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return MakeError(ErrorCode::kIo, "cannot write {}: {}", temporary, std::strerror(errno));
  }
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int write_error = errno;
      close(fd);
      return MakeError(ErrorCode::kIo, "cannot write {}: {}", temporary,
                       std::strerror(write_error));
    }
    written += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    const int sync_error = errno;
    close(fd);
    return MakeError(ErrorCode::kIo, "cannot sync {}: {}", temporary, std::strerror(sync_error));
  }
  close(fd);
  if (std::rename(temporary.c_str(), path_.c_str()) != 0) {
    return MakeError(ErrorCode::kIo, "cannot rename {} to {}: {}", temporary, path_,
                     std::strerror(errno));
  }
  return SyncDirectory(dir);
}

}  // namespace headroom::agent
