#include "sim/failure_model.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/check.h"

namespace headroom::sim {

bool FabricFaultClass(std::string_view name) {
  return name == "Parameter Plane Cable" || name == "NIC";
}

FailureModel FailureModelOf(const FaultTrace& trace) {
  std::map<std::string, FaultClass> by_name;
  for (const NodeFault& fault : trace.faults) {
    FaultClass& entry = by_name[fault.fault_class];
    if (entry.seen++ == 0) {
      entry.name = fault.fault_class;
      entry.level = fault.level;
      entry.fabric = FabricFaultClass(fault.fault_class);
    }
    entry.repair_s.push_back(std::max((fault.end_days - fault.start_days) * kSecondsPerDay, 1.0));
  }
  FailureModel model;
  model.source = trace.source;
  for (auto& [name, entry] : by_name) {
    std::sort(entry.repair_s.begin(), entry.repair_s.end());
    model.classes.push_back(std::move(entry));
  }
  std::stable_sort(model.classes.begin(), model.classes.end(),
                   [](const FaultClass& a, const FaultClass& b) { return a.seen > b.seen; });
  return model;
}

Result<FailureModel> LoadFailureModel(const std::string& spec) {
  constexpr std::string_view kStepfun = "stepfun:";
  if (spec.rfind(kStepfun, 0) != 0 || spec.size() == kStepfun.size()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--failures: expected stepfun:PATH (a StepFun fault_trace.json), got \"{}\"",
                     spec);
  }
  auto trace = LoadStepfunFaults(spec.substr(kStepfun.size()));
  if (!trace) return tl::unexpected(trace.error());
  if (trace->faults.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: expected at least one fault, got none",
                     trace->source);
  }
  return FailureModelOf(*trace);
}

FaultProcess::FaultProcess(const FailureModel& model, const model::Cluster& cluster,
                           TimeUs origin_us)
    : model_(&model), faults_by_class_(model.classes.size(), 0) {
  for (const FaultClass& fault_class : model.classes) {
    HR_CHECK(!fault_class.repair_s.empty());
    total_seen_ += fault_class.seen;
  }
  nodes_.reserve(cluster.nodes().size());
  for (const model::Node& node : cluster.nodes()) {
    // Streams seeded apart per node, so a node's faults do not depend on the others'.
    NodeProcess process{Rng(model.seed * 0x9e3779b97f4a7c15ULL + node.id.value()),
                        Rng((model.seed ^ 0x7761726eULL) * 0x9e3779b97f4a7c15ULL + node.id.value()),
                        0, node.device_count};
    const double per_day =
        model.node_failures_per_day * static_cast<double>(node.device_count) / kDevicesPerRateNode;
    if (per_day > 0 && total_seen_ > 0) process.mean_gap_s = kSecondsPerDay / per_day;
    nodes_.push_back(std::move(process));
  }
  for (uint32_t node = 0; node < nodes_.size(); ++node) ScheduleFault(node, origin_us);
}

void FaultProcess::ScheduleFault(uint32_t node, TimeUs from_us) {
  NodeProcess& process = nodes_[node];
  if (process.mean_gap_s <= 0) return;
  const double gap_us = process.rng.Exponential(process.mean_gap_s) * kUsPerSecond;
  // Beyond about 300 years (a rate near zero) the node is not going to fail in any run; the cap
  // keeps the times far from overflow.
  if (!(gap_us < 1e16)) return;
  next_.push(Due{from_us + std::max<TimeUs>(std::llround(gap_us), 1), node});
}

TimeUs FaultProcess::NextRepairUs() const { return repairs_.empty() ? kNever : *repairs_.begin(); }

std::vector<NodeChange> FaultProcess::PopDue(TimeUs now_us) {
  std::vector<NodeChange> changes;
  while (!next_.empty() && next_.top().at_us <= now_us) {
    const Due due = next_.top();
    next_.pop();
    NodeProcess& process = nodes_[due.node];
    if (process.down) {
      process.down = false;
      process.faulty = false;
      down_devices_ -= process.devices;
      repairs_.erase(repairs_.find(due.at_us));
      changes.push_back({due.at_us, NodeId(due.node), false, false, process.fault_class});
      ScheduleFault(due.node, due.at_us);
      continue;
    }
    // The class in proportion to how often it was seen, then one of its repair times.
    auto pick = static_cast<double>(process.rng.Below(static_cast<uint64_t>(total_seen_)));
    uint32_t fault_class = 0;
    while (pick >= model_->classes[fault_class].seen) {
      pick -= model_->classes[fault_class].seen;
      ++fault_class;
    }
    const std::vector<double>& repairs = model_->classes[fault_class].repair_s;
    const double repair_s = repairs[process.rng.Below(repairs.size())];
    const bool latent = process.rng.Uniform() < model_->latent_share;
    const bool warned =
        model_->warned_share > 0 && process.warning_rng.Uniform() < model_->warned_share;
    process.repair_us = std::max<TimeUs>(std::llround(repair_s * kUsPerSecond), kUsPerSecond);
    process.faulty = true;
    process.fault_class = fault_class;
    ++faults_;
    ++faults_by_class_[fault_class];
    repair_s_total_ += UsToSeconds(process.repair_us);
    changes.push_back({due.at_us, NodeId(due.node), true, latent && !warned, fault_class, warned});
  }
  return changes;
}

void FaultProcess::Detect(NodeId node, TimeUs at_us) {
  NodeProcess& process = nodes_[node.value()];
  HR_CHECK(process.faulty && !process.down);
  process.down = true;
  down_devices_ += process.devices;
  const TimeUs repaired_us = at_us + process.repair_us;
  repairs_.insert(repaired_us);
  next_.push(Due{repaired_us, node.value()});
}

}  // namespace headroom::sim
