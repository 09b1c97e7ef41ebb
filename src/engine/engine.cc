#include "engine/engine.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "base/check.h"
#include "engine/engine_records.h"
#include "engine/share_placement.h"
#include "model/job_topology.h"

namespace headroom::engine {

Engine::Engine(const model::Cluster& cluster, const PolicyConfig& policy,
               const CarriedState& carried, const ShareSetup* share_setup)
    : cluster_(cluster),
      policy_(policy),
      placer_(PlacementOptionsOf(policy)),
      share_(SharePlacement::Make(
          cluster, policy.share,
          share_setup == nullptr ? std::nullopt : std::optional<ShareSetup>(*share_setup))),
      state_(cluster),
      fair_share_(policy.multifactor.decay_half_life_us),
      failed_shapes_(std::make_unique<FailureCache>()),
      failed_avoiding_(std::make_unique<FailureCache>()),
      fits_on_option_(std::make_unique<std::unordered_map<Shape, bool, ShapeHash>>()),
      preemption_memo_(std::make_unique<PreemptionMemo>()),
      defrag_(policy.migration, *VictimSelectors().Make(policy.victim_selector)),
      preempter_(policy.preemption, *VictimSelectors().Make(policy.victim_selector)) {
  auto order = MakeQueueOrder(policy.queue_order, policy);
  HR_CHECK(order.has_value());
  order_ = std::move(*order);
  las_ = order_->attained_service();
  reservation_.Resize(cluster.nodes().size(), cluster.devices().size());
  state_.SetFacilityMargin(policy.facility_margin);
  if (policy.recovery.spare_nodes > 0) {
    // Callers check the level against the cluster (SpareLevel); the deepest is the fallback.
    spare_level_ = SpareLevel(policy.recovery, cluster).value_or(cluster.deepest_level());
    const size_t domains = cluster.domains_at_level(spare_level_).size();
    spares_in_domain_.assign(domains, 0);
    spare_scan_free_milli_.assign(domains, 0);
    spare_node_.assign(cluster.nodes().size(), 0);
  }
  if (!policy.queues.empty()) {
    QuotaAmounts capacity = {};
    for (const model::Node& node : cluster.nodes()) {
      capacity[0] += int64_t{node.device_count} * model::kMilliPerDevice;
      capacity[1] += node.cpu_milli;
      capacity[2] += node.memory_mib;
    }
    std::unordered_map<std::string, int64_t> milli_by_model;
    for (const model::Device& device : cluster.devices()) {
      milli_by_model[cluster.device_class(device.device_class).model] += model::kMilliPerDevice;
    }
    quotas_ = QuotaTree(policy.queues, capacity, [&](const std::string& model) {
      auto it = milli_by_model.find(model);
      return it == milli_by_model.end() ? int64_t{0} : it->second;
    });
  }
  {
    // The queues are the accounts fair share walks; without them, tenants sit below the root.
    std::vector<uint32_t> parents(std::max<size_t>(quotas_.size(), 1), QuotaTree::kRoot);
    std::vector<double> shares(parents.size(), 1.0);
    for (uint32_t q = 1; q < quotas_.size(); ++q) {
      parents[q] = quotas_.parent(q);
      shares[q] = quotas_.share(q);
    }
    fair_share_.UseTree(FairShareTree(std::move(parents), std::move(shares)),
                        policy.multifactor.fairshare_algorithm);
  }
  running_by_queue_.resize(std::max<size_t>(quotas_.size(), 1));
  running_priorities_by_queue_.resize(running_by_queue_.size());
  if (carried.as_of_us > 0) {
    // Tenants take ids in name order: the same carried state gives the same ids.
    for (const auto& [tenant, usage] : carried.tenant_usage) {
      fair_share_.Seed(TenantOf(tenant), usage, carried.as_of_us);
    }
  }
  for (const auto& [tenant, sizes] : carried.runtimes) {
    const TenantId id = TenantOf(tenant);
    for (const auto& [size_milli, tally] : sizes) runtimes_.Seed(id, size_milli, tally);
  }
  for (const auto& [time_us, cost_device_us] : carried.migration_spent) {
    defrag_.budget().Charge(time_us, cost_device_us);
  }
  for (const auto& [time_us, lost_device_us] : carried.preemption_spent) {
    preempter_.changeover().Charge(time_us, lost_device_us);
  }
  for (const auto& [time_us, lost_device_us] : carried.turnover_spent) {
    preempter_.turnover().Charge(time_us, lost_device_us);
  }
}

Engine::~Engine() = default;

CarriedState Engine::Carried(TimeUs now) const {
  CarriedState carried{.as_of_us = std::max(now, last_now_us_),
                       .migration_spent = defrag_.budget().SpentSince(now),
                       .preemption_spent = preempter_.changeover().SpentSince(now),
                       .turnover_spent = preempter_.turnover().SpentSince(now)};
  const std::vector<double> usage = fair_share_.UsageAt(carried.as_of_us);
  std::vector<const std::string*> names(tenant_ids_.size(), nullptr);
  for (const auto& [tenant, id] : tenant_ids_) {
    carried.tenant_usage[tenant] = id < usage.size() ? usage[id] : 0;
    names[id] = &tenant;
  }
  carried.runtimes = runtimes_.Tallies(names);
  return carried;
}

TenantId Engine::TenantOf(const std::string& name) {
  auto [tenant, inserted] = tenant_ids_.emplace(name, static_cast<uint32_t>(tenant_ids_.size()));
  const TenantId id(tenant->second);
  fair_share_.EnsureTenant(id);
  if (inserted) {
    if (!quotas_.empty()) fair_share_.Place(id, quotas_.QueueOf(name));
    const auto& shares = policy_.multifactor.tenant_shares;
    if (auto share = shares.find(name); share != shares.end()) {
      fair_share_.SetShare(id, share->second);
    }
  }
  return id;
}

std::vector<Engine::QueueFairShare> Engine::QueueFairShares() const {
  std::vector<QueueFairShare> out;
  if (quotas_.empty()) return out;
  const std::vector<FairShareTree::Level> levels =
      fair_share_.tree().Levels(fair_share_.UsageAt(last_now_us_), fair_share_.raw_shares());
  for (uint32_t q = 1; q < quotas_.size(); ++q) {
    out.push_back({.queue = quotas_.name(q),
                   .share = levels[q].share,
                   .usage_device_s = levels[q].usage / model::kMilliPerDevice,
                   .usage_share = levels[q].usage_share,
                   .level_fairshare = levels[q].level_fs});
  }
  return out;
}

std::vector<Engine::TenantFairShare> Engine::TenantFairShares() const {
  const std::vector<double> usage = fair_share_.UsageAt(last_now_us_);
  const std::vector<double> factors = fair_share_.FactorsAt(last_now_us_);
  const std::vector<double> shares = fair_share_.NormalizedShares();
  std::vector<TenantFairShare> out;
  for (const auto& [tenant, id] : tenant_ids_) {
    out.push_back({.tenant = tenant,
                   .share = shares[id],
                   .usage_device_s = usage[id] / model::kMilliPerDevice,
                   .factor = factors[id]});
  }
  std::sort(out.begin(), out.end(),
            [](const TenantFairShare& a, const TenantFairShare& b) { return a.tenant < b.tenant; });
  return out;
}

Engine::JobRecord& Engine::record(JobId id) {
  HR_CHECK(id.value() < jobs_.size());
  return jobs_[id.value()];
}

const Engine::JobRecord* Engine::find(JobId id) const {
  if (!id.valid() || id.value() >= jobs_.size()) return nullptr;
  const JobRecord& r = jobs_[id.value()];
  return r.state ? &r : nullptr;
}

std::optional<JobState> Engine::state(JobId job) const {
  const JobRecord* r = find(job);
  return r == nullptr ? std::nullopt : r->state;
}

uint32_t Engine::preemptions(JobId job) const {
  const JobRecord* r = find(job);
  return r == nullptr ? 0 : r->preemptions;
}

TimeUs Engine::pending_since_us(JobId job) const {
  const JobRecord* r = find(job);
  return r == nullptr || r->state != JobState::kPending ? 0 : r->pending_since_us;
}

int64_t Engine::attained_device_us(JobId job) const {
  const JobRecord* r = find(job);
  return r == nullptr ? 0 : r->attained_device_us;
}

int64_t Engine::attained_device_us(JobId job, TimeUs now) const {
  const JobRecord* r = find(job);
  return r == nullptr ? 0 : AttainedDeviceUs(*r, now);
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
    BuildModelOptions(it->second);
  }
  return it->second;
}

