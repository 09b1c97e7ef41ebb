#include "model/heartbeat_reader.h"

#include <sys/types.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace headroom::model {
namespace {

using nlohmann::json;

// One scalar as the parser reports it. Integers keep the parser's two kinds, as the slow way's
// range checks do.
using Scalar = std::variant<std::nullptr_t, bool, int64_t, uint64_t, double, std::string*>;

// The slow way's Integer(): integral JSON numbers in [min, max] only.
bool IntegerIn(const Scalar& value, int64_t min, int64_t max, int64_t& out) {
  if (const auto* i = std::get_if<int64_t>(&value)) {
    if (*i < min || *i > max) return false;
    out = *i;
    return true;
  }
  if (const auto* u = std::get_if<uint64_t>(&value)) {
    if (*u > static_cast<uint64_t>(max) || static_cast<int64_t>(*u) < min) return false;
    out = static_cast<int64_t>(*u);
    return true;
  }
  return false;
}

// IntegerIn, or null for none.
bool OptionalIntegerIn(const Scalar& value, int64_t min, int64_t max, std::optional<int64_t>& out) {
  if (std::holds_alternative<std::nullptr_t>(value)) return true;
  int64_t number = 0;
  if (!IntegerIn(value, min, max, number)) return false;
  out = number;
  return true;
}

// The slow way's OptionalNumber(): any finite JSON number, or null for none.
bool OptionalNumber(const Scalar& value, std::optional<double>& out) {
  if (std::holds_alternative<std::nullptr_t>(value)) return true;
  double number = 0;
  if (const auto* i = std::get_if<int64_t>(&value)) {
    number = static_cast<double>(*i);
  } else if (const auto* u = std::get_if<uint64_t>(&value)) {
    number = static_cast<double>(*u);
  } else if (const auto* d = std::get_if<double>(&value)) {
    number = *d;
  } else {
    return false;
  }
  if (!std::isfinite(number)) return false;
  out = number;
  return true;
}

// The slow way's OptionalString(): a string of at most `max_bytes`, or null for none.
bool OptionalString(const Scalar& value, size_t max_bytes, std::optional<std::string>& out) {
  if (std::holds_alternative<std::nullptr_t>(value)) return true;
  const auto* text = std::get_if<std::string*>(&value);
  if (text == nullptr || (*text)->size() > max_bytes) return false;
  out = std::move(**text);
  return true;
}

template <size_t N>
int KeyIndex(const std::string& key, const std::string_view (&names)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (key == names[i]) return static_cast<int>(i);
  }
  return -1;
}

constexpr size_t kMaxDevices = kMaxDeviceIndex + 1;  // ParseHeartbeatRequest's telemetry limit.

// Has a member been seen in its object already (a mask of the object's names)? Marks it.
bool SeenBefore(int key, uint32_t& seen) {
  if (key < 0 || (seen & (1u << key)) != 0) return true;
  seen |= 1u << key;
  return false;
}

// The scalar events of nlohmann's SAX interface, each passed on as one Scalar to Events::Value;
// a binary value (not JSON) or a parse error stops the parse. In the events classes below,
// returning false stops it too, and the body goes the slow way.
template <typename Events>
class ScalarEvents {
 public:
  bool null() { return Self().Value(nullptr); }
  bool boolean(bool value) { return Self().Value(value); }
  bool number_integer(int64_t value) { return Self().Value(value); }
  bool number_unsigned(uint64_t value) { return Self().Value(value); }
  bool number_float(double value, const std::string& /*text*/) { return Self().Value(value); }
  bool string(std::string& value) { return Self().Value(&value); }
  bool binary(json::binary_t& /*value*/) { return false; }
  bool parse_error(size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) {
    return false;
  }

 private:
  Events& Self() { return static_cast<Events&>(*this); }
};

