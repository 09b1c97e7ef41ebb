// Engine::StartByPreemption: the engine's side of preemption (preemption.h) — when a search is
// worth running, which running jobs are candidates, what preempting each costs, and applying a
// plan to the engine's records in one commit.
//
// A search runs when preemption is enabled, the pass's search budget allows it, the blocked job
// asks for devices and outranks the lowest-priority running job, and the state differs from the
// job's last fruitless search (release epoch, allocated capacity, candidates, changeover budget
// left): an unchanged state would give the same answer. Within a pass, while the floor stays as
// it is, blocked jobs alike share one gathering of candidates and a job whose shape already
// found no plan for its rank and queue does not search again (PreemptionMemo). Requeued jobs
// are pending at once and the engine asks to be stepped again at the same time (NextWakeupUs),
// so that they, and the jobs the pass looked at before the capacity came free, start where
// they fit. Candidates: running jobs with devices, of strictly lower priority, that have run
// PreemptionConfig::min_run_us, have not used up their preemption budget
// (max_preemptions_per_job) and neither started nor moved in this step; under las, one
// outranked by service alone has also at most service_max_lost_us of work since its last
// checkpoint (the engine asks to be stepped at the next checkpoint of one that has more).
// What a plan loses is charged to the changeover budget. A requeued job keeps its id; its next
// start pauses for PreemptionConfig::restart_us before its checkpoints count again.
// With queues (quota.h) and PreemptionScope::kQueue, priority picks candidates only inside the
// job's own queue; a job whose queues stay within their guarantees also reclaims: the running
// jobs of other branches that borrow are candidates whatever their priority, released first,
// and only while their branch still borrows (QuotaGate). With kCluster, priority picks from
// every queue and nothing is reclaimed. Either way the plan must leave the job admitted by its
// queues. Candidates are read from the running jobs of the queues in scope
// (running_by_queue_), not from the whole floor. A job reclaims only once it has waited
// PreemptionConfig::reclaim_after_us since its submission or requeue, and preempts by rank only
// once it has waited preempt_after_us.
// Under an order that ranks by attained service (las), rank takes priority's place: a job
// preempts those running in a higher service queue than its own (Tiresias), or, with
// priority_first, those of lower priority and those of its priority in a higher service queue;
// since running jobs move into higher queues as they run, a blocked job looks again when the
// next one does.
#include <algorithm>
#include <limits>

#include "base/check.h"
#include "engine/attained_service.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {

namespace {

// What a preemption loses: its lost work and restart, × the job's devices.
int64_t LostDeviceUs(const PreemptJob& preemption, const model::Job& job) {
  return (preemption.lost_us + preemption.restart_us) * CountedDevices(job);
}

// The queues' books as a search sees them (a copy the search changes): a candidate that runs on
// borrowed capacity may go only while its branch still borrows (Kueue re-checks, victim by
// victim, that a ClusterQueue still borrows).
class QuotaGate final : public PreemptionGate {
 public:
  QuotaGate(const QuotaTree& books, uint32_t head_queue, const QuotaAmounts& head_demand)
      : books_(books), head_queue_(head_queue), head_demand_(head_demand) {}

  void AddCandidate(uint32_t queue, const QuotaAmounts& demand, bool borrowed) {
    candidates_.push_back({queue, demand, borrowed});
  }
  bool MayRelease(uint32_t v) const override {
    return !candidates_[v].borrowed ||
           books_.Borrowing(candidates_[v].queue, head_queue_, head_demand_);
  }
  void Release(uint32_t v) override { books_.Add(candidates_[v].queue, candidates_[v].demand, -1); }
  void PutBack(uint32_t v) override { books_.Add(candidates_[v].queue, candidates_[v].demand, +1); }
  bool AdmitsHead() const override { return books_.Admits(head_queue_, head_demand_).admitted; }

 private:
  struct Candidate {
    uint32_t queue;
    QuotaAmounts demand;
    bool borrowed;  // A candidate for running on borrowed capacity (else for its priority).
  };
  QuotaTree books_;
  uint32_t head_queue_;
  QuotaAmounts head_demand_;
  std::vector<Candidate> candidates_;
};

}  // namespace

int64_t Engine::AttainedDeviceUs(const JobRecord& r, TimeUs now) const {
  if (r.state != JobState::kRunning) return r.attained_device_us;
  return r.attained_device_us + (now - r.start_us) * CountedDevices(r.job);
}

