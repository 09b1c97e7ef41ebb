// PolicyConfig: a scheduling policy as a value. The engine is one program; FIFO, Slurm-like
// EASY backfill, Kubernetes-like spread and headroom's own policy are configurations of it
// (see presets.h). Every named piece is validated by ValidatePolicy; an unknown name is a
// configuration error, never a silent default.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "engine/quota_config.h"
#include "model/cluster.h"

namespace headroom::engine {

// How a gang's tasks are spread over nodes.
enum class GangPlacement {
  // Each task independently, in order, to the best node for it (how kube-scheduler and
  // Slurm's linear node selection behave); the gang still starts all-or-nothing.
  kPerTask,
  // The whole gang inside the smallest fabric domain that holds it, then recursively inside
  // the fewest, best-fitting child domains (Slurm topology/tree; Kueue Topology Aware
  // Scheduling's BestFit).
  kTopologyBlock,
};

// Order in which candidate domains (and nodes with equal score) are tried.
enum class FitOrder {
  kFirstFit,  // Lowest id first.
  kBestFit,   // Least free capacity that still fits first.
  kWorstFit,  // Most free capacity first.
};

enum class BackfillMode {
  kNone,  // Strict order: the first job that cannot start blocks everything behind it.
  kSkip,  // Any job that fits starts; nothing is reserved (kube-scheduler's behaviour).
  kEasy,  // The first blocked job gets a reservation; later jobs start only if they do not
          // delay it (Lifka 1995; Mu'alem & Feitelson 2001; Slurm sched/backfill).
};

// Quasi-shortest-service-first (queue_orders/qssf.cc).
struct ServiceOrderConfig {
  // A job that has waited this long goes ahead of every job that has not, oldest first: the
  // bound that keeps large, long jobs from starving behind short ones. 0: never.
  TimeUs age_limit_us = 0;
};

// Discretized two-dimensional least-attained-service (queue_orders/las.cc; Tiresias, Gu et al.,
// NSDI'19 §3). A job's attained service is the device-time it has run (devices × time) since it
// was submitted or last promoted; the limits cut it into queues, the least served first.
struct AttainedServiceConfig {
  // Queue limits, device-seconds of attained service, strictly ascending: K limits make K + 1
  // queues. The Tiresias artifact's (SymbioticLab/Tiresias simulator, jobs.py, 3 queues).
  std::vector<int64_t> limits_device_s = {3250, 7200};
  // Starvation: a job that has run and has since waited this many times the time it ran (since
  // its last promotion) goes back to the first queue, its attained service counted from 0
  // again (the artifact's solve_starvation in dlas_sim_jobs). 0: never (its dlas-gpu).
  double promote_knob = 0;
  // Priority before attained service, in the order and in preemption: a job runs and preempts
  // as its priority says, and attained service decides only among equal priorities. headroom's
  // own; Tiresias reads no priority.
  bool priority_first = false;
};

// How the multifactor order turns decayed usage into a tenant's fair-share factor, over the
// tree of queues (fair_share_tree.h).
enum class FairShareAlgorithm {
  kClassic,   // 2^(−UE/S) with effective usage (Slurm's PriorityFlags=NO_FAIR_TREE).
  kFairTree,  // Rank by Level Fairshare, depth first (Slurm's default since 19.05).
};

struct MultifactorWeights {
  // Slurm priority/multifactor (https://slurm.schedmd.com/priority_multifactor.html):
  // priority = w_age·age + w_fairshare·fairshare + w_job_size·size + w_qos·qos.
  double age = 0;
  double fairshare = 0;
  double job_size = 0;
  double qos = 0;
  TimeUs max_age_us = 7 * 24 * 3600 * kUsPerSecond;          // PriorityMaxAge (7-0).
  TimeUs decay_half_life_us = 7 * 24 * 3600 * kUsPerSecond;  // PriorityDecayHalfLife (7-0).
  TimeUs recalc_period_us = 5 * 60 * kUsPerSecond;           // PriorityCalcPeriod (5 min).
  // Raw fair-share shares by tenant (sacctmgr's Fairshare=); a tenant not named has 1. A
  // tenant's normalized share S is its raw share over the sum of every known tenant's.
  std::map<std::string, double> tenant_shares;
  FairShareAlgorithm fairshare_algorithm = FairShareAlgorithm::kClassic;
};

struct NamedWeight {
  std::string name;
  double weight = 1;
};

// Defragmentation by migration (defrag.h): when the first blocked job waits only because free
// devices are scattered, move a few running jobs so that it fits, if the move pays.
struct MigrationConfig {
  bool enabled = false;
  // A moved job checkpoints, then restarts on its new devices; it holds them meanwhile.
  // 60 s: an assumption rounding up BLOOM-176B's 2.3 TB in 40 s (PHYSICS.md §4.6); async
  // checkpointing is faster (6.3 s), a plain torch.save of a large model far slower.
  TimeUs checkpoint_us = 60 * kUsPerSecond;
  // 10 min: the default job restart u0 (5-20 min, Meta RSC; PHYSICS.md §5.5).
  TimeUs restart_us = 600 * kUsPerSecond;
  // Migration cost (device-seconds of checkpoint + restart) allowed in any rolling hour.
  int64_t budget_device_s_per_hour = 8 * 3600;
  // The wait a migration avoids when no EASY reservation says when the job would start.
  TimeUs horizon_us = 3600 * kUsPerSecond;
  // Work budget of one plan search: placements tried (the blocked job's and the moved jobs').
  uint32_t max_placements = 64;
  // Jobs one plan may move.
  uint32_t max_moves = 4;
};

// Preemption (preemption.h): a blocked job takes devices back from running jobs of strictly
// lower priority (job.priority, the PriorityClass or QoS a user asks for, not the queue's
// computed order), which are requeued to restart from their last checkpoint. Strictly lower
// priority means no two jobs can preempt each other: there is no preemption loop.
enum class PreemptionScope { kQueue, kCluster };

struct PreemptionConfig {
  bool enabled = false;
  // A job runs at least this long before it may be preempted (the first guard against
  // thrash: a requeued job that restarts gets this much work done before it can lose it).
  TimeUs min_run_us = 0;
  // The checkpoint interval of a job that declares none (model::Job::checkpoint_interval_us).
  // 1 h: Meta RSC's (PHYSICS.md §5.5). 0: such jobs save nothing; all their work is lost.
  TimeUs checkpoint_interval_us = 3600 * kUsPerSecond;
  // The pause a requeued job takes when it starts again before working (reload, warm-up):
  // 10 min, the default job restart u0 (5-20 min, Meta RSC; PHYSICS.md §5.5).
  TimeUs restart_us = 600 * kUsPerSecond;
  // Work budget of one victim search: placements of the blocked job tried.
  uint32_t max_placements = 64;
  // Jobs one search may preempt.
  uint32_t max_victims = 64;
  // Blocked jobs per pass that may search, in queue order (with skip backfill, any blocked job,
  // as each pending pod may preempt in Kubernetes; with EASY, the first blocked one and the
  // jobs its quota holds). A job spends one when it scans the running jobs for candidates or
  // plans; jobs alike share a scan and a fruitless answer (engine_preempt.cc).
  uint32_t max_searches_per_pass = 8;
  // Guards against thrash beside the minimum run time. The changeover budget: device-seconds of
  // work lost to preemption (lost work + restart, × devices) that any rolling hour may hold;
  // 0: no limit. The per-job budget: a job preempted this many times is never a victim again,
  // and its priority rises: pending, it goes ahead of every job not preempted as often, in
  // the order's order among its likes (it paid for the floor's changes in lost work once too
  // often to also queue behind newcomers); 0: no limit.
  int64_t changeover_budget_device_s_per_hour = 0;
  uint32_t max_preemptions_per_job = 0;
  // Whom priority may preempt when queues are set (quota.h). kQueue: only the preemptor's own
  // queue's work, and a job within its guarantee reclaims what other branches borrow (Kueue's
  // withinClusterQueue: LowerPriority, reclaimWithinCohort: Any). kCluster: lower-priority work
  // of any queue, and nothing is reclaimed (Kubernetes' default, which knows no queues).
  PreemptionScope scope = PreemptionScope::kQueue;
  // Hysteresis for reclaims: a job within its guarantee takes back what other queues borrow
  // only once it has waited this long since it was submitted or requeued, so that borrowed
  // work ending by itself in that time is not preempted (as YARN's preemption waits
  // max_wait_before_kill for containers to finish). Priority inside a queue does not wait.
  // Keep it under the borrowers' min_run_us for reclaims to stay that prompt. 0: at once.
  TimeUs reclaim_after_us = 0;
  // Hysteresis for preemption by rank (priority, or service under las): a blocked job preempts
  // only once it has waited this long since it was submitted or requeued, so that running work
  // ending by itself in that time frees its devices without a preemption. 0: at once.
  TimeUs preempt_after_us = 0;
  // Bounded starvation for victims: a requeued job that has waited this long since its requeue
  // goes ahead of every job that has not (as one past its per-job budget), so that a job
  // preempted for newcomers does not also queue behind every newcomer after them (under las, a
  // victim drops to the last service queue, behind a stream of fresh arrivals). It preempts by
  // its rank as before: only the order changes. 0: never.
  TimeUs raise_requeued_after_us = 0;
  // Checkpoint-aligned preemption by service (las): a job outranked only by attained service
  // (the blocked job has its priority) is a candidate only while its work since its last
  // checkpoint is at most this, so that the floor's turnover costs restarts rather than hours
  // of work; the blocked job looks again at the candidates' next checkpoints. Preemption by
  // priority (an inference replica's, a higher class's) is urgent and takes any victim. 0: any.
  TimeUs service_max_lost_us = 0;
  // The turnover budget (las): device-seconds of work that preemptions by attained service
  // alone (PreemptReason::kLessService) may lose in any rolling hour; 0: no limit. On a floor
  // whose queue never empties, least-attained-service turnover restarts jobs for newcomers
  // without end; this bounds what it costs, while preemption by priority (an inference
  // replica's) and reclaims do not spend it. Those still count against the changeover budget.
  int64_t service_budget_device_s_per_hour = 0;
};

// Elastic jobs while they run (model/job.h; every policy starts one at the widest width that
// fits). Shrink: a blocked job that may preempt (preemption.h) first takes tasks from elastic
// candidates, in victim order, down to their narrowest widths, as ElasticFlow and Pollux do;
// a shrunk job checkpoints and goes on with fewer tasks after a restart pause instead of
// being requeued, and only when no shrinking lets the job start is anything requeued. Grow:
// when a pass leaves nothing pending that could ever run, a running elastic job below its full
// width takes idle capacity back, when the time its remaining work saves exceeds the pause.
// Both pauses are PreemptionConfig::restart_us and are charged to the changeover budget; a job
// resizes at most once per preemption.min_run_us. Resizes are MigrateJob decisions whose tasks
// change in number (decision.h).
struct ElasticConfig {
  bool shrink = false;
  bool grow = false;
};

// Power caps as decisions (engine_power_caps.cc, decision.h CapJob). With `caps` on, the engine
// keeps every power domain and cooling zone within its allowance (its limit less
// placement.facility_margin) when a limit drops: it caps running work down the cap ladder
// (FacilityLedger::kRungMilli), lowest priority first and a service's replicas last, and requeues
// work only where the lowest caps are not enough; it lifts caps, highest priority first, as room
// returns; and a job the budgets hold back starts now under the highest cap that fits, if that
// cap leaves it at least `min_start_speed` of its uncapped throughput (rather than waiting for
// room at full power). Requires the `facility` filter, whose projection the caps keep to.
// `static_cap` (issue 15's `static-cap` baseline) is the other way to fit a building's power: one
// cap, a rung of the ladder as a share of the TDP, on every whole device every job starts on, as
// an operator sets `nvidia-smi -pl` fleet-wide; 0: none. Not with `caps`.
struct PowerCapConfig {
  bool caps = false;
  double min_start_speed = 0.8;  // 1: never starts capped.
  double static_cap = 0;
};

// Recovery from faults (event.h JobInterrupted: a node or device failed under a running job).
// The job always returns to the queue under its id and resumes from its last checkpoint.
// `expedite`: it goes ahead of every job that was not interrupted, as Slurm 25.11's expedited
// requeue treats it as the highest-priority job in the system (slurm.schedmd.com/news.html).
// `hold_after` (0: never) holds a job that keeps failing instead of letting it burn the floor,
// as Slurm's MaxBatchRequeue puts a job requeued too often in JobHeldAdmin: once faults have
// interrupted it on at least `hold_after` different nodes within `hold_window_us`, and its
// node-time in that window at the floor's fault rate per node-day (what the engine has seen
// its other jobs meet, `node_faults_per_day` the prior) makes so many less likely than one in a
// million (so a job of the building's size, which meets faults every few hours, is not held
// for its size). A held job stays pending, out of every pass, until JobHeld{id, false}
// releases it (event.h).
struct RecoveryConfig {
  bool expedite = false;
  // Slurm 25.11's expedited requeue also keeps the interrupted job's other nodes from launching
  // other work until it starts again (engine_kept_nodes.cc).
  bool keep_nodes = false;
  uint32_t hold_after = 0;
  TimeUs hold_window_us = 24 * 3600 * kUsPerSecond;
  double node_faults_per_day = 3.8e-3;  // Llama 3's, all unexpected (PHYSICS.md §5.5).
  // Each start of a job that declares its checkpoint cost δ is told how often to checkpoint:
  // Young's interval √(2 δ M), M the job's mean time between faults on its nodes at the
  // floor's fault rate (engine_checkpoint.cc).
  bool direct_checkpoints = false;
  // Hot spares (engine_spares.cc): in every domain at the level named `spare_level` (empty: the
  // deepest, whose domains hold nodes), `spare_nodes` idle nodes are kept out of new work for
  // the jobs faults requeue, so that a large job comes back at once within its fabric block
  // instead of waiting for its node's repair or for other work to end. A freed node becomes a
  // spare before the queue sees it; a requeued job takes spares only where it fits no other way.
  uint32_t spare_nodes = 0;
  std::string spare_level;
  // Evacuation (engine_evacuate.cc): a running job on a device health withdrew from work (one
  // whose telemetry shows warning signs, or sent to diagnostics or repair while in use) moves
  // off it when a placement fits now, checkpointing and restarting elsewhere
  // (MigrationConfig's checkpoint + restart pause), instead of running on until a fault there
  // ends it and loses its work since its last checkpoint; only where that work (half its
  // checkpoint interval) exceeds twice the checkpoint plus the restart, so that a move pays for
  // a warning right half the time. Live, suspect devices are then
  // withdrawn too (control/live_loop_health.cc), so the move frees them for diagnostics.
  bool evacuate = false;
};

// The level `recovery.spare_level` names in `cluster` (the deepest when it names none); an
// error naming the cluster's levels when it has no such level.
Result<uint32_t> SpareLevel(const RecoveryConfig& recovery, const model::Cluster& cluster);

// Readiness checks before work is admitted (DCGM's `dcgmi diag -r 1`, "seconds", run before a
// job; PHYSICS.md §4.3): a job starting on a node not verified within `verified_for_us` waits
// `check_us` while the node is checked, and a node that fails goes out of service before the
// job works there. The simulator models them (sim/health_driver.h); live, the agent's
// readiness command keeps a failing node from new work. 0 s: no checks.
// A job on more than one node is also checked across its nodes at every start, for
// `gang_check_us` after the node checks: a communication check (an NCCL all-reduce, as NVIDIA's
// NVSentinel preflight runs one) exercises the links between nodes that a node's own check
// does not (DCGM's level 1 tests no network). 0 s: none.
// Under recovery.evacuate, a node whose telemetry shows warning signs is diagnosed once its
// work has moved off (DCGM's level 3, "approximately 15 minutes", PHYSICS.md §4.3) for
// `diagnostics_us`, which find a fault already there with the checks' probability; the
// simulator models them, live the agent runs its diagnostics command. 0 s: none, the node stays
// out of work until its fault shows or its warning clears.
struct ReadinessConfig {
  TimeUs check_us = 0;
  TimeUs verified_for_us = 3600 * kUsPerSecond;
  TimeUs gang_check_us = 0;
  TimeUs diagnostics_us = 0;
};

// How services' replicas are autoscaled (autoscaler.h): Kubernetes' HPA, and with `forecast`
// its rate also projected one replica start-up (and one sync) ahead along its recent trend,
// so that a rising burst finds its replicas already loaded. `fixed_at_peak` is the common
// practice instead: no autoscaling, each service runs the replicas its peak needs throughout
// (a static inference partition; training has what is left).
struct AutoscalingConfig {
  bool forecast = false;
  bool fixed_at_peak = false;
};

// One-task jobs placed by GPU-sharing scoring (share_placer.h; FGD's evaluation's policies and
// headroom's own, share_scorers.h) instead of the node scorers: one node, the GPUs inside it,
// scored for how well the cluster can still take what the workload asks for. The workload it
// plans for (the "typical shapes", frag.h) is that of the one-task jobs the engine was given,
// learned again whenever their number doubles (engine_share.cc).
struct SharePlacementConfig {
  std::string scorer;  // Empty: off. Else a SharePolicy name: "headroom", "fgd", "bestfit", ...
  // Which one-task jobs: those asking for part of a device (false), or every one, whole devices
  // and CPU-only too (true), as a Kubernetes scheduler with one score plugin places pods.
  bool every_single_task = false;
  // The typical shapes cover this share of the one-task jobs (0.95 in FGD's runs).
  double typical_coverage = 0.95;
};

struct PolicyConfig {
  std::string name;
  std::string description;