PlacementRequest Engine::RequestOf(const JobRecord& r) const {
  PlacementRequest request{&r.job.task,       r.job.task_count,
                           &masks_[r.mask],   r.required_level,
                           r.preferred_level, r.spread_group != 0 ? &spread_ : nullptr,
                           r.spread_group};
  // A job not capped by the engine starts under the policy's static cap, if it has one.
  request.cap_rung =
      r.cap_rung != 0 ? r.cap_rung : FacilityLedger::RungAtShare(policy_.power.static_cap);
  return request;
}

uint32_t Engine::SpreadGroupOf(const std::string& name) {
  if (name.empty()) return 0;
  return spread_group_ids_.emplace(name, static_cast<uint32_t>(spread_group_ids_.size() + 1))
      .first->second;
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
  HR_CHECK(!r.state);  // Ids are never reused.
  r.job = std::move(job);
  r.full_task_count = r.job.task_count;
  r.full_estimate_us = r.job.runtime_estimate_us;
  r.state = JobState::kPending;
  r.tenant = TenantOf(r.job.tenant);
  r.quota_queue = quotas_.QueueOf(r.job.tenant);
  r.selector_mask = MaskFor(r.job.task.selector);
  r.mask = r.selector_mask;
  r.spread_group = SpreadGroupOf(r.job.spread_group);
  ResolveLevels(r);
  // An elastic job never fits when its narrowest width does not.
  if (r.job.elastic()) r.SetWidth(r.job.min_task_count);
  r.never_fits = NeverFits(r);
  r.SetWidth(r.full_task_count);
  // With device-model quotas it runs on one option's devices: it never fits if none holds it.
  if (!r.never_fits && HasModelOptions(r)) r.never_fits = RankedModelOptions(r, true).empty();
  r.code = r.never_fits ? PendingCode::kUnschedulable : PendingCode::kNotConsidered;
  r.pending_since_us = std::max(r.job.submit_time_us, r.job.pending_since_us);
  r.preemptions = r.job.preemptions;
  r.attained_device_us = r.job.attained_device_us;
  r.expedited = r.job.expedited && policy_.recovery.expedite;
  r.requeued_by_fault = r.job.expedited;
  AwaitRaise(r, id);
  max_priority_ = std::max(max_priority_, r.job.priority);
  if (SharePlaced(r)) share_->Submitted(r.job);
  if (r.job.hold_reason.empty()) {
    arrivals_.push_back(id);
  } else {
    r.code = PendingCode::kHeld;
    held_.push_back(id);
  }
  dirty_ = true;
}

