// Engine: the scheduler as a function. Step(events, now) applies what happened, runs one
// scheduling pass under the configured policy and returns what to start. It reads no clock,
// does no I/O and holds no global state; the simulator and the daemon are its only callers,
// and a journal of their inputs replays it exactly.
//
// One pass (engine_pass.cc): order the queue (queue_order.h); walk it, starting every job that fits
// (placement.h) until the first that does not. What happens behind that blocked job is the backfill
// mode's: nothing (kNone), anything that fits (kSkip), or EASY — the blocked job gets a reservation
// at the earliest time enough running work will have ended (by the estimates), and later jobs start
// now only where they cannot delay it: they end before that time, or they avoid the reserved
// devices, CPU and memory.
//
// Defragmentation (defrag.h, engine_migrate.cc): when the policy enables migration and the
// first blocked job waits only for fragmentation, the pass may move a few running jobs
// (Decisions::migrations) so that it starts now; the migrations and its start leave in the
// same step's decisions, and everything after it in the queue is scheduled as usual.
//
// Preemption (preemption.h, engine_preempt.cc): when the policy enables it and a blocked job
// outranks running work (job priority), the pass may requeue lower-priority jobs
// (Decisions::preemptions) so that it starts now; they are pending again at once, with the
// same ids.
//
// Share placement (share_placement.h): when the policy names a share scorer, the one-task jobs
// it takes are placed by GPU-sharing scoring instead of the node scorers; in every other
// respect (queue, backfill, reservations, filters) they are jobs like any other.
//
// Speed: a request shape that failed to place is not tried again until capacity is released;
// domain aggregates make the per-placement cost proportional to the domains examined.
//
// Invariants, checked by CheckInvariants: ClusterState's own; every running job's allocations
// are applied exactly once; a job is in exactly one state; pending jobs are in the queue once.
// Threading: single-threaded.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "base/ids.h"
#include "base/time.h"
#include "engine/carried_state.h"
#include "engine/cluster_state.h"
#include "engine/decision.h"
#include "engine/defrag.h"
#include "engine/event.h"
#include "engine/fair_share.h"
#include "engine/pending_reason.h"
#include "engine/placement.h"
#include "engine/policy_config.h"
#include "engine/preemption.h"
#include "engine/queue_order.h"
#include "engine/quota.h"
#include "engine/runtime_history.h"
#include "model/cluster.h"
#include "model/job_state.h"

namespace headroom::engine {

using model::JobState;

class SharePlacement;
struct ShareSetup;

class Engine {
 public:
  // `cluster` must outlive the engine; `policy` must have passed ValidatePolicy. `carried` is
  // what an earlier engine learned (carried_state.h); its times must not be after the first step.
  // `share_setup`: the workload share placement plans for, when the caller knows it (copied);
  // null: learned from the jobs.
  Engine(const model::Cluster& cluster, const PolicyConfig& policy,
         const CarriedState& carried = {}, const ShareSetup* share_setup = nullptr);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Events are consumed (moved from). `now` must not go backwards.
  Decisions Step(std::span<Event> events, TimeUs now);

  // Steps as Step does, but executes `decisions` — made by an engine in the same state, as the
  // daemon's engine log records its live engine's — instead of searching for its own:
  // O(events + decisions), no queue pass. Jobs, capacity and what the engine learns (Carried)
  // come out as after the step that made them; queue order and reservation are planned afresh
  // at the next Step. Empty when followed; else why a decision does not apply (a start of a job
  // not pending, a move of one not running, capacity not free), and no decision was applied
  // (the events were). For recovery (control/engine_replay.h).
  std::string Follow(std::span<Event> events, const Decisions& decisions, TimeUs now);

