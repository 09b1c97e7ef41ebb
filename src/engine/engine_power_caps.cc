// Power caps as decisions (policy_config.h PowerCapConfig, decision.h CapJob): what the engine
// does when the building's budgets and the work it runs or holds back disagree.
//  - A limit dropped (a derated feed, a failed cooling unit) and the running work's projected
//    load is past an element's allowance: the work under it is capped down the ladder
//    (FacilityLedger::kRungMilli), lowest priority first and a service's replicas last; the jobs
//    of one priority go down together, a rung at a time, because the first rungs cost least
//    speed per watt (P_dyn ∝ f³, model/device_power.h). Where every job under it is at the
//    lowest rung and it is still over, jobs are requeued, lowest priority and newest first.
//  - Room returned (work ended, a limit rose): capped jobs are lifted, highest priority (and
//    replicas) first, each to the highest rung every element over it still takes.
//  - A pending job held back only by the budgets starts now under the highest cap that fits,
//    where that cap leaves it at least power.min_start_speed of its throughput: a device
//    running at 0.83 of its speed (60% of its TDP) does more than one waiting idle, and the cap
//    is lifted when room returns.
// Only whole-device tasks are capped (a shared device has one limit for several tasks).
#include <algorithm>
#include <limits>
#include <tuple>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {
namespace {

constexpr uint32_t kTopRung = FacilityLedger::kRungs - 1;

bool Cappable(const model::Job& job) { return job.task.devices > 0 && !job.task.fractional(); }

bool Over(const FacilityLedger& ledger, uint32_t element) {
  return ledger.load_mw(element) > ledger.allowance_mw(element);
}

// Whether any of the tasks' devices draw on `element`.
bool DrawsOn(const FacilityLedger& ledger, const std::vector<TaskAllocation>& tasks,
             uint32_t element) {
  return std::any_of(tasks.begin(), tasks.end(), [&](const TaskAllocation& task) {
    const std::span<const uint32_t> over = ledger.ElementsOver(task.node);
    return !task.devices.empty() && std::find(over.begin(), over.end(), element) != over.end();
  });
}

}  // namespace

uint32_t Engine::RungOfTasks(const std::vector<TaskAllocation>& tasks) const {
  for (const TaskAllocation& task : tasks) {
    if (task.power_cap_w == 0 || task.devices.empty()) continue;
    const DeviceClassId device_class = cluster_.device(task.devices.front()).device_class;
    // A cap off the ladder (set by an operator) counts as the rung at or below it.
    for (uint32_t rung = 1; rung < FacilityLedger::kRungs; ++rung) {
      if (state_.facility().CapW(device_class, rung) <= task.power_cap_w) return rung;
    }
    return kTopRung;
  }
  return 0;
}

double Engine::CapSpeed(const JobRecord& r, uint32_t rung) const {
  double speed = 1;
  for (DeviceClassId device_class : masks_[r.mask].classes) {
    speed = std::min(speed, state_.facility().RungSpeed(device_class, rung));
  }
  return speed;
}

void Engine::Recap(JobId id, uint32_t rung) {
  JobRecord& r = record(id);
  HR_CHECK(r.state == JobState::kRunning && rung < FacilityLedger::kRungs);
  for (TaskAllocation& task : r.tasks) {
    if (task.milli_per_device != model::kMilliPerDevice || task.devices.empty()) continue;
    state_.Release(task);
    task.power_cap_w =
        state_.facility().CapW(cluster_.device(task.devices.front()).device_class, rung);
    state_.Allocate(task);
  }
  r.cap_rung = rung;
  if (rung != 0) capped_.insert(id.value());
}

