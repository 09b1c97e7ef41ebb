// Queues with quotas as configuration (quota.h is the engine's books): a tree of queues
// (organisation → team → project, any depth), each with a guaranteed amount per resource, an
// optional borrowing limit (how far above its guarantee it may use capacity others leave idle)
// and an optional lending limit (how much of its idle guarantee others may borrow), as Kueue's
// ClusterQueues in cohorts (nominalQuota, borrowingLimit, lendingLimit) and KAI's queues
// (deserved quota, limit) have them. Jobs reach a leaf queue by their tenant. Devices may also
// be counted by model ("H100"), as Kueue's ResourceFlavors and Slurm's typed GRES
// (GrpTRES=gres/gpu:h100=32) count them: a job then runs on devices of one model its queues
// admit (quota.h).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace headroom::engine {

enum class QuotaResource : uint8_t { kDevices, kCpu, kMemory };
inline constexpr size_t kFixedQuotaResources = 3;
// Device models with quotas of their own: at most this many in one set of queues (clusters
// carry a handful of accelerator generations; the books stay fixed-size arrays).
inline constexpr size_t kMaxQuotaDeviceModels = 8;
// Slots [0, 3) are the QuotaResources; slot 3 + m the devices of the queues' m-th device model
// (QuotaTree::device_model).
inline constexpr size_t kQuotaResources = kFixedQuotaResources + kMaxQuotaDeviceModels;
// Milli-devices, CPU millicores, memory MiB: the units jobs ask in.
using QuotaAmounts = std::array<int64_t, kQuotaResources>;
inline constexpr int64_t kNoQuotaLimit = -1;
inline constexpr QuotaAmounts kNoQuotaLimits = [] {
  QuotaAmounts limits{};
  limits.fill(kNoQuotaLimit);
  return limits;
}();

// The quota of one device model, in milli-devices (quota_config.h's limits for that model).
struct DeviceModelQuota {
  int64_t guaranteed = 0;
  int64_t borrowing_limit = kNoQuotaLimit;
  int64_t lending_limit = kNoQuotaLimit;
  friend bool operator==(const DeviceModelQuota&, const DeviceModelQuota&) = default;
};

std::string_view QuotaResourceName(QuotaResource resource);  // "devices", "cpu", "memory".
// "12.5 devices", "64 CPUs", "512 GiB of memory".
std::string QuotaAmountText(QuotaResource resource, int64_t amount);

struct QueueConfig {
  std::string name;
  std::string parent;                // Empty: a top-level queue.
  std::vector<std::string> tenants;  // A leaf's tenants; none listed: the tenant of its name.
  // What the queue may always use; a resource no queue states is not governed by quotas.
  // Only the fixed resources' slots; device models are in device_models.
  QuotaAmounts guaranteed = {};
  // Per resource, kNoQuotaLimit: none (borrow all that is idle; lend all of its idle guarantee).
  QuotaAmounts borrowing_limit = kNoQuotaLimits;
  QuotaAmounts lending_limit = kNoQuotaLimits;
  // Which fixed resources the queue's YAML stated (a guarantee or a limit): the governed ones.
  std::array<bool, kQuotaResources> stated = {};
  // By the cluster's device model name: a model stated anywhere is governed for every queue.
  std::map<std::string, DeviceModelQuota> device_models;
  // Raw fair-share share among its siblings (Slurm's Fairshare=): how the multifactor order's
  // fair share weighs the queue's usage (fair_share_tree.h). Unset: its guaranteed devices, as
  // KAI derives a queue's fair share from its deserved quota, or 1 with no device guarantee.
  std::optional<double> share;
};

// Names unique and printable, every parent listed before its children, tenants in one leaf
// only and never on a queue with children, limits and guarantees 0 or more, a lending limit at
// most the guarantee, children's guarantees summing to at most their parent's, and at most
// kMaxQuotaDeviceModels device models.
Result<void> ValidateQueues(const std::vector<QueueConfig>& queues);

}  // namespace headroom::engine
