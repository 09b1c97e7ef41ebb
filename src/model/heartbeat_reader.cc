#include "model/heartbeat_reader.h"

#include <sys/types.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <variant>

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

// Where the parser is: the member names each object may have are the bits of a mask, so a
// repeated one is seen.
enum class Where { kStart, kTop, kTasks, kTask, kTelemetry, kDevice, kEnd };
enum TopKey { kReady, kReadinessMessage, kTasksKey, kTelemetryKey };
enum TaskKeyName { kJob, kRank, kAttempt, kState, kExitCode, kPid, kMessage };
enum DeviceKey { kIndex, kTempC, kPowerW, kUtil, kXidErrors, kDeviceJob, kTenant };

template <size_t N>
int KeyIndex(const std::string& key, const std::string_view (&names)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (key == names[i]) return static_cast<int>(i);
  }
  return -1;
}

constexpr std::string_view kTopNames[] = {"ready", "readiness_message", "tasks", "telemetry"};
constexpr std::string_view kTaskNames[] = {"job",       "rank", "attempt", "state",
                                           "exit_code", "pid",  "message"};
constexpr std::string_view kDeviceNames[] = {"index",      "temp_c", "power_w", "util",
                                             "xid_errors", "job",    "tenant"};
constexpr size_t kMaxTasks = 1'000'000;  // ParseHeartbeatRequest's limits on the two lists.
constexpr size_t kMaxDevices = kMaxDeviceIndex + 1;
constexpr size_t kMaxTenantBytes = 256;

// The parser's events (nlohmann's SAX interface); returning false stops the parse, and the body
// goes the slow way.
class HeartbeatEvents {
 public:
  HeartbeatRequest request;
  bool complete() const { return where_ == Where::kEnd; }

  bool null() { return Value(nullptr); }
  bool boolean(bool value) { return Value(value); }
  bool number_integer(int64_t value) { return Value(value); }
  bool number_unsigned(uint64_t value) { return Value(value); }
  bool number_float(double value, const std::string& /*text*/) { return Value(value); }
  bool string(std::string& value) { return Value(&value); }
  bool binary(json::binary_t& /*value*/) { return false; }

  bool start_object(size_t /*elements*/) {
    item_seen_ = 0;
    present_ = 0;
    switch (where_) {
      case Where::kStart:
        where_ = Where::kTop;
        return true;
      case Where::kTasks:
        if (request.tasks.size() == kMaxTasks) return false;
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
    if (key_ < 0 || (*seen & (1u << key_)) != 0) return false;
    *seen |= 1u << key_;
    return true;
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

  bool parse_error(size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) {
    return false;
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
        if (!IntegerIn(value, 0, 1'000'000, number)) return false;
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
        if (null) return true;
        if (!IntegerIn(value, 0, std::numeric_limits<int64_t>::max(), number)) return false;
        reading.xid_errors = number;
        return true;
      case kDeviceJob:
        if (null) return true;
        if (!IntegerIn(value, 0, std::numeric_limits<int64_t>::max(), number)) return false;
        device_.job = number;
        return true;
      default:  // kTenant
        return OptionalString(value, kMaxTenantBytes, device_.tenant);
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

}  // namespace

std::optional<HeartbeatRequest> ReadPlainHeartbeat(std::string_view body) {
  HeartbeatEvents events;
  if (!json::sax_parse(body, &events) || !events.complete()) return std::nullopt;
  return std::move(events.request);
}

}  // namespace headroom::model
