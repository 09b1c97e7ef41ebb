// Property: over random small clusters, random queue trees (2-4 leaves, some under a parent,
// random guarantees, borrowing and lending limits, of devices and in half the trees of H100s
// too) and workloads of random tenants (one no queue
// lists) and priorities, with preemption on or off:
//  1. engine.CheckInvariants() (which balances the queues' books against the running jobs) is
//     empty after every step, and an engine that follows the decisions agrees;
//  2. computed by the test from what runs: no queue ever uses more than its guarantee plus its
//     borrowing limit (of devices, and of H100s), and no pool (the cluster's; a parent's with a
//     borrowing limit) holds more than its capacity, counting what each child does not lend as
//     held;
//  3. a preemption inside one queue takes only lower-priority work, its preemptor starts in the
//     same step, and victims are whole gangs that were running;
//  4. no job is lost: at the end nothing runs, every started job finished exactly once, and a
//     job that never started is unschedulable or asks for more than its queues could ever give;
//  5. a reclaim (a preemption across queues) comes from a job that has waited at least
//     preemption.reclaim_after since its submission or last requeue.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "engine/engine.h"
#include "engine/presets.h"
#include "engine/quota.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::ClusterSpec;

std::vector<DeviceId> AllDevices(const model::Cluster& cluster) {
  std::vector<DeviceId> devices;
  for (uint32_t d = 0; d < cluster.device_count(); ++d) devices.emplace_back(d);
  return devices;
}
using testing::JobSpec;

uint64_t g_quota_holds_seen = 0;
uint64_t g_reclaims_seen = 0;
uint64_t g_model_holds_seen = 0;  // Held by an H100 quota.

constexpr std::string_view kModel = "H100";  // The device model some trees give quotas.

std::vector<QueueConfig> GenQueues() {
  std::vector<QueueConfig> queues;
  const bool nested = *rc::gen::arbitrary<bool>();
  const bool by_model = *rc::gen::arbitrary<bool>();
  const uint32_t leaves = *rc::gen::inRange<uint32_t>(2, 5);
  if (nested) {
    QueueConfig org;
    org.name = "org";
    org.stated[0] = true;
    queues.push_back(org);
  }
  int64_t nested_guaranteed = 0;
  int64_t nested_model_guaranteed = 0;
  for (uint32_t i = 0; i < leaves; ++i) {
    QueueConfig leaf;
    leaf.name = "q" + std::to_string(i);
    leaf.tenants = {"t" + std::to_string(i)};
    leaf.parent = nested && i < 2 ? "org" : "";
    leaf.stated[0] = true;
    leaf.guaranteed[0] = 1000 * *rc::gen::inRange<int64_t>(0, 9);
    if (*rc::gen::arbitrary<bool>())
      leaf.borrowing_limit[0] = 1000 * *rc::gen::inRange<int64_t>(0, 9);
    if (*rc::gen::arbitrary<bool>()) {
      leaf.lending_limit[0] = 1000 * *rc::gen::inRange<int64_t>(0, leaf.guaranteed[0] / 1000 + 1);
    }
    if (!leaf.parent.empty()) nested_guaranteed += leaf.guaranteed[0];
    if (by_model) {
      DeviceModelQuota& quota = leaf.device_models[std::string(kModel)];
      quota.guaranteed = 1000 * *rc::gen::inRange<int64_t>(0, 9);
      if (*rc::gen::arbitrary<bool>())
        quota.borrowing_limit = 1000 * *rc::gen::inRange<int64_t>(0, 9);
      if (*rc::gen::arbitrary<bool>()) {
        quota.lending_limit = 1000 * *rc::gen::inRange<int64_t>(0, quota.guaranteed / 1000 + 1);
      }
      if (!leaf.parent.empty()) nested_model_guaranteed += quota.guaranteed;
    }
    queues.push_back(leaf);
  }
  if (nested) {
    queues[0].guaranteed[0] = nested_guaranteed + 1000 * *rc::gen::inRange<int64_t>(0, 3);
    if (*rc::gen::arbitrary<bool>())
      queues[0].borrowing_limit[0] = 1000 * *rc::gen::inRange<int64_t>(0, 5);
    if (by_model) {
      DeviceModelQuota& quota = queues[0].device_models[std::string(kModel)];
      quota.guaranteed = nested_model_guaranteed + 1000 * *rc::gen::inRange<int64_t>(0, 3);
      if (*rc::gen::arbitrary<bool>())
        quota.borrowing_limit = 1000 * *rc::gen::inRange<int64_t>(0, 5);
    }
  }
  RC_ASSERT(ValidateQueues(queues).has_value());
  return queues;
}

