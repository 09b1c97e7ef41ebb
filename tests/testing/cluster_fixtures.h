// Test fixtures for the engine and the simulator: tiny clusters and jobs written in one line,
// RapidCheck generators for small random clusters and workloads, a driver that replays a
// workload through the Engine directly (exact runtimes, no speed model), and a brute-force
// placer to compare the engine's placement claims against.
//
//   const model::Cluster cluster =
//       TinyCluster().Rack("r0", {{"n0", 8, "H100"}, {"n1", 8, "H100"}}).Build();
//   const model::Cluster three_levels = TinyCluster()
//       .Leaf("l0").Rack("r0", {{"n0", 8}}).Rack("r1", {{"n1", 8}})
//       .Leaf("l1").Rack("r2", {{"n2", 4, "A100"}})
//       .Build();
//   const model::Job job = JobOf(2, 8, "model == \"H100\"", 4000, 8192, 100, 100, 0);
//
// Levels are cluster → rack, or cluster → leaf → rack once Leaf() is called (then every rack
// must follow a Leaf()). A malformed fixture is a bug in the test: Build() prints the builder's
// error and aborts.
//
// The generators draw plain, printable specs (ClusterSpec, JobSpec) so that a failing property
// shows its shrunk counterexample; Build() / ToJob() turn them into the model's types.
// Threading: plain values and pure functions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "base/ids.h"
#include "base/time.h"
#include "engine/decision.h"
#include "engine/engine.h"
#include "engine/event.h"
#include "engine/policy_config.h"
#include "engine/policy_yaml.h"
#include "model/cluster.h"
#include "model/cluster_builder.h"
#include "model/job.h"
#include "model/selector.h"
#include "model/workload.h"

namespace headroom::testing {

// ---------------------------------------------------------------------------------------------
// Fluent tiny clusters.

struct TinyNode {
  std::string name;
  uint32_t devices = 0;
  std::string model = "H100";
  int64_t cpu_milli = 64'000;
  int64_t memory_mib = 256 * 1024;
};

class TinyCluster {
 public:
  // Opens a leaf switch; the racks that follow hang below it. Makes the cluster three levels.
  TinyCluster& Leaf(std::string name) {
    leaves_.push_back(std::move(name));
    return *this;
  }

  TinyCluster& Rack(std::string name, std::vector<TinyNode> nodes) {
    racks_.push_back(
        RackDef{std::move(name), static_cast<int>(leaves_.size()) - 1, std::move(nodes)});
    return *this;
  }

  model::Cluster Build() const {
    const bool with_leaves = !leaves_.empty();
    model::ClusterBuilder builder = with_leaves ? model::ClusterBuilder({"cluster", "leaf", "rack"})
                                                : model::ClusterBuilder({"cluster", "rack"});
    std::vector<DomainId> leaf_ids;
    for (const std::string& leaf : leaves_) {
      leaf_ids.push_back(builder.AddDomain(builder.root(), leaf));
    }
    for (const RackDef& rack : racks_) {
      if (with_leaves && rack.leaf < 0) {
        std::fprintf(stderr, "TinyCluster: rack '%s' comes before any Leaf()\n", rack.name.c_str());
        std::abort();
      }
      const DomainId parent =
          with_leaves ? leaf_ids[static_cast<size_t>(rack.leaf)] : builder.root();
      const DomainId rack_id = builder.AddDomain(parent, rack.name);
      for (const TinyNode& node : rack.nodes) {
        model::NodeSpec spec{
            .name = node.name, .cpu_milli = node.cpu_milli, .memory_mib = node.memory_mib};
        spec.devices.assign(node.devices, model::DeviceAttributes(node.model, 80));
        builder.AddNode(rack_id, std::move(spec));
      }
    }
    auto cluster = std::move(builder).Build();
    if (!cluster) {
      std::fprintf(stderr, "TinyCluster: %s\n", cluster.error().message.c_str());
      std::abort();
    }
    return std::move(*cluster);
  }

 private:
  struct RackDef {
    std::string name;
    int leaf = -1;
    std::vector<TinyNode> nodes;
  };

