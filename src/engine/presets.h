// The named policies — each a PolicyConfig of the one engine, so comparisons run the same code
// on the same inputs and differ only where the policies really differ.
//
//  fifo        Strict first-come-first-served with first-fit node selection and no backfill:
//              the first job that cannot start blocks the queue. The textbook baseline
//              (Feitelson & Rudolph, "Parallel job scheduling: issues and approaches", 1995).
//  slurm-like  Slurm as commonly configured for GPU clusters: priority/multifactor with the
//              weights of the example in Slurm's multifactor documentation, the main scheduler
//              on every event (default_queue_depth=100) stopping at the first blocked job, and
//              sched/backfill every bf_interval=30 s over bf_max_job_test=500 jobs, which
//              reserves for the first blocked job (EASY, as this engine models it); select/
//              cons_tres with topology/tree best fit (the lowest switch level that satisfies the
//              request, then best-fit leaves). Sources: slurm.schedmd.com/sched_config.html,
//              slurm.conf(5) SchedulerParameters, topology.html, priority_multifactor.html.
//  spread      Kubernetes default scheduler: PrioritySort queue (priority, then arrival), every
//              pod that fits is bound (unschedulable pods do not block others, and nothing is
//              reserved), nodes scored by NodeResourcesFit LeastAllocated, each task placed on
//              its own (kube-scheduler schedules pod by pod; the gang is all-or-nothing as with
//              the coscheduling plugin). Source: kubernetes.io/docs/reference/scheduling/config.
//  headroom    Ours: the multifactor order with fair share recomputed every minute (not every
//              five), EASY backfill on every step rather than every 30 s (never delays the
//              reserved head), every job in the queue considered, topology-block placement in
//              the smallest fabric domain with best fit, tie-breaks that keep whole nodes and
//              whole NVLink domains free, and defragmentation by migration when the head is
//              blocked only by fragmentation and the move pays (defrag.h).
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/policy_config.h"

namespace headroom::engine {

Result<PolicyConfig> PresetPolicy(std::string_view name);
std::vector<std::string_view> PresetNames();

// "fifo,spread" or "all" → the configs, in the order named (all: PresetNames order).
Result<std::vector<PolicyConfig>> PresetPolicies(std::string_view list);

}  // namespace headroom::engine