// The parser's events for a heartbeat body. Where the parser is: the member names each object may
// have are the bits of a mask, so a repeated one is seen.
class HeartbeatEvents : public ScalarEvents<HeartbeatEvents> {
  friend class ScalarEvents<HeartbeatEvents>;
  enum class Where { kStart, kTop, kTasks, kTask, kTelemetry, kDevice, kEnd };
  enum TopKey { kReady, kReadinessMessage, kTasksKey, kTelemetryKey };
  enum TaskKeyName { kJob, kRank, kAttempt, kState, kExitCode, kPid, kMessage };
  enum DeviceKey {
    kIndex,
    kTempC,
    kPowerW,
    kUtil,
    kXidErrors,
    kEccUncorrectable,
    kRemappedRows,
    kRowRemapFailure,
    kNvlinkErrors,
    kDeviceJob,
    kTenant
  };
  static constexpr std::string_view kTopNames[] = {"ready", "readiness_message", "tasks",
                                                   "telemetry"};
  static constexpr std::string_view kTaskNames[] = {"job",       "rank", "attempt", "state",
                                                    "exit_code", "pid",  "message"};
  static constexpr std::string_view kDeviceNames[] = {"index",         "temp_c",
                                                      "power_w",       "util",
                                                      "xid_errors",    "ecc_uncorrectable",
                                                      "remapped_rows", "row_remap_failure",
                                                      "nvlink_errors", "job",
                                                      "tenant"};

 public:
  HeartbeatRequest request;
  bool complete() const { return where_ == Where::kEnd; }

  bool start_object(size_t /*elements*/) {
    item_seen_ = 0;
    present_ = 0;
    switch (where_) {
      case Where::kStart:
        where_ = Where::kTop;
        return true;
      case Where::kTasks:
        if (request.tasks.size() == kMaxReportedTasks) return false;
        task_ = TaskReport{};
        task_.key.attempt = 0;  // Absent: the agent did not send one.
        where_ = Where::kTask;
        return true;
      case Where::kTelemetry:
        if (request.telemetry.size() == kMaxDevices) return false;
        device_ = LabelledTelemetry{};
        where_ = Where::kDevice;
        return true;
      default:
        return false;
    }
  }

  bool key(std::string& name) {
    uint32_t* seen = &item_seen_;
    switch (where_) {
      case Where::kTop:
        key_ = KeyIndex(name, kTopNames);
        seen = &top_seen_;
        break;
      case Where::kTask:
        key_ = KeyIndex(name, kTaskNames);
        break;
      case Where::kDevice:
        key_ = KeyIndex(name, kDeviceNames);
        break;
      default:
        return false;
    }
    return !SeenBefore(key_, *seen);
  }

  bool end_object() {
    switch (where_) {
      case Where::kTop:
        where_ = Where::kEnd;
        return true;
      case Where::kTask:
        where_ = Where::kTasks;
        return EndTask();
      case Where::kDevice:
        where_ = Where::kTelemetry;
        if ((present_ & (1u << kIndex)) == 0) return false;
        request.telemetry.push_back(std::move(device_));
        return true;
      default:
        return false;
    }
  }

  bool start_array(size_t /*elements*/) {
    if (where_ != Where::kTop) return false;
    if (key_ == kTasksKey) {
      where_ = Where::kTasks;
      return true;
    }
    if (key_ == kTelemetryKey) {
      where_ = Where::kTelemetry;
      return true;
    }
    return false;
  }

  bool end_array() {
    if (where_ != Where::kTasks && where_ != Where::kTelemetry) return false;
    where_ = Where::kTop;
    return true;
  }

 private:
  bool Value(const Scalar& value) {
    switch (where_) {
      case Where::kTop:
        return TopValue(value);
      case Where::kTask:
        return TaskValue(value);
      case Where::kDevice:
        return DeviceValue(value);
      default:
        return false;
    }
  }

  bool TopValue(const Scalar& value) {
    const bool null = std::holds_alternative<std::nullptr_t>(value);
    switch (key_) {
      case kReady:
        if (null) return true;
        if (const auto* ready = std::get_if<bool>(&value)) {
          request.ready = *ready;
          return true;
        }
        return false;
      case kReadinessMessage: {
        std::optional<std::string> message;
        if (!OptionalString(value, kMaxReadinessMessageBytes, message)) return false;
        request.readiness_message = std::move(message).value_or("");
        return true;
      }
      default:  // The two lists: null is an empty one.
        return null;
    }
  }