// What the test knows of the queues, independently of QuotaTree, for one resource: devices of
// any model (model empty) or of one model.
struct Books {
  const std::vector<QueueConfig>& queues;
  std::string model;
  std::map<std::string, int64_t> usage;  // By queue, subtree totals, devices in milli.

  struct Limits {
    int64_t guaranteed = 0;
    int64_t borrowing_limit = kNoQuotaLimit;
    int64_t lending_limit = kNoQuotaLimit;
  };
  Limits Of(const QueueConfig& queue) const {
    if (model.empty()) {
      return {queue.guaranteed[0], queue.borrowing_limit[0], queue.lending_limit[0]};
    }
    auto it = queue.device_models.find(model);
    if (it == queue.device_models.end()) return {};
    return {it->second.guaranteed, it->second.borrowing_limit, it->second.lending_limit};
  }
  std::string LeafOf(const std::string& tenant) const {
    for (const QueueConfig& queue : queues) {
      if (std::find(queue.tenants.begin(), queue.tenants.end(), tenant) != queue.tenants.end()) {
        return queue.name;
      }
    }
    return "";  // Unqueued.
  }
  void Add(const std::string& tenant, int64_t milli) {
    std::string queue = LeafOf(tenant);
    usage[""] += milli;  // "" is the whole cluster's total.
    while (!queue.empty()) {
      usage[queue] += milli;
      queue = std::find_if(queues.begin(), queues.end(), [&](const QueueConfig& q) {
                return q.name == queue;
              })->parent;
    }
  }
  int64_t Reserved(const QueueConfig& queue) const {
    const Limits limits = Of(queue);
    return limits.lending_limit == kNoQuotaLimit ? 0 : limits.guaranteed - limits.lending_limit;
  }
  // Empty when every limit and pool holds. A pool may hold more than its capacity only as
  // much as its children's reserves alone do (guarantees may promise more than there is).
  std::string Check(int64_t capacity_milli) {
    std::map<std::string, int64_t> pool;      // By parent ("" = the cluster).
    std::map<std::string, int64_t> reserves;  // By parent.
    int64_t queued = 0;
    const std::string what = model.empty() ? "devices" : model;
    for (const QueueConfig& queue : queues) {
      const Limits limits = Of(queue);
      if (limits.borrowing_limit != kNoQuotaLimit &&
          usage[queue.name] > limits.guaranteed + limits.borrowing_limit) {
        return "queue " + queue.name + " above its guarantee plus borrowing limit of " + what;
      }
      pool[queue.parent] += std::max(usage[queue.name], Reserved(queue));
      reserves[queue.parent] += Reserved(queue);
      if (queue.parent.empty()) queued += usage[queue.name];
    }
    pool[""] += usage[""] - queued;  // Unqueued work.
    if (pool[""] > std::max(capacity_milli, reserves[""])) {
      return "the cluster's pool of " + what + " is over its capacity";
    }
    for (const QueueConfig& queue : queues) {
      const Limits limits = Of(queue);
      if (limits.borrowing_limit != kNoQuotaLimit && pool.count(queue.name) != 0 &&
          pool[queue.name] >
              std::max(limits.guaranteed + limits.borrowing_limit, reserves[queue.name])) {
        return "the pool of " + what + " of " + queue.name + " is over its capacity";
      }
    }
    return "";
  }
};

// The milli-devices of `model` that `tasks` hold.
int64_t MilliOf(const model::Cluster& cluster, const std::vector<TaskAllocation>& tasks,
                std::string_view model) {
  int64_t milli = 0;
  for (const TaskAllocation& task : tasks) {
    for (DeviceId device : task.devices) {
      if (cluster.device_class(cluster.device(device).device_class).model == model) {
        milli += task.milli_per_device;
      }
    }
  }
  return milli;
}

