// Engine::ExpectedStarts: when each pending job is expected to start, as Slurm's backfill
// estimates start times for the jobs it tests (slurm.schedmd.com/sched_config.html: every job
// backfill examines gets an expected start, and the resources of higher-priority jobs are
// reserved at their expected starts). Planned on a copy of the cluster state, in queue order:
//  - Running jobs end at their expected ends (start + estimate).
//  - A job is planned at the first of now and the ends to come (of running and of already
//    planned jobs) where it places — with the jobs planned before it holding their devices from
//    their planned start to their planned end, and avoiding, for its own expected runtime, the
//    devices, CPU and memory of planned jobs that start while it would run.
//  - With queues (quota.h), a job is planned only where its queues admit it as well: their
//    books follow the same timeline (running and planned jobs leave their queues as they end,
//    planned jobs join at their starts), and the planned jobs that start while it would run
//    count as running from its start, as their devices are avoided.
//  - For the blocked head, Explain reports its EASY reservation instead (a promise, not an
//    estimate); with a reservation made in this step the plan finds it no later start.
// Bounded as Slurm's bf_window and bf_max_job_test/bf_max_time bound backfill: at most
// kPlannedJobs jobs, starts within kHorizonUs of now, and kWorkBudget units of work (a node's
// capacity counted counts one, a placement tried kPlacementWork); a job the bound cuts off has
// no expected start. Computed on the first Explain after a step and kept until the next step.
// A job is tried at a time only when the nodes of one domain of its block level (its required
// level, else the cluster) take all its tasks by their free capacity, tracked per node as the
// timeline releases and allocates (as ComputeReservation does), so most times cost a few node
// updates rather than a search.
#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {
namespace {

constexpr size_t kPlannedJobs = 500;                     // Slurm bf_max_job_test default.
constexpr TimeUs kHorizonUs = 24 * 3600 * kUsPerSecond;  // Slurm bf_window default, 1 day.
constexpr uint64_t kWorkBudget = 2'000'000;              // ~100 ms at 100k devices (bench/).
constexpr uint64_t kPlacementWork = 1'000;
constexpr size_t kShapesCached = 64;

// Something that happens to the state at a time: a running or planned job ends (its tasks are
// released), or a planned job starts (its tasks are allocated).
struct TimelineEvent {
  TimeUs at_us;
  bool allocate;   // Releases at an instant come before allocations.
  uint32_t index;  // Running: job id; planned: index in the plan.
  bool planned;
  friend bool operator<(const TimelineEvent& a, const TimelineEvent& b) {
    return std::tie(a.at_us, a.allocate, a.planned, a.index) <
           std::tie(b.at_us, b.allocate, b.planned, b.index);
  }
};

struct PlannedJob {
  JobId id;
  TimeUs start_us;
  TimeUs end_us;
  std::vector<TaskAllocation> tasks;
  QuotaAmounts demand;  // What it adds to its queues' usage (with queues only).
};

// Whether some block still takes all the tasks once the reserved capacity is set aside: the
// blocks that fit without it, less those the reserved nodes' lost capacity takes below the
// count. O(reserved nodes).
bool StillFits(const Placer& placer, const ClusterState& scratch, const PlacementRequest& request,
               const ReservedCapacity& avoid, const std::vector<uint32_t>& capacity,
               const std::vector<uint64_t>& block_total, uint32_t block_level,
               uint64_t blocks_that_fit, uint64_t& work) {
  if (avoid.empty()) return blocks_that_fit > 0;
  std::unordered_map<uint32_t, uint64_t> lost;  // Block → tasks the reservations take.
  for (uint32_t n : avoid.touched_nodes) {
    const uint32_t kept = placer.NodeCapacity(scratch, NodeId(n), request, &avoid);
    if (kept < capacity[n]) {
      lost[scratch.cluster().AncestorAt(NodeId(n), block_level).value()] += capacity[n] - kept;
    }
    ++work;
  }
  for (const auto& [block, tasks] : lost) {
    const uint64_t total = block_total[block];
    if (total >= request.task_count && total - tasks < request.task_count) --blocks_that_fit;
  }
  return blocks_that_fit > 0;
}

}  // namespace

