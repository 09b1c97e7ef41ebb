#include "engine/defrag.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "base/check.h"

namespace headroom::engine {
namespace {

constexpr TimeUs kBudgetWindowUs = 3600 * kUsPerSecond;

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

// Milli-devices of the head's device classes that `task` holds.
uint64_t MatchingMilli(const model::Cluster& cluster, const TaskAllocation& task,
                       const ClassMask& mask) {
  uint64_t milli = 0;
  for (DeviceId device : task.devices) {
    if (mask.matches[cluster.device(device).device_class.value()]) milli += task.milli_per_device;
  }
  return milli;
}

}  // namespace

int64_t Defragmenter::BudgetLeftDeviceUs(TimeUs now) {
  while (!spent_.empty() && spent_.front().first <= now - kBudgetWindowUs) {
    spent_device_us_ -= spent_.front().second;
    spent_.pop_front();
  }
  const int64_t budget = config_.budget_device_s_per_hour * kUsPerSecond;
  return std::max<int64_t>(budget - spent_device_us_, 0);
}

void Defragmenter::Record(TimeUs now, int64_t cost_device_us) {
  // One entry per moment, however many plans ran in it: the budget is the same, and an engine
  // that follows a step's recorded moves (Engine::Follow) carries the same list.
  if (!spent_.empty() && spent_.back().first == now) {
    spent_.back().second += cost_device_us;
  } else {
    spent_.emplace_back(now, cost_device_us);
  }
  spent_device_us_ += cost_device_us;
}

std::vector<std::pair<TimeUs, int64_t>> Defragmenter::SpentSince(TimeUs now) const {
  std::vector<std::pair<TimeUs, int64_t>> spent;
  for (const auto& charge : spent_) {
    if (charge.first > now - kBudgetWindowUs) spent.push_back(charge);
  }
  return spent;
}

std::optional<MigrationPlan> Defragmenter::Plan(ClusterState& state, const Placer& placer,
                                                const PlacementRequest& head,
                                                int64_t gain_device_us,
                                                std::span<const MovableJob> movable, TimeUs now) {
  if (!config_.enabled || head.shape->devices == 0 || gain_device_us <= 0) return std::nullopt;
  // Cost must stay below the gain and within the budget.
  const int64_t limit = std::min(gain_device_us - 1, BudgetLeftDeviceUs(now));
  const model::Cluster& cluster = state.cluster();
  const ClassMask& mask = *head.classes;
  const uint64_t need_milli = head.milli();

  // Which movable jobs sit on which node (each job once per node), and how much of the head's
  // device classes they hold there. A job costing more than the limit on its own never moves.
  std::vector<int64_t> cost(movable.size());
  std::vector<std::pair<uint32_t, uint32_t>> on_node;  // (node, movable index)
  std::vector<uint64_t> node_movable_milli(cluster.nodes().size(), 0);
  for (uint32_t i = 0; i < movable.size(); ++i) {
    cost[i] = CostDeviceUs(movable[i].devices);
    if (cost[i] > limit) continue;
    for (const TaskAllocation& task : *movable[i].tasks) {
      on_node.emplace_back(task.node.value(), i);
      node_movable_milli[task.node.value()] += MatchingMilli(cluster, task, mask);
    }
  }
  if (on_node.empty()) return std::nullopt;
  std::sort(on_node.begin(), on_node.end());
  on_node.erase(std::unique(on_node.begin(), on_node.end()), on_node.end());

  // Targets: (level order, missing milli, domain id), deepest level first.
  const uint32_t stop = head.required_level == kNoLevel ? 0 : head.required_level;
  std::vector<std::tuple<uint32_t, uint64_t, uint32_t>> targets;
  for (uint32_t level = cluster.deepest_level() + 1; level-- > stop;) {
    for (DomainId domain_id : cluster.domains_at_level(level)) {
      const model::Domain& domain = cluster.domain(domain_id);
      const uint64_t free = Placer::DomainBoundMilli(state, domain_id, head);
      uint64_t movable_milli = 0;
      for (uint32_t n = domain.node_begin; n < domain.node_end; ++n) {
        movable_milli += node_movable_milli[n];
      }
      // Enough free devices by the aggregates may still not place (they sit on too many
      // nodes), so a domain qualifies whenever free and movable capacity together cover it.
      if (free + movable_milli < need_milli) continue;
      targets.emplace_back(cluster.deepest_level() - level, need_milli - std::min(free, need_milli),
                           domain_id.value());
    }
  }
  std::sort(targets.begin(), targets.end());

  std::optional<MigrationPlan> best;
  uint32_t placements_left = config_.max_placements;
  std::vector<uint8_t> released(movable.size(), 0);
  for (const auto& [unused_level, unused_missing, target_value] : targets) {
    if (placements_left == 0) break;
    const int64_t ceiling = best ? std::min(limit, best->cost_device_us - 1) : limit;
    const model::Domain& target = cluster.domain(DomainId(target_value));
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
        if (Placer::DomainBoundMilli(state, DomainId(target_value), head) < need_milli) continue;
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
