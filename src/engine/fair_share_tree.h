// FairShareTree: fair-share factors over the queue tree, tenants as the users under their leaf
// queues (under the root when there are no queues), by either of Slurm's two algorithms.
//
// Classic (https://slurm.schedmd.com/classic_fair_share.html; PriorityFlags=NO_FAIR_TREE): a
// tenant's factor is 2^(−UE/S), S its share of the whole (the product of the shares over the
// siblings' down its path), UE its effective usage: for a node just below the root its share of
// all usage, below that UE = U + (UE_parent − U) · S_level, so a queue's usage weighs on every
// tenant in it. With no queues it is 2^(−U/S) over all tenants.
//
// Fair Tree (https://slurm.schedmd.com/fair_tree.html; Slurm's default): at every level each child
// has a Level Fairshare LF = S / U: S its raw share over the sum of its siblings', U its decayed
// usage over its parent's (∞ with no usage, 0 with no share). A depth-first walk from the root
// visits siblings by LF, highest first, and ranks the tenants in the order it meets them; a
// tenant's factor is its rank over the number of tenants, the first met getting 1. Ties as Slurm
// breaks them: sibling tenants with equal LF share a rank, sibling queues with equal LF are walked
// as one (their children merged), and a tenant tied with a sibling queue ranks with that queue's
// best tenant.
//
// Promises: under Fair Tree, when two sibling queues differ in LF, every tenant below the higher
// ranks above every tenant below the lower; factors lie in [0, 1] (Fair Tree's in (0, 1]);
// equal inputs give equal factors. O(queues + tenants) per call, times log for Fair Tree.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/ids.h"

namespace headroom::engine {

class FairShareTree {
 public:
  // The root alone: tenants directly below it.
  FairShareTree() : FairShareTree({0}, {1}) {}
  // Node 0 is the root; parents[q] (< q) is node q's parent for q ≥ 1 (parents[0] is ignored);
  // shares[q] ≥ 0 is node q's raw share among its siblings.
  FairShareTree(std::vector<uint32_t> parents, std::vector<double> shares);

  // Tenants [0, count) exist; new ones start below the root.
  void Grow(size_t count);
  // The tenant's usage counts in node `queue` and every node above it.
  void Place(TenantId tenant, uint32_t queue);
  size_t tenants() const { return queue_of_tenant_.size(); }

  // Factors by tenant id, from decayed usage and raw shares by tenant id (one entry for every
  // tenant).
  std::vector<double> ClassicFactors(std::span<const double> usage,
                                     std::span<const double> tenant_shares) const;
  std::vector<double> FairTreeFactors(std::span<const double> usage,
                                      std::span<const double> tenant_shares) const;

  struct Level {
    double usage = 0;           // Decayed usage of the node's tenants (the node and below).
    double usage_share = 0;     // U: its usage over its parent's (0 when the parent has none).
    double share = 0;           // S: raw share over the siblings' (tenants at the same node count).
    double level_fs = 0;        // Fair Tree's S / U; +∞ at no usage.
    double children_share = 0;  // Raw shares of its children, queues and tenants alike.
  };
  // Each node's level (the root's share is 1), by node.
  std::vector<Level> Levels(std::span<const double> usage,
                            std::span<const double> tenant_shares) const;
  // Each tenant's S within its queue.
  std::vector<double> TenantShares(std::span<const double> tenant_shares) const;

 private:
  struct Item {
    bool tenant = false;
    uint32_t index = 0;
    double level_fs = 0;
  };
  struct Walk;

  // Raw shares summed over each node's children, queues and tenants alike.
  std::vector<double> ChildShares(std::span<const double> tenant_shares) const;

  std::vector<uint32_t> parents_;
  std::vector<double> shares_;
  std::vector<std::vector<uint32_t>> child_queues_;
  std::vector<std::vector<uint32_t>> tenants_at_;  // By node, in tenant id order.
  std::vector<uint32_t> queue_of_tenant_;
};

}  // namespace headroom::engine
