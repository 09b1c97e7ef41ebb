#include "control/engine_log.h"

#include <cmath>

#include <fmt/format.h>

#include "control/job_spec.h"
#include "control/sqlite_store.h"
#include "model/cluster_yaml_writer.h"

namespace headroom::control {

using Json = nlohmann::json;

std::vector<TaskPlacement> PlacementOn(const model::Cluster& cluster,
                                       const std::vector<engine::TaskAllocation>& tasks) {
  std::vector<TaskPlacement> placement;
  for (size_t rank = 0; rank < tasks.size(); ++rank) {
    const engine::TaskAllocation& task = tasks[rank];
    const model::Node& node = cluster.node(task.node);
    TaskPlacement out{.rank = static_cast<uint32_t>(rank),
                      .node = node.name,
                      .milli_per_device = task.milli_per_device,
                      .cpu_milli = task.cpu_milli,
                      .memory_mib = task.memory_mib,
                      .power_cap_w = task.power_cap_w};
    for (DeviceId device : task.devices) {
      out.device_indices.push_back(device.value() - node.first_device);
    }
    placement.push_back(std::move(out));
  }
  return placement;
}

std::optional<std::vector<engine::TaskAllocation>> AllocationsOn(
    const model::Cluster& cluster, const std::vector<TaskPlacement>& placement) {
  std::vector<engine::TaskAllocation> tasks;
  for (const TaskPlacement& task : placement) {
    const model::Node* node = cluster.FindNode(task.node);
    if (node == nullptr) return std::nullopt;
    engine::TaskAllocation out{.node = node->id,
                               .milli_per_device = task.milli_per_device,
                               .cpu_milli = task.cpu_milli,
                               .memory_mib = task.memory_mib,
                               .power_cap_w = task.power_cap_w};
    for (uint32_t index : task.device_indices) {
      if (index >= node->device_count) return std::nullopt;
      out.devices.push_back(DeviceId(node->first_device + index));
    }
    tasks.push_back(std::move(out));
  }
  return tasks;
}

Json BuildRecord(const model::Cluster& cluster, std::string_view policy_text,
                 const engine::CarriedState& carried) {
  // Runs by tenant as [size in milli-devices, runs, seconds summed] triples.
  Json runtimes = Json::object();
  for (const auto& [tenant, sizes] : carried.runtimes) {
    Json& triples = runtimes[tenant] = Json::array();
    for (const auto& [size_milli, tally] : sizes) {
      triples.push_back(Json::array({size_milli, tally.runs, tally.sum_s}));
    }
  }
  return {{"build",
           {{"cluster", model::WriteClusterYaml(cluster)},
            {"policy", policy_text},
            {"carried",
             {{"as_of_us", carried.as_of_us},
              {"tenant_usage", carried.tenant_usage},
              {"migration_spent", carried.migration_spent},
              {"preemption_spent", carried.preemption_spent},
              {"turnover_spent", carried.turnover_spent},
              {"runtimes", std::move(runtimes)}}}}}};
}

Result<engine::CarriedState> CarriedOf(const Json& build) {
  engine::CarriedState carried;
  auto it = build.find("carried");
  if (it == build.end()) return carried;
  const Json& in = *it;
  const auto bad = [](std::string_view what) {
    return MakeError(ErrorCode::kInvalidArgument, "carried: {}", what);
  };
  if (!in.is_object()) return bad("expected an object");
  const Json as_of = in.value("as_of_us", Json());
  const Json usage = in.value("tenant_usage", Json::object());
  if (!as_of.is_number_integer() || as_of.get<TimeUs>() < 0) {
    return bad("'as_of_us': expected a time in µs, not negative");
  }
  carried.as_of_us = as_of.get<TimeUs>();
  if (!usage.is_object()) return bad("'tenant_usage': expected an object of numbers");
  for (const auto& [tenant, value] : usage.items()) {
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
      return bad(fmt::format("'tenant_usage.{}': expected a number, not negative", tenant));
    }
    carried.tenant_usage[tenant] = value.get<double>();
  }
  for (const auto& [key, slot] : {std::pair{"migration_spent", &carried.migration_spent},
                                  std::pair{"preemption_spent", &carried.preemption_spent},
                                  std::pair{"turnover_spent", &carried.turnover_spent}}) {
    const Json spent = in.value(key, Json::array());
    const std::string expected =
        fmt::format("'{}': expected a list of [time, cost] integer pairs", key);
    if (!spent.is_array()) return bad(expected);
    for (const Json& charge : spent) {
      if (!charge.is_array() || charge.size() != 2 || !charge[0].is_number_integer() ||
          !charge[1].is_number_integer()) {
        return bad(expected);
      }
      slot->emplace_back(charge[0].get<TimeUs>(), charge[1].get<int64_t>());
    }
  }
  const Json runtimes = in.value("runtimes", Json::object());
  if (!runtimes.is_object()) return bad("'runtimes': expected an object of lists");
  for (const auto& [tenant, triples] : runtimes.items()) {
    const std::string expected = fmt::format(
        "'runtimes.{}': expected a list of [size in milli-devices, runs, seconds] triples, none "
        "negative",
        tenant);
    if (!triples.is_array()) return bad(expected);
    for (const Json& triple : triples) {
      if (!triple.is_array() || triple.size() != 3 || !triple[0].is_number_unsigned() ||
          !triple[1].is_number_unsigned() || !triple[2].is_number() ||
          !std::isfinite(triple[2].get<double>()) || triple[2].get<double>() < 0) {
        return bad(expected);
      }
      carried.runtimes[tenant][triple[0].get<uint64_t>()] =
          engine::RuntimeTally{.runs = triple[1].get<uint64_t>(), .sum_s = triple[2].get<double>()};
    }
  }
  return carried;
}