void Engine::DecideCap(JobId id, Decisions& decisions) const {
  const JobRecord& r = jobs_[id.value()];
  CapJob cap{id, r.tasks, CapSpeed(r, r.cap_rung)};
  // A job capped twice in a step is told only where it ends up.
  auto same = std::find_if(decisions.caps.begin(), decisions.caps.end(),
                           [&](const CapJob& earlier) { return earlier.job == id; });
  if (same != decisions.caps.end()) {
    *same = std::move(cap);
  } else {
    decisions.caps.push_back(std::move(cap));
  }
}

void Engine::KeepWithinLimits(TimeUs now, Decisions& decisions) {
  const FacilityLedger& ledger = state_.facility();
  for (uint32_t element = 0; element < ledger.size(); ++element) {
    if (!Over(ledger, element)) continue;
    std::vector<JobId> under;
    for (const auto& [end_us, id] : running_by_end_) {
      if (DrawsOn(ledger, jobs_[id].tasks, element)) under.push_back(JobId(id));
    }
    // Replicas last, then by priority, the newest first among equals.
    const auto rank = [&](JobId id) {
      const JobRecord& r = jobs_[id.value()];
      return std::tuple(r.job.serving, r.job.priority, -r.start_us, id.value());
    };
    std::sort(under.begin(), under.end(), [&](JobId a, JobId b) { return rank(a) < rank(b); });
    for (size_t tier = 0; tier < under.size() && Over(ledger, element);) {
      size_t tier_end = tier;
      const auto tier_key = [&](JobId id) {
        return std::pair(jobs_[id.value()].job.serving, jobs_[id.value()].job.priority);
      };
      while (tier_end < under.size() && tier_key(under[tier_end]) == tier_key(under[tier])) {
        ++tier_end;
      }
      for (uint32_t rung = 1; rung < FacilityLedger::kRungs && Over(ledger, element); ++rung) {
        for (size_t i = tier; i < tier_end && Over(ledger, element); ++i) {
          const JobRecord& r = jobs_[under[i].value()];
          if (!Cappable(r.job) || r.cap_rung >= rung) continue;
          Recap(under[i], rung);
          DecideCap(under[i], decisions);
        }
      }
      tier = tier_end;
    }
    for (JobId id : under) {
      if (!Over(ledger, element)) break;
      if (jobs_[id.value()].state != JobState::kRunning) continue;
      PreemptJob preemption = PreemptionOf(id, id, now);
      preemption.reason = PreemptReason::kFacility;
      std::erase_if(decisions.caps, [&](const CapJob& cap) { return cap.job == id; });
      Requeue(preemption, now);
      decisions.preemptions.push_back(preemption);
      requeued_in_pass_ = true;
    }
  }
}

void Engine::LiftCaps(Decisions& decisions) {
  if (capped_.empty() || lifted_at_epoch_ == release_epoch_) return;
  lifted_at_epoch_ = release_epoch_;
  const FacilityLedger& ledger = state_.facility();
  // Room a waiting job of at least its priority needs is not given to running work: by
  // element, the highest priority the building holds back.
  std::vector<int64_t> awaited(ledger.size(), std::numeric_limits<int64_t>::min());
  for (JobId id : queue_) {
    const JobRecord& r = jobs_[id.value()];
    if (r.code != PendingCode::kFacility) continue;
    int64_t& highest = awaited[r.facility_block.element];
    highest = std::max<int64_t>(highest, r.job.priority);
  }
  std::vector<JobId> lift;
  for (auto it = capped_.begin(); it != capped_.end();) {
    const JobRecord& r = jobs_[*it];
    if (r.state != JobState::kRunning || r.cap_rung == 0) {
      it = capped_.erase(it);
      continue;
    }
    // Started or moved in this step: its start or move carries its cap, executed after caps.
    const JobId id(*it);
    const auto decided = [&](const auto& list) {
      return std::any_of(list.begin(), list.end(), [&](const auto& d) { return d.job == id; });
    };
    if (!decided(decisions.starts) && !decided(decisions.migrations)) lift.push_back(id);
    ++it;
  }
  // Replicas first, then the highest priority, the oldest first among equals.
  const auto rank = [&](JobId id) {
    const JobRecord& r = jobs_[id.value()];
    return std::tuple(!r.job.serving, -r.job.priority, r.start_us, id.value());
  };
  std::sort(lift.begin(), lift.end(), [&](JobId a, JobId b) { return rank(a) < rank(b); });
  for (JobId id : lift) {
    JobRecord& r = record(id);
    const uint32_t from = r.cap_rung;
    const std::vector<TaskAllocation> capped_tasks = r.tasks;
    for (uint32_t rung = 0; rung < from; ++rung) {
      const ClusterState::Mark mark = state_.mark();
      Recap(id, rung);
      const bool fits = std::all_of(r.tasks.begin(), r.tasks.end(), [&](const auto& task) {
        const std::span<const uint32_t> over = ledger.ElementsOver(task.node);
        return std::none_of(over.begin(), over.end(), [&](uint32_t element) {
          return Over(ledger, element) || awaited[element] >= r.job.priority;
        });
      });
      if (fits) {
        DecideCap(id, decisions);
        break;
      }
      state_.RollbackTo(mark);
      r.tasks = capped_tasks;
      r.cap_rung = from;
    }
  }
}