void Engine::Restore(JobRestored& restored) {
  const JobId id = restored.id;
  if (id.value() >= jobs_.size()) jobs_.resize(id.value() + 1);
  JobRecord& r = jobs_[id.value()];
  HR_CHECK(!r.state);  // Ids are never reused.
  r.full_task_count = restored.job.task_count;
  r.full_estimate_us = restored.job.runtime_estimate_us;
  r.job.min_task_count = restored.job.min_task_count;
  r.job.task_count_step = restored.job.task_count_step;
  HR_CHECK(r.AllowsWidth(restored.tasks.size()));
  for (const TaskAllocation& task : restored.tasks) {
    HR_CHECK(task.node.value() < cluster_.nodes().size());
    ForgetSpare(task.node);
    HR_CHECK(state_.free_cpu_milli(task.node) >= task.cpu_milli);
    HR_CHECK(state_.free_memory_mib(task.node) >= task.memory_mib);
    for (DeviceId device : task.devices) {
      HR_CHECK(device.value() < cluster_.devices().size());
      HR_CHECK(cluster_.device(device).node == task.node);
      HR_CHECK(state_.milli_in_place(device) >= task.milli_per_device);
    }
    state_.Allocate(task);
  }
  r.job = std::move(restored.job);
  r.SetWidth(static_cast<uint32_t>(restored.tasks.size()));
  if (restored.tasks.size() < r.full_task_count) narrowed_.insert(id.value());
  r.state = JobState::kRunning;
  r.preemptions = r.job.preemptions;
  r.attained_device_us = r.job.attained_device_us;
  r.tenant = TenantOf(r.job.tenant);
  r.quota_queue = quotas_.QueueOf(r.job.tenant);
  r.selector_mask = MaskFor(r.job.task.selector);
  r.mask = r.selector_mask;
  r.spread_group = SpreadGroupOf(r.job.spread_group);
  r.code = PendingCode::kNone;
  r.tasks = std::move(restored.tasks);
  // Restored under its caps, and lifted as room returns.
  r.cap_rung = RungOfTasks(r.tasks);
  if (r.cap_rung != 0) capped_.insert(id.value());
  UseModelOfTasks(r);
  TrackTasks(r, r.tasks, +1);
  if (SharePlaced(r)) share_->Submitted(r.job);
  r.start_us = restored.started_us;
  r.checkpoint_base_us = r.start_us;
  r.directed_interval_us = restored.checkpoint_interval_us;
  r.expected_end_us = r.start_us + std::max<TimeUs>(r.job.runtime_estimate_us, 0);
  running_by_end_.insert({r.expected_end_us, id.value()});
  CountRunning(id, +1);
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
    runtimes_.Record(r.tenant, r.job.total_milli(), last_now_us_ - r.start_us);
    if (TracksExposure()) {
      stopped_exposure_node_us_ += AttemptNodeUs(r, last_now_us_);
    }
    StopRunning(id);
  } else if (r.state == JobState::kPending) {
    Unqueue(id);
  } else {
    return;  // Already finished or cancelled: finishing twice is harmless.
  }
  r.state = final_state;
  r.code = PendingCode::kNone;
  ForgetFruitlessSearches(id);
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
    if (find(finished->id) != nullptr) {
      Finish(finished->id, finished->failed ? JobState::kFailed : JobState::kCompleted);
    }
  } else if (auto* cancelled = std::get_if<JobCancelled>(&event)) {
    if (find(cancelled->id) != nullptr) Finish(cancelled->id, JobState::kCancelled);
  } else if (auto* restored = std::get_if<JobRestored>(&event)) {
    Restore(*restored);
  } else if (auto* interrupted = std::get_if<JobInterrupted>(&event)) {
    const JobRecord* r = find(interrupted->id);
    if (r != nullptr && r->state == JobState::kRunning) {
      Interrupt(interrupted->id, interrupted->node, last_now_us_);
    }
  } else if (auto* held = std::get_if<JobHeld>(&event)) {
    const JobRecord* r = find(held->id);
    if (r != nullptr && r->state == JobState::kPending &&
        r->job.hold_reason.empty() == held->held) {
      if (held->held) {
        Hold(held->id, held->reason.empty() ? "Held by an operator." : std::move(held->reason));
      } else {
        Release(held->id);
      }
    }
  } else if (auto* drained = std::get_if<NodeDrained>(&event)) {
    if (drained->node.value() < cluster_.nodes().size()) {
      if (drained->drained) ForgetSpare(drained->node);
      state_.SetDrained(drained->node, drained->drained);
      if (!drained->drained) ++release_epoch_;
      // The reservation may hold devices on this node, or could now use them: plan again.
      reservation_stale_ = true;
      dirty_ = true;
    }
  } else if (auto* withdrawn = std::get_if<DeviceWithdrawn>(&event)) {
    if (withdrawn->device.value() < cluster_.devices().size()) {
      ForgetKept(withdrawn->device);
      ForgetSpare(cluster_.device(withdrawn->device).node);
      state_.SetWithdrawn(withdrawn->device, withdrawn->withdrawn);
      const bool degraded = withdrawn->withdrawn && withdrawn->degraded;
      if (degraded) {
        degraded_.insert(withdrawn->device.value());
      } else {
        degraded_.erase(withdrawn->device.value());
      }
      if (withdrawn->withdrawn && !degraded) {
        health_withdrawn_.insert(withdrawn->device.value());
        evacuation_due_ = true;
      } else {
        health_withdrawn_.erase(withdrawn->device.value());
      }
      // Returned, or degraded: more capacity for some jobs than a moment ago.
      if (!withdrawn->withdrawn || degraded) ++release_epoch_;
      reservation_stale_ = true;
      dirty_ = true;
    }
  } else if (auto* limit = std::get_if<FacilityLimit>(&event)) {
    const model::Facility& facility = cluster_.facility();
    const size_t count = limit->kind == FacilityLedger::Kind::kPower
                             ? facility.power_domains.size()
                             : facility.cooling_zones.size();
    if (limit->index < count && limit->limit_w >= 0) {
      const uint32_t element = state_.facility().ElementOf(limit->kind, limit->index);
      // A raised limit may let waiting work fit: the failure caches and the reservation must
      // look again.
      if (limit->limit_w * 1000 > state_.facility().limit_mw(element)) ++release_epoch_;
      if (limit->limit_w * 1000 < state_.facility().limit_mw(element)) limits_lowered_ = true;
      state_.SetFacilityLimit(element, limit->limit_w * 1000);
      reservation_stale_ = true;
      dirty_ = true;
    }
  }
}