  bool TaskValue(const Scalar& value) {
    if (std::holds_alternative<std::nullptr_t>(value)) return true;  // Null is absent.
    present_ |= 1u << key_;
    int64_t number = 0;
    switch (key_) {
      case kJob:
        if (!IntegerIn(value, 0, std::numeric_limits<int64_t>::max(), number)) return false;
        task_.key.job = number;
        return true;
      case kRank:
        if (!IntegerIn(value, 0, kMaxWorldSize, number)) return false;
        task_.key.rank = static_cast<int>(number);
        return true;
      case kAttempt:
        if (!IntegerIn(value, 1, std::numeric_limits<uint32_t>::max(), number)) return false;
        task_.key.attempt = number;
        return true;
      case kState: {
        const auto* state = std::get_if<std::string*>(&value);
        if (state == nullptr) return false;
        if (**state == "running") {
          task_.state = TaskState::kRunning;
        } else if (**state == "exited") {
          task_.state = TaskState::kExited;
        } else {
          return false;
        }
        return true;
      }
      case kExitCode:
        if (!IntegerIn(value, std::numeric_limits<int32_t>::min(),
                       std::numeric_limits<int32_t>::max(), number)) {
          return false;
        }
        task_.exit_code = static_cast<int>(number);
        return true;
      case kPid:
        if (!IntegerIn(value, 0, std::numeric_limits<pid_t>::max(), number)) return false;
        task_.pid = static_cast<pid_t>(number);
        return true;
      default: {  // kMessage
        std::optional<std::string> message;
        if (!OptionalString(value, kMaxReadinessMessageBytes, message)) return false;
        task_.message = std::move(message).value_or("");
        return true;
      }
    }
  }

  bool EndTask() {
    const uint32_t required = (1u << kJob) | (1u << kRank) | (1u << kState);
    if ((present_ & required) != required) return false;
    if (task_.state == TaskState::kExited && (present_ & (1u << kExitCode)) == 0) return false;
    request.tasks.push_back(std::move(task_));
    return true;
  }

  bool DeviceValue(const Scalar& value) {
    DeviceTelemetry& reading = device_.reading;
    const bool null = std::holds_alternative<std::nullptr_t>(value);
    if (!null) present_ |= 1u << key_;
    int64_t number = 0;
    switch (key_) {
      case kIndex:
        if (null) return true;  // Absent: refused at the end of the object.
        if (!IntegerIn(value, 0, kMaxDeviceIndex, number)) return false;
        reading.index = static_cast<int>(number);
        return true;
      case kTempC:
        return OptionalNumber(value, reading.temp_c);
      case kPowerW:
        return OptionalNumber(value, reading.power_w);
      case kUtil:
        return OptionalNumber(value, reading.util);
      case kXidErrors:
        return OptionalIntegerIn(value, 0, std::numeric_limits<int64_t>::max(), reading.xid_errors);
      case kEccUncorrectable:
        return OptionalIntegerIn(value, 0, std::numeric_limits<int64_t>::max(),
                                 reading.ecc_uncorrectable);
      case kRemappedRows:
        return OptionalIntegerIn(value, 0, std::numeric_limits<int64_t>::max(),
                                 reading.remapped_rows);
      case kRowRemapFailure:
        if (null) return true;
        if (!std::holds_alternative<bool>(value)) return false;
        reading.row_remap_failure = std::get<bool>(value);
        return true;
      case kNvlinkErrors:
        return OptionalIntegerIn(value, 0, std::numeric_limits<int64_t>::max(),
                                 reading.nvlink_errors);
      case kDeviceJob:
        return OptionalIntegerIn(value, 0, std::numeric_limits<int64_t>::max(), device_.job);
      default:  // kTenant
        return OptionalString(value, kMaxTenantLabelBytes, device_.tenant);
    }
  }