  // nullopt for a job never submitted.
  std::optional<JobState> state(JobId job) const;
  // Times the job was preempted, its model::Job::preemptions included; 0 for an unknown job.
  uint32_t preemptions(JobId job) const;
  // When a pending job last became pending (its submission or last requeue); 0 for a job that
  // is not pending.
  TimeUs pending_since_us(JobId job) const;
  // Device-µs the job ran since its submission or last promotion, before its current run (the
  // las order's attained service, model::Job::attained_device_us included); 0 when unknown.
  int64_t attained_device_us(JobId job) const;
  // The same with a running job's current run counted up to `now`: what it has had if it
  // stops at `now`.
  int64_t attained_device_us(JobId job, TimeUs now) const;
  // Why a held pending job is held (JobHeld, recovery.hold_after); empty for any other job.
  std::string_view hold_reason(JobId job) const;
  // The checkpoint interval the running job's start told it (StartJob::checkpoint_interval_us);
  // 0 for any other job.
  TimeUs told_checkpoint_interval_us(JobId job) const;
  // Whether a pending job goes ahead of the queue after a fault (recovery.expedite).
  bool expedited(JobId job) const;
  // Whether a pending job is pending since a fault interrupted it (whatever the policy): what a
  // successor engine is told as model::Job::expedited, so the job keeps its place and may still
  // take hot spares.
  bool requeued_by_fault(JobId job) const;
  // What a successor engine should start from, as of `now` (no earlier than the last step).
  CarriedState Carried(TimeUs now) const;
  // Why a pending job waits; empty reasons for a job that is not pending.
  PendingStatus Explain(JobId job, ExplainDetail detail = ExplainDetail::kBrief) const;
  // Why every pending job but those in `excluded` waits, as Explain would say (kBrief, or kNodes
  // with `with_nodes`), in groups (pending_reason.h): jobs of one request shape with the same
  // verdict from the last pass get the same reasons, so the shared part is worked out once per
  // group. O(pending) hash look-ups, the start plan, and per group one explanation (O(nodes)
  // with tallies): for a view readers use without asking the engine, and for metrics.
  PendingSnapshot SnapshotPending(std::span<const JobId> excluded, bool with_nodes) const;
  // Expected start of pending jobs by id, from a plan of the queue as it stands after the last
  // step (engine_start_plan.cc); a job it does not reach is absent.
  const std::unordered_map<uint32_t, TimeUs>& ExpectedStarts() const;
  const std::vector<TaskAllocation>* allocations(JobId job) const;

  // Hot spares (recovery.hot_spares): whether the node is one now, and how many are.
  bool spare(NodeId node) const { return !spare_node_.empty() && spare_node_[node.value()] != 0; }
  size_t spare_count() const { return spare_count_; }

  size_t pending_count() const { return queue_.size(); }
  size_t running_count() const { return running_by_end_.size(); }
  const ClusterState& cluster_state() const { return state_; }
  const PolicyConfig& policy() const { return policy_; }
  // Null when the policy names no share scorer (or the cluster does not suit one).
  const SharePlacement* share_placement() const { return share_.get(); }

  // When the engine wants to be stepped again even if nothing happens (a backfill interval, a
  // priority recalculation or a preemption candidate's minimum run time falls due while jobs
  // wait, or a pass preempted jobs: at once, so that they start again wherever they fit); kNever
  // when it does not.
  TimeUs NextWakeupUs() const;

  // Free milli-devices the first blocked job could not use on any node it cannot take a task
  // on (0 when nothing is blocked). O(nodes); for metrics sampling.
  uint64_t FragmentedMilli() const;

  // Every tenant's normalized share (with queues, within its queue), decayed usage and
  // fair-share factor (fair_share.h) as of the last step, by tenant name: for metrics.
  struct TenantFairShare {
    std::string tenant;
    double share = 1;
    double usage_device_s = 0;
    double factor = 1;
  };
  std::vector<TenantFairShare> TenantFairShares() const;
  // Each queue's fair-share level (fair_share_tree.h) as of the last step, in QuotaTree order
  // without the root; empty without queues. O(queues + tenants).
  struct QueueFairShare {
    std::string queue;
    double share = 1;            // S among its siblings.
    double usage_device_s = 0;   // Decayed usage of its tenants.
    double usage_share = 0;      // U: that usage over its parent's.
    double level_fairshare = 0;  // S / U, U over its parent's usage; +∞ with no usage.
  };
  std::vector<QueueFairShare> QueueFairShares() const;

  // The queues' books (empty without queues): usage by queue, for metrics and `headroom queues`.
  const QuotaTree& quotas() const { return quotas_; }

  // Empty when every invariant holds; else the first violation. O(cluster + jobs).
  std::string CheckInvariants() const;

 private:
  struct Shape;
  struct ShapeHash;
  struct JobRecord;

