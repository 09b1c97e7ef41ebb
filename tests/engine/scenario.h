// Small hand-built clusters and jobs for the engine's scenario tests, with exact expectations.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/presets.h"
#include "engine/quota_yaml.h"
#include "model/cluster_builder.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine::testing {

// Racks of nodes under one root: {{"r0", {{"n0", 8}, {"n1", 8}}}, ...}; all devices "H100".
struct NodeDef {
  std::string name;
  uint32_t devices = 8;
  std::string model = "H100";
  int64_t cpu_milli = 64000;
  int64_t memory_mib = 512 * 1024;
};
struct RackDef {
  std::string name;
  std::vector<NodeDef> nodes;
};

inline model::Cluster MakeCluster(const std::vector<RackDef>& racks) {
  model::ClusterBuilder builder({"cluster", "rack"});
  for (const RackDef& rack : racks) {
    const DomainId domain = builder.AddDomain(builder.root(), rack.name);
    for (const NodeDef& node : rack.nodes) {
      model::NodeSpec spec{node.name, node.cpu_milli, node.memory_mib, {}};
      for (uint32_t i = 0; i < node.devices; ++i) {
        spec.devices.push_back(model::DeviceAttributes(node.model, 80));
      }
      builder.AddNode(domain, std::move(spec));
    }
  }
  auto cluster = std::move(builder).Build();
  EXPECT_TRUE(cluster.has_value()) << cluster.error().message;
  return std::move(*cluster);
}

inline model::Job MakeJob(uint32_t tasks, uint32_t devices, double runtime_s,
                          std::string selector = "", int64_t cpu_milli = 0) {
  model::Job job;
  job.task_count = tasks;
  job.task.devices = devices;
  job.task.cpu_milli = cpu_milli;
  auto parsed = model::Selector::Parse(selector);
  EXPECT_TRUE(parsed.has_value());
  job.task.selector = *parsed;
  job.runtime_us = SecondsToUs(runtime_s);
  job.runtime_estimate_us = job.runtime_us;
  return job;
}

inline PolicyConfig Preset(std::string_view name) {
  auto policy = PresetPolicy(name);
  EXPECT_TRUE(policy.has_value());
  return *policy;
}

// The headroom preset's placement and moves with the multifactor order (fair share ahead of every
// other factor), EASY backfill on every step and no preemption: headroom before its order became
// least attained service (configs/examples/headroom-multifactor.yaml), for the tests of fair
// share and reservations on headroom's placement.
inline PolicyConfig HeadroomWithReservations() {
  return headroom::testing::ExamplePolicy("headroom-multifactor");
}

// A preset with its queue order replaced by arrival order (all test jobs share one priority),
// so that a scenario's expectations do not depend on fair-share or job-size weights.
inline PolicyConfig InArrivalOrder(PolicyConfig policy) {
  policy.queue_order = "priority";
  return policy;
}
inline PolicyConfig InArrivalOrder(std::string_view name) { return InArrivalOrder(Preset(name)); }

// The headroom preset in arrival order with the queues of `queues_yaml` (engine/quota_yaml.h),
// victims by lowest priority, preemption as `preemption` says and reclaims at once.
inline PolicyConfig WithQueues(std::string_view queues_yaml, bool preemption) {
  PolicyConfig policy = Preset("headroom");
  policy.queue_order = "fifo";
  policy.victim_selector = "lowest_priority";
  policy.preemption.enabled = preemption;
  policy.preemption.reclaim_after_us = 0;
  auto queues = ParseQueuesYaml(queues_yaml, "queues.yaml");
  EXPECT_TRUE(queues.has_value()) << (queues ? "" : queues.error().message);
  if (queues) policy.queues = *queues;
  EXPECT_TRUE(ValidatePolicy(policy).has_value());
  return policy;
}

// `job` as one of `tenant`'s, at `priority`.
inline model::Job Of(std::string tenant, model::Job job, int32_t priority = 0) {
  job.tenant = std::move(tenant);
  job.priority = priority;
  return job;
}

// Drives an engine by hand: submit jobs, step, and read where they went.
// The jobs a step preempted, in its order.
inline std::vector<JobId> Victims(const Decisions& decisions) {
  std::vector<JobId> victims;
  for (const PreemptJob& preemption : decisions.preemptions) victims.push_back(preemption.job);
  return victims;
}

class Harness {
 public:
  Harness(const model::Cluster& cluster, std::string_view policy)
      : Harness(cluster, Preset(policy)) {}
  Harness(const model::Cluster& cluster, const PolicyConfig& policy)
      : cluster_(cluster), engine_(cluster, policy) {}

  JobId Submit(model::Job job) {
    const JobId id(next_id_++);
    pending_.push_back(JobSubmitted{id, std::move(job)});
    return id;
  }
  void Finish(JobId id, bool failed = false) { pending_.push_back(JobFinished{id, failed}); }
  void Cancel(JobId id) { pending_.push_back(JobCancelled{id}); }
  void Push(Event event) { pending_.push_back(std::move(event)); }
  void Drain(const std::string& node) {
    pending_.push_back(NodeDrained{cluster_.FindNode(node)->id, true});
  }

  Decisions Step(double now_s) {
    Decisions decisions = engine_.Step(pending_, SecondsToUs(now_s));
    pending_.clear();
    EXPECT_EQ(engine_.CheckInvariants(), "");
    return decisions;
  }

  // Node names of a running job's tasks, in rank order.
  std::vector<std::string> NodesOf(JobId id) const {
    std::vector<std::string> names;
    if (const auto* tasks = engine_.allocations(id)) {
      for (const TaskAllocation& task : *tasks) names.push_back(cluster_.node(task.node).name);
    }
    return names;
  }

  Engine& engine() { return engine_; }

 private:
  const model::Cluster& cluster_;
  Engine engine_;
  std::vector<Event> pending_;
  uint32_t next_id_ = 0;
};

}  // namespace headroom::engine::testing
