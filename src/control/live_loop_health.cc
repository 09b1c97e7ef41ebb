// The live loop's side of node gates and device health: drains and device withdrawals brought
// into the engine, jobs a failed device ended requeued, health books stored, and operators'
// moves of a device (device_health.h has the lifecycle).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "control/engine_log.h"
#include "control/live_loop.h"
#include "control/logging.h"

namespace headroom::control {

void LiveLoop::SyncDrains(TimeUs now) {
  std::vector<engine::Event> changes;
  std::vector<nlohmann::json> logged;
  std::vector<StoreWrite> books;
  std::vector<std::pair<std::string, uint64_t>> stored;  // (node, health_version) once written.
  std::vector<EndedJob> ended;                           // Jobs a failed device ended.
  std::vector<std::string> failures;                     // "device 3 of node n1 (XID 79)"
  {
    std::lock_guard lock(state_.mu);
    if (synced_gates_version_ == state_.node_gates_version) return;
    synced_gates_version_ = state_.node_gates_version;
    std::set<std::pair<std::string, uint32_t>> failed;  // (node, device index) failed just now.
    const HealthRules& rules = state_.health_rules;
    const TimeUs wall = clock_.WallNowUs();
    while (!health_withdrawals_.empty() &&
           wall - health_withdrawals_.front().first >= rules.storm_window_us) {
      health_withdrawals_.pop_front();
    }
    for (const model::Node& node : cluster_->nodes()) {
      const NodeStatus* status = status_of_node_[node.id.value()];
      const bool blocked = status == nullptr || status->record.drained || !status->ready ||
                           status->health != NodeHealth::kUp;
      if (blocked != (drained_in_engine_[node.id.value()] != 0)) {
        drained_in_engine_[node.id.value()] = blocked ? 1 : 0;
        changes.push_back(engine::NodeDrained{node.id, blocked});
        logged.push_back(DrainEvent(node.name, blocked));
      }
      if (status == nullptr) continue;
      for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
        const uint32_t index = cluster_->devices()[d].index_on_node;
        const DeviceState health = status->health_book.state(index);
        // Under recovery.evacuate a suspect device takes no new work either, and the engine
        // moves its work off so that it can be diagnosed (StartDiagnoses) before it fails.
        const bool out = !TakesWork(health) ||
                         (options_.policy.recovery.evacuate && health == DeviceState::kSuspect);
        const bool degraded = health == DeviceState::kDegraded;
        const uint8_t told = out ? (degraded ? 2 : 1) : 0;
        if (told == withdrawn_in_engine_[d]) continue;
        if (out && withdrawn_in_engine_[d] == 0 &&
            !status->health_book.devices().at(index).by_operator && !StormAllows(node.name, wall)) {
          continue;  // Held back: the device stays in use until an operator resumes health.
        }
        withdrawn_in_engine_[d] = told;
        changes.push_back(engine::DeviceWithdrawn{DeviceId(d), out, degraded});
        logged.push_back(WithdrawEvent(node.name, index, out, degraded));
        if (health == DeviceState::kFailed) {
          failed.emplace(node.name, index);
          failures.push_back(fmt::format("device {} of node {} ({})", index, node.name,
                                         status->health_book.devices().at(index).evidence));
        }
      }
      auto written = stored_health_version_.find(node.name);
      const uint64_t version = written == stored_health_version_.end() ? 0 : written->second;
      if (status->health_version != version) {
        books.push_back(MetaRecord{HealthKey(node.name), status->health_book.ToJson().dump()});
        stored.emplace_back(node.name, status->health_version);
      }
    }
    for (const auto& [name, index] : failed) {
      for (uint64_t id : state_.jobs.RunningOn(name)) {
        const JobRecord& job = state_.jobs.at(id);
        for (const TaskPlacement& task : job.placement) {
          if (task.node == name && std::find(task.device_indices.begin(), task.device_indices.end(),
                                             index) != task.device_indices.end()) {
            ended.push_back({id, name});
          }
        }
      }
    }
  }
  // Drains and withdrawals go first so that this step's placements already avoid them.
  events_.insert(events_.begin(), changes.begin(), changes.end());
  logged_events_.insert(logged_events_.begin(), logged.begin(), logged.end());
  if (!books.empty()) {
    if (auto ok = journal_.Commit(std::move(books)); !ok) {
      // Not stored: look again at the next step.
      LogError("journal: device health not committed: {}", ok.error().message);
      synced_gates_version_.reset();
    } else {
      for (auto& [name, version] : stored) stored_health_version_[name] = version;
    }
  }
  for (const std::string& failure : failures) {
    Log("device_failed", std::nullopt, std::nullopt, fmt::format("{} failed", failure), now);
  }
  if (!ended.empty()) {
    Requeue(std::move(ended), fmt::format("{} failed", fmt::join(failures, ", ")), now);
  }
}