Decisions Engine::Step(std::span<Event> events, TimeUs now) {
  HR_CHECK(now >= last_now_us_);
  last_now_us_ = now;
  // Usage carried from an earlier engine decays up to the first step; what runs now did not
  // run in that gap (carried_state.h).
  if (steps_++ == 0) fair_share_.DecayTo(now);
  // The work that ran since the last step is charged before this step's starts and ends change
  // what runs (as Slurm charges a job's last stretch at its end, not at the next decay pass).
  fair_share_.Advance(now);
  for (Event& event : events) Apply(event);
  KeepSpares();
  Decisions decisions;
  // A pass runs when something changed, or when a periodic pass (priority recalculation, a
  // backfill interval) falls due; a backfill interval of 0 means every pass, not a timer.
  const bool timer_due = ReorderDue(now) ||
                         (policy_.backfill_interval_us > 0 && BackfillDue(now)) ||
                         now >= preemption_wakeup_us_ || now >= NextRaiseUs();
  if (policy_.power.caps && limits_lowered_) KeepWithinLimits(now, decisions);
  limits_lowered_ = false;
  if (dirty_ || timer_due) Schedule(now, decisions);
  if (policy_.power.caps) LiftCaps(decisions);
  // A job capped and then preempted in the same step is told only of its preemption.
  std::erase_if(decisions.caps, [&](const CapJob& cap) {
    return std::any_of(decisions.preemptions.begin(), decisions.preemptions.end(),
                       [&](const PreemptJob& preemption) { return preemption.job == cap.job; });
  });
  state_.Commit(0);
  return decisions;
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