  void Apply(Event& event);
  void Submit(JobId id, model::Job job);
  void Restore(JobRestored& restored);
  void Finish(JobId id, JobState final_state);
  void Schedule(TimeUs now, Decisions& decisions);
  // A running job's new tasks taken, its books moved to them and its end pushed back by the
  // move's pause; its old tasks must have been released.
  void Relocate(const MigrateJob& move, TimeUs now);
  // Why Follow cannot execute `decisions` on the books as they stand; empty when it can.
  std::string CheckFollowed(const Decisions& decisions) const;
  void Reorder(TimeUs now);
  bool ReorderDue(TimeUs now) const;
  // Whether a requeued job has waited preemption.raise_requeued_after_us since its requeue, and
  // so goes ahead of the queue; AwaitRaise notes when a requeued pending job will have.
  bool RaisedAfterRequeue(const JobRecord& r, TimeUs now) const;
  void AwaitRaise(const JobRecord& r, JobId id);
  // When the next raise falls due (a pass is due then); kNever: none awaited.
  TimeUs NextRaiseUs() const { return raise_due_.empty() ? kNever : raise_due_.begin()->first; }
  bool BackfillDue(TimeUs now) const;
  // Starts `id` if it places (an elastic job at the widest width that does); a width whose
  // estimate ends after `free_until_us` (by default, every width) keeps out of `avoid`.
  bool TryStart(JobId id, TimeUs now, const ReservedCapacity* avoid, Decisions& decisions,
                TimeUs free_until_us = std::numeric_limits<TimeUs>::min());
  // Where the job places at its current width, avoiding `avoid`; failures are cached by shape.
  std::optional<std::vector<TaskAllocation>> PlaceAt(const JobRecord& r,
                                                     const ReservedCapacity* avoid);
  // Whether the policy's share placement takes the job (share_placement.h).
  bool SharePlaced(const JobRecord& record) const;
  // Tasks placed (sign +1) or gone (-1), for the share placement's books.
  // Keeps the share placement's and the spread groups' books of running tasks.
  void TrackTasks(const JobRecord& record, const std::vector<TaskAllocation>& tasks, int sign);
  uint32_t SpreadGroupOf(const std::string& name);
  // Allocates `tasks` (which must fit) and records the start.
  // `told_interval_us`: the checkpoint interval a followed start told its task; nullopt: the
  // one this engine directs (DirectedIntervalUs).
  void Launch(JobId id, std::vector<TaskAllocation> tasks, TimeUs now, Decisions& decisions,
              std::optional<TimeUs> told_interval_us = std::nullopt);
  // Starts the blocked job `id` by migrating running jobs, when a plan pays (engine_migrate.cc).
  bool StartByMigration(JobId id, TimeUs now, Decisions& decisions);
  // Starts the blocked job `id` by preempting lower-priority jobs, when a plan exists and
  // `searches_left` allows a search (engine_preempt.cc).
  bool StartByPreemption(JobId id, TimeUs now, uint32_t& searches_left, Decisions& decisions);
  // Starts the blocked job `id` by shrinking elastic `candidates` (a preemption search's, in
  // victim order) when that alone makes room (ElasticConfig::shrink; engine_elastic.cc).
  bool StartByShrinking(JobId id, const std::vector<PreemptionCandidate>& candidates, TimeUs now,
                        Decisions& decisions);
  // Gives running elastic jobs below their full width idle capacity back, when nothing that
  // could run waits (ElasticConfig::grow; engine_elastic.cc).
  void GrowElastic(TimeUs now, Decisions& decisions);
  // A running job onto `tasks` (elsewhere, or another width of an elastic job's range) after a
  // pause of `pause_us`, costing that pause on its devices at the new width; in the books and
  // among `decisions`' migrations. The caller charges any budget.
  void Move(JobId id, std::vector<TaskAllocation> tasks, TimeUs pause_us, TimeUs now,
            Decisions& decisions);
  // What preempting the running job `victim` for `preemptor` at `now` loses and costs.
  PreemptJob PreemptionOf(JobId victim, JobId preemptor, TimeUs now) const;
  // A running job stopped and pending again, its capacity free and what it loses charged to
  // the changeover budget at `now` (a preemption's effect, searched or followed).
  void Requeue(const PreemptJob& preemption, TimeUs now);
  // A running job whose attempt a fault on `node` ended, pending again (JobInterrupted), and
  // held where the policy's recovery.hold_after says it keeps failing (engine_hold.cc).
  void Interrupt(JobId id, NodeId node, TimeUs now);
  // The node set a fault's requeue keeps (engine_kept_nodes.cc): chosen from the running job's
  // tasks off the faulted node, withdrawn once they are released, returned when it starts,
  // ends or is held; a health withdrawal or return of a kept device takes it out of the set.
  void KeepNodes(JobId id, NodeId faulted);
  void WithdrawKept(const JobRecord& r);
  void ReturnKept(JobRecord& r);
  void ForgetKept(DeviceId device);
  // Hot spares (recovery.hot_spares, engine_spares.cc): idle nodes whose devices are withdrawn
  // and shown only to jobs a fault requeued. KeepSpares tops every spare domain up from its idle
  // nodes, after a step's events and before its pass (in Step and Follow alike, so a following
  // engine keeps the same spares); a spare a start takes, that is drained, or one of whose
  // devices health withdraws or returns, is a spare no more (ForgetSpare).
  void KeepSpares();
  void ForgetSpare(NodeId node);
  // Evacuation (recovery.evacuate, engine_evacuate.cc): running jobs on devices health withdrew
  // move off them where a placement fits now, before the pass starts anything.
  void Evacuate(TimeUs now, Decisions& decisions);
  // Whether nothing runs on the node, nothing of it is withdrawn or drained, and it has devices.
  bool Idle(NodeId node) const;
  // The place in Cluster::domains_at_level(spare_level_) of the node's spare domain.
  size_t SpareDomainIndex(NodeId node) const;
  // Every device of the node withdrawn (or returned) at once.
  void SetNodeWithdrawn(NodeId node, bool withdrawn);
  // Whether the pending job may take spares: a fault requeued it and it has not started since.
  bool SeesSpares(const JobRecord& r) const;
  // A pending job out of every pass until released, `reason` its pending message; and back.
  void Hold(JobId id, std::string reason);
  void Release(JobId id);
  // The hold recovery.hold_after calls for after the job's latest interruption; empty: none.
  std::string HoldAfterInterruption(const JobRecord& record, TimeUs now) const;
  // The distinct nodes a running job's tasks are on.
  static uint32_t DistinctNodes(const JobRecord& record);
  // Distinct nodes × time of a running job's current attempt up to `now` (node-µs).
  static double AttemptNodeUs(const JobRecord& record, TimeUs now);
  // Faults per node-day the floor's jobs but `excluded` (null: none) met (interruptions with a
  // node over node-time run, current attempts included), never below
  // recovery.node_faults_per_day: a floor that meets more faults than the policy assumed
  // raises the bar for a hold.
  double FaultsPerNodeDay(const JobRecord* excluded, TimeUs now) const;
  // Whether the engine keeps the node-time FaultsPerNodeDay weighs: only where a hold or a
  // directed checkpoint interval uses it.
  bool TracksExposure() const;
  // The checkpoint interval recovery.direct_checkpoints tells the job starting on `r.tasks` at
  // `now` (engine_checkpoint.cc), never longer than its own; 0: none (the policy does not
  // direct, or the job declares no checkpoint cost).
  TimeUs DirectedIntervalUs(const JobRecord& r, TimeUs now) const;
  // The interval the running job checkpoints at: the one directed at its start, else its own,
  // else the policy's default.
  TimeUs CheckpointIntervalUs(const JobRecord& r) const;
  // Takes a pending job out of queue_, arrivals_ or held_ (wherever it is), and gives back the
  // devices kept for it.
  void Unqueue(JobId id);
  // What a requeue and an interruption share: the job stopped, pending again at its full width,
  // not yet ordered.
  void ReturnToQueue(JobId id, TimeUs now);
  // A running job's capacity released and its running books closed (a finish or a requeue).
  void StopRunning(JobId id);
  // What a job counts against its queue's quota: devices (milli), CPU and memory of all tasks
  // (or of `tasks` of them), its devices also against its device model's slot.
  static QuotaAmounts DemandOf(const JobRecord& record);
  static QuotaAmounts DemandOf(const JobRecord& record, uint64_t tasks);
  // Device-model quotas (engine_model_quota.cc). A job whose selector matches devices of
  // models with quotas runs on one model option: the devices of one such model, or those of
  // models without quotas; ranked within its queues' guarantees first, then without quota,
  // then borrowing (Kueue's flavor assignment, which also tries flavors in turn).
  struct ModelOption {
    uint8_t slot;   // The model's quota slot; kQuotaResources: models without quotas.
    uint32_t mask;  // Its device classes (masks_).
  };
  void BuildModelOptions(uint32_t selector_mask);
  // Whether an empty cluster holds the job (at its narrowest width) on `option`'s devices.
  bool FitsOnOption(const JobRecord& record, const ModelOption& option) const;
  bool HasModelOptions(const JobRecord& record) const;
  // Its options that an empty cluster holds it on, ranked; only those its queues admit now
  // unless `all`.
  std::vector<ModelOption> RankedModelOptions(const JobRecord& record, bool all) const;
  static void UseModelOption(JobRecord& record, const ModelOption& option);
  // A pending job as it waits: on its first admitted option, else its first (reservations,
  // plans and pending reasons read it so).
  void UsePreferredModelOption(JobRecord& record) const;
  // A started or restored job: on the option of the devices it holds (none if they are of
  // several options: a job placed before the quotas came into force).
  void UseModelOfTasks(JobRecord& record) const;
  // Whether its queues admit it now (on some option); else the first option's refusal, with
  // the demand refused in `refused` when given.
  QuotaTree::Verdict QuotaVerdict(const JobRecord& record, QuotaAmounts* refused = nullptr) const;
  static uint64_t FruitlessKey(JobId id, uint32_t mask) {
    return uint64_t{id.value()} << 32 | mask;
  }
  // Its fruitless preemption searches forgotten, on every option (it started or finished).
  void ForgetFruitlessSearches(JobId id);
  // The preemption search of StartByPreemption on the job's current option.
  bool StartByPreemptionOnOption(JobId id, TimeUs now, uint32_t& searches_left,
                                 Decisions& decisions);
  // A job starting (+1) or stopping (-1) running: its queue's books and the running index by
  // queue and priority.
  void CountRunning(JobId id, int sign);
  // Whom a job may preempt: those of strictly lower rank. Its priority; under an order that
  // ranks by attained service (las), its service rank (attained_service.h ServiceRank).
  int64_t PreemptionRank(const JobRecord& record, TimeUs now) const;
  // Attained service at `now`: what it had when it last started, and its current run.
  int64_t AttainedDeviceUs(const JobRecord& record, TimeUs now) const;
  // Under las, once per time: the lowest service rank running in each leaf queue, and when
  // the next running job moves into a higher service queue.
  void SweepServiceQueues(TimeUs now);
  // Fills the preemption memo with the candidates of `record`'s searches: running jobs of lower
  // rank in scope (by_rank), and the work of queues that borrow (reclaims).
  void GatherCandidates(const JobRecord& record, int64_t rank, bool by_rank, bool reclaims,
                        TimeUs now);
  // With queues and PreemptionScope::kQueue: rank preempts only inside the job's own queue.
  bool PreemptsByQueue() const;
  // Why `victim` goes for `preemptor` (PreemptReason), from their priorities and queues.
  PreemptReason ReasonOf(const JobRecord& victim, const JobRecord& preemptor) const;
  // Under las with promotion: a pending job starved long enough goes back to the first queue.
  void PromoteIfStarved(JobRecord& record, TimeUs now) const;
  bool ComputeReservation(JobId head, TimeUs now);
  // Holds nothing for anyone.
  void DropReservation();
  PendingCode Analyze(const JobRecord& record) const;
  // A blocked job's code: Analyze's, or kFacility where only the building's budgets keep it
  // out (the element and kW over into the record), asked once per shape in a pass (`memo`).
  using BudgetBlocks = std::unordered_map<Shape, std::optional<NodeFilter::Overdraw>, ShapeHash>;
  void Diagnose(JobRecord& record, BudgetBlocks& memo);
  PlacementRequest RequestOf(const JobRecord& record) const;
  // Power caps (engine_power_caps.cc, policy_config.h PowerCapConfig).
  // Caps, then requeues, running work until every element is within its allowance.
  void KeepWithinLimits(TimeUs now, Decisions& decisions);
  // Lifts caps, highest priority first, as far as every element over the job takes.
  void LiftCaps(Decisions& decisions);
  // Starts `id`, held back by the budgets, under the highest cap that fits and leaves it at
  // least power.min_start_speed; false where none does.
  bool StartCapped(JobId id, TimeUs now, Decisions& decisions);
  // The running job's whole-device tasks moved to `rung` on the books; DecideCap tells it so.
  void Recap(JobId id, uint32_t rung);
  void DecideCap(JobId id, Decisions& decisions) const;
  // Its projected throughput at `rung`, a share of uncapped: its slowest device class's.
  double CapSpeed(const JobRecord& record, uint32_t rung) const;
  // The rung its tasks' caps are on (0: uncapped).
  uint32_t RungOfTasks(const std::vector<TaskAllocation>& tasks) const;
  // What Explain says of `record` that every job of its shape and verdict shares: reasons,
  // message, and with `with_nodes` the tallies (their sentence into `nodes_sentence`).
  PendingStatus ExplainShared(const JobRecord& record, bool with_nodes,
                              std::string& nodes_sentence) const;
  // Explain's node tallies for `record` into `status` (pending_reason.h).
  void TallyNodes(const JobRecord& record, PendingStatus& status) const;
  void ResolveLevels(JobRecord& record) const;
  uint32_t MaskFor(const model::Selector& selector);
  TenantId TenantOf(const std::string& name);
  bool NeverFits(const JobRecord& record) const;
  JobRecord& record(JobId id);
  const JobRecord* find(JobId id) const;

