#include "cli/client/api_tables.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/client/table.h"

namespace headroom::cli {
namespace {

using nlohmann::json;

std::string Text(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key)) return "-";
  const json& value = object[key];
  if (value.is_string()) return value.get<std::string>().empty() ? "-" : value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return "-";
}

std::optional<int64_t> Integer(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return std::nullopt;
  return object[key].is_number_integer() ? object[key].get<int64_t>()
                                         : std::llround(object[key].get<double>());
}

std::optional<double> Seconds(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return std::nullopt;
  return object[key].get<double>();
}

const json& List(const json& root, const char* key) {
  static const json kEmpty = json::array();
  if (root.is_object() && root.contains(key) && root[key].is_array()) return root[key];
  if (root.is_array()) return root;
  return kEmpty;
}

// "4×8" (4 tasks of 8 devices), "1×0.5" (a shared device), "2×0" (CPU only).
std::string Shape(const json& job) {
  const int64_t tasks = Integer(job, "tasks").value_or(1);
  const int64_t devices = Integer(job, "devices_per_task").value_or(0);
  const int64_t share = Integer(job, "share_milli").value_or(1000);
  if (devices == 1 && share > 0 && share < 1000)
    return fmt::format("{}×{}", tasks, FormatMilli(share));
  return fmt::format("{}×{}", tasks, devices);
}

// Node names of a placement in rank order, each once: "n1,n2".
std::string PlacedNodes(const json& job) {
  std::vector<std::string> nodes;
  if (job.contains("placement") && job["placement"].is_array()) {
    for (const json& slot : job["placement"]) {
      const std::string node = Text(slot, "node");
      if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
    }
  }
  if (nodes.empty()) return "-";
  std::string out;
  for (const std::string& node : nodes) out += (out.empty() ? "" : ",") + node;
  return out;
}

// " expected start in 4:05" / " expected start now", or "" when unknown.
std::string ExpectedStart(const json& job, double now_s) {
  const auto start = Seconds(job, "expected_start");
  if (!start) return "";
  const int64_t in = std::llround(*start - now_s);
  return in > 0 ? fmt::format(" expected start in {}", FormatElapsed(in))
                : std::string(" expected start now");
}

std::string PendingReason(const json& job, double now_s) {
  std::string out;
  const json* reason = job.contains("pending_reason") && job["pending_reason"].is_object()
                           ? &job["pending_reason"]
                           : nullptr;
  if (reason != nullptr) {
    const std::string code = Text(*reason, "code");
    const std::string message = Text(*reason, "message");
    out = message == "-" ? fmt::format("({})", code) : fmt::format("({}: {})", code, message);
  } else {
    out = "(waiting for the next scheduling cycle)";
  }
  return out + ExpectedStart(job, now_s);
}

}  // namespace

std::string FormatExplain(const json& job, double now_s) {
  std::string out =
      fmt::format("job {} ({}, tenant {}): {}, {} devices\n", Text(job, "id"), Text(job, "name"),
                  Text(job, "tenant"), Text(job, "state"), Shape(job));
  if (Text(job, "state") == "running") {
    return out + fmt::format("runs on {}\n", PlacedNodes(job));
  }
  const json* reason = job.contains("pending_reason") && job["pending_reason"].is_object()
                           ? &job["pending_reason"]
                           : nullptr;
  if (Text(job, "state") != "pending" || reason == nullptr) return out;
  std::string codes;
  for (const json& code : List(*reason, "reasons")) {
    if (code.is_string()) codes += (codes.empty() ? "" : ", ") + code.get<std::string>();
  }
  out += fmt::format("reasons: {}\n", codes.empty() ? Text(*reason, "code") : codes);
  out += fmt::format("why: {}\n", Text(*reason, "message"));
  const json& nodes = List(*reason, "nodes");
  if (!nodes.empty()) {
    out += "nodes:\n";
    for (const json& tally : nodes) {
      out += fmt::format("  {:>7}  {}\n", Text(tally, "nodes"), Text(tally, "constraint"));
    }
    if (Integer(job, "tasks").value_or(1) > 1) {
      out += fmt::format("  tasks placeable now: {} of {}\n", Text(*reason, "tasks_placeable"),
                         Text(job, "tasks"));
    }
  }
  const std::string start = ExpectedStart(job, now_s);
  out += start.empty() ? "no expected start within the plan's horizon\n" : start.substr(1) + "\n";
  return out;
}

