// Queue-order role: who goes next, kept apart from what they get (the Mesos allocator's split).
// Each order maps a pending job to a key; smaller keys go first, ties by submit time, then id.
// The contract every order keeps (tests/engine/queue_order_contract_test.cc runs it over each
// registered one): keys are a pure function of the job, id and context; distinct ids give
// distinct keys (a strict total order); an order that is not time_dependent() gives the same
// key at every time and usage. The built-in orders, one file each under queue_orders/:
//
//  fifo         submit time (Slurm's builtin order; FIFO baselines).
//  priority     priority class descending, then submit time (kube-scheduler PrioritySort).
//  multifactor  Slurm priority/multifactor: w_age·age + w_fairshare·fairshare +
//               w_job_size·size + w_qos·qos, descending; factors in [0, 1]:
//                 age       = min(wait ÷ PriorityMaxAge, 1)
//                 fairshare = 2^(−U/S), U = tenant's decayed usage ÷ all usage, S = its share
//                             (multifactor.shares, 1 each by default), the classic formula;
//                             with queues, over their tree (fair_share_tree.h)
//                 size      = devices requested ÷ devices in the cluster (PriorityFavorSmall=NO)
//                 qos       = priority ÷ the highest priority seen (0 when none is positive)
//               (https://slurm.schedmd.com/priority_multifactor.html). Keys change with time, so
//               the engine recomputes them every PriorityCalcPeriod, as Slurm does.
//  qssf         Helios's quasi-shortest-service-first (Hu et al., SC'21 §5): predicted service
//               = devices × runtime predicted from the tenant's history (runtime_history.h),
//               ascending; a job waiting longer than the age limit goes first, oldest first.
//               Recomputed every PriorityCalcPeriod too (history grows, jobs age).
//  las          Tiresias's discretized 2D least-attained-service (Gu et al., NSDI'19 §3.2):
//               the queue of the job's attained service (device-time run, policy_config.h
//               AttainedServiceConfig), least served first, then submit time. The engine also
//               ranks running jobs by their queue for preemption (attained_service()), so a
//               job in a lower queue preempts those that have run into a higher one.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "base/time.h"
#include "engine/policy_config.h"
#include "engine/registry.h"
#include "model/job.h"

namespace headroom::engine {

struct QueueKey {
  double primary = 0;
  TimeUs submit_time_us = 0;
  uint32_t id = 0;
  // Set by the engine, never by an order: a job preempted as often as its budget allows
  // (PreemptionConfig::max_preemptions_per_job), or requeued and waiting since for
  // PreemptionConfig::raise_requeued_after_us, goes ahead of every job that is not.
  bool raised = false;
  friend bool operator<(const QueueKey& a, const QueueKey& b) {
    if (a.raised != b.raised) return a.raised;
    if (a.primary != b.primary) return a.primary < b.primary;
    if (a.submit_time_us != b.submit_time_us) return a.submit_time_us < b.submit_time_us;
    return a.id < b.id;
  }
};

// What an order may look at besides the job itself.
struct OrderContext {
  TimeUs now_us = 0;
  uint64_t cluster_devices = 1;
  int32_t max_priority = 0;
  // Fair-share factor of the job's tenant, in [0, 1] (fair_share.h).
  double fairshare = 1;
  // The job's runtime as its tenant's history predicts it (runtime_history.h); 0: no history.
  TimeUs predicted_runtime_us = 0;
  // Device-microseconds the job has run since its submission or last promotion (las).
  int64_t attained_device_us = 0;
};

class QueueOrder {
 public:
  virtual ~QueueOrder() = default;
  virtual std::string_view name() const = 0;
  virtual QueueKey Key(const model::Job& job, JobId id, const OrderContext& context) const = 0;
  // True when keys drift with time or usage and must be recomputed periodically.
  virtual bool time_dependent() const { return false; }
  // True when keys read OrderContext::predicted_runtime_us (left 0 for the others).
  virtual bool uses_predicted_runtime() const { return false; }
  // Non-null when keys rank by attained service (las): preemption then ranks every job by its
  // service queue in place of its priority (attained_service.h).
  virtual const AttainedServiceConfig* attained_service() const { return nullptr; }
};

// Every built-in order, by name; the factory reads its own parameters from the policy.
const Registry<QueueOrder, const PolicyConfig&>& QueueOrders();

inline Result<std::unique_ptr<QueueOrder>> MakeQueueOrder(std::string_view name,
                                                          const PolicyConfig& policy) {
  return QueueOrders().Make(name, policy);
}

}  // namespace headroom::engine
