// Queues with quotas as configuration (quota.h is the engine's books): a tree of queues
// (organisation → team → project, any depth), each with a guaranteed amount per resource, an
// optional borrowing limit (how far above its guarantee it may use capacity others leave idle)
// and an optional lending limit (how much of its idle guarantee others may borrow), as Kueue's
// ClusterQueues in cohorts (nominalQuota, borrowingLimit, lendingLimit) and KAI's queues
// (deserved quota, limit) have them. Jobs reach a leaf queue by their tenant.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace headroom::engine {

enum class QuotaResource : uint8_t { kDevices, kCpu, kMemory };
inline constexpr size_t kQuotaResources = 3;
// Milli-devices, CPU millicores, memory MiB: the units jobs ask in.
using QuotaAmounts = std::array<int64_t, kQuotaResources>;
inline constexpr int64_t kNoQuotaLimit = -1;

std::string_view QuotaResourceName(QuotaResource resource);  // "devices", "cpu", "memory".
// "12.5 devices", "64 CPUs", "512 GiB of memory".
std::string QuotaAmountText(QuotaResource resource, int64_t amount);

struct QueueConfig {
  std::string name;
  std::string parent;                // Empty: a top-level queue.
  std::vector<std::string> tenants;  // A leaf's tenants; none listed: the tenant of its name.
  // What the queue may always use; a resource no queue states is not governed by quotas.
  QuotaAmounts guaranteed = {0, 0, 0};
  // Per resource, kNoQuotaLimit: none (borrow all that is idle; lend all of its idle guarantee).
  QuotaAmounts borrowing_limit = {kNoQuotaLimit, kNoQuotaLimit, kNoQuotaLimit};
  QuotaAmounts lending_limit = {kNoQuotaLimit, kNoQuotaLimit, kNoQuotaLimit};
  // Which resources the queue's YAML stated (a guarantee or a limit): the governed ones.
  std::array<bool, kQuotaResources> stated = {false, false, false};
  // Raw fair-share share among its siblings (Slurm's Fairshare=): how the multifactor order's
  // fair share weighs the queue's usage (fair_share_tree.h). Unset: its guaranteed devices, as
  // KAI derives a queue's fair share from its deserved quota, or 1 with no device guarantee.
  std::optional<double> share;
};

// Names unique and printable, every parent listed before its children, tenants in one leaf
// only and never on a queue with children, limits and guarantees 0 or more, a lending limit at
// most the guarantee, and children's guarantees summing to at most their parent's.
Result<void> ValidateQueues(const std::vector<QueueConfig>& queues);

}  // namespace headroom::engine
