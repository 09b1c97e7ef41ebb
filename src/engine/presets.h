// The built-in policies — each a policy file of the one engine (configs/policies/NAME.yaml,
// embedded at build time; policy_yaml.h), so comparisons run the same code on the same inputs
// and differ only where the policies really differ. The files say where each comes from:
//
//  fifo        Strict first-come-first-served, first fit, no backfill (the textbook baseline).
//  slurm-like  Slurm as commonly configured for GPU clusters: multifactor priority, the main
//              scheduler plus sched/backfill every 30 s (EASY), topology/tree best fit.
//  spread      The Kubernetes default scheduler: PrioritySort, no reservation,
//              NodeResourcesFit LeastAllocated, pod by pod.
//  headroom    Ours: fair-share multifactor order, EASY backfill on every step, topology-block
//              best fit that keeps whole nodes and domains free, migration to defragment.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/policy_config.h"

namespace headroom::engine {

Result<PolicyConfig> PresetPolicy(std::string_view name);
// In the order reports list them.
std::vector<std::string_view> PresetNames();
// The policy file a preset is made from, as shipped.
Result<std::string_view> PresetPolicyText(std::string_view name);

}  // namespace headroom::engine