std::string FormatElapsed(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const int64_t days = seconds / 86400;
  const int64_t hours = seconds / 3600 % 24;
  const int64_t minutes = seconds / 60 % 60;
  const int64_t secs = seconds % 60;
  if (days > 0) return fmt::format("{}-{:02}:{:02}:{:02}", days, hours, minutes, secs);
  if (hours > 0) return fmt::format("{}:{:02}:{:02}", hours, minutes, secs);
  if (minutes > 0) return fmt::format("{}:{:02}", minutes, secs);
  return std::to_string(secs);
}

std::string FormatMilli(int64_t milli) {
  std::string out = fmt::format("{}", milli / 1000);
  int64_t fraction = std::llabs(milli % 1000);
  if (fraction == 0) return out;
  std::string digits = fmt::format("{:03}", fraction);
  while (digits.back() == '0') digits.pop_back();
  if (milli < 0 && milli > -1000) out = "-0";
  return out + "." + digits;
}

std::string FormatQueue(const json& jobs, double now_s) {
  Table table({{"ID", true},
               {"NAME"},
               {"TENANT"},
               {"STATE"},
               {"TASKS×GPUS", true},
               {"TIME", true},
               {"NODES(REASON)"}});
  for (const json& job : List(jobs, "jobs")) {
    const std::string state = Text(job, "state");
    std::string time = "-";
    const auto submit = Seconds(job, "submit_time");
    const auto start = Seconds(job, "start_time");
    const auto end = Seconds(job, "end_time");
    if (start) {
      time = FormatElapsed(std::llround(end.value_or(now_s) - *start));
    } else if (submit) {
      time = FormatElapsed(std::llround(end.value_or(now_s) - *submit));
    }
    const std::string where = state == "pending" ? PendingReason(job, now_s) : PlacedNodes(job);
    table.AddRow(
        {Text(job, "id"), Text(job, "name"), Text(job, "tenant"), state, Shape(job), time, where});
  }
  return table.Render();
}

std::string FormatNodes(const json& nodes) {
  Table table({{"NODE"},
               {"STATE"},
               {"GPUS", true},
               {"ALLOC", true},
               {"MODEL"},
               {"RACK"},
               {"HEALTH"},
               {"REASON"}});
  for (const json& node : List(nodes, "nodes")) {
    std::string state = Text(node, "state");
    if (node.contains("ready") && node["ready"].is_boolean() && !node["ready"].get<bool>() &&
        state == "up") {
      state = "up(not ready)";
    }
    // Kept idle for jobs faults requeue (recovery.hot_spares).
    if (node.contains("hot_spare") && node["hot_spare"].is_boolean() &&
        node["hot_spare"].get<bool>() && state == "up") {
      state = "up(spare)";
    }
    std::string rack = "-";
    if (node.contains("path") && node["path"].is_array() && !node["path"].empty() &&
        node["path"].back().is_string()) {
      rack = node["path"].back().get<std::string>();
    }
    const auto milli = Integer(node, "allocated_milli");
    // "ok", or the devices not healthy by state: "failed:3 suspect:1".
    std::string health;
    if (node.contains("device_health") && node["device_health"].is_object()) {
      for (const auto& [name, count] : node["device_health"].items()) {
        if (!count.is_number_integer()) continue;
        health += fmt::format("{}{}:{}", health.empty() ? "" : " ", name, count.get<int64_t>());
      }
    }
    table.AddRow({Text(node, "name"), state, Text(node, "devices"),
                  milli ? FormatMilli(*milli) : "-", Text(node, "device_model"), rack,
                  health.empty() ? "ok" : health,
                  Text(node, "drain_reason") == "-" ? "" : Text(node, "drain_reason")});
  }
  return table.Render();
}

