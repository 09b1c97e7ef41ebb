// The built-in policies — each a policy file of the one engine (configs/policies/NAME.yaml,
// embedded at build time; policy_yaml.h), so comparisons run the same code on the same inputs
// and differ only where the policies really differ. The files say where each comes from:
//
//  fifo        Strict first-come-first-served, first fit, no backfill (the textbook baseline).
//  slurm-like  Slurm as commonly configured for GPU clusters: multifactor priority, the main
//              scheduler plus sched/backfill every 30 s (EASY), topology/tree best fit.
//  spread      The Kubernetes default scheduler: PrioritySort, no reservation,
//              NodeResourcesFit LeastAllocated, pod by pod.
//  headroom    Ours: priority, then least attained service with large limits; every job that
//              fits starts; preemption by that rank and reclaim with queues; topology-block
//              best fit that keeps whole nodes and domains free, migration to defragment.
//
// The preemption baselines, by name but not in "all" (preemption is off in the other presets;
// these are for comparisons that turn it on, e.g. with queues):
//  k8s-preemption  spread with Kubernetes' default preemption: priority only, any queue, no
//                  guards, blind to checkpoints.
//  kueue-like      spread behind Kueue: queues that borrow and reclaim, preemption inside the
//                  queue, candidates in Kueue's order.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/policy_config.h"

namespace headroom::engine {

Result<PolicyConfig> PresetPolicy(std::string_view name);
// In the order reports list them ("all").
std::vector<std::string_view> PresetNames();
// The presets, then the baselines: every policy file shipped, each loadable by name.
std::vector<std::string_view> ShippedPolicyNames();
// The policy file a preset or baseline is made from, as shipped.
Result<std::string_view> PresetPolicyText(std::string_view name);

}  // namespace headroom::engine
