// Properties of the engine under every preset policy, on small random clusters and workloads
// driven through Engine::Step directly (submit at the submit time, finish exactly runtime after
// the start). After every step:
//  1. engine.CheckInvariants() is empty;
//  2. independently of the engine's accounting, from the decisions alone: no device share over
//     1000 milli, no node over its CPU or memory, and the engine's free capacity agrees;
//  3. gangs are all-or-nothing: a StartJob has task_count tasks (an elastic job: a width of its
//     range; some generated gangs are elastic, and a gang fits at some width exactly when it fits
//     at its narrowest, which the brute force below checks), each on one node with
//     the requested number of distinct devices of a class the selector accepts, the requested
//     share, CPU and memory; a job starts once, only while pending; a migration (headroom)
//     moves only a running job, whole gang (or resizes an elastic one to a width of its
//     range), onto nodes not drained;
//  4. every pending job explains itself; a job said to wait for kCapacity has no placement by a
//     brute-force search; kUnschedulable is exact (brute force on an empty cluster agrees);
//  5. the first job of the queue that is not unschedulable never waits while it fits (every
//     policy walks the queue until the first job that does not fit); under `spread` (no
//     reservation) no pending job fits; under `fifo` jobs start in arrival order;
// and at the end of the run no job is lost: nothing runs, and every job that did not finish is
// unschedulable (by Explain and by brute force).
// The same checks run with nodes drained and undrained along the way (no new work on a drained
// node; the brute force skips drained nodes). A further property: the same inputs give the same
// decisions.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/engine.h"
#include "engine/presets.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::BruteForcePlacer;
using testing::ClusterSpec;
using testing::DrainSpec;
using testing::EngineDriver;
using testing::FreeCapacity;
using testing::JobSpec;
using testing::StepInfo;

bool Contains(const std::vector<PendingCode>& reasons, PendingCode code) {
  return std::find(reasons.begin(), reasons.end(), code) != reasons.end();
}

std::string Reasons(const PendingStatus& status) {
  std::string out;
  for (PendingCode code : status.reasons) {
    out += (out.empty() ? "" : ",") + std::string(PendingCodeName(code));
  }
  return out + " (" + status.message + ")";
}

enum class Stage { kPending, kRunning, kFinished };

