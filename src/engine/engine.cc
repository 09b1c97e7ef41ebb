#include "engine/engine.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "base/check.h"
#include "engine/engine_records.h"
#include "model/job_topology.h"

namespace headroom::engine {

Engine::Engine(const model::Cluster& cluster, const PolicyConfig& policy)
    : cluster_(cluster),
      policy_(policy),
      placer_(PlacementOptionsOf(policy)),
      state_(cluster),
      fair_share_(policy.multifactor.decay_half_life_us),
      failed_shapes_(std::make_unique<FailureCache>()),
      failed_avoiding_(std::make_unique<FailureCache>()),
      defrag_(policy.migration, *VictimSelectors().Make(policy.victim_selector)) {
  auto order = MakeQueueOrder(policy.queue_order, policy.multifactor);
  HR_CHECK(order.has_value());
  order_ = std::move(*order);
  reservation_.Resize(cluster.nodes().size(), cluster.devices().size());
}

Engine::~Engine() = default;

Engine::JobRecord& Engine::record(JobId id) {
  HR_CHECK(id.value() < jobs_.size());
  return jobs_[id.value()];
}

const Engine::JobRecord* Engine::find(JobId id) const {
  if (!id.valid() || id.value() >= jobs_.size()) return nullptr;
  const JobRecord& r = jobs_[id.value()];
  return r.state == JobState::kUnknown ? nullptr : &r;
}

JobState Engine::state(JobId job) const {
  const JobRecord* r = find(job);
  return r == nullptr ? JobState::kUnknown : r->state;
}

const std::vector<TaskAllocation>* Engine::allocations(JobId job) const {
  const JobRecord* r = find(job);
  return r == nullptr || r->state != JobState::kRunning ? nullptr : &r->tasks;
}

uint32_t Engine::MaskFor(const model::Selector& selector) {
  auto [it, inserted] =
      mask_by_selector_.emplace(selector.text(), static_cast<uint32_t>(masks_.size()));
  if (inserted) {
    ClassMask mask;
    mask.matches.assign(state_.class_count(), 0);
    for (const model::DeviceClass& device_class : cluster_.device_classes()) {
      if (selector.Matches(device_class.attributes)) {
        mask.matches[device_class.id.value()] = 1;
        mask.classes.push_back(device_class.id);
      }
    }
    masks_.push_back(std::move(mask));
  }
  return it->second;
}

PlacementRequest Engine::RequestOf(const JobRecord& r) const {
  return PlacementRequest{&r.job.task, r.job.task_count, &masks_[r.mask], r.required_level,
                          r.preferred_level};
}

// A job never fits when even an empty cluster could not hold it: no matching device, a task
// larger than every node, more tasks than all nodes together take, or more than the nodes of
// any one domain of its required level take.
bool Engine::NeverFits(const JobRecord& r) const {
  const model::TaskShape& shape = r.job.task;
  const ClassMask& mask = masks_[r.mask];
  if (r.unknown_level) return true;
  if (shape.devices > 0 && mask.classes.empty()) return true;
  uint64_t tasks = 0;
  DomainId block;  // The required-level domain being summed (nodes come in domain order).
  for (const model::Node& node : cluster_.nodes()) {
    if (r.required_level != kNoLevel) {
      const DomainId domain = cluster_.AncestorAt(node.id, r.required_level);
      if (domain != block) tasks = 0;
      block = domain;
    }
    uint64_t capacity = r.job.task_count;
    if (shape.cpu_milli > 0)
      capacity = std::min<uint64_t>(capacity, node.cpu_milli / shape.cpu_milli);
    if (shape.memory_mib > 0) {
      capacity = std::min<uint64_t>(capacity, node.memory_mib / shape.memory_mib);
    }
    if (shape.devices > 0) {
      uint64_t matching = 0;
      for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
        if (mask.matches[cluster_.devices()[d].device_class.value()]) ++matching;
      }
      capacity = std::min<uint64_t>(
          capacity, shape.fractional()
                        ? matching * (model::kMilliPerDevice / shape.milli_per_device)
                        : matching / shape.devices);
    }
    tasks += capacity;
    if (tasks >= r.job.task_count) return false;
  }
  return true;
}