  const model::Cluster& cluster_;
  PolicyConfig policy_;
  std::unique_ptr<QueueOrder> order_;
  const AttainedServiceConfig* las_ = nullptr;  // The order's, when it ranks by attained service.
  Placer placer_;
  std::unique_ptr<SharePlacement> share_;
  ClusterState state_;
  FairShare fair_share_;
  QuotaTree quotas_;
  RuntimeHistory runtimes_;

  std::vector<JobRecord> jobs_;  // By JobId.
  std::vector<JobId> queue_;     // Pending, in order.
  std::vector<JobId> arrivals_;  // Submitted since the last pass.
  std::vector<JobId> held_;      // Pending, held (JobHeld), by hold.
  // For FaultsPerNodeDay: node-µs of the attempts that ended (kept only where TracksExposure,
  // so that no completion or requeue pays for it otherwise), and interruptions with a node.
  double stopped_exposure_node_us_ = 0;
  uint64_t node_interruptions_ = 0;
  // The floor's rate for directed checkpoints, computed once per step time and fault count (it
  // walks every running job).
  struct RateCache {
    TimeUs at_us = -1;
    uint64_t faults = 0;
    double faults_per_node_day = 0;
  };
  mutable RateCache rate_cache_;
  std::set<std::pair<TimeUs, uint32_t>> running_by_end_;  // (expected end, job id).

