#include "sim/traces/stepfun_faults.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/csv.h"
#include "sim/traces/trace_fields.h"

namespace headroom::sim {
namespace {

using Json = nlohmann::json;

// Far beyond any fault trace; keeps day counts finite and their microseconds in range.
constexpr double kMaxDays = 100 * 365.25;

struct Event {
  size_t index;  // In file order, from 0.
  double days;
  bool start;
  std::string key;  // node, level, class and description, joined.
};

}  // namespace

Result<FaultTrace> ParseStepfunFaults(std::string_view text, std::string source) {
  const Json document = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_array()) {
    return MakeError(
        ErrorCode::kInvalidArgument, "{}: expected a JSON array of fault events, got {}", source,
        document.is_discarded() ? std::string("text that is not JSON") : ShownJson(document));
  }
  size_t index = 0;
  auto where = [&](std::string_view field) {
    return fmt::format("{}: event {}: field '{}': ", source, index + 1, field);
  };
  auto text_of = [&](const Json& object, const char* field) -> Result<std::string> {
    const auto it = object.find(field);
    if (it == object.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "{}expected a text, got {}", where(field),
                       it == object.end() ? std::string("nothing") : ShownJson(*it));
    }
    return it->get<std::string>();
  };

  FaultTrace trace;
  std::vector<Event> events;
  events.reserve(document.size());
  for (; index < document.size(); ++index) {
    const Json& object = document[index];
    if (!object.is_object()) {
      return MakeError(ErrorCode::kInvalidArgument, "{}: event {}: expected an object, got {}",
                       source, index + 1, ShownJson(object));
    }
    auto node = text_of(object, "node_id");
    if (!node) return tl::unexpected(node.error());
    const auto time = object.find("event_time");
    const bool numeric = time != object.end() && time->is_number();
    const double days = numeric ? time->get<double>() : -1;
    if (!numeric || !std::isfinite(days) || days < 0 || days > kMaxDays) {
      return MakeError(ErrorCode::kInvalidArgument, "{}expected days from 0 to {}, got {}",
                       where("event_time"), static_cast<int64_t>(kMaxDays),
                       time == object.end() ? std::string("nothing") : ShownJson(*time));
    }
    auto type = text_of(object, "event_type");
    if (!type) return tl::unexpected(type.error());
    if (*type != "fault_start" && *type != "fault_end") {
      return MakeError(ErrorCode::kInvalidArgument, "{}expected fault_start or fault_end, got {}",
                       where("event_type"), ShownJson(object.at("event_type")));
    }
    const auto fault = object.find("fault_type");
    if (fault == object.end() || !fault->is_object()) {
      return MakeError(
          ErrorCode::kInvalidArgument, "{}expected an object with Level, Class and Desc, got {}",
          where("fault_type"), fault == object.end() ? std::string("nothing") : ShownJson(*fault));
    }
    std::string key = *node;
    for (const char* part : {"Level", "Class", "Desc"}) {
      auto value = text_of(*fault, part);
      if (!value) return tl::unexpected(value.error());
      key += '\0';
      key += *value;
    }
    events.push_back({index, days, *type == "fault_start", std::move(key)});
  }

  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.days < b.days; });
  std::unordered_map<std::string, std::deque<size_t>> open;  // key -> faults, oldest first
  std::unordered_set<std::string> nodes;
  for (const Event& event : events) {
    trace.span_days = std::max(trace.span_days, event.days);
    if (event.start) {
      open[event.key].push_back(trace.faults.size());
      NodeFault fault;
      size_t begin = 0;
      std::string* parts[] = {&fault.node, &fault.level, &fault.fault_class, &fault.description};
      for (std::string* part : parts) {
        const size_t end = std::min(event.key.find('\0', begin), event.key.size());
        *part = event.key.substr(begin, end - begin);
        begin = end + 1;
      }
      fault.start_days = fault.end_days = event.days;
      nodes.insert(fault.node);
      trace.faults.push_back(std::move(fault));
      continue;
    }
    auto it = open.find(event.key);
    if (it == open.end() || it->second.empty()) {
      index = event.index;
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}expected a fault_start of this node and fault before this fault_end, "
                       "got none",
                       where("event_type"));
    }
    trace.faults[it->second.front()].end_days = event.days;
    it->second.pop_front();
    if (it->second.empty()) open.erase(it);
  }
  for (const auto& [key, faults] : open) {
    for (size_t fault : faults) trace.faults[fault].end_days = trace.span_days;
  }
  trace.nodes = nodes.size();
  trace.source = std::move(source);
  return trace;
}

Result<FaultTrace> LoadStepfunFaults(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  return ParseStepfunFaults(*text, path);
}

}  // namespace headroom::sim