Json SubmitEvent(const JobRecord& job) {
  Json event = {{"submit", job.id}, {"spec", SpecJson(job)}, {"submit_us", job.submit_us}};
  if (job.preemptions > 0) event["preemptions"] = job.preemptions;
  if (job.requeued_us > job.submit_us) event["pending_since_us"] = job.requeued_us;
  if (job.attained_device_us > 0) event["attained_device_us"] = job.attained_device_us;
  if (!job.hold_reason.empty()) event["hold_reason"] = job.hold_reason;
  if (job.expedited) event["expedited"] = true;
  return event;
}

Json RestoreEvent(const JobRecord& job) {
  Json event = {{"restore", job.id},
                {"spec", SpecJson(job)},
                {"submit_us", job.submit_us},
                {"start_us", job.start_us},
                {"placement", PlacementToJson(job.placement)}};
  if (job.preemptions > 0) event["preemptions"] = job.preemptions;
  // A running job's service is this base plus its run since start_us at its current width;
  // after an elastic job grew, the base is below 0 (engine_migrate.cc, Relocate).
  if (job.attained_device_us != 0) event["attained_device_us"] = job.attained_device_us;
  if (job.checkpoint_interval_us > 0) event["checkpoint_interval_us"] = job.checkpoint_interval_us;
  return event;
}

std::string EngineLogText(const Json& record) {
  return record.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json FinishEvent(uint64_t job, bool failed) {
  Json event = {{"finish", job}};
  if (failed) event["failed"] = true;
  return event;
}

Json CancelEvent(uint64_t job) { return {{"cancel", job}}; }

Json InterruptEvent(uint64_t job, std::string_view node) {
  Json event = {{"interrupt", job}};
  if (!node.empty()) event["node"] = node;
  return event;
}

Json HoldEvent(uint64_t job, bool held, std::string_view reason) {
  Json event = {{"hold", job}, {"held", held}};
  if (held) event["reason"] = reason;
  return event;
}

Json DrainEvent(std::string_view node, bool drained) {
  return {{"drain", node}, {"drained", drained}};
}

Json WithdrawEvent(std::string_view node, uint32_t index_on_node, bool withdrawn, bool degraded) {
  Json event = {{"withdraw", node}, {"device", index_on_node}, {"withdrawn", withdrawn}};
  if (degraded) event["degraded"] = true;
  return event;
}

Json DecisionsJson(const engine::Decisions& decisions, const model::Cluster& cluster,
                   const std::vector<uint64_t>& daemon_of_engine) {
  Json out = Json::array();
  decisions.Visit(engine::Handlers{
      [&](const engine::PreemptJob& preemption) {
        out.push_back({{"preempt", daemon_of_engine.at(preemption.job.value())},
                       {"by", daemon_of_engine.at(preemption.preemptor.value())},
                       {"checkpoint_interval_us", preemption.checkpoint_interval_us},
                       {"lost_us", preemption.lost_us},
                       {"restart_us", preemption.restart_us}});
      },
      [&](const engine::CapJob& cap) {
        out.push_back({{"cap", daemon_of_engine.at(cap.job.value())},
                       {"placement", PlacementToJson(PlacementOn(cluster, cap.tasks))}});
      },
      [&](const engine::MigrateJob& move) {
        out.push_back({{"move", daemon_of_engine.at(move.job.value())},
                       {"placement", PlacementToJson(PlacementOn(cluster, move.tasks))},
                       {"pause_us", move.pause_us}});
      },
      [&](const engine::StartJob& start) {
        Json decision = {{"start", daemon_of_engine.at(start.job.value())},
                         {"placement", PlacementToJson(PlacementOn(cluster, start.tasks))}};
        if (start.checkpoint_interval_us > 0) {
          decision["checkpoint_interval_us"] = start.checkpoint_interval_us;
        }
        out.push_back(std::move(decision));
      }});
  return out;
}

}  // namespace headroom::control