int64_t Engine::PreemptionRank(const JobRecord& r, TimeUs now) const {
  if (las_ == nullptr) return r.job.priority;
  // An interrupted job awaiting its restart (recovery.expedite) ranks as fresh work of its
  // priority: it may take room back from work of its priority that has had more service, where
  // else, first in the queue but too large for what is free, it would watch smaller jobs fill
  // the devices its own fault freed.
  return ServiceRank(*las_, r.job.priority, r.expedited ? 0 : AttainedDeviceUs(r, now));
}

void Engine::PromoteIfStarved(JobRecord& r, TimeUs now) const {
  if (las_->promote_knob <= 0 || r.attained_device_us == 0) return;
  // The artifact compares time pending since promotion (once it has run) with time run.
  const double ran_us =
      static_cast<double>(r.attained_device_us) / static_cast<double>(CountedDevices(r.job));
  const TimeUs waited_us = r.waited_since_promotion_us + (now - r.pending_since_us);
  if (static_cast<double>(waited_us) >= las_->promote_knob * ran_us) {
    r.attained_device_us = 0;
    r.waited_since_promotion_us = 0;
  }
}

void Engine::SweepServiceQueues(TimeUs now) {
  if (service_sweep_us_ == now) return;
  service_sweep_us_ = now;
  next_service_change_us_ = kNever;
  lowest_service_rank_by_queue_.assign(running_by_queue_.size(),
                                       std::numeric_limits<int64_t>::max());
  for (uint32_t queue = 0; queue < running_by_queue_.size(); ++queue) {
    for (const auto& [unused_priority, job] : running_by_queue_[queue]) {
      const JobRecord& v = jobs_[job];
      const uint32_t level = ServiceQueue(*las_, AttainedDeviceUs(v, now));
      lowest_service_rank_by_queue_[queue] = std::min(
          lowest_service_rank_by_queue_[queue], ServiceRankInQueue(*las_, v.job.priority, level));
      const int64_t end_device_us = ServiceQueueEndDeviceUs(*las_, level);
      if (end_device_us == std::numeric_limits<int64_t>::max()) continue;
      const int64_t devices = CountedDevices(v.job);
      // The first microsecond its attained service reaches the queue's end.
      const int64_t run_us = (end_device_us - v.attained_device_us + devices - 1) / devices;
      next_service_change_us_ = std::min(next_service_change_us_, v.start_us + run_us);
    }
  }
}

QuotaAmounts Engine::DemandOf(const JobRecord& r) { return DemandOf(r, r.job.task_count); }

QuotaAmounts Engine::DemandOf(const JobRecord& r, uint64_t tasks) {
  const auto count = static_cast<int64_t>(tasks);
  QuotaAmounts demand{};
  demand[0] = count * r.job.task.devices * r.job.task.milli_per_device;
  demand[1] = count * r.job.task.cpu_milli;
  demand[2] = count * r.job.task.memory_mib;
  if (r.model_slot < kQuotaResources) demand[r.model_slot] = demand[0];
  return demand;
}

void Engine::CountRunning(JobId id, int sign) {
  JobRecord& r = record(id);
  if (!quotas_.empty()) quotas_.Add(r.quota_queue, DemandOf(r), sign);
  std::vector<std::pair<int32_t, uint32_t>>& running = running_by_queue_[r.quota_queue];
  if (sign > 0) {
    r.running_slot = static_cast<uint32_t>(running.size());
    running.emplace_back(r.job.priority, id.value());
  } else {
    HR_CHECK(r.running_slot < running.size() && running[r.running_slot].second == id.value());
    running[r.running_slot] = running.back();
    jobs_[running[r.running_slot].second].running_slot = r.running_slot;
    running.pop_back();
  }
  std::map<int32_t, uint32_t>& by_priority = running_priorities_by_queue_[r.quota_queue];
  auto [it, inserted] = by_priority.try_emplace(r.job.priority, 0);
  HR_CHECK(sign > 0 || it->second > 0);
  it->second += sign;
  if (it->second == 0) by_priority.erase(it);
}

PreemptJob Engine::PreemptionOf(JobId victim, JobId preemptor, TimeUs now) const {
  const JobRecord& v = jobs_[victim.value()];
  PreemptJob preemption{.job = victim, .preemptor = preemptor};
  preemption.checkpoint_interval_us = CheckpointIntervalUs(v);
  preemption.lost_us =
      Preempter::LostUs(v.checkpoint_base_us, preemption.checkpoint_interval_us, now);
  preemption.restart_us = policy_.preemption.restart_us;
  preemption.cost_device_us = LostDeviceUs(preemption, v.job);
  return preemption;
}