void CheckRun(const model::Cluster& cluster, std::vector<model::Job> jobs,
              const std::vector<QueueConfig>& queues, bool preempts, TimeUs reclaim_after_us) {
  auto policy = PresetPolicy("headroom");
  RC_ASSERT(policy.has_value());
  policy->queues = queues;
  policy->victim_selector = "lowest_priority";
  policy->preemption.enabled = preempts;
  policy->preemption.checkpoint_interval_us = 0;
  policy->preemption.restart_us = 0;
  policy->preemption.reclaim_after_us = reclaim_after_us;
  RC_ASSERT(ValidatePolicy(*policy).has_value());
  Engine engine(cluster, *policy);
  Engine follower(cluster, *policy);
  const int64_t capacity_milli = static_cast<int64_t>(cluster.device_count()) * 1000;
  const int64_t model_capacity_milli =
      MilliOf(cluster, {TaskAllocation{.devices = AllDevices(cluster)}}, kModel);

  Books books{queues, "", {}};
  Books model_books{queues, std::string(kModel), {}};
  const bool by_model = std::any_of(queues.begin(), queues.end(), [](const QueueConfig& queue) {
    return !queue.device_models.empty();
  });
  std::vector<int64_t> model_milli(jobs.size(), 0);  // Running jobs: their H100s.
  std::map<uint32_t, TimeUs> end_of;                 // Running jobs: when their work is done.
  std::vector<TimeUs> remaining_us(jobs.size());
  std::vector<TimeUs> started_at(jobs.size(), kNever);
  std::vector<int> started(jobs.size(), 0);
  std::vector<int> finished(jobs.size(), 0);
  std::vector<TimeUs> pending_since(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) pending_since[i] = jobs[i].submit_time_us;
  for (size_t i = 0; i < jobs.size(); ++i)
    remaining_us[i] = std::max<TimeUs>(jobs[i].runtime_us, 1);

  size_t next = 0;
  TimeUs last = 0;
  for (size_t steps = 0; steps < 20'000; ++steps) {
    TimeUs now = next < jobs.size() ? jobs[next].submit_time_us : kNever;
    for (const auto& [job, end] : end_of) now = std::min(now, end);
    const TimeUs wakeup = engine.NextWakeupUs();
    if (wakeup != kNever && (now != kNever || engine.running_count() == 0)) {
      now = std::min(now, std::max(wakeup, last));
    }
    if (now == kNever) break;
    last = now;
    std::vector<Event> events;
    while (next < jobs.size() && jobs[next].submit_time_us == now) {
      events.push_back(JobSubmitted{JobId(static_cast<uint32_t>(next)), jobs[next]});
      ++next;
    }
    for (auto it = end_of.begin(); it != end_of.end();) {
      if (it->second != now) {
        ++it;
        continue;
      }
      books.Add(jobs[it->first].tenant, -static_cast<int64_t>(jobs[it->first].total_milli()));
      model_books.Add(jobs[it->first].tenant, -model_milli[it->first]);
      ++finished[it->first];
      events.push_back(JobFinished{JobId(it->first)});
      it = end_of.erase(it);
    }
    std::vector<Event> followed = events;
    const Decisions decisions = engine.Step(events, now);
    RC_ASSERT(engine.CheckInvariants() == "");
    RC_ASSERT(follower.Follow(followed, decisions, now) == "");
    RC_ASSERT(follower.CheckInvariants() == "");

    std::set<uint32_t> starting;
    for (const StartJob& start : decisions.starts) starting.insert(start.job.value());
    for (const PreemptJob& preemption : decisions.preemptions) {
      const uint32_t victim = preemption.job.value();
      const uint32_t preemptor = preemption.preemptor.value();
      RC_ASSERT(end_of.count(victim) == 1u);
      RC_ASSERT(starting.count(preemptor) == 1u);
      if (books.LeafOf(jobs[victim].tenant) == books.LeafOf(jobs[preemptor].tenant)) {
        RC_ASSERT(jobs[victim].priority < jobs[preemptor].priority);
      } else {
        ++g_reclaims_seen;
        RC_ASSERT(now - pending_since[preemptor] >= reclaim_after_us);
      }
      pending_since[victim] = now;
      RC_ASSERT(engine.allocations(preemption.job) == nullptr);
      remaining_us[victim] -= now - started_at[victim];
      end_of.erase(victim);
      books.Add(jobs[victim].tenant, -static_cast<int64_t>(jobs[victim].total_milli()));
      model_books.Add(jobs[victim].tenant, -model_milli[victim]);
    }
    // A move keeps a job on its device model where queues count that model.
    for (const MigrateJob& move : decisions.migrations) {
      const uint32_t job = move.job.value();
      const int64_t moved_milli = MilliOf(cluster, move.tasks, kModel);
      if (by_model) RC_ASSERT(moved_milli == model_milli[job]);
      model_books.Add(jobs[job].tenant, moved_milli - model_milli[job]);
      model_milli[job] = moved_milli;
    }
    for (const StartJob& start : decisions.starts) {
      const uint32_t job = start.job.value();
      RC_ASSERT(end_of.count(job) == 0u);
      RC_ASSERT(start.tasks.size() == jobs[job].task_count);
      started[job] = 1;
      started_at[job] = now;
      end_of[job] = now + std::max<TimeUs>(remaining_us[job], 1);
      books.Add(jobs[job].tenant, static_cast<int64_t>(jobs[job].total_milli()));
      model_milli[job] = MilliOf(cluster, start.tasks, kModel);
      model_books.Add(jobs[job].tenant, model_milli[job]);
    }
    RC_ASSERT(books.Check(capacity_milli) == "");
    RC_ASSERT(model_books.Check(model_capacity_milli) == "");
    for (size_t i = 0; i < next; ++i) {
      if (engine.state(JobId(static_cast<uint32_t>(i))) != JobState::kPending) continue;
      if (engine.Explain(JobId(static_cast<uint32_t>(i)), ExplainDetail::kReasons)
              .reasons.front() == PendingCode::kQuota) {
        ++g_quota_holds_seen;
        if (by_model && engine.Explain(JobId(static_cast<uint32_t>(i))).message.find(kModel) !=
                            std::string::npos) {
          ++g_model_holds_seen;
        }
      }
    }
    if (events.empty() && decisions.empty() && end_of.empty() && next == jobs.size()) break;
  }
  RC_ASSERT(end_of.empty());
  QuotaAmounts capacity = {capacity_milli, 0, 0};
  for (const model::Node& node : cluster.nodes()) {
    capacity[1] += node.cpu_milli;
    capacity[2] += node.memory_mib;
  }
  const QuotaTree empty_books(queues, capacity,
                              [&](const std::string&) { return model_capacity_milli; });
  for (size_t i = 0; i < jobs.size(); ++i) {
    RC_ASSERT(finished[i] == started[i]);
    if (started[i] != 0) continue;
    const PendingStatus status = engine.Explain(JobId(static_cast<uint32_t>(i)));
    RC_ASSERT(!status.reasons.empty());
    if (status.reasons.front() == PendingCode::kQuota) {
      // Refused on the empty books: its devices, or (with H100 quotas, where it would fit
      // only on H100s) its H100s.
      const int64_t tasks = jobs[i].task_count;
      QuotaAmounts demand = {static_cast<int64_t>(jobs[i].total_milli()),
                             tasks * jobs[i].task.cpu_milli, tasks * jobs[i].task.memory_mib};
      const uint32_t queue = empty_books.QueueOf(jobs[i].tenant);
      bool refused = !empty_books.Admits(queue, demand).admitted;
      if (!refused && !empty_books.device_models().empty()) {
        demand[empty_books.DeviceModelSlot(kModel)] = demand[0];
        refused = !empty_books.Admits(queue, demand).admitted;
      }
      RC_ASSERT(refused);
    } else {
      RC_ASSERT(status.reasons.front() == PendingCode::kUnschedulable);
    }
  }
}