const std::unordered_map<uint32_t, TimeUs>& Engine::ExpectedStarts() const {
  if (start_plan_step_ == steps_) return start_plan_;
  start_plan_step_ = steps_;
  start_plan_.clear();
  const TimeUs now = last_now_us_;
  ClusterState scratch = state_;
  std::vector<TimelineEvent> timeline;
  for (const auto& [end, job] : running_by_end_) {
    if (end - now > kHorizonUs) break;
    timeline.push_back({std::max(end, now), false, job, false});
  }
  std::vector<PlannedJob> plan;
  ReservedCapacity avoid;
  avoid.Resize(cluster_.nodes().size(), cluster_.devices().size());
  // Per node, how many of the job's tasks it takes (reservations aside); per domain of the
  // job's block level, the sum: the gang can place only where a block's sum reaches its tasks
  // (as ComputeReservation tracks it), so most times cost a few node updates, not a search.
  std::vector<uint32_t> capacity(cluster_.nodes().size(), 0);
  std::vector<uint64_t> block_total(cluster_.domains().size(), 0);
  uint64_t blocks_that_fit = 0;
  struct InitialCapacity {
    std::vector<uint32_t> capacity;
    std::vector<uint64_t> block_total;
    uint64_t blocks_that_fit = 0;
  };
  std::unordered_map<Shape, InitialCapacity, ShapeHash> initial;
  const bool with_quotas = !quotas_.empty();
  // The queues' books at the plan's time: the timeline's changes for one job are replayed from
  // now onto them and taken back after it.
  QuotaTree books = with_quotas ? quotas_ : QuotaTree();
  // What a timeline event does to the books, or (`undo`) takes back.
  const auto book = [&](const TimelineEvent& event, bool undo) {
    const JobRecord& other = jobs_[event.planned ? plan[event.index].id.value() : event.index];
    books.Add(other.quota_queue, event.planned ? plan[event.index].demand : DemandOf(other),
              event.allocate != undo ? +1 : -1);
  };
  // The plan's starts in time order: the planned jobs that start while a job would run.
  std::vector<std::pair<TimeUs, uint32_t>> planned_starts;
  uint64_t work = 0;
  // Admitted by its queues at `at_us`, with the planned jobs that start while it would run
  // counted from then (they only add usage: without them first, as most times fail there).
  const auto admitted = [&](const JobRecord& r, const QuotaAmounts& demand, TimeUs at_us,
                            TimeUs runtime_us) {
    ++work;
    if (!books.Admits(r.quota_queue, demand).admitted) return false;
    const auto first = std::upper_bound(planned_starts.begin(), planned_starts.end(),
                                        std::pair{at_us, std::numeric_limits<uint32_t>::max()});
    const auto last =
        std::lower_bound(first, planned_starts.end(), std::pair{at_us + runtime_us, uint32_t{0}});
    if (first == last) return true;
    work += static_cast<uint64_t>(last - first);
    const auto add = [&](int sign) {
      for (auto it = first; it != last; ++it) {
        books.Add(jobs_[plan[it->second].id.value()].quota_queue, plan[it->second].demand, sign);
      }
    };
    add(+1);
    const bool admits = books.Admits(r.quota_queue, demand).admitted;
    add(-1);
    return admits;
  };
  for (const JobId id : queue_) {
    if (plan.size() >= kPlannedJobs || work >= kWorkBudget) break;
    const JobRecord& r = jobs_[id.value()];
    if (r.state != JobState::kPending || r.never_fits) continue;
    const QuotaAmounts demand = with_quotas ? DemandOf(r) : QuotaAmounts{};
    const PlacementRequest request = RequestOf(r);
    const TimeUs runtime_us = std::max<TimeUs>(r.job.runtime_estimate_us, 0);
    const uint32_t block_level = r.required_level == kNoLevel ? 0 : r.required_level;
    auto update = [&](NodeId node) {
      const uint32_t after = placer_.NodeCapacity(scratch, node, request, nullptr);
      uint64_t& total = block_total[cluster_.AncestorAt(node, block_level).value()];
      const bool fit_before = total >= request.task_count;
      total = total - capacity[node.value()] + after;
      capacity[node.value()] = after;
      blocks_that_fit += (total >= request.task_count ? 1 : 0) - (fit_before ? 1 : 0);
      ++work;
    };
    // Capacities at now depend on the job's shape only: count them once per shape.
    auto cached = initial.find(r.shape());
    if (cached != initial.end()) {
      capacity = cached->second.capacity;
      block_total = cached->second.block_total;
      blocks_that_fit = cached->second.blocks_that_fit;
      work += capacity.size() / 16;
    } else {
      std::fill(capacity.begin(), capacity.end(), 0);
      std::fill(block_total.begin(), block_total.end(), 0);
      blocks_that_fit = 0;
      for (const model::Node& node : cluster_.nodes()) update(node.id);
      if (initial.size() < kShapesCached) {
        initial.emplace(r.shape(), InitialCapacity{capacity, block_total, blocks_that_fit});
      }
    }
    // The timeline is replayed for each job from now; the plan itself lives outside `scratch`.
    const ClusterState::Speculation speculation(scratch);
    std::optional<std::vector<TaskAllocation>> placed;
    TimeUs at_us = now;
    size_t next = 0;
    while (work < kWorkBudget) {
      // Everything that happens up to and including `at_us`.
      for (; next < timeline.size() && timeline[next].at_us <= at_us; ++next) {
        const TimelineEvent& event = timeline[next];
        for (const TaskAllocation& task :
             event.planned ? plan[event.index].tasks : jobs_[event.index].tasks) {
          event.allocate ? scratch.Allocate(task) : scratch.Release(task);
          update(task.node);
        }
        if (with_quotas) book(event, false);
      }
      if (blocks_that_fit > 0 && (!with_quotas || admitted(r, demand, at_us, runtime_us))) {
        avoid.Clear();
        for (const PlannedJob& other : plan) {
          if (other.start_us <= at_us || other.start_us >= at_us + runtime_us) continue;
          for (const TaskAllocation& task : other.tasks) {
            avoid.Reserve(task.node, task.devices, task.cpu_milli, task.memory_mib);
          }
        }
        if (StillFits(placer_, scratch, request, avoid, capacity, block_total, block_level,
                      blocks_that_fit, work)) {
          work += kPlacementWork;
          placed = placer_.Place(scratch, request, &avoid);
          if (placed) break;
        }
      }
      if (next == timeline.size() || timeline[next].at_us - now > kHorizonUs) break;
      at_us = timeline[next].at_us;
    }
    // The timeline's first `next` events were replayed for this job: taken back in reverse
    // (a planned job's end before its start, so that no queue's usage dips below zero).
    for (size_t k = next; with_quotas && k > 0; --k) book(timeline[k - 1], true);
    if (!placed) continue;
    start_plan_[id.value()] = at_us;
    if (runtime_us == 0) continue;  // Holds nothing for any time.
    const auto index = static_cast<uint32_t>(plan.size());
    plan.push_back({id, at_us, at_us + runtime_us, std::move(*placed), demand});
    const std::pair<TimeUs, uint32_t> planned_start{at_us, index};
    planned_starts.insert(
        std::upper_bound(planned_starts.begin(), planned_starts.end(), planned_start),
        planned_start);
    // The plan's own start and end join the timeline (kept sorted).
    for (const TimelineEvent event : {TimelineEvent{at_us, true, index, true},
                                      TimelineEvent{at_us + runtime_us, false, index, true}}) {
      timeline.insert(std::upper_bound(timeline.begin(), timeline.end(), event), event);
    }
  }
  return start_plan_;
}

}  // namespace headroom::engine
