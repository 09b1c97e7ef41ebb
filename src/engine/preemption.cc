#include "engine/preemption.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "engine/release_targets.h"

namespace headroom::engine {
namespace {

// Whether `task` fits the state's free capacity on its own devices and node (a victim kept
// where it runs, also on a device withdrawn since).
bool FitsAgain(const ClusterState& state, const TaskAllocation& task) {
  if (state.free_cpu_milli(task.node) < task.cpu_milli ||
      state.free_memory_mib(task.node) < task.memory_mib) {
    return false;
  }
  return std::all_of(task.devices.begin(), task.devices.end(), [&](DeviceId device) {
    return state.milli_in_place(device) >= task.milli_per_device;
  });
}

// How a plan ranks: its worst victim by the victim order, its cost, its victim count.
// A candidate's place in the victim order: its tier, then the victim selector's key.
using TieredKey = std::pair<uint8_t, VictimKey>;
using PlanRank = std::tuple<TieredKey, int64_t, size_t>;

}  // namespace

TimeUs Preempter::LostUs(TimeUs checkpoint_base_us, TimeUs interval_us, TimeUs now) {
  const TimeUs worked_us = std::max<TimeUs>(now - checkpoint_base_us, 0);
  return interval_us > 0 ? worked_us % interval_us : worked_us;
}

std::optional<PreemptionPlan> Preempter::Plan(ClusterState& state, const Placer& placer,
                                              const PlacementRequest& head,
                                              std::span<const PreemptionCandidate> candidates,
                                              TimeUs now, PreemptionGate* gate) {
  if (!config_.enabled || head.shape->devices == 0 || candidates.empty()) return std::nullopt;
  const int64_t limit = changeover_.LeftDeviceUs(now);
  const int64_t service_limit = turnover_.LeftDeviceUs(now);
  const auto within = [&](const PreemptionCandidate& candidate, int64_t spent, int64_t by_service) {
    return candidate.cost_device_us <= limit - spent &&
           (!candidate.by_service || candidate.cost_device_us <= service_limit - by_service);
  };
  const model::Cluster& cluster = state.cluster();
  const uint64_t need_milli = head.milli();

  std::vector<TieredKey> key(candidates.size());
  Releasable releasable(cluster, *head.classes);
  for (uint32_t i = 0; i < candidates.size(); ++i) {
    key[i] = {candidates[i].tier, victims_->Key(candidates[i].job, candidates[i].cost_device_us)};
    if (within(candidates[i], 0, 0)) releasable.Add(i, *candidates[i].job.tasks);
  }
  releasable.Seal();
  if (releasable.on_node.empty()) return std::nullopt;

  std::optional<PreemptionPlan> best;
  PlanRank best_rank;
  uint32_t placements_left = config_.max_placements;
  for (const DomainId target_id : ReleaseTargets(state, head, releasable)) {
    if (placements_left == 0) break;
    const model::Domain& target = cluster.domain(target_id);
    // The target's candidates, in victim order.
    std::vector<uint32_t> here = releasable.JobsOn(target.node_begin, target.node_end);
    std::sort(here.begin(), here.end(), [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
    here.erase(std::unique(here.begin(), here.end()), here.end());

    const ClusterState::Speculation speculation(state);  // Every target starts from the state.
    std::vector<uint32_t> released;
    int64_t released_cost = 0;
    int64_t released_by_service = 0;
    std::optional<std::vector<TaskAllocation>> head_tasks;
    for (uint32_t v : here) {
      if (placements_left == 0 || released.size() >= config_.max_victims) break;
      if (!within(candidates[v], released_cost, released_by_service)) continue;
      if (gate != nullptr && !gate->MayRelease(v)) continue;
      for (const TaskAllocation& task : *candidates[v].job.tasks) state.Release(task);
      if (gate != nullptr) gate->Release(v);
      released.push_back(v);
      released_cost += candidates[v].cost_device_us;
      if (candidates[v].by_service) released_by_service += candidates[v].cost_device_us;
      if (gate != nullptr && !gate->AdmitsHead()) continue;
      if (Placer::DomainBoundMilli(state, target_id, head) < need_milli) continue;
      // Nor while the building's budgets over the whole target could not take the head.
      if (!placer.AdmitsInDomain(state, target_id, head)) continue;
      --placements_left;
      head_tasks = placer.Place(state, head, nullptr);
      if (head_tasks) break;
    }
    if (!head_tasks) {
      if (gate != nullptr) {
        for (uint32_t v : released) gate->PutBack(v);
      }
      continue;
    }

    // The blocked job goes in; then every released job whose devices it left alone stays.
    for (const TaskAllocation& task : *head_tasks) state.Allocate(task);
    std::vector<uint8_t> reprieved(released.size(), 0);
    for (size_t k = released.size(); k-- > 0;) {
      const std::vector<TaskAllocation>& tasks = *candidates[released[k]].job.tasks;
      const ClusterState::Mark before = state.mark();
      if (gate != nullptr) {
        gate->PutBack(released[k]);
        if (!gate->AdmitsHead()) {
          gate->Release(released[k]);
          continue;
        }
      }
      // Back on its devices, it must also keep within the building's budgets (filter.h).
      bool fits = !placer.FirstOverdraw(state, tasks).has_value();
      for (const TaskAllocation& task : tasks) {
        fits = fits && FitsAgain(state, task);
        if (!fits) break;
        state.Allocate(task);
      }
      if (fits) {
        reprieved[k] = 1;
      } else {
        state.RollbackTo(before);
        if (gate != nullptr) gate->Release(released[k]);
      }
    }
    if (gate != nullptr) {
      for (size_t k = 0; k < released.size(); ++k) {
        if (reprieved[k] == 0) gate->PutBack(released[k]);
      }
    }
    // Every job reprieved: the placer, which searches within a budget, missed a fit the state
    // had; the plan then starts the blocked job with no victim.
    PreemptionPlan plan;
    TieredKey worst{0, VictimKey{INT64_MIN, INT64_MIN, 0}};
    for (size_t k = 0; k < released.size(); ++k) {
      if (reprieved[k] != 0) continue;
      plan.victims.push_back(released[k]);
      plan.cost_device_us += candidates[released[k]].cost_device_us;
      worst = std::max(worst, key[released[k]]);
    }
    plan.head_tasks = std::move(*head_tasks);
    const PlanRank rank{worst, plan.cost_device_us, plan.victims.size()};
    if (!best || rank < best_rank) {
      best = std::move(plan);
      best_rank = rank;
    }
  }
  return best;
}

}  // namespace headroom::engine