PreemptReason Engine::ReasonOf(const JobRecord& victim, const JobRecord& preemptor) const {
  // Requeued for no other job: caps alone could not keep the building within its limits.
  if (&victim == &preemptor) return PreemptReason::kFacility;
  // By queue, a job preempts only inside its own queue (GatherCandidates' scope): a victim of
  // another queue runs on capacity it borrows. Under las with priority first, a victim of lower
  // priority goes for its priority.
  if (PreemptsByQueue() && victim.quota_queue != preemptor.quota_queue) {
    return PreemptReason::kReclaim;
  }
  return las_ != nullptr && victim.job.priority >= preemptor.job.priority
             ? PreemptReason::kLessService
             : PreemptReason::kPriority;
}

bool Engine::PreemptsByQueue() const {
  return !quotas_.empty() && policy_.preemption.scope == PreemptionScope::kQueue;
}

void Engine::GatherCandidates(const JobRecord& r, int64_t rank, bool by_rank, bool reclaims,
                              TimeUs now) {
  PreemptionMemo& memo = *preemption_memo_;
  const bool by_queue = PreemptsByQueue();
  auto in_scope = [&](uint32_t queue) { return !by_queue || queue == r.quota_queue; };
  memo.has_candidates = true;
  memo.key = PreemptionMemo::KeyOf(r, rank, by_rank, reclaims, las_ != nullptr);
  const QuotaAmounts wanted = DemandOf(r);
  memo.candidates.clear();
  memo.gate_entries.clear();
  const uint32_t max_preemptions = policy_.preemption.max_preemptions_per_job;
  // `outranked`: a candidate for its lower rank; else for running on capacity its branch
  // borrows. By queue, borrowed work (tier 0) goes before a queue's own work.
  auto consider = [&](uint32_t job, bool outranked) {
    const JobRecord& v = jobs_[job];
    if (v.job.task.devices == 0 || (max_preemptions > 0 && v.preemptions >= max_preemptions)) {
      return;
    }
    // A replica never displaces one of its own service's: they serve alike, and the swap would
    // only cost a model load (least attained service ranks the newer one higher).
    if (r.spread_group != 0 && v.spread_group == r.spread_group) return;
    if (now - v.start_us < policy_.preemption.min_run_us) {
      preemption_wakeup_us_ =
          std::min(preemption_wakeup_us_, v.start_us + policy_.preemption.min_run_us);
      return;
    }
    if (v.start_us >= now || v.moved_us >= now) return;
    const PreemptJob preemption = PreemptionOf(JobId(job), JobId(), now);
    const bool by_service = outranked && ReasonOf(v, r) == PreemptReason::kLessService;
    const TimeUs max_lost_us = policy_.preemption.service_max_lost_us;
    if (by_service && max_lost_us > 0 && preemption.lost_us > max_lost_us) {
      // Outranked by service alone: it goes once it has saved its work.
      if (preemption.checkpoint_interval_us > 0) {
        preemption_wakeup_us_ = std::min(
            preemption_wakeup_us_, now + preemption.checkpoint_interval_us - preemption.lost_us);
      }
      return;
    }
    memo.candidates.push_back({MovableJob{JobId(job), &v.tasks, RequestOf(v), v.job.total_devices(),
                                          PreemptionRank(v, now), v.start_us},
                               preemption.cost_device_us,
                               static_cast<uint8_t>(by_queue && outranked ? 1 : 0), by_service});
    // The gate's books, while the record is at hand.
    if (!quotas_.empty()) {
      memo.gate_entries.push_back({v.quota_queue, DemandOf(v), by_queue && !outranked});
    }
  };
  // The queues' lists first, then their records, fetched ahead: a search may look at
  // thousands of running jobs, each record in its own cache lines.
  std::vector<uint32_t> jobs;
  for (uint32_t queue = 0; by_rank && queue < running_by_queue_.size(); ++queue) {
    if (!in_scope(queue)) continue;
    for (const auto& [priority, job] : running_by_queue_[queue]) {
      if ((las_ != nullptr ? PreemptionRank(jobs_[job], now) : int64_t{priority}) < rank) {
        jobs.push_back(job);
      }
    }
  }
  const size_t outranked_count = jobs.size();
  for (uint32_t queue = 0; reclaims && queue < running_by_queue_.size(); ++queue) {
    if (running_by_queue_[queue].empty() || !quotas_.Borrowing(queue, r.quota_queue, wanted)) {
      continue;
    }
    for (const auto& [unused_priority, job] : running_by_queue_[queue]) jobs.push_back(job);
  }
  constexpr size_t kFetchAhead = 8;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i + kFetchAhead < jobs.size()) {
      const JobRecord& ahead = jobs_[jobs[i + kFetchAhead]];
      __builtin_prefetch(&ahead.job.task);
      __builtin_prefetch(&ahead.mask);
      __builtin_prefetch(&ahead.start_us);
      __builtin_prefetch(&ahead.tasks);
    }
    consider(jobs[i], i < outranked_count);
  }
}

