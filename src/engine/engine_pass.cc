// Engine's scheduling pass (engine.h, "One pass"): when a pass is due, the queue order kept
// up to date (recomputed every PriorityCalcPeriod for time-dependent orders, arrivals merged
// in), the walk that starts every job that fits until the first that does not, what the
// backfill mode does behind it, and the failure cache that skips a request shape already
// known not to fit until capacity is released (or, avoiding a reservation, until it changes).
#include <algorithm>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"
#include "engine/share_placement.h"

namespace headroom::engine {

bool Engine::ReorderDue(TimeUs now) const {
  return order_->time_dependent() &&
         (!reordered_once_ || now - last_reorder_us_ >= policy_.multifactor.recalc_period_us);
}

bool Engine::RaisedAfterRequeue(const JobRecord& r, TimeUs now) const {
  const TimeUs after_us = policy_.preemption.raise_requeued_after_us;
  return after_us > 0 && r.preemptions > 0 && now - r.pending_since_us >= after_us;
}

void Engine::AwaitRaise(const JobRecord& r, JobId id) {
  if (policy_.preemption.raise_requeued_after_us > 0 && r.preemptions > 0) {
    raise_due_.insert(
        {r.pending_since_us + policy_.preemption.raise_requeued_after_us, id.value()});
  }
}

bool Engine::BackfillDue(TimeUs now) const {
  return policy_.backfill != BackfillMode::kNone &&
         (policy_.backfill_interval_us == 0 || !backfilled_once_ ||
          now - last_backfill_us_ >= policy_.backfill_interval_us);
}

void Engine::Reorder(TimeUs now) {
  const bool recompute = ReorderDue(now);
  OrderContext context;
  context.now_us = now;
  context.cluster_devices = std::max<uint64_t>(cluster_.device_count(), 1);
  context.max_priority = max_priority_;
  std::span<const double> factors;
  if (order_->time_dependent()) {
    if (recompute) fair_share_.Advance(now);
    factors = fair_share_.Factors();
  }
  const bool predicts = order_->uses_predicted_runtime();
  const uint32_t budget = policy_.preemption.max_preemptions_per_job;
  auto rekey = [&](JobRecord& r, JobId id) {
    context.fairshare = r.tenant.value() < factors.size() ? factors[r.tenant.value()] : 1.0;
    if (predicts) context.predicted_runtime_us = runtimes_.Predict(r.tenant, r.job.total_milli());
    if (las_ != nullptr) {
      PromoteIfStarved(r, now);
      context.attained_device_us = r.attained_device_us;
    }
    r.key = order_->Key(r.job, id, context);
    r.key.raised =
        r.expedited || (budget > 0 && r.preemptions >= budget) || RaisedAfterRequeue(r, now);
  };
  // Requeued jobs whose wait came to raise_requeued_after_us move ahead; the rest keep their keys.
  bool raised = false;
  while (!raise_due_.empty() && raise_due_.begin()->first <= now) {
    JobRecord& r = jobs_[raise_due_.begin()->second];
    raise_due_.erase(raise_due_.begin());
    if (r.state != JobState::kPending || r.key.raised || !RaisedAfterRequeue(r, now)) continue;
    r.key.raised = true;
    raised = true;
  }
  if (recompute) {
    last_reorder_us_ = now;
    reordered_once_ = true;
    for (JobId id : queue_) {
      rekey(record(id), id);
    }
  }
  if (recompute || raised) {
    std::sort(queue_.begin(), queue_.end(),
              [&](JobId a, JobId b) { return record(a).key < record(b).key; });
  }
  if (arrivals_.empty()) return;
  for (JobId id : arrivals_) rekey(record(id), id);
  auto by_key = [&](JobId a, JobId b) { return record(a).key < record(b).key; };
  std::sort(arrivals_.begin(), arrivals_.end(), by_key);
  const size_t middle = queue_.size();
  queue_.insert(queue_.end(), arrivals_.begin(), arrivals_.end());
  std::inplace_merge(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(middle),
                     queue_.end(), by_key);
  arrivals_.clear();
}

bool Engine::TryStart(JobId id, TimeUs now, const ReservedCapacity* avoid, Decisions& decisions,
                      TimeUs free_until_us) {
  JobRecord& r = record(id);
  // An elastic job that does not fit whole starts at the widest width that fits, as Slurm
  // starts a `--nodes=MIN-MAX` job on as many nodes as it can get; a width that would run past
  // `free_until_us` keeps out of `avoid`.
  const uint32_t narrowest = r.job.elastic() ? r.job.min_task_count : r.full_task_count;
  const uint32_t step = std::max<uint32_t>(r.job.task_count_step, 1);
  const bool model_options = HasModelOptions(r);
  for (uint32_t width = r.full_task_count;; width -= step) {
    r.SetWidth(width);
    const bool done_in_time = now + r.job.runtime_estimate_us <= free_until_us;
    const ReservedCapacity* avoiding = done_in_time ? nullptr : avoid;
    if (!model_options) {
      if (auto placement = PlaceAt(r, avoiding)) {
        Launch(id, std::move(*placement), now, decisions);
        return true;
      }
    } else {
      // Its device-model options its queues admit at this width, in rank order.
      for (const ModelOption& option : RankedModelOptions(r, false)) {
        UseModelOption(r, option);
        if (auto placement = PlaceAt(r, avoiding)) {
          Launch(id, std::move(*placement), now, decisions);
          return true;
        }
      }
    }
    if (width < narrowest + step) break;
  }
  r.SetWidth(r.full_task_count);
  UsePreferredModelOption(r);
  return false;
}

std::optional<std::vector<TaskAllocation>> Engine::PlaceAt(const JobRecord& r,
                                                           const ReservedCapacity* avoid) {
  const Shape shape = r.shape();
  const bool plain = avoid == nullptr || avoid->empty();
  // A failure stays a failure until capacity is released (and, avoiding a reservation, while
  // the reservation is the same one).
  const uint64_t version = plain ? 0 : reservation_version_;
  auto& failures = plain ? *failed_shapes_ : *failed_avoiding_;
  // A job with devices kept for it fits where its shape alone says nothing about.
  const bool cached = r.kept_devices.empty();
  const auto it = failures.find(shape);
  const bool known_failure = cached && it != failures.end() && it->second.first == release_epoch_ &&
                             it->second.second == version;
  if (known_failure && !SeesSpares(r)) return std::nullopt;
  const PlacementRequest request = RequestOf(r);
  const auto place = [&]() -> std::optional<std::vector<TaskAllocation>> {
    if (!SharePlaced(r)) return placer_.Place(state_, request, avoid);
    const SharePlacer::NodeGate gate = [&](NodeId node) {
      return placer_.Admits(state_, node, request);
    };
    auto task = share_->Place(state_, r.job, gate, avoid);
    if (!task) return std::nullopt;
    // On a device-model option, a share only on its classes (the share placer reads the job's
    // selector).
    const ClassMask& mask = masks_[r.mask];
    const bool on_option = std::all_of(task->devices.begin(), task->devices.end(), [&](DeviceId d) {
      return mask.matches[cluster_.device(d).device_class.value()] != 0;
    });
    if (!on_option) return std::nullopt;
    return std::vector<TaskAllocation>(1, *task);
  };
  // A job that accepts degraded devices sees what they have free while it looks, and a job a
  // fault requeued the devices kept for it, then, where it fits no other way, the hot spares;
  // undone after, so that what it is given there comes out of what they hold back
  // (ClusterState's rule 5).
  ClusterState::Speculation withheld_shown(state_);
  if (r.job.accepts_degraded) {
    for (uint32_t device : degraded_) state_.SetWithdrawn(DeviceId(device), false);
  }
  for (DeviceId device : r.kept_devices) state_.SetWithdrawn(device, false);
  std::optional<std::vector<TaskAllocation>> placement;
  if (!known_failure) {
    placement = place();
    if (!placement && cached) failures[shape] = {release_epoch_, version};
  }
  if (!placement && SeesSpares(r)) {
    for (const model::Node& node : cluster_.nodes()) {
      if (spare(node.id)) SetNodeWithdrawn(node.id, false);
    }
    placement = place();
  }
  return placement;
}

void Engine::Launch(JobId id, std::vector<TaskAllocation> tasks, TimeUs now, Decisions& decisions,
                    std::optional<TimeUs> told_interval_us) {
  JobRecord& r = record(id);
  HR_CHECK(r.AllowsWidth(tasks.size()));
  r.SetWidth(static_cast<uint32_t>(tasks.size()));
  if (tasks.size() < r.full_task_count) narrowed_.insert(id.value());
  for (const TaskAllocation& task : tasks) {
    ForgetSpare(task.node);
    state_.Allocate(task);
  }
  TrackTasks(r, tasks, +1);
  r.cap_rung = RungOfTasks(tasks);
  if (r.cap_rung != 0) capped_.insert(id.value());
  r.tasks = std::move(tasks);
  UseModelOfTasks(r);
  r.state = JobState::kRunning;
  r.code = PendingCode::kNone;
  r.expedited = false;
  r.requeued_by_fault = false;
  // Under las, the wait of a job that has already run counts toward its promotion.
  if (r.attained_device_us > 0) r.waited_since_promotion_us += now - r.pending_since_us;
  r.start_us = now;
  // A requeued job reloads its checkpoint before it works again.
  const bool restart = r.preemptions + r.interruptions > 0;
  r.checkpoint_base_us = now + (restart ? policy_.preemption.restart_us : 0);
  r.expected_end_us = now + std::max<TimeUs>(r.job.runtime_estimate_us, 0);
  running_by_end_.insert({r.expected_end_us, id.value()});
  CountRunning(id, +1);
  ForgetFruitlessSearches(id);
  fair_share_.AddRunning(r.tenant, static_cast<int64_t>(r.job.total_milli()));
  ReturnKept(r);
  r.directed_interval_us = told_interval_us ? *told_interval_us : DirectedIntervalUs(r, now);
  decisions.starts.push_back(StartJob{id, r.tasks, r.directed_interval_us});
}

bool Engine::SharePlaced(const JobRecord& r) const {
  // By the shape it was submitted with: an elastic gang narrowed to one task is not its kind.
  return share_ != nullptr && r.job.task_count == r.full_task_count && share_->Takes(r.job);
}

void Engine::TrackTasks(const JobRecord& r, const std::vector<TaskAllocation>& tasks, int sign) {
  if (r.spread_group != 0) {
    for (const TaskAllocation& task : tasks) {
      spread_.Add(r.spread_group, cluster_.node(task.node).domain, sign);
    }
  }
  if (share_ == nullptr) return;
  for (const TaskAllocation& task : tasks) share_->Track(task, sign);
}

void Engine::Diagnose(JobRecord& r, BudgetBlocks& memo) {
  r.code = Analyze(r);
  if (r.code != PendingCode::kTopology || !placer_.has_budgets()) return;
  auto [it, inserted] = memo.emplace(r.shape(), std::nullopt);
  if (inserted) it->second = placer_.BudgetBlock(state_, RequestOf(r.AtNarrowest()), nullptr);
  if (!it->second) return;
  r.code = PendingCode::kFacility;
  r.facility_block = *it->second;
}

PendingCode Engine::Analyze(const JobRecord& pending) const {
  if (pending.never_fits) return PendingCode::kUnschedulable;
  if (pending.job.elastic()) return Analyze(pending.AtNarrowest());
  const JobRecord& r = pending;
  const PlacementRequest request = RequestOf(r);
  if (Placer::DomainBoundMilli(state_, DomainId(0), request) < request.milli()) {
    return PendingCode::kCapacity;
  }
  return PendingCode::kTopology;
}

void Engine::Schedule(TimeUs now, Decisions& decisions) {
  dirty_ = false;
  Evacuate(now, decisions);
  Reorder(now);
  const bool backfill_pass = BackfillDue(now);
  if (backfill_pass) {
    last_backfill_us_ = now;
    backfilled_once_ = true;
  }
  const JobId previous_head = blocked_head_;
  blocked_head_ = JobId();
  preemption_wakeup_us_ = kNever;
  requeued_in_pass_ = false;
  *preemption_memo_ = PreemptionMemo{};  // Its candidates' wake-ups were this pass's.
  service_sweep_us_ = -1;  // The running jobs may differ from the last pass's at this time.
  cap_room_fruitless_.clear();

  std::unordered_map<Shape, bool, ShapeHash> held_for_reservation;
  BudgetBlocks budget_blocks;
  uint32_t examined = 0;
  uint32_t backfill_examined = 0;
  uint32_t position = 0;
  uint32_t preemption_searches = policy_.preemption.max_searches_per_pass;
  bool blocked = false;
  std::vector<JobId> still_pending;
  still_pending.reserve(queue_.size());
  for (JobId id : queue_) {
    JobRecord& r = record(id);
    r.position = ++position;
    bool started = false;
    if (r.never_fits) {
      r.code = PendingCode::kUnschedulable;
    } else if (!QuotaVerdict(r).admitted) {
      // Held by a quota, it holds up nobody behind it (as Kueue's BestEffortFIFO); within its
      // guarantee it may reclaim what other queues borrow.
      r.code = PendingCode::kQuota;
      started = StartByPreemption(id, now, preemption_searches, decisions);
    } else if (!blocked) {
      if (policy_.main_queue_depth != 0 && examined >= policy_.main_queue_depth) {
        r.code = PendingCode::kNotConsidered;
        blocked = true;  // The main pass stops here; backfill may still look further.
      } else {
        ++examined;
        started = TryStart(id, now, nullptr, decisions);
        // Work started in the main pass was placed without regard to any reservation.
        reservation_stale_ |= started;
        if (!started) {
          blocked = true;
          blocked_head_ = id;
          Diagnose(r, budget_blocks);
        }
        if (!started && r.code == PendingCode::kFacility && StartCapped(id, now, decisions)) {
          // Held back only by the budgets, it starts under a cap: the pass goes on.
          started = true;
          blocked = false;
          blocked_head_ = JobId();
          reservation_stale_ = true;
        }
        if (!started) {
          const bool reserves = policy_.backfill == BackfillMode::kEasy && backfill_pass;
          if (reserves && now - r.job.submit_time_us < policy_.reserve_after_us) {
            DropReservation();  // Not waited long enough to be held for: the rest may start.
          } else if (reserves) {
            // A reservation stays valid while its head is the same, no capacity came back,
            // no node was drained or undrained, nothing started ahead of it (everything
            // started since respected it) and its start has not passed (work that overran its
            // estimate still holds what the reservation counted on).
            const bool still_valid = id == previous_head && reservation_head_ == id &&
                                     reservation_epoch_ == release_epoch_ && !reservation_stale_ &&
                                     reserved_start_us_ >= now;
            if (!still_valid) ComputeReservation(id, now);
          }
          if ((r.code == PendingCode::kTopology && StartByMigration(id, now, decisions)) ||
              StartByPreemption(id, now, preemption_searches, decisions)) {
            // It started after all: the pass goes on as if it had fitted.
            started = true;
            blocked = false;
            blocked_head_ = JobId();
          }
        }
      }
    } else if (!backfill_pass) {
      r.code = PendingCode::kPriority;
    } else if (policy_.backfill_max_jobs != 0 && backfill_examined >= policy_.backfill_max_jobs) {
      r.code = PendingCode::kNotConsidered;
    } else {
      ++backfill_examined;
      if (policy_.backfill == BackfillMode::kSkip || reservation_.empty()) {
        started = TryStart(id, now, nullptr, decisions);
        if (!started) {
          Diagnose(r, budget_blocks);
          started = r.code == PendingCode::kFacility && StartCapped(id, now, decisions);
        }
        // With nothing reserved, a job further back may preempt as the first blocked one may
        // (each pending pod may, in Kubernetes); EASY keeps that to the reserved head.
        if (!started && policy_.backfill == BackfillMode::kSkip) {
          started = StartByPreemption(id, now, preemption_searches, decisions);
        }
      } else {
        const bool ends_before_reservation = now + r.job.runtime_estimate_us <= reserved_start_us_;
        started = TryStart(id, now, &reservation_, decisions, reserved_start_us_);
        if (!started) {
          Diagnose(r, budget_blocks);
          if (!ends_before_reservation && r.code == PendingCode::kTopology) {
            // Distinguish "held for the reserved job" from "does not fit at all", once per
            // shape and pass (the answer is a diagnosis, not a decision).
            auto [it, inserted] = held_for_reservation.emplace(r.shape(), false);
            if (inserted) it->second = placer_.Place(state_, RequestOf(r), nullptr).has_value();
            if (it->second) r.code = PendingCode::kReservation;
          }
        }
      }
    }
    if (!started) still_pending.push_back(id);
  }
  // A reservation whose start has passed (work overran its estimate) is not shown or kept
  // between backfill passes; the next backfill pass plans again.
  if (!blocked_head_.valid() || reserved_start_us_ < now ||
      (policy_.backfill == BackfillMode::kEasy && !backfill_pass &&
       blocked_head_ != reservation_head_)) {
    DropReservation();
  }
  queue_ = std::move(still_pending);
  position = 0;
  for (JobId id : queue_) record(id).position = ++position;
  GrowElastic(now, decisions);
}

TimeUs Engine::NextWakeupUs() const {
  if (queue_.empty() && arrivals_.empty()) return kNever;
  if (requeued_in_pass_) return last_now_us_;
  TimeUs wakeup = kNever;
  if (policy_.backfill != BackfillMode::kNone && policy_.backfill_interval_us > 0 &&
      backfilled_once_) {
    wakeup = std::min(wakeup, last_backfill_us_ + policy_.backfill_interval_us);
  }
  if (order_->time_dependent() && reordered_once_) {
    wakeup = std::min(wakeup, last_reorder_us_ + policy_.multifactor.recalc_period_us);
  }
  wakeup = std::min({wakeup, preemption_wakeup_us_, NextRaiseUs()});
  return wakeup;
}

}  // namespace headroom::engine