  std::vector<std::string> leaves_;
  std::vector<RackDef> racks_;
};

inline model::Selector SelectorOf(const std::string& text) {
  auto selector = model::Selector::Parse(text);
  if (!selector) {
    std::fprintf(stderr, "SelectorOf('%s'): %s\n", text.c_str(), selector.error().message.c_str());
    std::abort();
  }
  return std::move(*selector);
}

// The distinct nodes a start places its tasks on.
inline std::set<uint32_t> NodesOf(const engine::StartJob& start) {
  std::set<uint32_t> out;
  for (const engine::TaskAllocation& task : start.tasks) out.insert(task.node.value());
  return out;
}

// A gang of `tasks` tasks of `devices` whole devices each (0: CPU-only).
inline model::Job JobOf(uint32_t tasks, uint32_t devices, const std::string& selector = "",
                        int64_t cpu_milli = 0, int64_t memory_mib = 0, double runtime_s = 100,
                        double estimate_s = 100, double submit_s = 0) {
  model::Job job;
  job.task_count = tasks;
  job.task.devices = devices;
  job.task.cpu_milli = cpu_milli;
  job.task.memory_mib = memory_mib;
  job.task.selector = SelectorOf(selector);
  job.runtime_us = SecondsToUs(runtime_s);
  job.runtime_estimate_us = SecondsToUs(estimate_s);
  job.submit_time_us = SecondsToUs(submit_s);
  return job;
}

// A gang of `tasks` tasks, each a `milli` share (< 1000) of one device.
// A workload of `jobs`, in submit order, as the simulator takes it.
inline model::Workload WorkloadOf(std::vector<model::Job> jobs) {
  model::Workload workload;
  workload.format = "test";
  workload.source = "test";
  workload.jobs = std::move(jobs);
  model::SortBySubmitTime(workload);
  return workload;
}

inline model::Job ShareJobOf(uint32_t tasks, uint32_t milli, const std::string& selector = "",
                             int64_t cpu_milli = 0, int64_t memory_mib = 0, double runtime_s = 100,
                             double estimate_s = 100, double submit_s = 0) {
  model::Job job =
      JobOf(tasks, 1, selector, cpu_milli, memory_mib, runtime_s, estimate_s, submit_s);
  job.task.milli_per_device = milli;
  return job;
}

// ---------------------------------------------------------------------------------------------
// Random specs and their RapidCheck generators.

inline constexpr const char* kModels[] = {"A100", "H100"};

struct ClusterSpec {
  uint32_t leaves = 0;  // 0: cluster → rack; else cluster → leaf → rack with this many leaves.
  struct Rack {
    uint32_t leaf = 0;
    std::vector<TinyNode> nodes;
  };
  std::vector<Rack> racks;

  model::Cluster Build() const {
    TinyCluster tiny;
    for (uint32_t leaf = 0; leaf < std::max<uint32_t>(leaves, 1); ++leaf) {
      if (leaves > 0) tiny.Leaf("l" + std::to_string(leaf));
      for (size_t r = 0; r < racks.size(); ++r) {
        if (leaves > 0 && racks[r].leaf != leaf) continue;
        tiny.Rack("r" + std::to_string(r), racks[r].nodes);
      }
    }
    return tiny.Build();
  }
};

inline void showValue(const ClusterSpec& spec, std::ostream& os) {
  os << "ClusterSpec{leaves=" << spec.leaves;
  for (size_t r = 0; r < spec.racks.size(); ++r) {
    os << " | r" << r;
    if (spec.leaves > 0) os << "@l" << spec.racks[r].leaf;
    os << ":";
    for (const TinyNode& node : spec.racks[r].nodes) {
      os << " " << node.name << "(" << node.devices << "x" << node.model << ", cpu "
         << node.cpu_milli << ", mem " << node.memory_mib << ")";
    }
  }
  os << "}";
}

struct JobSpec {
  uint32_t tasks = 1;
  uint32_t devices = 0;
  uint32_t milli = model::kMilliPerDevice;  // < 1000 (with devices == 1): a share.
  std::string selector;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t runtime_s = 0;
  int64_t estimate_s = 0;
  int64_t submit_s = 0;
  int32_t priority = 0;
  uint32_t min_tasks = 0;  // > 0 and < tasks: elastic from min_tasks up, in steps of one.