bool Engine::StartByPreemption(JobId id, TimeUs now, uint32_t& searches_left,
                               Decisions& decisions) {
  if (!preempter_.enabled() || searches_left == 0) return false;
  JobRecord& r = record(id);
  if (r.never_fits || r.job.task.devices == 0) return false;
  if (!HasModelOptions(r)) return StartByPreemptionOnOption(id, now, searches_left, decisions);
  // On every device-model option in turn, those its queues would not admit now too: releasing
  // work of its own queue may make room within its limits.
  for (const ModelOption& option : RankedModelOptions(r, true)) {
    UseModelOption(r, option);
    if (StartByPreemptionOnOption(id, now, searches_left, decisions)) return true;
  }
  UsePreferredModelOption(r);
  return false;
}

bool Engine::StartByPreemptionOnOption(JobId id, TimeUs now, uint32_t& searches_left,
                                       Decisions& decisions) {
  if (searches_left == 0) return false;
  JobRecord& r = record(id);
  const QuotaAmounts demand = DemandOf(r);
  // With queues, priority preempts inside the job's own queue only (scope kQueue), and within
  // its guarantee a job reclaims what other branches borrow, whatever their priority.
  const bool by_queue = PreemptsByQueue();
  bool reclaims = by_queue && quotas_.WithinGuarantee(r.quota_queue, demand);
  if (reclaims && now - r.pending_since_us < policy_.preemption.reclaim_after_us) {
    reclaims = false;  // Not yet (hysteresis): look again when it has waited long enough.
    preemption_wakeup_us_ =
        std::min(preemption_wakeup_us_, r.pending_since_us + policy_.preemption.reclaim_after_us);
  }
  auto in_scope = [&](uint32_t queue) { return !by_queue || queue == r.quota_queue; };
  const int64_t rank = PreemptionRank(r, now);
  if (las_ != nullptr) {
    SweepServiceQueues(now);
    preemption_wakeup_us_ = std::min(preemption_wakeup_us_, next_service_change_us_);
  }
  bool outranks = false;
  for (uint32_t queue = 0; queue < running_priorities_by_queue_.size(); ++queue) {
    const std::map<int32_t, uint32_t>& priorities = running_priorities_by_queue_[queue];
    const int64_t lowest = las_ != nullptr      ? lowest_service_rank_by_queue_[queue]
                           : priorities.empty() ? rank
                                                : priorities.begin()->first;
    outranks |= in_scope(queue) && !priorities.empty() && lowest < rank;
  }
  if (outranks && now - r.pending_since_us < policy_.preemption.preempt_after_us) {
    outranks = false;  // Not yet (hysteresis): look again when it has waited long enough.
    preemption_wakeup_us_ =
        std::min(preemption_wakeup_us_, r.pending_since_us + policy_.preemption.preempt_after_us);
  }
  if (!reclaims && !outranks) return false;
  // Blocked jobs of one rank, queue and kind of search share its candidates, and jobs of one
  // shape too its answer, while the floor stays as it is (PreemptionMemo).
  PreemptionMemo& memo = *preemption_memo_;
  memo.Keep(now, release_epoch_, state_.allocated_milli(),
            preempter_.changeover().LeftDeviceUs(now));
  const PreemptionMemo::Key key =
      PreemptionMemo::KeyOf(r, rank, outranks, reclaims, las_ != nullptr);
  if (memo.Fruitless(r.shape(), key)) return false;
  // A search is spent by scanning the running jobs for candidates or by planning, at most once
  // per job: a pass does at most max_searches_per_pass of either. A reclaim looks at every
  // borrowing queue and spends one whatever it finds.
  bool spent = false;
  auto spend = [&] {
    if (!spent) --searches_left;
    spent = true;
  };
  if (reclaims) spend();
  if (!memo.has_candidates || !(memo.key == key)) {
    spend();
    GatherCandidates(r, rank, outranks, reclaims, now);
  }
  std::optional<QuotaGate> gate;
  if (!quotas_.empty()) {
    gate.emplace(quotas_, r.quota_queue, demand);
    for (const PreemptionMemo::GateEntry& entry : memo.gate_entries) {
      gate->AddCandidate(entry.queue, entry.demand, entry.borrowed);
    }
  }
  const std::vector<PreemptionCandidate>& candidates = memo.candidates;
  if (candidates.empty()) return false;
  // Elastic candidates give up tasks before anyone is requeued (ElasticConfig::shrink).
  if (StartByShrinking(id, candidates, now, decisions)) return true;
  // The candidates by their ids too: as checkpoints come and go, as many may be other jobs.
  size_t members = candidates.size();
  for (const PreemptionCandidate& candidate : candidates) {
    members = members * 1'000'003 + candidate.job.id.value();
  }
  const std::tuple<uint64_t, uint64_t, size_t, int64_t, int64_t> search{
      release_epoch_, state_.allocated_milli(), members, preempter_.changeover().LeftDeviceUs(now),
      preempter_.turnover().LeftDeviceUs(now)};
  const uint64_t fruitless_key = FruitlessKey(id, r.mask);
  if (auto it = fruitless_preemptions_.find(fruitless_key);
      it != fruitless_preemptions_.end() && it->second == search) {
    return false;
  }
  spend();
  std::optional<PreemptionPlan> plan =
      preempter_.Plan(state_, placer_, RequestOf(r), candidates, now, gate ? &*gate : nullptr);
  if (!plan) {
    fruitless_preemptions_[fruitless_key] = search;
    memo.fruitless.emplace_back(r.shape(), key);
    // A budget may have held it back: look again when one grows.
    preemption_wakeup_us_ =
        std::min({preemption_wakeup_us_, preempter_.changeover().NextReleaseUs(),
                  preempter_.turnover().NextReleaseUs()});
    return false;
  }
  for (uint32_t victim : plan->victims) {
    PreemptJob preemption = PreemptionOf(candidates[victim].job.id, id, now);
    preemption.reason = ReasonOf(jobs_[candidates[victim].job.id.value()], r);
    Requeue(preemption, now);
    requeued_in_pass_ = true;
    decisions.preemptions.push_back(preemption);
  }
  Launch(id, std::move(plan->head_tasks), now, decisions);
  // The head no longer needs its reservation; later jobs must not avoid it.
  DropReservation();
  reservation_stale_ = true;
  return true;
}