  std::vector<ClassMask> masks_;
  std::unordered_map<std::string, uint32_t> mask_by_selector_;
  std::unordered_map<std::string, uint32_t> tenant_ids_;
  std::unordered_map<std::string, uint32_t> spread_group_ids_;  // From 1.
  SpreadCounts spread_;
  int32_t max_priority_ = 0;

  // Devices withdrawn as degraded (DeviceWithdrawn): out of use but to jobs that accept them.
  std::set<uint32_t> degraded_;
  // Devices health withdrew outright (DeviceWithdrawn, not degraded), which work moves off
  // under recovery.evacuate. `evacuation_due_`: one was withdrawn since the last look, so every
  // running job is looked at; `evacuees_`: the jobs the last look left on one for want of room,
  // looked at again once capacity is released after `evacuation_epoch_`.
  std::set<uint32_t> health_withdrawn_;
  bool evacuation_due_ = false;
  std::vector<uint32_t> evacuees_;
  uint64_t evacuation_epoch_ = 0;
  // Devices kept for a job a fault requeued (JobRecord::kept_devices): device → job id.
  std::unordered_map<uint32_t, uint32_t> kept_by_device_;
  // Hot spares: the level whose domains keep them, the spares each such domain holds (by its
  // place in Cluster::domains_at_level), and per node whether it is one (all empty when the
  // policy keeps none).
  uint32_t spare_level_ = 0;
  std::vector<uint32_t> spares_in_domain_;
  std::vector<uint8_t> spare_node_;
  size_t spare_count_ = 0;
  // Per spare domain, its free milli when KeepSpares last left it: scanned again once it grows.
  std::vector<uint64_t> spare_scan_free_milli_;

