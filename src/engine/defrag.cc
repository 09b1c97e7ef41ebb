#include "engine/defrag.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "base/check.h"
#include "engine/release_targets.h"

namespace headroom::engine {
namespace {

bool SameTasks(const std::vector<TaskAllocation>& a, const std::vector<TaskAllocation>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].node != b[i].node || a[i].devices != b[i].devices ||
        a[i].milli_per_device != b[i].milli_per_device) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<MigrationPlan> Defragmenter::Plan(ClusterState& state, const Placer& placer,
                                                const PlacementRequest& head,
                                                int64_t gain_device_us,
                                                std::span<const MovableJob> movable, TimeUs now) {
  if (!config_.enabled || head.shape->devices == 0 || gain_device_us <= 0) return std::nullopt;
  // Cost must stay below the gain and within the budget.
  const int64_t limit = std::min(gain_device_us - 1, budget_.LeftDeviceUs(now));
  const model::Cluster& cluster = state.cluster();
  const ClassMask& mask = *head.classes;
  const uint64_t need_milli = head.milli();

  // Which movable jobs sit on which node, and how much of the head's device classes they hold
  // there. A job costing more than the limit on its own never moves.
  std::vector<int64_t> cost(movable.size());
  Releasable releasable(cluster, mask);
  for (uint32_t i = 0; i < movable.size(); ++i) {
    cost[i] = CostDeviceUs(movable[i].devices);
    if (cost[i] <= limit) releasable.Add(i, *movable[i].tasks);
  }
  releasable.Seal();
  if (releasable.on_node.empty()) return std::nullopt;
  const std::vector<std::pair<uint32_t, uint32_t>>& on_node = releasable.on_node;

  std::optional<MigrationPlan> best;
  uint32_t placements_left = config_.max_placements;
  std::vector<uint8_t> released(movable.size(), 0);
  for (const DomainId target_id : ReleaseTargets(state, head, releasable)) {
    if (placements_left == 0) break;
    const int64_t ceiling = best ? std::min(limit, best->cost_device_us - 1) : limit;
    const model::Domain& target = cluster.domain(target_id);
    // Nodes of the target by what clearing them of movable jobs costs.
    std::vector<std::pair<int64_t, uint32_t>> nodes;  // (clear cost, node)
    const auto first = std::lower_bound(on_node.begin(), on_node.end(),
                                        std::pair<uint32_t, uint32_t>{target.node_begin, 0});
    for (auto it = first; it != on_node.end() && it->first < target.node_end;) {
      const uint32_t node = it->first;
      int64_t clear = 0;
      for (; it != on_node.end() && it->first == node; ++it) clear += cost[it->second];
      nodes.emplace_back(clear, node);
    }
    std::sort(nodes.begin(), nodes.end());

    const ClusterState::Speculation speculation(state);  // Every target starts from the state.
    std::vector<uint32_t> order;                         // Released jobs, in release order.
    int64_t released_cost = 0;
    bool head_placed = false;
    for (const auto& [unused_clear, node] : nodes) {
      if (head_placed || placements_left == 0) break;
      std::vector<uint32_t> here;
      const auto begin =
          std::lower_bound(on_node.begin(), on_node.end(), std::pair<uint32_t, uint32_t>{node, 0});
      for (auto it = begin; it != on_node.end() && it->first == node; ++it) {
        here.push_back(it->second);
      }
      std::sort(here.begin(), here.end(), [&](uint32_t a, uint32_t b) {
        return victims_->Key(movable[a], cost[a]) < victims_->Key(movable[b], cost[b]);
      });
      for (uint32_t v : here) {
        if (head_placed || placements_left == 0 || order.size() >= config_.max_moves) break;
        if (released[v] != 0 || released_cost + cost[v] > ceiling) continue;
        for (const TaskAllocation& task : *movable[v].tasks) state.Release(task);
        released[v] = 1;
        order.push_back(v);
        released_cost += cost[v];
        if (Placer::DomainBoundMilli(state, target_id, head) < need_milli) continue;
        --placements_left;
        auto head_tasks = placer.Place(state, head, nullptr);
        if (!head_tasks) continue;
        head_placed = true;
        // The head goes in first; then every released job must find a place again.
        for (const TaskAllocation& task : *head_tasks) state.Allocate(task);
        std::vector<uint32_t> replace = order;
        std::sort(replace.begin(), replace.end(), [&](uint32_t a, uint32_t b) {
          return std::tie(movable[b].devices, movable[a].id) <
                 std::tie(movable[a].devices, movable[b].id);
        });
        MigrationPlan plan;
        plan.head_tasks = std::move(*head_tasks);
        bool complete = true;
        for (uint32_t moved : replace) {
          if (placements_left == 0) {
            complete = false;
            break;
          }
          --placements_left;
          auto tasks = placer.Place(state, movable[moved].request, nullptr);
          if (!tasks) {
            complete = false;
            break;
          }
          for (const TaskAllocation& task : *tasks) state.Allocate(task);
          if (SameTasks(*tasks, *movable[moved].tasks)) continue;  // Back where it was.
          plan.cost_device_us += cost[moved];
          plan.moves.push_back(
              MigrateJob{movable[moved].id, std::move(*tasks), pause_us(), cost[moved]});
        }
        if (complete && !plan.moves.empty() && plan.cost_device_us <= ceiling) {
          // Report the moves in release order (the order the search freed them).
          std::stable_sort(plan.moves.begin(), plan.moves.end(),
                           [&](const MigrateJob& a, const MigrateJob& b) {
                             auto rank = [&](JobId id) {
                               for (size_t k = 0; k < order.size(); ++k) {
                                 if (movable[order[k]].id == id) return k;
                               }
                               return order.size();
                             };
                             return rank(a.job) < rank(b.job);
                           });
          best = std::move(plan);
        }
      }
    }
    for (uint32_t v : order) released[v] = 0;
  }
  return best;
}

}  // namespace headroom::engine