bool LiveLoop::StormAllows(const std::string& node, TimeUs wall) {
  HealthStormState& storm = state_.health_storm;
  if (storm.tripped) return false;
  const bool counted = std::any_of(
      health_withdrawals_.begin(), health_withdrawals_.end(),
      [&](const std::pair<TimeUs, std::string>& entry) { return entry.second == node; });
  const size_t nodes = health_withdrawals_.size() + (counted ? 0 : 1);
  // Out of every node known, registered or in the engine's cluster: at a start, agents register
  // one by one and the engine's cluster lags behind them.
  const size_t registered = static_cast<size_t>(
      std::count_if(state_.nodes.begin(), state_.nodes.end(),
                    [](const auto& entry) { return entry.second.record.registered; }));
  const size_t total = std::max(cluster_->nodes().size(), registered);
  const HealthRules& rules = state_.health_rules;
  if (static_cast<double>(nodes) > rules.storm_share * static_cast<double>(total)) {
    storm.tripped = true;
    storm.since_us = wall;
    storm.message = fmt::format(
        "health would take devices of {} of {} nodes out of use within {:.0f} s (more than "
        "{:.0f}%): no more are taken until an operator resumes (POST /v1/health/resume); node "
        "{} is the first held back",
        nodes, total, UsToSeconds(rules.storm_window_us), 100 * rules.storm_share, node);
    LogWarn("storm guard: {}", storm.message);
    Log("health_storm", std::nullopt, node, storm.message, Now());
    return false;
  }
  if (!counted) health_withdrawals_.emplace_back(wall, node);
  return true;
}

bool LiveLoop::ResumeHealth() {
  bool was = false;
  RunCall([&] {
    std::lock_guard lock(state_.mu);
    was = state_.health_storm.tripped;
    state_.health_storm = {};
    health_withdrawals_.clear();
    ++state_.node_gates_version;
    if (was) Log("health_resumed", std::nullopt, std::nullopt, "storm guard reset", Now());
  });
  Wake();
  return was;
}

ApiResult<DeviceHealth> LiveLoop::OperateDevice(const std::string& name, uint32_t index,
                                                OperatorAction action, std::string reason) {
  ApiResult<DeviceHealth> result = Fail(500, "the loop did not run the device move");
  RunCall([&] {
    const TimeUs wall = clock_.WallNowUs();
    std::lock_guard lock(state_.mu);
    auto it = state_.nodes.find(name);
    if (it == state_.nodes.end()) {
      result = Fail(404, "node '{}' does not exist; list nodes with GET /v1/nodes", name);
      return;
    }
    NodeStatus& status = it->second;
    // An agent's node has the devices it registered; a simulated node its cluster's.
    const model::Node* spec = cluster_ != nullptr ? cluster_->FindNode(name) : nullptr;
    const std::vector<model::RegisteredDevice>& registered = status.record.devices;
    const bool known = status.record.registered
                           ? std::any_of(registered.begin(), registered.end(),
                                         [&](const model::RegisteredDevice& device) {
                                           return device.index == index;
                                         })
                           : spec != nullptr && index < spec->device_count;
    if (!known) {
      result = Fail(404, "node '{}' has no device {}", name, index);
      return;
    }
    if (auto moved = status.health_book.Operate(index, action, wall, reason); !moved) {
      result = Fail(409, "{}", moved.error().message);
      return;
    }
    ++status.health_version;
    ++state_.node_gates_version;
    const DeviceHealth& health = status.health_book.devices().at(index);
    Log("device_" + std::string(DeviceStateName(health.state)), std::nullopt, name,
        fmt::format("device {} of node {}: {} {}", index, name, DeviceStateName(health.state),
                    health.evidence),
        Now());
    result = health;
  });
  Wake();
  return result;
}

}  // namespace headroom::control