  // Capacity released since construction; a cached placement failure is valid while unchanged.
  uint64_t release_epoch_ = 0;
  // Shape → (release epoch, reservation version) of its last failed placement.
  using FailureCache = std::unordered_map<Shape, std::pair<uint64_t, uint64_t>, ShapeHash>;
  std::unique_ptr<FailureCache> failed_shapes_;
  std::unique_ptr<FailureCache> failed_avoiding_;
  // By shape on a device-model option, at the narrowest width: whether an empty cluster holds
  // it there (NeverFits on the option's classes).
  std::unique_ptr<std::unordered_map<Shape, bool, ShapeHash>> fits_on_option_;
  // Preemption searches of one pass, while the floor stays as it is (same time, release epoch,
  // allocated capacity and changeover budget left): the candidates last gathered and for whom
  // (rank, leaf queue, kind of search), and the searches that found no plan, by shape and for
  // whom. Blocked jobs alike share them instead of each scanning every running job: with
  // `backfill: skip` every blocked job may search (engine_records.h).
  struct PreemptionMemo;
  std::unique_ptr<PreemptionMemo> preemption_memo_;
  bool dirty_ = true;  // Something changed that a pass could act on.
  // The last pass requeued preempted jobs, which it placed nowhere: the next pass is due at once.
  bool requeued_in_pass_ = false;
  TimeUs last_reorder_us_ = 0;
  TimeUs last_backfill_us_ = 0;
  bool reordered_once_ = false;
  bool backfilled_once_ = false;
  TimeUs last_now_us_ = 0;