void Engine::StopRunning(JobId id) {
  JobRecord& r = record(id);
  HR_CHECK(r.state == JobState::kRunning);
  for (const TaskAllocation& task : r.tasks) state_.Release(task);
  TrackTasks(r, r.tasks, -1);
  fair_share_.AddRunning(r.tenant, -static_cast<int64_t>(r.job.total_milli()));
  running_by_end_.erase({r.expected_end_us, id.value()});
  CountRunning(id, -1);
  narrowed_.erase(id.value());
  ++release_epoch_;
}

void Engine::Requeue(const PreemptJob& preemption, TimeUs now) {
  JobRecord& v = record(preemption.job);
  // Charges made at one moment merge, so a follower charging victim by victim carries the list
  // the searching engine does.
  preempter_.changeover().Charge(now, LostDeviceUs(preemption, v.job));
  if (preemption.reason == PreemptReason::kLessService) {
    preempter_.turnover().Charge(now, LostDeviceUs(preemption, v.job));
  }
  ++v.preemptions;
  ReturnToQueue(preemption.job, now);
}

void Engine::ReturnToQueue(JobId id, TimeUs now) {
  JobRecord& r = record(id);
  r.attained_device_us = AttainedDeviceUs(r, now);
  if (TracksExposure()) {
    const double attempt_node_us = AttemptNodeUs(r, now);
    r.exposure_node_us += attempt_node_us;
    stopped_exposure_node_us_ += attempt_node_us;
  }
  StopRunning(id);
  r.SetWidth(r.full_task_count);  // Tried at its full width again.
  r.mask = r.selector_mask;       // And on any of its device-model options.
  r.model_slot = kQuotaResources;
  r.tasks.clear();
  r.cap_rung = 0;
  r.state = JobState::kPending;
  r.code = PendingCode::kNotConsidered;
  r.position = 0;  // Not ordered again yet: the next pass places it.
  r.pending_since_us = now;
  AwaitRaise(r, id);
  arrivals_.push_back(id);
  dirty_ = true;
}

}  // namespace headroom::engine
