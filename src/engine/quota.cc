#include "engine/quota.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "base/check.h"

namespace headroom::engine {

std::string_view QuotaResourceName(QuotaResource resource) {
  switch (resource) {
    case QuotaResource::kDevices:
      return "devices";
    case QuotaResource::kCpu:
      return "cpu";
    case QuotaResource::kMemory:
      return "memory";
  }
  return "?";
}

std::string QuotaAmountText(QuotaResource resource, int64_t amount) {
  switch (resource) {
    case QuotaResource::kDevices:
      return amount % 1000 == 0 ? fmt::format("{} devices", amount / 1000)
                                : fmt::format("{:.3f} devices", static_cast<double>(amount) / 1000);
    case QuotaResource::kCpu:
      return amount % 1000 == 0 ? fmt::format("{} CPUs", amount / 1000)
                                : fmt::format("{:.3f} CPUs", static_cast<double>(amount) / 1000);
    case QuotaResource::kMemory:
      return amount % 1024 == 0 ? fmt::format("{} GiB of memory", amount / 1024)
                                : fmt::format("{} MiB of memory", amount);
  }
  return "?";
}

namespace {

std::string DeviceText(int64_t milli) { return QuotaAmountText(QuotaResource::kDevices, milli); }

// Why a queue's amounts of one resource (`what`, shown by `text`) are invalid: below 0, or
// lending more than it is guaranteed; nullopt when they are valid.
template <typename Text>
std::optional<std::string> AmountsError(std::string_view what, int64_t guaranteed,
                                        int64_t borrowing_limit, int64_t lending_limit,
                                        const Text& text) {
  if (guaranteed < 0 || borrowing_limit < kNoQuotaLimit || lending_limit < kNoQuotaLimit) {
    return fmt::format("{}: expected amounts of 0 or more", what);
  }
  if (lending_limit > guaranteed) {
    return fmt::format("{}: a lending limit of {} is above the guarantee, {}", what,
                       text(lending_limit), text(guaranteed));
  }
  return std::nullopt;
}

}  // namespace

Result<void> ValidateQueues(const std::vector<QueueConfig>& queues) {
  auto invalid = [](const QueueConfig& queue, std::string message) {
    return tl::unexpected(
        Error{ErrorCode::kInvalidArgument, fmt::format("queue '{}': {}", queue.name, message)});
  };
  std::unordered_map<std::string, size_t> index;
  std::set<std::string> tenants;
  std::vector<QuotaAmounts> children_guaranteed(queues.size(), QuotaAmounts{});
  std::vector<std::map<std::string, int64_t>> children_model_guaranteed(queues.size());
  std::set<std::string> models;
  for (size_t i = 0; i < queues.size(); ++i) {
    const QueueConfig& queue = queues[i];
    if (queue.name.empty() || queue.name.front() == '(') {
      return invalid(queue, "expected a name that does not start with '('");
    }
    if (!index.emplace(queue.name, i).second) return invalid(queue, "named twice");
    if (!queue.parent.empty()) {
      auto parent = index.find(queue.parent);
      if (parent == index.end()) {
        return invalid(queue,
                       fmt::format("parent '{}' is not a queue listed before it", queue.parent));
      }
      if (!queues[parent->second].tenants.empty()) {
        return invalid(queue,
                       fmt::format("parent '{}' lists tenants; only leaves may", queue.parent));
      }
      for (size_t k = 0; k < kFixedQuotaResources; ++k) {
        children_guaranteed[parent->second][k] += queue.guaranteed[k];
      }
      for (const auto& [model, quota] : queue.device_models) {
        children_model_guaranteed[parent->second][model] += quota.guaranteed;
      }
    }
    if (queue.share && (!(*queue.share > 0) || !std::isfinite(*queue.share))) {
      return invalid(queue, "share: expected a number above 0");
    }
    for (const std::string& tenant : queue.tenants) {
      if (!tenants.insert(tenant).second) {
        return invalid(queue, fmt::format("tenant '{}' is in another queue too", tenant));
      }
    }
    for (const auto& [model, quota] : queue.device_models) {
      models.insert(model);
      if (models.size() > kMaxQuotaDeviceModels) {
        return invalid(queue, fmt::format("device model '{}': at most {} device models may have "
                                          "quotas, in all queues together",
                                          model, kMaxQuotaDeviceModels));
      }
      if (auto error = AmountsError(fmt::format("device model '{}'", model), quota.guaranteed,
                                    quota.borrowing_limit, quota.lending_limit, DeviceText)) {
        return invalid(queue, *error);
      }
    }
    for (size_t k = 0; k < kFixedQuotaResources; ++k) {
      const auto resource = static_cast<QuotaResource>(k);
      auto text = [resource](int64_t amount) { return QuotaAmountText(resource, amount); };
      if (auto error = AmountsError(QuotaResourceName(resource), queue.guaranteed[k],
                                    queue.borrowing_limit[k], queue.lending_limit[k], text)) {
        return invalid(queue, *error);
      }
    }
  }
  for (size_t i = 0; i < queues.size(); ++i) {
    for (const auto& [model, guaranteed] : children_model_guaranteed[i]) {
      auto own = queues[i].device_models.find(model);
      if (own != queues[i].device_models.end() && guaranteed > own->second.guaranteed) {
        return invalid(
            queues[i],
            fmt::format("device model '{}': its children are guaranteed {}, more "
                        "than its own {}",
                        model, DeviceText(guaranteed), DeviceText(own->second.guaranteed)));
      }
    }
    for (size_t k = 0; k < kFixedQuotaResources; ++k) {
      const auto resource = static_cast<QuotaResource>(k);
      if (queues[i].stated[k] && children_guaranteed[i][k] > queues[i].guaranteed[k]) {
        return invalid(queues[i],
                       fmt::format("{}: its children are guaranteed {}, more than its own {}",
                                   QuotaResourceName(resource),
                                   QuotaAmountText(resource, children_guaranteed[i][k]),
                                   QuotaAmountText(resource, queues[i].guaranteed[k])));
      }
    }
  }
  return {};
}

std::vector<std::string> QuotaTree::ModelsOf(std::span<const QueueConfig> queues) {
  std::set<std::string> models;
  for (const QueueConfig& queue : queues) {
    for (const auto& [model, unused_quota] : queue.device_models) models.insert(model);
  }
  HR_CHECK(models.size() <= kMaxQuotaDeviceModels);
  return {models.begin(), models.end()};
}

QuotaTree::QuotaTree(std::span<const QueueConfig> queues, const QuotaAmounts& capacity) {
  if (queues.empty()) return;
  device_models_ = ModelsOf(queues);
  Node root;
  root.name = "(cluster)";
  root.guaranteed = capacity;
  root.borrowing_limit = {};
  nodes_.push_back(root);
  std::unordered_map<std::string, uint32_t> by_name;
  for (const QueueConfig& queue : queues) {
    Node node;
    node.name = queue.name;
    if (!queue.parent.empty()) {
      auto parent = by_name.find(queue.parent);
      HR_CHECK(parent != by_name.end());
      node.parent = parent->second;
    }
    node.depth = nodes_[node.parent].depth + 1;
    for (size_t k = 0; k < kFixedQuotaResources; ++k) {
      node.guaranteed[k] = queue.guaranteed[k];
      node.borrowing_limit[k] = queue.borrowing_limit[k];
      node.lending_limit[k] = queue.lending_limit[k];
      governed_[k] = governed_[k] || queue.stated[k];
    }
    int64_t model_guaranteed = 0;
    for (const auto& [model, quota] : queue.device_models) {
      const size_t k = DeviceModelSlot(model);
      node.guaranteed[k] = quota.guaranteed;
      node.borrowing_limit[k] = quota.borrowing_limit;
      node.lending_limit[k] = quota.lending_limit;
      governed_[k] = true;
      model_guaranteed += quota.guaranteed;
    }
    // Its guaranteed devices, of any model or of its models, else 1 (quota_config.h).
    const int64_t devices = node.guaranteed[0] > 0 ? node.guaranteed[0] : model_guaranteed;
    node.share = queue.share.value_or(devices > 0 ? static_cast<double>(devices) / 1000.0 : 1.0);
    for (size_t k = 0; k < kQuotaResources; ++k) {
      node.reserved[k] =
          node.lending_limit[k] == kNoQuotaLimit ? 0 : node.guaranteed[k] - node.lending_limit[k];
    }
    const auto id = static_cast<uint32_t>(nodes_.size());
    by_name.emplace(queue.name, id);
    nodes_[node.parent].children.push_back(id);
    for (const std::string& tenant : queue.tenants) leaf_by_tenant_.emplace(tenant, id);
    nodes_.push_back(std::move(node));
  }
  // A leaf that lists no tenants takes the tenant of its name (unless a list names it).
  for (size_t i = 0; i < queues.size(); ++i) {
    if (queues[i].tenants.empty() && nodes_[i + 1].children.empty()) {
      leaf_by_tenant_.emplace(queues[i].name, static_cast<uint32_t>(i + 1));
    }
  }
  Node unqueued;
  unqueued.name = "(unqueued)";
  unqueued.depth = 1;
  unqueued_ = static_cast<uint32_t>(nodes_.size());
  nodes_[kRoot].children.push_back(unqueued_);
  nodes_.push_back(std::move(unqueued));
  for (Node& node : nodes_) {
    for (uint32_t child : node.children) {
      for (size_t k = 0; k < kQuotaResources; ++k) node.pool[k] += nodes_[child].reserved[k];
    }
  }
}

size_t QuotaTree::DeviceModelSlot(std::string_view model) const {
  auto it = std::lower_bound(device_models_.begin(), device_models_.end(), model);
  if (it == device_models_.end() || *it != model) return kQuotaResources;
  return kFixedQuotaResources + static_cast<size_t>(it - device_models_.begin());
}

std::string QuotaTree::ResourceName(size_t k) const {
  if (k < kFixedQuotaResources) {
    return std::string(QuotaResourceName(static_cast<QuotaResource>(k)));
  }
  return device_models_[k - kFixedQuotaResources];
}

std::string QuotaTree::AmountText(size_t k, int64_t amount) const {
  if (k < kFixedQuotaResources) return QuotaAmountText(static_cast<QuotaResource>(k), amount);
  const std::string& model = device_models_[k - kFixedQuotaResources];
  return amount % 1000 == 0
             ? fmt::format("{} {} devices", amount / 1000, model)
             : fmt::format("{:.3f} {} devices", static_cast<double>(amount) / 1000, model);
}

uint32_t QuotaTree::QueueOf(std::string_view tenant) const {
  if (empty()) return kRoot;
  auto it = leaf_by_tenant_.find(std::string(tenant));
  return it == leaf_by_tenant_.end() ? unqueued_ : it->second;
}

int64_t QuotaTree::PoolCapacity(const Node& node, size_t k) const {
  if (&node == &nodes_[kRoot]) return node.guaranteed[k];
  return node.borrowing_limit[k] == kNoQuotaLimit ? kNoQuotaLimit
                                                  : node.guaranteed[k] + node.borrowing_limit[k];
}

QuotaTree::Verdict QuotaTree::Admits(uint32_t queue, const QuotaAmounts& demand) const {
  Verdict verdict;
  if (empty()) return verdict;
  for (uint32_t a = queue; a != kRoot; a = nodes_[a].parent) {
    const Node& node = nodes_[a];
    const Node& parent = nodes_[node.parent];
    for (size_t k = 0; k < kQuotaResources; ++k) {
      if (!governed_[k] || demand[k] == 0) continue;
      const int64_t after = node.usage[k] + demand[k];
      if (node.borrowing_limit[k] != kNoQuotaLimit &&
          after > node.guaranteed[k] + node.borrowing_limit[k]) {
        return Verdict{
            false, a, k, false, node.usage[k], node.guaranteed[k] + node.borrowing_limit[k]};
      }
      const int64_t capacity = PoolCapacity(parent, k);
      if (capacity == kNoQuotaLimit) continue;
      const int64_t pool_after =
          parent.pool[k] - Occupied(node, k, node.usage[k]) + Occupied(node, k, after);
      // A start within the queue's own reserve holds no more of the pool than before, whatever
      // the pool holds (guarantees may promise more than the cluster has).
      if (pool_after > capacity && pool_after > parent.pool[k]) {
        return Verdict{false, node.parent, k, true, parent.pool[k], capacity};
      }
    }
  }
  return verdict;
}

bool QuotaTree::WithinGuarantee(uint32_t queue, const QuotaAmounts& demand) const {
  if (empty() || queue == unqueued_) return false;
  for (uint32_t a = queue; a != kRoot; a = nodes_[a].parent) {
    for (size_t k = 0; k < kQuotaResources; ++k) {
      if (governed_[k] && nodes_[a].usage[k] + demand[k] > nodes_[a].guaranteed[k]) return false;
    }
  }
  return true;
}

bool QuotaTree::IsAncestorOrSelf(uint32_t ancestor, uint32_t queue) const {
  for (uint32_t a = queue;; a = nodes_[a].parent) {
    if (a == ancestor) return true;
    if (a == kRoot) return false;
  }
}

bool QuotaTree::Borrowing(uint32_t queue, uint32_t other, const QuotaAmounts& wanted) const {
  if (empty() || IsAncestorOrSelf(queue, other)) return false;
  for (uint32_t a = queue; a != kRoot && !IsAncestorOrSelf(a, other); a = nodes_[a].parent) {
    bool over = false;
    for (size_t k = 0; k < kQuotaResources; ++k) {
      const bool counts = k < kFixedQuotaResources || wanted[k] > 0;
      over = over || (counts && governed_[k] && nodes_[a].usage[k] > nodes_[a].guaranteed[k]);
    }
    if (!over) return false;
  }
  return true;
}

void QuotaTree::Add(uint32_t queue, const QuotaAmounts& amount, int sign) {
  if (empty()) return;
  for (uint32_t a = queue;; a = nodes_[a].parent) {
    Node& node = nodes_[a];
    for (size_t k = 0; k < kQuotaResources; ++k) {
      const int64_t after = node.usage[k] + sign * amount[k];
      HR_CHECK(after >= 0);
      if (a != kRoot) {
        nodes_[node.parent].pool[k] += Occupied(node, k, after) - Occupied(node, k, node.usage[k]);
      }
      node.usage[k] = after;
    }
    if (a == kRoot) break;
  }
}

std::string QuotaTree::Describe(const Verdict& verdict, const QuotaAmounts& demand) const {
  if (verdict.admitted) return "";
  const Node& node = nodes_[verdict.queue];
  const size_t k = verdict.resource;
  const std::string asks = AmountText(k, demand[k]);
  if (!verdict.pool) {
    return fmt::format(
        "Queue '{}' uses {} of the {} it may (guaranteed {} + borrowing limit {}); the job "
        "asks for {} more.",
        node.name, AmountText(k, verdict.in_use), AmountText(k, verdict.limit),
        AmountText(k, node.guaranteed[k]), AmountText(k, node.borrowing_limit[k]), asks);
  }
  if (verdict.queue == kRoot) {
    return fmt::format(
        "The queues hold {} of the cluster's {} (in use, or guaranteed and not lent); the job "
        "asks for {} more.",
        AmountText(k, verdict.in_use), AmountText(k, verdict.limit), asks);
  }
  return fmt::format(
      "The queues under '{}' hold {} of the {} it may use (in use, or guaranteed and not lent); "
      "the job asks for {} more.",
      node.name, AmountText(k, verdict.in_use), AmountText(k, verdict.limit), asks);
}

std::string QuotaTree::CheckBooks() const {
  for (uint32_t a = 0; a < nodes_.size(); ++a) {
    const Node& node = nodes_[a];
    QuotaAmounts usage = {};
    QuotaAmounts pool = {};
    for (uint32_t child : node.children) {
      for (size_t k = 0; k < kQuotaResources; ++k) {
        usage[k] += nodes_[child].usage[k];
        pool[k] += Occupied(nodes_[child], k, nodes_[child].usage[k]);
      }
    }
    if (pool != node.pool || (!node.children.empty() && usage != node.usage)) {
      return fmt::format("queue '{}': usage or pool does not match its children's", node.name);
    }
  }
  return "";
}

}  // namespace headroom::engine