  JobId blocked_head_;  // First job that could not start in the last pass.
  TimeUs reserved_start_us_ = kNever;
  ReservedCapacity reservation_;
  JobId reservation_head_;  // Whom reservation_ is for.
  uint64_t reservation_epoch_ = 0;
  uint64_t reservation_version_ = 0;
  bool reservation_stale_ = false;  // A main pass started work, or a drain changed, since.
  std::vector<uint32_t> reservation_scratch_;

  uint64_t steps_ = 0;
  // ExpectedStarts' plan, and the step it was made after (single-threaded: a cache).
  mutable std::unordered_map<uint32_t, TimeUs> start_plan_;
  mutable uint64_t start_plan_step_ = UINT64_MAX;

  Defragmenter defrag_;
  Preempter preempter_;
  // Running jobs by leaf queue (all under QuotaTree::kRoot without queues) as (priority, id),
  // in no order (a job's place is JobRecord::running_slot): a preemption search reads only the
  // queues it may take from, from contiguous memory, not the whole floor.
  std::vector<std::vector<std::pair<int32_t, uint32_t>>> running_by_queue_;
  // The same counted by priority (priority → jobs): the lowest priority running in a queue.
  std::vector<std::map<int32_t, uint32_t>> running_priorities_by_queue_;
  // When a job a search had to pass over for its minimum run time becomes a candidate, or the
  // changeover budget grows after a fruitless search: the next pass falls due then (kNever:
  // none).
  TimeUs preemption_wakeup_us_ = kNever;
  // Requeued pending jobs as (when they are raised, id): a pass falls due at the first. Entries
  // of jobs that started or ended meanwhile are dropped when they come due.
  std::set<std::pair<TimeUs, uint32_t>> raise_due_;
  // SweepServiceQueues' results and the time they are for.
  TimeUs service_sweep_us_ = -1;
  std::vector<int64_t> lowest_service_rank_by_queue_;
  TimeUs next_service_change_us_ = kNever;
  // (Job, model option's mask) → (release epoch, allocated milli, candidates, changeover and
  // turnover budgets left) of its last fruitless preemption search.
  std::unordered_map<uint64_t, std::tuple<uint64_t, uint64_t, size_t, int64_t, int64_t>>
      fruitless_preemptions_;
  // By selector mask: its device-model options (empty: none, it runs on its selector's).
  std::vector<std::vector<ModelOption>> model_options_;
  // Running elastic jobs below their full width (by id): those that may grow.
  std::set<uint32_t> narrowed_;
  // Running jobs under a cap (by id; entries of jobs since lifted or stopped are dropped when
  // met), and the release epoch at which LiftCaps last looked.
  std::set<uint32_t> capped_;
  // Elements where making room by capping others failed in this pass (StartCapped).
  std::set<uint32_t> cap_room_fruitless_;
  uint64_t lifted_at_epoch_ = UINT64_MAX;
  bool limits_lowered_ = false;  // Since the last step: KeepWithinLimits must look.
  // (head, release epoch, allocated milli) of the last migration search: one per state.
  std::tuple<uint32_t, uint64_t, uint64_t> last_migration_search_{UINT32_MAX, 0, 0};
};

}  // namespace headroom::engine