namespace {

// "12.5" of a JSON number under `key` in `amounts`, or "-" when absent.
std::string Amount(const json& amounts, const char* key) {
  if (!amounts.is_object() || !amounts.contains(key) || !amounts[key].is_number()) return "-";
  return fmt::format("{:g}", amounts[key].get<double>());
}

const json& Field(const json& object, const char* key) {
  static const json kNull;
  return object.is_object() && object.contains(key) ? object[key] : kNull;
}

// "H100 12/16, A100 0/8": devices used of those guaranteed, by model; "-" without.
std::string ByModel(const json& usage, const json& guaranteed) {
  const json& used = Field(usage, "device_models");
  if (!used.is_object() || used.empty()) return "-";
  std::vector<std::string> parts;
  for (const auto& [model, amount] : used.items()) {
    parts.push_back(fmt::format("{} {}/{}", model, amount.is_number() ? amount.get<double>() : 0.0,
                                Amount(Field(guaranteed, "device_models"), model.c_str())));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string FormatQueues(const json& queues) {
  Table table({{"QUEUE"},
               {"PARENT"},
               {"GPUS USED", true},
               {"GUARANTEED", true},
               {"BORROW LIMIT", true},
               {"LEND LIMIT", true},
               {"BORROWING"},
               {"SHARE", true},
               {"LEVEL FS", true},
               {"BY MODEL"}});
  for (const json& queue : List(queues, "queues")) {
    const json& parent = Field(queue, "parent");
    const json& borrowing = Field(queue, "borrowing");
    // Fair-share level: share among siblings, and S/U ("inf" before any usage).
    const json& fair_share = Field(queue, "fair_share");
    const json& level = Field(fair_share, "level_fairshare");
    const std::string level_text = !fair_share.is_object() ? "-"
                                   : level.is_number() ? fmt::format("{:.3g}", level.get<double>())
                                                       : "inf";
    const json& share = Field(fair_share, "share");
    table.AddRow({Text(queue, "name"), parent.is_string() ? parent.get<std::string>() : "-",
                  Amount(Field(queue, "usage"), "devices"),
                  Amount(Field(queue, "guaranteed"), "devices"),
                  Amount(Field(queue, "borrowing_limit"), "devices"),
                  Amount(Field(queue, "lending_limit"), "devices"),
                  borrowing.is_boolean() && borrowing.get<bool>() ? "yes" : "no",
                  share.is_number() ? fmt::format("{:.3g}", share.get<double>()) : "-", level_text,
                  ByModel(Field(queue, "usage"), Field(queue, "guaranteed"))});
  }
  std::string out = table.Render();
  const json& share = Field(queues, "fair_share");
  if (share.is_object()) {
    out += fmt::format("tenant {}: fair-share factor {}, share {}, usage {} device-s\n",
                       Text(share, "tenant"), Amount(share, "factor"), Amount(share, "share"),
                       Amount(share, "usage_device_s"));
  }
  return out;
}

// "1..12, 30 req/s -> 6": an autoscaled service's bounds, its last reported load and the count
// its autoscaler asked for; "-" for a service without autoscaling.
std::string Autoscaling(const json& service) {
  const json& bounds = Field(service, "autoscaling");
  if (!bounds.is_object()) return "-";
  std::string out = Text(bounds, "minReplicas") + ".." + Text(bounds, "maxReplicas");
  const json& load = Field(service, "load");
  if (load.is_object()) {
    out += ", " + Amount(load, "requestsPerSecond") + " req/s";
    if (load.contains("desiredReplicas")) out += " -> " + Text(load, "desiredReplicas");
  }
  return out;
}

std::string FormatServices(const json& services) {
  Table table({{"ID", true},
               {"NAME"},
               {"TENANT"},
               {"REPLICAS", true},
               {"RUNNING", true},
               {"AUTOSCALING"},
               {"JOBS"}});
  for (const json& service : List(services, "services")) {
    std::string ids;
    if (service.contains("jobs") && service["jobs"].is_array()) {
      for (const json& id : service["jobs"]) {
        if (id.is_number_integer())
          ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int64_t>());
      }
    }
    table.AddRow({Text(service, "id"), Text(service, "name"), Text(service, "tenant"),
                  Text(service, "replicas"), Text(service, "running"), Autoscaling(service),
                  ids.empty() ? "-" : ids});
  }
  return table.Render();
}

}  // namespace headroom::cli