  // Queue order by name (queue_order.h): "fifo", "priority", "multifactor", "qssf", "las".
  std::string queue_order = "fifo";
  MultifactorWeights multifactor;
  ServiceOrderConfig service;
  AttainedServiceConfig las;

  BackfillMode backfill = BackfillMode::kNone;
  // Backfill runs at most this often (Slurm bf_interval); 0 = on every step.
  TimeUs backfill_interval_us = 0;
  // kEasy: the first blocked job gets its reservation only once it has waited this long; until
  // then nothing is held for it and the jobs behind it start wherever they fit (as kSkip).
  // 0: at once (EASY as published).
  TimeUs reserve_after_us = 0;
  // Jobs looked at per backfill pass (Slurm bf_max_job_test); 0 = all.
  uint32_t backfill_max_jobs = 0;
  // Jobs looked at per step by the main pass before the first blocked one (Slurm
  // default_queue_depth); 0 = all.
  uint32_t main_queue_depth = 0;

  // Filters by name (filter.h) beside the mandatory ones, which run whether listed or not.
  std::vector<std::string> filters;
  // The share of each power domain's limit and cooling zone's capacity the facility filter keeps
  // free: room for what the projection misses (a gang's synchronous swing above its mean, work
  // drawing more than modelled) before the meter or a breaker sees it.
  double facility_margin = 0.05;

  GangPlacement gang_placement = GangPlacement::kTopologyBlock;
  FitOrder domain_order = FitOrder::kBestFit;
  // Node scorers by name with weights (scorer.h): the best-scoring node wins, ties by id.
  std::vector<NamedWeight> node_scorers = {{"best_fit", 1}};
  // Candidate domains tried per topology level before moving up a level (work budget,
  // counts domains, not time).
  uint32_t domains_tried_per_level = 8;
  SharePlacementConfig share;

  // Which running work is taken back first (victim_selector.h): defragmentation's release
  // order and preemption's victims.
  std::string victim_selector = "cheapest_move";
  MigrationConfig migration;
  PreemptionConfig preemption;
  ElasticConfig elastic;
  PowerCapConfig power;
  AutoscalingConfig autoscaling;
  RecoveryConfig recovery;
  ReadinessConfig readiness;

  // Queues with quotas (quota.h); empty: none, every start is the placer's alone to decide.
  // With queues, preemption also reclaims: a job within its queue's guarantee may take back
  // what queues outside its branch borrow, whatever their jobs' priority.
  std::vector<QueueConfig> queues;
};

Result<PolicyConfig> ValidatePolicy(PolicyConfig config);

}  // namespace headroom::engine