  Where where_ = Where::kStart;
  int key_ = -1;            // The member whose value comes next, by its object's names.
  uint32_t top_seen_ = 0;   // Members of the top object so far.
  uint32_t item_seen_ = 0;  // Members of the current task or device so far,
  uint32_t present_ = 0;    // and those of them that were not null.
  TaskReport task_;
  LabelledTelemetry device_;
};

// The events of a heartbeat reply, {"tasks": [DESIRED, ...]}, as HeartbeatReplyJson writes it.
class ReplyEvents : public ScalarEvents<ReplyEvents> {
  friend class ScalarEvents<ReplyEvents>;

 public:
  std::vector<DesiredTask> tasks;
  bool complete() const { return where_ == Where::kEnd; }

  bool start_object(size_t /*elements*/) {
    switch (where_) {
      case Where::kStart:
        where_ = Where::kTop;
        return true;
      case Where::kTasks:
        where_ = Where::kTask;
        task_ = DesiredTask{};
        seen_ = 0;
        return true;
      case Where::kTask:
        if (key_ != kEnv) return false;
        where_ = Where::kEnv;
        return true;
      default:
        return false;
    }
  }

  bool key(std::string& name) {
    if (where_ == Where::kEnv) {
      // The slow way's rules for a variable name; a repeated one goes the slow way.
      if (name.empty() || name.find_first_of(std::string_view("=\0", 2)) != std::string::npos ||
          task_.env.contains(name)) {
        return false;
      }
      env_name_ = std::move(name);
      return true;
    }
    if (where_ == Where::kTop) {
      if (name != "tasks" || top_seen_) return false;
      top_seen_ = true;
      return true;
    }
    if (where_ != Where::kTask) return false;
    key_ = KeyIndex(name, kDesiredNames);
    return !SeenBefore(key_, seen_);
  }

  bool end_object() {
    switch (where_) {
      case Where::kTop:
        where_ = Where::kEnd;
        return top_seen_;
      case Where::kTask:
        where_ = Where::kTasks;
        return EndTask();
      case Where::kEnv:
        where_ = Where::kTask;
        return true;
      default:
        return false;
    }
  }

  bool start_array(size_t /*elements*/) {
    if (where_ == Where::kTop) {
      where_ = Where::kTasks;
      return true;
    }
    if (where_ != Where::kTask) return false;
    if (key_ == kDevices) {
      where_ = Where::kDevices;
      return true;
    }
    if (key_ == kCommand) {
      where_ = Where::kCommand;
      return true;
    }
    return false;
  }

  bool end_array() {
    switch (where_) {
      case Where::kTasks:
        where_ = Where::kTop;
        return true;
      case Where::kDevices:
        where_ = Where::kTask;
        return true;
      case Where::kCommand:
        where_ = Where::kTask;
        return !task_.command.empty() && !task_.command.front().empty();
      default:
        return false;
    }
  }

 private:
  enum class Where { kStart, kTop, kTasks, kTask, kDevices, kCommand, kEnv, kEnd };
  // clang-format off
  enum DesiredKey { kJob, kRank, kAttempt, kWorldSize, kDevices, kCommand, kEnv, kRendezvous,
                    kTenant, kGrace, kCheckpointInterval, kPowerCap };
  static constexpr std::string_view kDesiredNames[] = {
      "job", "rank", "attempt", "world_size", "devices", "command", "env", "rendezvous",
      "tenant", "stop_grace_s", "checkpoint_interval_s", "power_cap_w"};
  // clang-format on

  static bool WithoutNul(const std::string& text) { return text.find('\0') == std::string::npos; }