// Level names become indices once, at submission; a name the cluster lacks makes the job
// unschedulable (loaders reject it earlier, with a message: job_topology.h).
void Engine::ResolveLevels(JobRecord& r) const {
  for (const auto& [name, level] :
       {std::pair{&r.job.required_topology_level, &r.required_level},
        std::pair{&r.job.preferred_topology_level, &r.preferred_level}}) {
    if (name->empty()) continue;
    const std::optional<uint32_t> index = model::LevelIndex(cluster_, *name);
    if (index) *level = *index;
    r.unknown_level |= !index.has_value();
  }
  // A preferred level above the required one could never take effect.
  if (r.required_level != kNoLevel && r.preferred_level != kNoLevel &&
      r.preferred_level < r.required_level) {
    r.preferred_level = kNoLevel;
  }
}

void Engine::Submit(JobId id, model::Job job) {
  if (id.value() >= jobs_.size()) jobs_.resize(id.value() + 1);
  JobRecord& r = jobs_[id.value()];
  HR_CHECK(r.state == JobState::kUnknown);  // Ids are never reused.
  r.job = std::move(job);
  r.state = JobState::kPending;
  auto [tenant, inserted] =
      tenant_ids_.emplace(r.job.tenant, static_cast<uint32_t>(tenant_ids_.size()));
  r.tenant = TenantId(tenant->second);
  fair_share_.EnsureTenant(r.tenant);
  r.mask = MaskFor(r.job.task.selector);
  ResolveLevels(r);
  r.never_fits = NeverFits(r);
  r.code = r.never_fits ? PendingCode::kUnschedulable : PendingCode::kNotConsidered;
  max_priority_ = std::max(max_priority_, r.job.priority);
  arrivals_.push_back(id);
  dirty_ = true;
}

void Engine::Restore(JobRestored& restored) {
  const JobId id = restored.id;
  if (id.value() >= jobs_.size()) jobs_.resize(id.value() + 1);
  JobRecord& r = jobs_[id.value()];
  HR_CHECK(r.state == JobState::kUnknown);  // Ids are never reused.
  HR_CHECK(restored.tasks.size() == restored.job.task_count);
  for (const TaskAllocation& task : restored.tasks) {
    HR_CHECK(task.node.value() < cluster_.nodes().size());
    HR_CHECK(state_.free_cpu_milli(task.node) >= task.cpu_milli);
    HR_CHECK(state_.free_memory_mib(task.node) >= task.memory_mib);
    for (DeviceId device : task.devices) {
      HR_CHECK(device.value() < cluster_.devices().size());
      HR_CHECK(cluster_.device(device).node == task.node);
      HR_CHECK(state_.free_milli(device) >= task.milli_per_device);
    }
    state_.Allocate(task);
  }
  r.job = std::move(restored.job);
  r.state = JobState::kRunning;
  auto [tenant, inserted] =
      tenant_ids_.emplace(r.job.tenant, static_cast<uint32_t>(tenant_ids_.size()));
  r.tenant = TenantId(tenant->second);
  fair_share_.EnsureTenant(r.tenant);
  r.mask = MaskFor(r.job.task.selector);
  r.code = PendingCode::kNone;
  r.tasks = std::move(restored.tasks);
  r.start_us = restored.started_us;
  r.expected_end_us = r.start_us + std::max<TimeUs>(r.job.runtime_estimate_us, 0);
  running_by_end_.insert({r.expected_end_us, id.value()});
  fair_share_.AddRunning(r.tenant, static_cast<int64_t>(r.job.total_milli()));
  max_priority_ = std::max(max_priority_, r.job.priority);
  // Capacity is taken, not released: cached placement failures stay valid, but a reservation
  // may have counted on these devices.
  reservation_stale_ = true;
  dirty_ = true;
}

void Engine::Finish(JobId id, JobState final_state) {
  JobRecord& r = record(id);
  if (r.state == JobState::kRunning) {
    for (const TaskAllocation& task : r.tasks) state_.Release(task);
    fair_share_.AddRunning(r.tenant, -static_cast<int64_t>(r.job.total_milli()));
    running_by_end_.erase({r.expected_end_us, id.value()});
    ++release_epoch_;
  } else if (r.state == JobState::kPending) {
    auto it = std::find(queue_.begin(), queue_.end(), id);
    if (it != queue_.end()) {
      queue_.erase(it);
    } else {
      arrivals_.erase(std::find(arrivals_.begin(), arrivals_.end(), id));
    }
  } else {
    return;  // Already finished or cancelled: finishing twice is harmless.
  }
  r.state = final_state;
  r.code = PendingCode::kNone;
  r.tasks.clear();
  r.tasks.shrink_to_fit();
  // Keep the record small once the job is over: name and selector are no longer needed.
  r.job.name.clear();
  r.job.name.shrink_to_fit();
  r.job.task.selector = model::Selector();
  dirty_ = true;
}

