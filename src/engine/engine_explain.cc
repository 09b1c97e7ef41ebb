// Engine::Explain: why a pending job waits — its reasons, in the engine's codes, with a message
// an operator can act on (the topology level it names, whether any node could ever hold it, how
// much of what it asks for is free) and its expected start where the engine holds one.
#include "engine/engine.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/engine_records.h"

namespace headroom::engine {

namespace {

// 1250 → "1,250".
std::string Thousands(uint64_t value) {
  std::string digits = std::to_string(value);
  for (size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
  return digits;
}

// "now", "in 45 s", "in 4 min 5 s", "in 2 h 3 min".
std::string FromNow(TimeUs us) {
  const int64_t s = us / kUsPerSecond;
  if (s <= 0) return "now";
  if (s < 60) return fmt::format("in {} s", s);
  if (s < 3600) return fmt::format("in {} min {} s", s / 60, s % 60);
  return fmt::format("in {} h {} min", s / 3600, s / 60 % 60);
}

// " Of 1,250 nodes: 200 drained, ..., 240 can take a task (the best rack holds 3 of 8 tasks)."
std::string NodesSentence(const PendingStatus& status, size_t nodes, uint32_t task_count,
                          std::string_view required_level) {
  std::string out = fmt::format(" Of {} node{}:", Thousands(nodes), nodes == 1 ? "" : "s");
  for (size_t i = 0; i < status.nodes.size(); ++i) {
    out += fmt::format("{} {} {}", i == 0 ? "" : ",", Thousands(status.nodes[i].nodes),
                       status.nodes[i].constraint);
  }
  if (task_count > 1) {
    out += required_level.empty()
               ? fmt::format(" (together {} of {} tasks)", status.tasks_placeable, task_count)
               : fmt::format(" (the best {} holds {} of {} tasks)", required_level,
                             status.tasks_placeable, task_count);
  }
  return out + ".";
}

}  // namespace

std::string ExpectedStartSentence(TimeUs expected_start_us, bool reserved, TimeUs now_us) {
  if (expected_start_us == kNever) return {};
  return fmt::format(" {} to start {}.", reserved ? "Reserved" : "Expected",
                     FromNow(expected_start_us - now_us));
}

PendingStatus Engine::Explain(JobId job, ExplainDetail detail) const {
  const JobRecord* r = find(job);
  if (r == nullptr || r->state != JobState::kPending) return {};
  std::string nodes_sentence;
  PendingStatus status = ExplainShared(*r, detail == ExplainDetail::kNodes, nodes_sentence);
  status.queue_position = r->position;
  if (!r->unknown_level && !r->never_fits) {
    status.reserved = job == blocked_head_ && reserved_start_us_ != kNever;
    if (status.reserved) {
      status.expected_start_us = reserved_start_us_;
    } else if (detail != ExplainDetail::kReasons) {
      const auto& plan = ExpectedStarts();
      if (auto it = plan.find(job.value()); it != plan.end()) status.expected_start_us = it->second;
    }
  }
  status.message += nodes_sentence;
  status.message += ExpectedStartSentence(status.expected_start_us, status.reserved, last_now_us_);
  return status;
}

PendingStatus Engine::ExplainShared(const JobRecord& pending, bool with_nodes,
                                    std::string& nodes_sentence) const {
  if (!pending.job.hold_reason.empty()) {
    return PendingStatus{.reasons = {PendingCode::kHeld}, .message = pending.job.hold_reason};
  }
  // An elastic job waits for its narrowest width.
  if (pending.job.elastic()) {
    PendingStatus status = ExplainShared(pending.AtNarrowest(), with_nodes, nodes_sentence);
    status.message =
        fmt::format("Elastic, it may start with as few as {} of its {} tasks. {}",
                    pending.job.min_task_count, pending.full_task_count, status.message);
    return status;
  }
  const JobRecord& r = pending;
  PendingStatus status;
  with_nodes = with_nodes && !r.unknown_level;
  if (with_nodes) {
    TallyNodes(r, status);
    nodes_sentence = NodesSentence(
        status, cluster_.nodes().size(), r.job.task_count,
        r.required_level == kNoLevel ? std::string_view() : r.job.required_topology_level);
  }
  const PlacementRequest request = RequestOf(r);
  const uint64_t free_matching = Placer::DomainBoundMilli(state_, DomainId(0), request);
  const uint64_t need = request.milli();
  auto devices = [](uint64_t milli) { return static_cast<double>(milli) / 1000.0; };
  std::vector<PendingCode>& reasons = status.reasons;
  if (r.code != PendingCode::kNone) reasons.push_back(r.code);
  if (r.unknown_level) {
    status.message = fmt::format(
        "It states a topology level this cluster does not have (required '{}', preferred '{}').",
        r.job.required_topology_level, r.job.preferred_topology_level);
    return status;
  }
  if (r.never_fits) {
    status.message = fmt::format(
        "No node in this cluster can ever hold it: {} task(s) of {} device(s) matching '{}' with "
        "{} mCPU and {} MiB each{}.",
        r.job.task_count, r.job.task.devices, r.job.task.selector.text(), r.job.task.cpu_milli,
        r.job.task.memory_mib,
        r.required_level == kNoLevel
            ? std::string()
            : fmt::format(", inside one {}", r.job.required_topology_level));
    return status;
  }
  if (r.code == PendingCode::kQuota) {
    QuotaAmounts demand{};
    const QuotaTree::Verdict verdict = QuotaVerdict(r, &demand);
    if (!verdict.admitted) {
      status.message = quotas_.Describe(verdict, demand);
      return status;
    }
  }
  // Add the capacity picture whatever the pass said, so a user sees every constraint.
  if (need > 0 && free_matching < need && r.code != PendingCode::kCapacity) {
    reasons.push_back(PendingCode::kCapacity);
  }
  // Devices would do, node CPU or memory would not: the nodes together take the gang once CPU
  // and memory are set aside (the sum of per-node task capacities decides feasibility).
  if (r.code == PendingCode::kTopology && (r.job.task.cpu_milli > 0 || r.job.task.memory_mib > 0)) {
    model::TaskShape devices_only = r.job.task;
    devices_only.cpu_milli = 0;
    devices_only.memory_mib = 0;
    const PlacementRequest relaxed{&devices_only, r.job.task_count, &masks_[r.mask]};
    // Summed per domain of the required level (nodes come in domain order), else overall.
    const uint32_t block_level = r.required_level == kNoLevel ? 0 : r.required_level;
    uint64_t tasks = 0;
    uint64_t most_tasks = 0;
    DomainId block;
    for (const model::Node& node : cluster_.nodes()) {
      const DomainId domain = cluster_.AncestorAt(node.id, block_level);
      if (domain != block) tasks = 0;
      block = domain;
      tasks += placer_.NodeCapacity(state_, node.id, relaxed, nullptr);
      most_tasks = std::max(most_tasks, tasks);
    }
    if (most_tasks >= r.job.task_count) {
      std::erase(reasons, PendingCode::kTopology);
      reasons.push_back(PendingCode::kCpuMemory);
    }
  }
  std::sort(reasons.begin(), reasons.end());
  reasons.erase(std::unique(reasons.begin(), reasons.end()), reasons.end());
  switch (reasons.empty() ? PendingCode::kNone : reasons.front()) {
    case PendingCode::kCapacity:
      status.message =
          fmt::format("Waiting for capacity: needs {:g} matching device(s), {:g} are free.",
                      devices(need), devices(free_matching));
      break;
    case PendingCode::kTopology:
      if (r.required_level != kNoLevel) {
        status.message = fmt::format(
            "{:g} matching device(s) are free, but no single {} holds {} task(s) of {}: the job "
            "requires its gang inside one domain of topology level '{}'.",
            devices(free_matching), r.job.required_topology_level, r.job.task_count,
            r.job.task.devices, r.job.required_topology_level);
        break;
      }
      status.message = fmt::format(
          "{:g} matching device(s) are free, but not {} task(s) of {} on nodes that can take them "
          "(fragmentation, topology, CPU or memory).",
          devices(free_matching), r.job.task_count, r.job.task.devices);
      break;
    case PendingCode::kFacility: {
      const FacilityLedger& ledger = state_.facility();
      const uint32_t element = r.facility_block.element;
      status.message = fmt::format(
          "Matching devices are free, but placing it would take {} '{}' {:.1f} kW past its "
          "budget (its limit now: {:.1f} kW).",
          ledger.kind(element) == FacilityLedger::Kind::kPower ? "power domain" : "cooling zone",
          ledger.name(element), static_cast<double>(r.facility_block.over_mw) / 1e6,
          static_cast<double>(ledger.limit_mw(element)) / 1e6);
      break;
    }
    case PendingCode::kCpuMemory:
      status.message =
          "Matching devices are free, but the nodes that have them lack the CPU or "
          "memory its tasks ask for.";
      break;
    case PendingCode::kReservation:
      status.message =
          "It would fit now, but the capacity is reserved for a higher-priority job and it would "
          "still be running when that job starts.";
      break;
    case PendingCode::kPriority:
      status.message = "Waiting behind a higher-priority job that cannot start yet.";
      break;
    case PendingCode::kNotConsidered:
      status.message = "Not yet looked at: beyond this pass's queue depth or backfill window.";
      break;
    default:
      status.message = "Pending.";
      break;
  }
  return status;
}

}  // namespace headroom::engine