  model::Job ToJob() const {
    model::Job job =
        JobOf(tasks, devices, selector, cpu_milli, memory_mib, static_cast<double>(runtime_s),
              static_cast<double>(estimate_s), static_cast<double>(submit_s));
    job.task.milli_per_device = milli;
    job.priority = priority;
    job.min_task_count = min_tasks;
    return job;
  }
};

inline void showValue(const JobSpec& job, std::ostream& os) {
  os << "Job{" << job.tasks << "x" << job.devices;
  if (job.milli != model::kMilliPerDevice) os << "@" << job.milli << "m";
  if (!job.selector.empty()) os << " [" << job.selector << "]";
  os << " cpu " << job.cpu_milli << " mem " << job.memory_mib << " run " << job.runtime_s
     << "s est " << job.estimate_s << "s at " << job.submit_s << "s";
  if (job.priority != 0) os << " prio " << job.priority;
  if (job.min_tasks != 0) os << " elastic from " << job.min_tasks;
  os << "}";
}

// 1-3 racks (optionally under 1-2 leaves) of 1-4 nodes, each with 1-8 devices of one of 1-2
// models and small CPU and memory, so that CPU and memory constrain as often as devices.
// Sizes grow with RapidCheck's size and reach their full range half-way through a run.
inline rc::Gen<ClusterSpec> GenClusterSpec() {
  return rc::gen::scale(2.0, rc::gen::exec([] {
                          ClusterSpec spec;
                          spec.leaves = *rc::gen::inRange<uint32_t>(0, 3);
                          const uint32_t models = *rc::gen::inRange<uint32_t>(1, 3);
                          const uint32_t racks = *rc::gen::inRange<uint32_t>(1, 4);
                          for (uint32_t r = 0; r < racks; ++r) {
                            ClusterSpec::Rack rack;
                            rack.leaf =
                                spec.leaves > 0 ? *rc::gen::inRange<uint32_t>(0, spec.leaves) : 0;
                            const uint32_t nodes = *rc::gen::inRange<uint32_t>(1, 5);
                            for (uint32_t n = 0; n < nodes; ++n) {
                              TinyNode node;
                              node.name = "r" + std::to_string(r) + "n" + std::to_string(n);
                              node.devices = *rc::gen::inRange<uint32_t>(1, 9);
                              node.model = kModels[*rc::gen::inRange<uint32_t>(0, models)];
                              node.cpu_milli = *rc::gen::element<int64_t>(16'000, 8'000, 32'000);
                              node.memory_mib = *rc::gen::element<int64_t>(32'768, 16'384, 65'536);
                              rack.nodes.push_back(std::move(node));
                            }
                            spec.racks.push_back(std::move(rack));
                          }
                          return spec;
                        }));
}

struct WorkloadOptions {
  // estimate == runtime (EASY backfill's promise is only exact with exact estimates).
  bool exact_estimates = false;
  // Every job at priority 0 (so priority-ordered queues are FIFO).
  bool equal_priority = false;
  uint32_t max_jobs = 40;
  // Some gangs elastic (model/job.h), from a drawn number of tasks up.
  bool elastic = false;
};

inline rc::Gen<JobSpec> GenJobSpec(WorkloadOptions options) {
  return rc::gen::exec([options] {
    JobSpec job;
    job.tasks = *rc::gen::inRange<uint32_t>(1, 4);
    const uint32_t kind = *rc::gen::inRange<uint32_t>(0, 10);
    if (kind == 0) {
      job.devices = 1;
      job.milli = *rc::gen::element<uint32_t>(500, 250, 300, 750);
    } else {
      job.devices = *rc::gen::inRange<uint32_t>(0, 9);
    }
    // B200 is on no node: a job that can never run.
    job.selector = *rc::gen::weightedElement<std::string>({{4, ""},
                                                           {3, "model == \"H100\""},
                                                           {3, "model == \"A100\""},
                                                           {2, "model in [\"A100\", \"H100\"]"},
                                                           {1, "model == \"B200\""}});
    job.cpu_milli = *rc::gen::element<int64_t>(0, 1'000, 2'000, 4'000, 8'000, 12'000);
    job.memory_mib = *rc::gen::element<int64_t>(0, 2'048, 4'096, 8'192, 16'384, 24'576);
    job.runtime_s = *rc::gen::inRange<int64_t>(0, 400);
    job.estimate_s =
        options.exact_estimates ? job.runtime_s : job.runtime_s * *rc::gen::inRange<int64_t>(1, 4);
    job.submit_s = 10 * *rc::gen::inRange<int64_t>(0, 30);
    job.priority = options.equal_priority ? 0 : *rc::gen::inRange<int32_t>(0, 3);
    if (options.elastic && job.tasks > 1 && *rc::gen::inRange<uint32_t>(0, 3) == 0) {
      job.min_tasks = *rc::gen::inRange<uint32_t>(1, job.tasks);
    }
    return job;
  });
}

// 1..max_jobs jobs sorted by submit time (stable), so that index = JobId = arrival order.
inline rc::Gen<std::vector<JobSpec>> GenWorkload(WorkloadOptions options = {}) {
  return rc::gen::scale(
      2.0, rc::gen::exec([options] {
        const uint32_t count = *rc::gen::inRange<uint32_t>(1, options.max_jobs + 1);
        auto jobs = *rc::gen::container<std::vector<JobSpec>>(count, GenJobSpec(options));
        std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) {
          return a.submit_s < b.submit_s;
        });
        return jobs;
      }));
}

// A node out of service for a while: drained at from_s, undrained at to_s (> from_s). The node
// is picked as `node % nodes` of the cluster it is applied to.
struct DrainSpec {
  uint32_t node = 0;
  int64_t from_s = 0;
  int64_t to_s = 0;
};

inline void showValue(const DrainSpec& drain, std::ostream& os) {
  os << "Drain{node#" << drain.node << " " << drain.from_s << "s..." << drain.to_s << "s}";
}

// 0-3 drains, each starting in [0, 300) s and lasting 10-300 s.
inline rc::Gen<std::vector<DrainSpec>> GenDrains() {
  return rc::gen::exec([] {
    std::vector<DrainSpec> drains(*rc::gen::inRange<size_t>(0, 4));
    for (DrainSpec& drain : drains) {
      drain.node = *rc::gen::inRange<uint32_t>(0, 12);
      drain.from_s = 10 * *rc::gen::inRange<int64_t>(0, 30);
      drain.to_s = drain.from_s + 10 * *rc::gen::inRange<int64_t>(1, 31);
    }
    return drains;
  });
}

inline std::vector<model::Job> ToJobs(const std::vector<JobSpec>& specs) {
  std::vector<model::Job> jobs;
  jobs.reserve(specs.size());
  for (const JobSpec& spec : specs) jobs.push_back(spec.ToJob());
  return jobs;
}

// ---------------------------------------------------------------------------------------------
// Driving the Engine directly: job i (jobs sorted by submit time) is submitted as JobId(i) at its
// submit time and finished exactly runtime_us after it starts. Steps happen at arrivals,
// completions, node events (AddNodeEvent) and the engine's own wake-ups; events of one instant
// go in one step (node events, arrivals, then completions, as the simulator orders arrivals
// before completions). Once the run has emptied (nothing running, nothing left to arrive), the
// driver steps once at a pending wake-up and stops when that starts nothing.

struct StepInfo {
  TimeUs now_us = 0;
  std::vector<JobId> submitted;
  std::vector<JobId> finished;
  std::vector<engine::NodeDrained> node_events;
  const engine::Decisions* decisions = nullptr;
};

// A policy kept to compare with, read from configs/examples/NAME.yaml (HEADROOM_SOURCE_DIR).
inline engine::PolicyConfig ExamplePolicy(const std::string& name) {
  std::ifstream in(std::string(HEADROOM_SOURCE_DIR) + "/configs/examples/" + name + ".yaml");
  std::ostringstream text;
  text << in.rdbuf();
  auto policy = engine::ParsePolicyYaml(text.str(), name + ".yaml");
  if (!policy) {
    std::fprintf(stderr, "%s\n", policy.error().message.c_str());
    std::abort();
  }
  return *policy;
}

class EngineDriver {
 public:
  EngineDriver(const model::Cluster& cluster, const engine::PolicyConfig& policy,
               std::vector<model::Job> jobs)
      : engine_(cluster, policy),
        jobs_(std::move(jobs)),
        start_us_(jobs_.size(), -1),
        completion_us_(jobs_.size(), kNever) {}

  const engine::Engine& engine() const { return engine_; }
  const std::vector<model::Job>& jobs() const { return jobs_; }
  // Drains (or undrains) `node` at `at_us`; node events of an instant go first in its step.
  void AddNodeEvent(TimeUs at_us, NodeId node, bool drained) {
    node_events_.insert({{at_us, sequence_++}, engine::NodeDrained{node, drained}});
  }
  // -1 for a job that never started.
  TimeUs start_us(JobId job) const { return start_us_[job.value()]; }
  size_t steps() const { return steps_; }

  // Runs to the end, calling `after_step(const StepInfo&)` after every step. Returns false when
  // `max_steps` ran out first (the run did not terminate).
  template <typename AfterStep>
  bool Run(AfterStep&& after_step, size_t max_steps = 20'000) {
    size_t next = 0;
    TimeUs last = jobs_.empty() ? 0 : jobs_.front().submit_time_us;
    std::vector<engine::Event> events;
    while (steps_ < max_steps) {
      TimeUs now = kNever;
      if (next < jobs_.size()) now = jobs_[next].submit_time_us;
      if (!completions_.empty()) now = std::min(now, completions_.begin()->first);
      if (!node_events_.empty()) now = std::min(now, node_events_.begin()->first.first);
      const bool work_in_flight = now != kNever;
      const TimeUs wakeup = engine_.NextWakeupUs();
      if (wakeup != kNever && (work_in_flight || engine_.running_count() == 0)) {
        now = std::min(now, std::max(wakeup, last));
      }
      if (now == kNever) return true;
      last = now;

      StepInfo info;
      info.now_us = now;
      events.clear();
      while (!node_events_.empty() && node_events_.begin()->first.first == now) {
        events.push_back(node_events_.begin()->second);
        info.node_events.push_back(node_events_.begin()->second);
        node_events_.erase(node_events_.begin());
      }
      while (next < jobs_.size() && jobs_[next].submit_time_us == now) {
        const JobId id(static_cast<uint32_t>(next));
        events.push_back(engine::JobSubmitted{id, jobs_[next]});
        info.submitted.push_back(id);
        ++next;
      }
      while (!completions_.empty() && completions_.begin()->first == now) {
        const JobId id(completions_.begin()->second);
        completions_.erase(completions_.begin());
        events.push_back(engine::JobFinished{id});
        info.finished.push_back(id);
      }
      const size_t running_before = engine_.running_count();
      const bool had_events = !events.empty();
      const engine::Decisions decisions = engine_.Step(events, now);
      ++steps_;
      // A preempted job does not finish this run; it runs whole again from its next start.
      for (const engine::PreemptJob& preemption : decisions.preemptions) {
        const uint32_t job = preemption.job.value();
        completions_.erase({completion_us_[job], job});
        completion_us_[job] = kNever;
      }
      for (const engine::StartJob& start : decisions.starts) {
        const uint32_t job = start.job.value();
        start_us_[job] = now;
        // An elastic job started narrower runs longer (model/job.h).
        completion_us_[job] =
            now +
            std::max<TimeUs>(jobs_[job].AtWidth(jobs_[job].runtime_us, start.tasks.size()), 0);
        completions_.insert({completion_us_[job], job});
      }
      info.decisions = &decisions;
      after_step(info);
      if (!had_events && decisions.starts.empty() && completions_.empty() && next == jobs_.size() &&
          node_events_.empty() && running_before == 0) {
        return true;
      }
    }
    return false;
  }

 private:
  engine::Engine engine_;
  std::vector<model::Job> jobs_;
  std::vector<TimeUs> start_us_;
  std::vector<TimeUs> completion_us_;  // kNever: not running.
  std::set<std::pair<TimeUs, uint32_t>> completions_;
  std::map<std::pair<TimeUs, uint64_t>, engine::NodeDrained> node_events_;
  uint64_t sequence_ = 0;
  size_t steps_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Independent accounting and a brute-force placer.

// Free capacity as the test computes it from the decisions it has seen, never from the engine.
struct FreeCapacity {
  std::vector<int64_t> device_milli;
  std::vector<int64_t> node_cpu_milli;
  std::vector<int64_t> node_memory_mib;
  std::vector<uint8_t> node_drained;  // A drained node takes no new work.

  static FreeCapacity Empty(const model::Cluster& cluster) {
    FreeCapacity free;
    free.device_milli.assign(cluster.devices().size(), model::kMilliPerDevice);
    free.node_drained.assign(cluster.nodes().size(), 0);
    for (const model::Node& node : cluster.nodes()) {
      free.node_cpu_milli.push_back(node.cpu_milli);
      free.node_memory_mib.push_back(node.memory_mib);
    }
    return free;
  }

  // sign +1 takes the task's capacity, -1 gives it back.
  void Apply(const engine::TaskAllocation& task, int sign) {
    node_cpu_milli[task.node.value()] -= sign * task.cpu_milli;
    node_memory_mib[task.node.value()] -= sign * task.memory_mib;
    for (DeviceId device : task.devices) {
      device_milli[device.value()] -= sign * static_cast<int64_t>(task.milli_per_device);
    }
  }
};

// Whether `job` has any placement in `free` (on nodes not drained), by exhaustive search: every
// multiset of nodes for the gang's tasks (they are identical, so order does not matter) and, for
// shares, every multiset of devices. Whole devices of any matching class are interchangeable for
// one job, so a node takes k tasks of d devices exactly when it has k·d free matching whole devices
// and k times the CPU and memory. Exponential; for tiny clusters only.
class BruteForcePlacer {
 public:
  BruteForcePlacer(const model::Cluster& cluster, const model::Job& job)
      : cluster_(cluster), job_(job) {
    matches_.resize(cluster.devices().size());
    for (size_t d = 0; d < cluster.devices().size(); ++d) {
      const model::DeviceClass& device_class =
          cluster.device_class(cluster.devices()[d].device_class);
      matches_[d] = job.task.selector.Matches(device_class.attributes) ? 1 : 0;
    }
  }

  bool Fits(FreeCapacity free) const {
    if (job_.task_count == 0) return true;
    return Place(free, job_.task_count, 0);
  }

 private:
  bool fractional() const {
    return job_.task.devices == 1 && job_.task.milli_per_device < model::kMilliPerDevice;
  }

  // Places `remaining` tasks on slots >= `first_slot` (slots: nodes, or devices for shares).
  bool Place(FreeCapacity& free, uint32_t remaining, uint32_t first_slot) const {
    if (remaining == 0) return true;
    const model::TaskShape& task = job_.task;
    const uint32_t slots = fractional() ? static_cast<uint32_t>(cluster_.devices().size())
                                        : static_cast<uint32_t>(cluster_.nodes().size());
    for (uint32_t slot = first_slot; slot < slots; ++slot) {
      const uint32_t node = fractional() ? cluster_.devices()[slot].node.value() : slot;
      if (free.node_drained[node] != 0) continue;
      if (free.node_cpu_milli[node] < task.cpu_milli) continue;
      if (free.node_memory_mib[node] < task.memory_mib) continue;
      std::vector<uint32_t> taken;
      if (fractional()) {
        if (!matches_[slot] || free.device_milli[slot] < task.milli_per_device) continue;
        taken.push_back(slot);
      } else if (task.devices > 0) {
        const model::Node& n = cluster_.node(NodeId(node));
        for (uint32_t d = n.first_device; d < n.first_device + n.device_count; ++d) {
          if (taken.size() == task.devices) break;
          if (matches_[d] && free.device_milli[d] == model::kMilliPerDevice) taken.push_back(d);
        }
        if (taken.size() < task.devices) continue;
      }
      engine::TaskAllocation allocation;
      allocation.node = NodeId(node);
      for (uint32_t d : taken) allocation.devices.push_back(DeviceId(d));
      allocation.milli_per_device = task.milli_per_device;
      allocation.cpu_milli = task.cpu_milli;
      allocation.memory_mib = task.memory_mib;
      free.Apply(allocation, +1);
      const bool placed = Place(free, remaining - 1, slot);
      free.Apply(allocation, -1);
      if (placed) return true;
    }
    return false;
  }

  const model::Cluster& cluster_;
  const model::Job& job_;
  std::vector<uint8_t> matches_;
};

}  // namespace headroom::testing
