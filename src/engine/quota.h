// QuotaTree: the engine's books for queues with quotas (quota_config.h): what each queue's
// running jobs use, and whether a job may start without taking a queue past what it may use.
//
// The tree's root is the cluster (its capacity is the pool top-level queues share). Tenants no
// queue lists go to an implicit top-level queue, "(unqueued)", guaranteed nothing. For each
// governed resource and each queue a on a job's path to the root, a start must keep:
//  1. usage(a) ≤ guaranteed(a) + borrowing_limit(a), when a has a borrowing limit;
//  2. in the pool of a's parent P: Σ over P's children c of max(usage(c), reserved(c)) within
//     P's capacity — the cluster for the root, guaranteed(P) + borrowing_limit(P) for a queue
//     with a borrowing limit (else no bound at that level) — or, if the pool is past it
//     already (guarantees may promise more than there is), not growing. reserved(c) =
//     guaranteed(c) − lending_limit(c) is the part of c's guarantee nobody else may borrow (0
//     with no limit).
// A job whose whole path stays within its guarantees may reclaim: take back, by preemption,
// capacity that queues outside its own branch borrow (Kueue's reclaimWithinCohort).
// Device models with quotas (quota_config.h) are resources of their own: a job on devices of
// such a model counts its devices against both "devices" and the model's slot.
// Promises: usage is exact (Add in and out balances); Admits is O(depth × siblings) worst
// case, O(depth) with the pools kept incrementally. Threading: single-threaded.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/quota_config.h"

namespace headroom::engine {

class QuotaTree {
 public:
  static constexpr uint32_t kRoot = 0;

  QuotaTree() = default;  // No queues: every start is admitted.
  // `queues` must have passed ValidateQueues; `capacity` is the cluster's, of the fixed
  // resources; `model_capacity(name)` gives the cluster's milli-devices of a device model.
  template <typename ModelCapacity>
  QuotaTree(std::span<const QueueConfig> queues, QuotaAmounts capacity,
            const ModelCapacity& model_capacity)
      : QuotaTree(queues, WithModels(queues, capacity, model_capacity)) {}
  QuotaTree(std::span<const QueueConfig> queues, const QuotaAmounts& capacity);

  bool empty() const { return nodes_.empty(); }
  // The leaf a tenant's jobs go to ("(unqueued)" for tenants no queue lists).
  uint32_t QueueOf(std::string_view tenant) const;

  struct Verdict {
    bool admitted = true;
    uint32_t queue = kRoot;  // The queue whose limit holds the job (the root: the cluster).
    size_t resource = 0;     // Its slot (quota_config.h).
    bool pool = false;       // Its parent's pool is full (else its own borrowing limit).
    int64_t in_use = 0;      // What counts against the limit now.
    int64_t limit = 0;
  };
  Verdict Admits(uint32_t queue, const QuotaAmounts& demand) const;
  // Whether `demand` added to `queue` keeps every queue on its path within its guarantee.
  bool WithinGuarantee(uint32_t queue, const QuotaAmounts& demand) const;
  // Whether the work in `queue` runs on capacity borrowed from `other`'s side: `queue` and
  // every queue above it up to the branch they do not share all use more than their guarantee
  // (in a branch within its guarantee, or in a queue within its own, nothing is borrowed) of a
  // fixed resource, or of a device model `wanted` asks for (other models' capacity is no use).
  bool Borrowing(uint32_t queue, uint32_t other, const QuotaAmounts& wanted = {}) const;
  // Running work added to (sign +1) or gone from (-1) a leaf.
  void Add(uint32_t queue, const QuotaAmounts& amount, int sign);
  // "queue 'team-a' uses 96 of its 96 devices (guaranteed 64 + borrowing limit 32)".
  std::string Describe(const Verdict& verdict, const QuotaAmounts& demand) const;

  size_t size() const { return nodes_.size(); }
  const std::string& name(uint32_t queue) const { return nodes_[queue].name; }
  uint32_t parent(uint32_t queue) const { return nodes_[queue].parent; }
  const QuotaAmounts& usage(uint32_t queue) const { return nodes_[queue].usage; }
  const QuotaAmounts& guaranteed(uint32_t queue) const { return nodes_[queue].guaranteed; }
  bool is_leaf(uint32_t queue) const { return nodes_[queue].children.empty(); }
  const QuotaAmounts& borrowing_limit(uint32_t queue) const {
    return nodes_[queue].borrowing_limit;
  }
  const QuotaAmounts& lending_limit(uint32_t queue) const { return nodes_[queue].lending_limit; }
  double share(uint32_t queue) const { return nodes_[queue].share; }
  // Whether quotas count `resource` (some queue states it).
  bool governs(QuotaResource resource) const { return governed_[static_cast<size_t>(resource)]; }
  bool governs_slot(size_t k) const { return governed_[k]; }
  // Device models with quotas, by slot − kFixedQuotaResources (sorted by name).
  const std::vector<std::string>& device_models() const { return device_models_; }
  // The slot of a device model's quota; kQuotaResources for a model without one.
  size_t DeviceModelSlot(std::string_view model) const;
  // "devices", "cpu", "memory", or a device model's name.
  std::string ResourceName(size_t k) const;
  // "12.5 devices", "64 CPUs", "512 GiB of memory", "8 H100 devices".
  std::string AmountText(size_t k, int64_t amount) const;
  // Queues [0, size) with the root first, each after its parent; "(unqueued)" last.
  // Empty when the books balance (pools equal their children's occupancy); else why not.
  std::string CheckBooks() const;

 private:
  struct Node {
    std::string name;
    uint32_t parent = kRoot;
    uint32_t depth = 0;
    QuotaAmounts guaranteed = {};
    QuotaAmounts borrowing_limit = kNoQuotaLimits;
    QuotaAmounts lending_limit = kNoQuotaLimits;
    QuotaAmounts reserved = {};  // guaranteed − lending limit.
    QuotaAmounts usage = {};
    QuotaAmounts pool = {};  // Σ children's max(usage, reserved).
    double share = 1;        // Raw fair-share share (quota_config.h).
    std::vector<uint32_t> children;
  };
  static int64_t Occupied(const Node& node, size_t k, int64_t usage) {
    return usage > node.reserved[k] ? usage : node.reserved[k];
  }
  // A node's capacity for its children's pool; kNoQuotaLimit: none at this level.
  int64_t PoolCapacity(const Node& node, size_t k) const;
  bool IsAncestorOrSelf(uint32_t ancestor, uint32_t queue) const;
  // The device models the queues name, sorted (ValidateQueues keeps them few enough).
  static std::vector<std::string> ModelsOf(std::span<const QueueConfig> queues);
  template <typename ModelCapacity>
  static QuotaAmounts WithModels(std::span<const QueueConfig> queues, QuotaAmounts capacity,
                                 const ModelCapacity& model_capacity) {
    const std::vector<std::string> models = ModelsOf(queues);
    for (size_t m = 0; m < models.size(); ++m) {
      capacity[kFixedQuotaResources + m] = model_capacity(models[m]);
    }
    return capacity;
  }

  std::vector<Node> nodes_;  // [0] is the root.
  std::array<bool, kQuotaResources> governed_ = {};
  std::vector<std::string> device_models_;
  std::unordered_map<std::string, uint32_t> leaf_by_tenant_;
  uint32_t unqueued_ = kRoot;
};

}  // namespace headroom::engine