void Engine::Apply(Event& event) {
  if (auto* submitted = std::get_if<JobSubmitted>(&event)) {
    Submit(submitted->id, std::move(submitted->job));
  } else if (auto* finished = std::get_if<JobFinished>(&event)) {
    if (find(finished->id) != nullptr) Finish(finished->id, JobState::kFinished);
  } else if (auto* cancelled = std::get_if<JobCancelled>(&event)) {
    if (find(cancelled->id) != nullptr) Finish(cancelled->id, JobState::kCancelled);
  } else if (auto* restored = std::get_if<JobRestored>(&event)) {
    Restore(*restored);
  } else if (auto* drained = std::get_if<NodeDrained>(&event)) {
    if (drained->node.value() < cluster_.nodes().size()) {
      state_.SetDrained(drained->node, drained->drained);
      if (!drained->drained) ++release_epoch_;
      // The reservation may hold devices on this node, or could now use them: plan again.
      reservation_stale_ = true;
      dirty_ = true;
    }
  }
}

Decisions Engine::Step(std::span<Event> events, TimeUs now) {
  HR_CHECK(now >= last_now_us_);
  last_now_us_ = now;
  ++steps_;
  for (Event& event : events) Apply(event);
  Decisions decisions;
  // A pass runs when something changed, or when a periodic pass (priority recalculation, a
  // backfill interval) falls due; a backfill interval of 0 means every pass, not a timer.
  const bool timer_due = ReorderDue(now) || (policy_.backfill_interval_us > 0 && BackfillDue(now));
  if (dirty_ || timer_due) Schedule(now, decisions);
  state_.Commit(0);
  return decisions;
}

bool Engine::ReorderDue(TimeUs now) const {
  return order_->time_dependent() &&
         (!reordered_once_ || now - last_reorder_us_ >= policy_.multifactor.recalc_period_us);
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
  std::vector<double> factors;
  if (order_->time_dependent()) {
    if (recompute) fair_share_.Advance(now);
    factors = fair_share_.Factors();
  }
  auto fairshare_of = [&](const JobRecord& r) {
    return r.tenant.value() < factors.size() ? factors[r.tenant.value()] : 1.0;
  };
  if (recompute) {
    last_reorder_us_ = now;
    reordered_once_ = true;
    for (JobId id : queue_) {
      JobRecord& r = record(id);
      context.fairshare = fairshare_of(r);
      r.key = order_->Key(r.job, id, context);
    }
    std::sort(queue_.begin(), queue_.end(),
              [&](JobId a, JobId b) { return record(a).key < record(b).key; });
  }
  if (arrivals_.empty()) return;
  for (JobId id : arrivals_) {
    JobRecord& r = record(id);
    context.fairshare = fairshare_of(r);
    r.key = order_->Key(r.job, id, context);
  }
  auto by_key = [&](JobId a, JobId b) { return record(a).key < record(b).key; };
  std::sort(arrivals_.begin(), arrivals_.end(), by_key);
  const size_t middle = queue_.size();
  queue_.insert(queue_.end(), arrivals_.begin(), arrivals_.end());
  std::inplace_merge(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(middle),
                     queue_.end(), by_key);
  arrivals_.clear();
}

bool Engine::TryStart(JobId id, TimeUs now, const ReservedCapacity* avoid, Decisions& decisions) {
  JobRecord& r = record(id);
  const Shape shape = r.shape();
  const bool plain = avoid == nullptr || avoid->empty();
  // A failure stays a failure until capacity is released (and, avoiding a reservation, while
  // the reservation is the same one).
  const uint64_t version = plain ? 0 : reservation_version_;
  auto& failures = plain ? *failed_shapes_ : *failed_avoiding_;
  if (auto it = failures.find(shape);
      it != failures.end() && it->second.first == release_epoch_ && it->second.second == version) {
    return false;
  }
  const PlacementRequest request = RequestOf(r);
  auto placement = placer_.Place(state_, request, avoid);
  if (!placement) {
    failures[shape] = {release_epoch_, version};
    return false;
  }
  Launch(id, std::move(*placement), now, decisions);
  return true;
}