// Checks one preset on one cluster and workload; RC_ASSERTs on the first broken property.
void CheckPolicy(const model::Cluster& cluster, const std::vector<JobSpec>& specs,
                 std::string_view policy_name, const std::vector<DrainSpec>& drains = {}) {
  auto policy = PresetPolicy(policy_name);
  RC_ASSERT(policy.has_value());
  const std::vector<model::Job> jobs = testing::ToJobs(specs);
  EngineDriver driver(cluster, *policy, jobs);
  for (const DrainSpec& drain : drains) {
    const NodeId node(drain.node % static_cast<uint32_t>(cluster.nodes().size()));
    driver.AddNodeEvent(drain.from_s * kUsPerSecond, node, true);
    driver.AddNodeEvent(drain.to_s * kUsPerSecond, node, false);
  }

  // Each job at its narrowest width (its only one, unless elastic): where it fits at all.
  std::vector<model::Job> narrowest = jobs;
  for (model::Job& job : narrowest) {
    if (job.elastic()) job.task_count = job.min_task_count;
  }
  // Whether each job fits an empty cluster, by brute force.
  std::vector<bool> ever_fits;
  for (const model::Job& job : narrowest) {
    ever_fits.push_back(BruteForcePlacer(cluster, job).Fits(FreeCapacity::Empty(cluster)));
  }
  FreeCapacity free = FreeCapacity::Empty(cluster);
  std::vector<Stage> stage(jobs.size(), Stage::kPending);
  std::vector<bool> submitted(jobs.size(), false);
  std::vector<std::vector<TaskAllocation>> held(jobs.size());
  size_t running = 0;

  auto after_step = [&](const StepInfo& step) {
    const Engine& engine = driver.engine();
    const std::string at = fmt::format("t={}us {}", step.now_us, policy_name);
    // 1. The engine's own invariants.
    const std::string problem = engine.CheckInvariants();
    RC_ASSERT(problem.empty());

    for (const NodeDrained& event : step.node_events) {
      free.node_drained[event.node.value()] = event.drained ? 1 : 0;
    }
    for (JobId id : step.submitted) submitted[id.value()] = true;
    for (JobId id : step.finished) {
      RC_ASSERT(stage[id.value()] == Stage::kRunning);
      for (const TaskAllocation& task : held[id.value()]) free.Apply(task, -1);
      held[id.value()].clear();
      stage[id.value()] = Stage::kFinished;
      --running;
    }
    // Preemptions (headroom preempts): the victim's tasks are released before the step's starts
    // and it is pending again, whole: no gang is half preempted. The pass placed it nowhere, and
    // jobs it looked at before a preemption freed capacity did not see that capacity: the engine
    // asks to be stepped again at once, and the queue head is checked after that step. So too
    // after an elastic job shrank for a blocked one (a move to fewer tasks).
    const bool shrank = std::any_of(
        step.decisions->migrations.begin(), step.decisions->migrations.end(),
        [&](const MigrateJob& move) { return move.tasks.size() < held[move.job.value()].size(); });
    const bool steps_again = !step.decisions->preemptions.empty() || shrank;
    // (A victim waits: the engine steps again at once. After a shrink, unless nothing waits.)
    if (!step.decisions->preemptions.empty()) RC_ASSERT(engine.NextWakeupUs() == step.now_us);
    for (const PreemptJob& preemption : step.decisions->preemptions) {
      const uint32_t j = preemption.job.value();
      RC_ASSERT(stage[j] == Stage::kRunning);
      RC_ASSERT(engine.allocations(preemption.job) == nullptr);
      for (const TaskAllocation& task : held[j]) free.Apply(task, -1);
      held[j].clear();
      stage[j] = Stage::kPending;
      --running;
    }
    // Moves (headroom migrates to defragment): a running job's old tasks are released before
    // the step's starts and its new ones taken after them; it stays running.
    for (const MigrateJob& move : step.decisions->migrations) {
      const uint32_t j = move.job.value();
      RC_ASSERT(stage[j] == Stage::kRunning);
      // The same width, or (a resize of an elastic job) another of its range.
      RC_ASSERT(jobs[j].AllowsWidth(move.tasks.size()));
      for (const TaskAllocation& task : held[j]) free.Apply(task, -1);
    }
    // 3. Gangs all-or-nothing, of the requested shape.
    for (const StartJob& start : step.decisions->starts) {
      const uint32_t j = start.job.value();
      RC_ASSERT(j < jobs.size());
      RC_ASSERT(submitted[j]);
      RC_ASSERT(stage[j] == Stage::kPending);
      RC_ASSERT(ever_fits[j]);
      const model::Job& job = jobs[j];
      RC_ASSERT(job.AllowsWidth(start.tasks.size()));
      for (const TaskAllocation& task : start.tasks) {
        RC_ASSERT(task.node.value() < cluster.nodes().size());
        RC_ASSERT(free.node_drained[task.node.value()] == 0);
        RC_ASSERT(task.devices.size() == job.task.devices);
        RC_ASSERT(task.cpu_milli == job.task.cpu_milli);
        RC_ASSERT(task.memory_mib == job.task.memory_mib);
        if (job.task.devices > 0) RC_ASSERT(task.milli_per_device == job.task.milli_per_device);
        std::vector<DeviceId> distinct = task.devices;
        std::sort(distinct.begin(), distinct.end());
        RC_ASSERT(std::adjacent_find(distinct.begin(), distinct.end()) == distinct.end());
        for (DeviceId device : task.devices) {
          RC_ASSERT(device.value() < cluster.devices().size());
          RC_ASSERT(cluster.device(device).node == task.node);
          const model::DeviceClass& device_class =
              cluster.device_class(cluster.device(device).device_class);
          RC_ASSERT(job.task.selector.Matches(device_class.attributes));
        }
        free.Apply(task, +1);
      }
      held[j] = start.tasks;
      stage[j] = Stage::kRunning;
      ++running;
      // fifo: a job starts only after every earlier job that can ever run has started.
      if (policy_name == "fifo") {
        for (uint32_t earlier = 0; earlier < j; ++earlier) {
          RC_ASSERT(stage[earlier] != Stage::kPending || !ever_fits[earlier]);
        }
      }
    }
    for (const MigrateJob& move : step.decisions->migrations) {
      for (const TaskAllocation& task : move.tasks) {
        RC_ASSERT(free.node_drained[task.node.value()] == 0);
        RC_ASSERT(task.devices.size() == jobs[move.job.value()].task.devices);
        free.Apply(task, +1);
      }
      held[move.job.value()] = move.tasks;
    }
    // 2. Independent accounting: nothing over capacity, and the engine's state agrees.
    for (size_t d = 0; d < cluster.devices().size(); ++d) {
      RC_ASSERT(free.device_milli[d] >= 0);
      RC_ASSERT(free.device_milli[d] ==
                engine.cluster_state().free_milli(DeviceId(static_cast<uint32_t>(d))));
    }
    for (const model::Node& node : cluster.nodes()) {
      const uint32_t n = node.id.value();
      RC_ASSERT(free.node_cpu_milli[n] >= 0);
      RC_ASSERT(free.node_memory_mib[n] >= 0);
      RC_ASSERT(free.node_cpu_milli[n] == engine.cluster_state().free_cpu_milli(node.id));
      RC_ASSERT(free.node_memory_mib[n] == engine.cluster_state().free_memory_mib(node.id));
      RC_ASSERT((free.node_drained[n] != 0) == engine.cluster_state().drained(node.id));
    }
    RC_ASSERT(engine.running_count() == running);

    // 4 and 5. Pending jobs, their reasons, and the brute force.
    JobId head;
    uint32_t head_position = 0;
    for (uint32_t j = 0; j < jobs.size(); ++j) {
      const JobId id(j);
      if (!submitted[j]) {
        RC_ASSERT(!engine.state(id).has_value());
        continue;
      }
      const JobState expected = stage[j] == Stage::kPending   ? JobState::kPending
                                : stage[j] == Stage::kRunning ? JobState::kRunning
                                                              : JobState::kCompleted;
      RC_ASSERT(engine.state(id) == expected);
      if (stage[j] == Stage::kRunning) {
        const std::vector<TaskAllocation>* allocations = engine.allocations(id);
        RC_ASSERT(allocations != nullptr);
        RC_ASSERT(allocations->size() == held[j].size());
      }
      if (stage[j] != Stage::kPending) continue;
      const PendingStatus status = engine.Explain(id);
      if (status.reasons.empty()) {
        RC_FAIL(fmt::format("{}: pending job {} gives no reason", at, j));
      }
      const bool unschedulable = Contains(status.reasons, PendingCode::kUnschedulable);
      if (unschedulable == ever_fits[j]) {
        RC_FAIL(
            fmt::format("{}: job {} reasons {} but brute force on an empty cluster says it "
                        "{} fit",
                        at, j, Reasons(status), ever_fits[j] ? "does" : "does not"));
      }
      if (unschedulable) continue;
      const bool fits_now = BruteForcePlacer(cluster, narrowest[j]).Fits(free);
      // A job looked at before a preemption freed capacity in the same pass is looked at
      // again in the step the engine asks for at once.
      if (!steps_again && Contains(status.reasons, PendingCode::kCapacity) && fits_now) {
        RC_FAIL(fmt::format("{}: job {} said to wait for capacity ({}) but it fits now", at, j,
                            Reasons(status)));
      }
      if (policy_name == "spread" && fits_now) {
        RC_FAIL(fmt::format("{}: spread left job {} pending ({}) though it fits", at, j,
                            Reasons(status)));
      }
      if (!head.valid() || status.queue_position < head_position) {
        head = id;
        head_position = status.queue_position;
      }
    }
    if (!steps_again && head.valid() &&
        BruteForcePlacer(cluster, narrowest[head.value()]).Fits(free)) {
      RC_FAIL(fmt::format("{}: queue head job {} (position {}) waits ({}) though it fits", at,
                          head.value(), head_position, Reasons(engine.Explain(head))));
    }
  };

  RC_ASSERT(driver.Run(after_step));

  // No job lost: the run drained, and every job that did not run can never run.
  RC_ASSERT(driver.engine().running_count() == 0u);
  for (uint32_t j = 0; j < jobs.size(); ++j) {
    if (stage[j] == Stage::kFinished) continue;
    RC_ASSERT(stage[j] == Stage::kPending);
    const PendingStatus status = driver.engine().Explain(JobId(j));
    if (!Contains(status.reasons, PendingCode::kUnschedulable) || ever_fits[j]) {
      RC_FAIL(fmt::format("{}: job {} never ran ({}); brute force on an empty cluster: {}",
                          policy_name, j, Reasons(status), ever_fits[j] ? "fits" : "no fit"));
    }
  }
}

