#include "control/device_health.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/check.h"

namespace headroom::control {
namespace {

using Json = nlohmann::json;

struct Finding {
  DeviceState to;
  std::string evidence;
};

// The worse of two findings: failed outranks degraded outranks suspect.
int Severity(DeviceState state) {
  switch (state) {
    case DeviceState::kFailed:
      return 3;
    case DeviceState::kDegraded:
      return 2;
    case DeviceState::kSuspect:
      return 1;
    default:
      return 0;
  }
}

void Keep(std::optional<Finding>& worst, DeviceState to, std::string evidence) {
  if (!worst || Severity(to) > Severity(worst->to)) worst = Finding{to, std::move(evidence)};
}

std::optional<DeviceState> StateByName(std::string_view name) {
  for (DeviceState state : kDeviceStates) {
    if (DeviceStateName(state) == name) return state;
  }
  return std::nullopt;
}

}  // namespace

std::string_view DeviceStateName(DeviceState state) {
  switch (state) {
    case DeviceState::kHealthy:
      return "healthy";
    case DeviceState::kSuspect:
      return "suspect";
    case DeviceState::kDegraded:
      return "degraded";
    case DeviceState::kDiagnosing:
      return "diagnosing";
    case DeviceState::kFailed:
      return "failed";
    case DeviceState::kInRepair:
      return "in_repair";
  }
  return "healthy";
}

bool TakesWork(DeviceState state) {
  return state == DeviceState::kHealthy || state == DeviceState::kSuspect;
}

XidClass ClassifyXid(int64_t xid) {
  switch (xid) {
    // Application-caused (catalog RESTART_APP or IGNORE, the job's own fault) or a follower of
    // other errors (45, preemptive cleanup).
    case 13:
    case 31:
    case 32:
    case 43:
    case 45:
      return XidClass::kApplication;
    // Memory events to watch: row remap pending (63), excessive SBE interrupts (92), contained
    // ECC error (94: restart the app, reset the GPU at a convenient time).
    case 63:
    case 92:
    case 94:
      return XidClass::kWarning;
    // NVLink (74) and NVLink5 (144-150) faults: the link's domain.
    case 74:
    case 144:
    case 145:
    case 146:
    case 147:
    case 148:
    case 149:
    case 150:
      return XidClass::kNvlinkFatal;
    // RESET_GPU / RESTART_BM / DCGM FAIL: GPU timeout 46, DBE 48, PMU halt 62, remap failure 64,
    // fallen off the bus 79, uncontained ECC 95, context-switch timeout 109, GSP 119/120, ALI
    // training 136, ECC escape 140, init 143, NVLink SW / retirement / fatal timeout 155/156/158,
    // channel retirement 160.
    case 46:
    case 48:
    case 62:
    case 64:
    case 79:
    case 95:
    case 109:
    case 119:
    case 120:
    case 136:
    case 140:
    case 143:
    case 155:
    case 156:
    case 158:
    case 160:
      return XidClass::kDeviceFatal;
    default:
      // An XID the catalog rows above do not name: watched, not acted on.
      return XidClass::kWarning;
  }
}

bool DeviceHealthBook::Move(DeviceHealth& device, DeviceState to, TimeUs now, std::string evidence,
                            bool by_operator) {
  if (device.state == to) return false;
  device.by_operator = by_operator;
  device.history.push_back(HealthTransition{now, device.state, to, evidence});
  while (device.history.size() > kMaxHistory) device.history.pop_front();
  device.state = to;
  device.since_us = now;
  device.evidence = std::move(evidence);
  return true;
}

std::vector<uint32_t> DeviceHealthBook::Observe(std::span<const model::LabelledTelemetry> readings,
                                                TimeUs now, const HealthRules& rules) {
  std::map<uint32_t, Finding> findings;
  bool nvlink_domain_failed = false;
  std::string nvlink_evidence;
  for (const model::LabelledTelemetry& labelled : readings) {
    const model::DeviceTelemetry& reading = labelled.reading;
    const auto index = static_cast<uint32_t>(reading.index);
    DeviceHealth& device = devices_[index];
    std::optional<Finding> worst;
    if (reading.xid_errors && *reading.xid_errors != device.seen_xid) {
      const int64_t xid = *reading.xid_errors;
      device.seen_xid = xid;
      if (xid != 0) {
        switch (ClassifyXid(xid)) {
          case XidClass::kApplication:
            break;
          case XidClass::kWarning:
            Keep(worst, DeviceState::kSuspect, fmt::format("XID {}", xid));
            break;
          case XidClass::kDeviceFatal:
            Keep(worst, DeviceState::kFailed, fmt::format("XID {}", xid));
            break;
          case XidClass::kNvlinkFatal:
            Keep(worst, DeviceState::kFailed, fmt::format("XID {} (NVLink)", xid));
            nvlink_domain_failed = true;
            nvlink_evidence = fmt::format("XID {} (NVLink) on device {}", xid, index);
            break;
        }
      }
    }
    if (reading.ecc_uncorrectable) {
      const int64_t ecc = *reading.ecc_uncorrectable;
      if (ecc > std::max<int64_t>(device.seen_ecc, 0)) {
        Keep(worst, DeviceState::kFailed, fmt::format("{} uncorrectable ECC errors", ecc));
      }
      device.seen_ecc = ecc;
    }
    if (reading.row_remap_failure) {
      if (*reading.row_remap_failure && !device.seen_remap_failure) {
        Keep(worst, DeviceState::kFailed, "row remap failed");
      }
      device.seen_remap_failure = *reading.row_remap_failure;
    }
    if (reading.remapped_rows && *reading.remapped_rows >= rules.remapped_rows_warn) {
      Keep(worst, DeviceState::kSuspect,
           fmt::format("{} rows remapped for uncorrectable errors", *reading.remapped_rows));
    }
    if (reading.nvlink_errors) {
      const int64_t errors = *reading.nvlink_errors;
      if (device.seen_nvlink >= 0 && errors - device.seen_nvlink >= rules.nvlink_errors_warn) {
        Keep(worst, DeviceState::kSuspect,
             fmt::format("{} NVLink errors since the last reading", errors - device.seen_nvlink));
      }
      device.seen_nvlink = errors;
    }
    if (reading.temp_c) {
      if (*reading.temp_c >= rules.degraded_temp_c) {
        Keep(worst, DeviceState::kDegraded,
             fmt::format("{:.0f} °C, at or above {:.0f} °C", *reading.temp_c,
                         rules.degraded_temp_c));
      } else if (device.state == DeviceState::kDegraded &&
                 *reading.temp_c < rules.degraded_temp_c - rules.temp_hysteresis_c) {
        findings.emplace(index, Finding{DeviceState::kHealthy,
                                        fmt::format("cooled to {:.0f} °C", *reading.temp_c)});
      }
    }
    if (worst) findings[index] = std::move(*worst);
  }
  if (nvlink_domain_failed) {
    // Every device of the node fails; one that failed on its own evidence keeps it.
    for (const auto& [index, device] : devices_) {
      auto [it, added] =
          findings.try_emplace(index, Finding{DeviceState::kFailed, nvlink_evidence});
      if (!added && it->second.to != DeviceState::kFailed) {
        it->second = Finding{DeviceState::kFailed, nvlink_evidence};
      }
    }
  }
  std::vector<uint32_t> changed;
  for (auto& [index, finding] : findings) {
    DeviceHealth& device = devices_[index];
    // An operator's diagnosis or repair, and a failure, end only by the operator's return.
    if (device.state == DeviceState::kFailed || device.state == DeviceState::kDiagnosing ||
        device.state == DeviceState::kInRepair) {
      continue;
    }
    if (finding.to == DeviceState::kSuspect) device.last_warning_us = now;
    if (finding.to == DeviceState::kFailed && rules.repeat_failures > 0) {
      const auto failures = std::count_if(
          device.history.begin(), device.history.end(), [&](const HealthTransition& t) {
            return t.to == DeviceState::kFailed && now - t.at_us < rules.repeat_window_us;
          });
      if (static_cast<uint32_t>(failures) + 1 >= rules.repeat_failures) {
        finding.to = DeviceState::kInRepair;
        finding.evidence =
            fmt::format("{}; failure {} within {:.0f} days: sent to repair", finding.evidence,
                        failures + 1, UsToSeconds(rules.repeat_window_us) / 86400);
      }
    }
    // A warning does not lift a degraded device; cooling does.
    if (finding.to == DeviceState::kSuspect && device.state == DeviceState::kDegraded) continue;
    if (Move(device, finding.to, now, std::move(finding.evidence))) changed.push_back(index);
  }
  return changed;
}

std::vector<uint32_t> DeviceHealthBook::Expire(TimeUs now, const HealthRules& rules) {
  std::vector<uint32_t> changed;
  for (auto& [index, device] : devices_) {
    if (device.state == DeviceState::kSuspect &&
        now - device.last_warning_us >= rules.suspect_clear_us) {
      Move(device, DeviceState::kHealthy, now,
           fmt::format("no warning for {:.0f} s", UsToSeconds(rules.suspect_clear_us)));
      changed.push_back(index);
    }
  }
  return changed;
}

Result<void> DeviceHealthBook::Operate(uint32_t index, OperatorAction action, TimeUs now,
                                       std::string_view reason) {
  DeviceHealth& device = devices_[index];
  const std::string why =
      reason.empty() ? "by the operator" : fmt::format("by the operator: {}", reason);
  switch (action) {
    case OperatorAction::kDiagnose:
      Move(device, DeviceState::kDiagnosing, now, why, true);
      return {};
    case OperatorAction::kRepair:
      Move(device, DeviceState::kInRepair, now, why, true);
      return {};
    case OperatorAction::kReturn:
      if (device.state == DeviceState::kHealthy) {
        return MakeError(ErrorCode::kInvalidArgument, "device {} is already healthy", index);
      }
      Move(device, DeviceState::kHealthy, now, fmt::format("returned {}", why), true);
      return {};
  }
  return {};
}

bool DeviceHealthBook::StartDiagnosis(uint32_t index, TimeUs now) {
  auto it = devices_.find(index);
  if (it == devices_.end() || it->second.state != DeviceState::kSuspect) return false;
  return Move(it->second, DeviceState::kDiagnosing, now,
              fmt::format("diagnosing: suspect since {}", it->second.evidence));
}

bool DeviceHealthBook::Diagnosed(uint32_t index, bool passed, std::string_view message,
                                 TimeUs now) {
  auto it = devices_.find(index);
  if (it == devices_.end() || it->second.state != DeviceState::kDiagnosing) return false;
  if (passed) return Move(it->second, DeviceState::kHealthy, now, "diagnostics passed");
  return Move(it->second, DeviceState::kFailed, now,
              message.empty() ? std::string("diagnostics failed")
                              : fmt::format("diagnostics failed: {}", message));
}

size_t DeviceHealthBook::count(DeviceState state) const {
  return static_cast<size_t>(
      std::count_if(devices_.begin(), devices_.end(),
                    [&](const auto& entry) { return entry.second.state == state; }));
}

DeviceState DeviceHealthBook::state(uint32_t index) const {
  auto it = devices_.find(index);
  return it == devices_.end() ? DeviceState::kHealthy : it->second.state;
}

Json DeviceHealthJson(const DeviceHealth& device) {
  Json history = Json::array();
  for (const HealthTransition& t : device.history) {
    history.push_back({{"at_us", t.at_us},
                       {"from", DeviceStateName(t.from)},
                       {"to", DeviceStateName(t.to)},
                       {"evidence", t.evidence}});
  }
  return {{"state", DeviceStateName(device.state)},
          {"since_us", device.since_us},
          {"evidence", device.evidence},
          {"history", std::move(history)}};
}

Json DeviceHealthBook::ToJson() const {
  Json out = Json::object();
  for (const auto& [index, device] : devices_) {
    Json entry = DeviceHealthJson(device);
    entry["by_operator"] = device.by_operator;
    entry["seen_xid"] = device.seen_xid;
    entry["seen_ecc"] = device.seen_ecc;
    entry["seen_nvlink"] = device.seen_nvlink;
    entry["seen_remap_failure"] = device.seen_remap_failure;
    entry["last_warning_us"] = device.last_warning_us;
    out[std::to_string(index)] = std::move(entry);
  }
  return out;
}

Result<DeviceHealthBook> DeviceHealthBook::FromJson(const Json& json) {
  const auto bad = [](std::string_view what) {
    return MakeError(ErrorCode::kInvalidArgument, "device health: {}", what);
  };
  if (!json.is_object()) return bad("expected an object by device index");
  DeviceHealthBook book;
  for (const auto& [key, entry] : json.items()) {
    uint32_t index = 0;
    try {
      const unsigned long parsed = std::stoul(key);
      if (parsed > static_cast<unsigned long>(model::kMaxDeviceIndex) ||
          std::to_string(parsed) != key) {
        return bad(fmt::format("device index {} out of 0..{}", key, model::kMaxDeviceIndex));
      }
      index = static_cast<uint32_t>(parsed);
    } catch (const std::exception&) {
      return bad(fmt::format("expected a device index, got \"{}\"", key.substr(0, 40)));
    }
    try {
      DeviceHealth device;
      const auto state = StateByName(entry.at("state").get<std::string>());
      if (!state) return bad(fmt::format("device {}: unknown state", index));
      device.state = *state;
      device.since_us = entry.at("since_us").get<TimeUs>();
      device.evidence = entry.at("evidence").get<std::string>();
      for (const Json& t : entry.at("history")) {
        const auto from = StateByName(t.at("from").get<std::string>());
        const auto to = StateByName(t.at("to").get<std::string>());
        if (!from || !to) return bad(fmt::format("device {}: unknown state in history", index));
        device.history.push_back(HealthTransition{t.at("at_us").get<TimeUs>(), *from, *to,
                                                  t.at("evidence").get<std::string>()});
      }
      while (device.history.size() > kMaxHistory) device.history.pop_front();
      device.by_operator = entry.at("by_operator").get<bool>();
      device.seen_xid = entry.at("seen_xid").get<int64_t>();
      device.seen_ecc = entry.at("seen_ecc").get<int64_t>();
      device.seen_nvlink = entry.at("seen_nvlink").get<int64_t>();
      device.seen_remap_failure = entry.at("seen_remap_failure").get<bool>();
      device.last_warning_us = entry.at("last_warning_us").get<TimeUs>();
      book.devices_.emplace(index, std::move(device));
    } catch (const Json::exception& e) {
      return bad(fmt::format("device {}: {}", index, e.what()));
    }
  }
  return book;
}

}  // namespace headroom::control