void Engine::Launch(JobId id, std::vector<TaskAllocation> tasks, TimeUs now, Decisions& decisions) {
  JobRecord& r = record(id);
  for (const TaskAllocation& task : tasks) state_.Allocate(task);
  r.tasks = std::move(tasks);
  r.state = JobState::kRunning;
  r.code = PendingCode::kNone;
  r.start_us = now;
  r.expected_end_us = now + std::max<TimeUs>(r.job.runtime_estimate_us, 0);
  running_by_end_.insert({r.expected_end_us, id.value()});
  fair_share_.AddRunning(r.tenant, static_cast<int64_t>(r.job.total_milli()));
  decisions.starts.push_back(StartJob{id, r.tasks});
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
      capacity[node.id.value()] = placer_.NodeCapacity(state_, node.id, request, nullptr);
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
          const uint32_t after = placer_.NodeCapacity(state_, task.node, request, nullptr);
          capacity[task.node.value()] = after;
          uint64_t& total = block_total[cluster_.AncestorAt(task.node, block_level).value()];
          total += after - before;
          fits |= total >= request.task_count;
        }
        ++it;
      }
      if (!fits) continue;
      placement = placer_.Place(state_, request, nullptr);
      HR_CHECK(placement.has_value());
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

PendingCode Engine::Analyze(const JobRecord& r) const {
  if (r.never_fits) return PendingCode::kUnschedulable;
  const PlacementRequest request = RequestOf(r);
  if (Placer::DomainBoundMilli(state_, DomainId(0), request) < request.milli()) {
    return PendingCode::kCapacity;
  }
  return PendingCode::kTopology;
}

void Engine::Schedule(TimeUs now, Decisions& decisions) {
  dirty_ = false;
  Reorder(now);
  const bool backfill_pass = BackfillDue(now);
  if (backfill_pass) {
    last_backfill_us_ = now;
    backfilled_once_ = true;
  }
  const JobId previous_head = blocked_head_;
  blocked_head_ = JobId();

  std::unordered_map<Shape, bool, ShapeHash> held_for_reservation;
  uint32_t examined = 0;
  uint32_t backfill_examined = 0;
  uint32_t position = 0;
  bool blocked = false;
  std::vector<JobId> still_pending;
  still_pending.reserve(queue_.size());
  for (JobId id : queue_) {
    JobRecord& r = record(id);
    r.position = ++position;
    bool started = false;
    if (r.never_fits) {
      r.code = PendingCode::kUnschedulable;
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
          r.code = Analyze(r);
          if (policy_.backfill == BackfillMode::kEasy && backfill_pass) {
            // A reservation stays valid while its head is the same, no capacity came back,
            // no node was drained or undrained, nothing started ahead of it (everything
            // started since respected it) and its start has not passed (work that overran its
            // estimate still holds what the reservation counted on).
            const bool still_valid = id == previous_head && reservation_head_ == id &&
                                     reservation_epoch_ == release_epoch_ && !reservation_stale_ &&
                                     reserved_start_us_ >= now;
            if (!still_valid) ComputeReservation(id, now);
          }
          if (r.code == PendingCode::kTopology && StartByMigration(id, now, decisions)) {
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
        if (!started) r.code = Analyze(r);
      } else {
        const bool ends_before_reservation = now + r.job.runtime_estimate_us <= reserved_start_us_;
        started = ends_before_reservation ? TryStart(id, now, nullptr, decisions)
                                          : TryStart(id, now, &reservation_, decisions);
        if (!started) {
          r.code = Analyze(r);
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
    reservation_.Clear();
    reservation_head_ = JobId();
    reserved_start_us_ = kNever;
  }
  queue_ = std::move(still_pending);
  position = 0;
  for (JobId id : queue_) record(id).position = ++position;
}

TimeUs Engine::NextWakeupUs() const {
  if (queue_.empty() && arrivals_.empty()) return kNever;
  TimeUs wakeup = kNever;
  if (policy_.backfill != BackfillMode::kNone && policy_.backfill_interval_us > 0 &&
      backfilled_once_) {
    wakeup = std::min(wakeup, last_backfill_us_ + policy_.backfill_interval_us);
  }
  if (order_->time_dependent() && reordered_once_) {
    wakeup = std::min(wakeup, last_reorder_us_ + policy_.multifactor.recalc_period_us);
  }
  return wakeup;
}

uint64_t Engine::FragmentedMilli() const {
  if (!blocked_head_.valid() || state(blocked_head_) != JobState::kPending) return 0;
  const JobRecord& r = jobs_[blocked_head_.value()];
  PlacementRequest request = RequestOf(r);
  request.task_count = 1;
  uint64_t fragmented = 0;
  for (const model::Node& node : cluster_.nodes()) {
    if (state_.drained(node.id)) continue;
    uint64_t free = 0;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      free += state_.free_milli(DeviceId(d));
    }
    if (free == 0) continue;
    if (placer_.NodeCapacity(state_, node.id, request, nullptr) == 0) fragmented += free;
  }
  return fragmented;
}

}  // namespace headroom::engine