RC_GTEST_PROP(EnginePropertyTest, FifoKeepsEveryPromise, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const std::vector<JobSpec> jobs = *testing::GenWorkload({.elastic = true});
  CheckPolicy(spec.Build(), jobs, "fifo");
}

RC_GTEST_PROP(EnginePropertyTest, SlurmLikeKeepsEveryPromise, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const std::vector<JobSpec> jobs = *testing::GenWorkload({.elastic = true});
  CheckPolicy(spec.Build(), jobs, "slurm-like");
}

RC_GTEST_PROP(EnginePropertyTest, SpreadKeepsEveryPromise, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const std::vector<JobSpec> jobs = *testing::GenWorkload({.elastic = true});
  CheckPolicy(spec.Build(), jobs, "spread");
}

RC_GTEST_PROP(EnginePropertyTest, HeadroomKeepsEveryPromise, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const std::vector<JobSpec> jobs = *testing::GenWorkload({.elastic = true});
  CheckPolicy(spec.Build(), jobs, "headroom");
}

RC_GTEST_PROP(EnginePropertyTest, DrainsKeepEveryPromise, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const std::vector<JobSpec> jobs = *testing::GenWorkload({.elastic = true});
  const std::vector<DrainSpec> drains = *testing::GenDrains();
  const model::Cluster cluster = spec.Build();
  for (std::string_view name : PresetNames()) CheckPolicy(cluster, jobs, name, drains);
}