bool Engine::StartCapped(JobId id, TimeUs now, Decisions& decisions) {
  JobRecord& r = record(id);
  if (!policy_.power.caps || r.job.serving || !Cappable(r.job)) return false;
  const double min_speed = policy_.power.min_start_speed;
  const auto start_at = [&](uint32_t rung) {
    r.cap_rung = rung;
    if (TryStart(id, now, nullptr, decisions)) return true;
    r.cap_rung = 0;
    return false;
  };
  // The work of no higher priority under the element that holds the job back may make room by
  // going down the ladder with it: tried once per element in a pass unless it succeeds.
  const uint32_t element = r.facility_block.element;
  const bool shares = cap_room_fruitless_.insert(element).second;
  std::vector<JobId> under;
  if (shares) {
    const FacilityLedger& ledger = state_.facility();
    for (const auto& [end_us, running] : running_by_end_) {
      const JobRecord& v = jobs_[running];
      if (v.job.serving || !Cappable(v.job) || v.job.priority > r.job.priority) continue;
      if (DrawsOn(ledger, v.tasks, element)) under.push_back(JobId(running));
    }
  }
  const ClusterState::Mark mark = state_.mark();
  struct Before {
    JobId job;
    std::vector<TaskAllocation> tasks;
    uint32_t rung;
  };
  std::vector<Before> before;
  // Rung by rung: the job alone at the rung, then with the others brought down to it. Equal
  // caps are where a budget buys the most throughput (speed is concave in power), so the job
  // never goes below the rung the others were brought to.
  for (uint32_t rung = 1; rung < FacilityLedger::kRungs; ++rung) {
    if (CapSpeed(r, rung) < min_speed) break;
    if (start_at(rung)) break;
    bool lowered = false;
    for (JobId v : under) {
      JobRecord& vr = record(v);
      if (vr.cap_rung >= rung) continue;
      if (std::none_of(before.begin(), before.end(), [&](const Before& b) { return b.job == v; })) {
        before.push_back({v, vr.tasks, vr.cap_rung});
      }
      Recap(v, rung);
      lowered = true;
    }
    if (!lowered) continue;
    ++release_epoch_;  // The room the caps made: placements that failed may fit now.
    if (start_at(rung)) break;
  }
  if (r.state == JobState::kRunning) {
    for (const Before& b : before) DecideCap(b.job, decisions);
    if (!before.empty()) cap_room_fruitless_.erase(element);
    return true;
  }
  state_.RollbackTo(mark);
  for (Before& b : before) {
    record(b.job).tasks = std::move(b.tasks);
    record(b.job).cap_rung = b.rung;
  }
  return false;
}

}  // namespace headroom::engine
