// Engine::ComputeReservation: the EASY reservation of the first blocked job — the earliest
// time enough running work will have ended (by the estimates) for it to place, and the exact
// devices, CPU and memory it would get then, which later jobs must avoid unless they end first.
#include <algorithm>
#include <optional>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {
namespace {

// Placements tried, with budget filters, at the ends where the free capacity would hold the
// head, before it is left without a reservation.
constexpr uint32_t kReservationBudgetTries = 16;

}  // namespace

void Engine::DropReservation() {
  reservation_.Clear();
  reservation_head_ = JobId();
  reserved_start_us_ = kNever;
}

// Finds the earliest time the head fits once running jobs end at their expected ends, and the
// placement it would get then; holds that placement in `reservation_`.
bool Engine::ComputeReservation(JobId head, TimeUs now) {
  reservation_.Clear();
  reserved_start_us_ = kNever;
  reservation_head_ = head;
  reservation_epoch_ = release_epoch_;
  reservation_stale_ = false;
  ++reservation_version_;
  const JobRecord& r = record(head);
  const PlacementRequest request = RequestOf(r);
  // Budget filters (filter.h) make a node's capacity depend on what runs on its neighbours, so
  // capacity is tracked without them (a bound: the gang cannot fit before it does) and each time
  // the bound is met the placer is asked, a bounded number of times.
  PlacementRequest bound_request = request;
  bound_request.ignore_budgets = true;
  uint32_t budget_misses = 0;
  std::optional<std::vector<TaskAllocation>> placement;
  {
    const ClusterState::Speculation speculation(state_);
    // The gang fits exactly when the nodes together take task_count tasks (the root domain is
    // always a candidate of last resort) — or, with a required level, the nodes of one domain of
    // that level do (every such domain is a candidate) — so track per-node task capacity as jobs
    // end instead of searching after every release.
    std::vector<uint32_t>& capacity = reservation_scratch_;
    capacity.assign(cluster_.nodes().size(), 0);
    const uint32_t block_level = r.required_level == kNoLevel ? 0 : r.required_level;
    // Task capacity per domain of the block level, by domain id.
    std::vector<uint64_t> block_total(cluster_.domains().size(), 0);
    bool fits = false;
    for (const model::Node& node : cluster_.nodes()) {
      capacity[node.id.value()] = placer_.NodeCapacity(state_, node.id, bound_request, nullptr);
      uint64_t& total = block_total[cluster_.AncestorAt(node.id, block_level).value()];
      total += capacity[node.id.value()];
      fits |= total >= request.task_count;
    }
    for (auto it = running_by_end_.begin(); it != running_by_end_.end();) {
      const TimeUs end = it->first;
      // Release every job ending at this instant before trying.
      while (it != running_by_end_.end() && it->first == end) {
        for (const TaskAllocation& task : record(JobId(it->second)).tasks) {
          state_.Release(task);
          const uint32_t before = capacity[task.node.value()];
          const uint32_t after = placer_.NodeCapacity(state_, task.node, bound_request, nullptr);
          capacity[task.node.value()] = after;
          uint64_t& total = block_total[cluster_.AncestorAt(task.node, block_level).value()];
          total += after - before;
          fits |= total >= request.task_count;
        }
        ++it;
      }
      if (!fits) continue;
      placement = placer_.Place(state_, request, nullptr);
      if (!placement) {
        HR_CHECK(placer_.has_budgets());  // Without them the bound is exact.
        if (++budget_misses == kReservationBudgetTries) break;
        continue;
      }
      reserved_start_us_ = std::max(end, now);
      break;
    }
  }
  if (!placement) return false;
  for (const TaskAllocation& task : *placement) {
    reservation_.Reserve(task.node, task.devices, task.cpu_milli, task.memory_mib);
  }
  return true;
}

}  // namespace headroom::engine