// Every decision of a run, as text.
std::string DecisionLog(const model::Cluster& cluster, const std::vector<model::Job>& jobs,
                        const PolicyConfig& policy) {
  EngineDriver driver(cluster, policy, jobs);
  std::string log;
  const bool done = driver.Run([&](const StepInfo& step) {
    for (const StartJob& start : step.decisions->starts) {
      log += fmt::format("{} start {}:", step.now_us, start.job.value());
      for (const TaskAllocation& task : start.tasks) {
        log += fmt::format(" n{}", task.node.value());
        for (DeviceId device : task.devices) log += fmt::format(",d{}", device.value());
      }
      log += "\n";
    }
    for (uint32_t j = 0; j < jobs.size(); ++j) {
      if (driver.engine().state(JobId(j)) != JobState::kPending) continue;
      log += fmt::format("{} pending {}: {}\n", step.now_us, j,
                         driver.engine().Explain(JobId(j)).message);
    }
  });
  RC_ASSERT(done);
  return log;
}

RC_GTEST_PROP(EnginePropertyTest, SameInputsSameDecisions, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const std::vector<model::Job> jobs = testing::ToJobs(*testing::GenWorkload({.elastic = true}));
  const model::Cluster cluster = spec.Build();
  for (std::string_view name : PresetNames()) {
    const PolicyConfig policy = *PresetPolicy(name);
    RC_ASSERT(DecisionLog(cluster, jobs, policy) == DecisionLog(cluster, jobs, policy));
  }
}

}  // namespace
}  // namespace headroom::engine