  bool Value(const Scalar& value) {
    const auto* text = std::get_if<std::string*>(&value);
    switch (where_) {
      case Where::kDevices: {
        int64_t index = 0;
        if (!IntegerIn(value, 0, kMaxDeviceIndex, index)) return false;
        const int device = static_cast<int>(index);
        if (std::find(task_.devices.begin(), task_.devices.end(), device) != task_.devices.end()) {
          return false;
        }
        task_.devices.push_back(device);
        return true;
      }
      case Where::kCommand:
        if (text == nullptr || !WithoutNul(**text)) return false;
        task_.command.push_back(std::move(**text));
        return true;
      case Where::kEnv:
        if (text == nullptr || !WithoutNul(**text)) return false;
        task_.env.emplace(std::move(env_name_), std::move(**text));
        return true;
      case Where::kTask:
        return TaskValue(value, text);
      default:
        return false;
    }
  }

  bool TaskValue(const Scalar& value, std::string* const* text) {
    // The optional members may be null, which leaves their defaults.
    if (std::holds_alternative<std::nullptr_t>(value)) return key_ >= kEnv;
    int64_t number = 0;
    switch (key_) {
      case kJob:
        if (!IntegerIn(value, 0, std::numeric_limits<int64_t>::max(), number)) return false;
        task_.key.job = number;
        return true;
      case kRank:  // Checked against the gang size at the end: members come in any order.
        if (!IntegerIn(value, 0, kMaxWorldSize, number)) return false;
        task_.key.rank = static_cast<int>(number);
        return true;
      case kAttempt:
        if (!IntegerIn(value, 1, std::numeric_limits<uint32_t>::max(), number)) return false;
        task_.key.attempt = number;
        return true;
      case kWorldSize:
        if (!IntegerIn(value, 1, kMaxWorldSize, number)) return false;
        task_.world_size = static_cast<int>(number);
        return true;
      case kEnv:  // An object of strings (start_object), or null for none.
        return false;
      case kRendezvous:
        if (text == nullptr || !WithoutNul(**text)) return false;
        task_.rendezvous = std::move(**text);
        return true;
      case kTenant:
        if (text == nullptr) return false;
        task_.tenant = std::move(**text);
        return true;
      case kGrace:
        if (!IntegerIn(value, 0, kMaxStopGraceS, number)) return false;
        task_.stop_grace_s = number;
        return true;
      case kCheckpointInterval:
        if (!IntegerIn(value, 1, kMaxCheckpointIntervalS, number)) return false;
        task_.checkpoint_interval_s = number;
        return true;
      case kPowerCap:
        if (!IntegerIn(value, 1, kMaxPowerCapW, number)) return false;
        task_.power_cap_w = number;
        return true;
      default:  // The two lists must be lists.
        return false;
    }
  }

  bool EndTask() {
    const uint32_t required =
        (1u << kJob) | (1u << kRank) | (1u << kWorldSize) | (1u << kDevices) | (1u << kCommand);
    if ((seen_ & required) != required || task_.key.rank >= task_.world_size) return false;
    if (!ranks_.insert({task_.key.job, task_.key.rank}).second) return false;
    tasks.push_back(std::move(task_));
    return true;
  }

  Where where_ = Where::kStart;
  bool top_seen_ = false;  // "tasks" was there.
  int key_ = -1;
  uint32_t seen_ = 0;  // Members of the current task so far.
  DesiredTask task_;
  std::string env_name_;
  std::set<std::pair<int64_t, int>> ranks_;
};

}  // namespace

std::optional<std::vector<DesiredTask>> ReadPlainHeartbeatReply(std::string_view body) {
  ReplyEvents events;
  if (!json::sax_parse(body, &events) || !events.complete()) return std::nullopt;
  return std::move(events.tasks);
}

Result<std::vector<DesiredTask>> ReadHeartbeatReply(std::string_view body) {
  if (auto tasks = ReadPlainHeartbeatReply(body)) return *std::move(tasks);
  return ParseHeartbeatReply(body);
}

std::optional<HeartbeatRequest> ReadPlainHeartbeat(std::string_view body) {
  HeartbeatEvents events;
  if (!json::sax_parse(body, &events) || !events.complete()) return std::nullopt;
  return std::move(events.request);
}

}  // namespace headroom::model