TEST(QuotaProperty, NoQueuePassesItsLimitsAndNoJobIsLost) {
  g_quota_holds_seen = 0;
  g_reclaims_seen = 0;
  g_model_holds_seen = 0;
  // Reclaims need an owner to come back while others borrow: rarer than holds, so the property
  // runs four times RapidCheck's default number of cases.
  for (int round = 0; round < 4; ++round) {
    // Each round under its own name: RapidCheck seeds a property by its name.
    EXPECT_TRUE(rc::check(
        "queues keep their limits and lose no job, round " + std::to_string(round + 1), [] {
          const ClusterSpec spec = *testing::GenClusterSpec();
          const model::Cluster cluster = spec.Build();
          const std::vector<QueueConfig> queues = GenQueues();
          testing::WorkloadOptions options;
          options.max_jobs = 30;
          const std::vector<JobSpec> specs = *testing::GenWorkload(options);
          std::vector<model::Job> jobs = testing::ToJobs(specs);
          for (model::Job& job : jobs) {
            job.tenant = "t" + std::to_string(*rc::gen::inRange<uint32_t>(0, 5));  // t4+: unqueued.
            // Long enough to be running when an owner comes back for its guarantee.
            job.runtime_us = std::max<TimeUs>(job.runtime_us, 300 * kUsPerSecond);
            job.runtime_estimate_us = std::max(job.runtime_estimate_us, job.runtime_us);
          }
          CheckRun(cluster, jobs, queues, *rc::gen::weightedElement<bool>({{3, true}, {1, false}}),
                   *rc::gen::element<TimeUs>(0, 120 * kUsPerSecond));
        }));
  }
  // The property is only worth its name if quotas hold jobs back and reclaims happen.
  EXPECT_GT(g_quota_holds_seen, 0u);
  EXPECT_GT(g_reclaims_seen, 0u);
  EXPECT_GT(g_model_holds_seen, 0u);
}

}  // namespace
}  // namespace headroom::engine
