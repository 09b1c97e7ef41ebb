#include "engine/fair_share_tree.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include "base/check.h"

namespace headroom::engine {
namespace {

// S / U: 0 with no share, +∞ with no usage.
double LevelFairshare(double s, double u) {
  if (s == 0) return 0;
  return u == 0 ? std::numeric_limits<double>::infinity() : s / u;
}

// Equal Level Fairshare, allowing for the rounding of S / U (0.6 / 0.75 and 0.2 / 0.25 differ
// in the last bit); infinities equal each other only.
bool SameLevel(double a, double b) {
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace

FairShareTree::FairShareTree(std::vector<uint32_t> parents, std::vector<double> shares)
    : parents_(std::move(parents)),
      shares_(std::move(shares)),
      child_queues_(parents_.size()),
      tenants_at_(parents_.size()) {
  HR_CHECK(!parents_.empty() && shares_.size() == parents_.size());
  for (uint32_t q = 1; q < parents_.size(); ++q) {
    HR_CHECK(parents_[q] < q && shares_[q] >= 0);
    child_queues_[parents_[q]].push_back(q);
  }
}

void FairShareTree::Grow(size_t count) {
  for (auto t = static_cast<uint32_t>(queue_of_tenant_.size()); t < count; ++t) {
    queue_of_tenant_.push_back(0);
    tenants_at_[0].push_back(t);
  }
}

void FairShareTree::Place(TenantId tenant, uint32_t queue) {
  HR_CHECK(queue < parents_.size());
  Grow(tenant.value() + size_t{1});
  // A tenant is placed as it appears, just after Grow put it last at the root: look from the end.
  std::vector<uint32_t>& from = tenants_at_[queue_of_tenant_[tenant.value()]];
  from.erase(std::prev(std::find(from.rbegin(), from.rend(), tenant.value()).base()));
  std::vector<uint32_t>& to = tenants_at_[queue];
  to.insert(std::lower_bound(to.begin(), to.end(), tenant.value()), tenant.value());
  queue_of_tenant_[tenant.value()] = queue;
}

std::vector<double> FairShareTree::ChildShares(std::span<const double> tenant_shares) const {
  std::vector<double> sums(parents_.size(), 0);
  for (uint32_t q = 1; q < parents_.size(); ++q) sums[parents_[q]] += shares_[q];
  for (size_t t = 0; t < queue_of_tenant_.size(); ++t)
    sums[queue_of_tenant_[t]] += tenant_shares[t];
  return sums;
}

std::vector<FairShareTree::Level> FairShareTree::Levels(
    std::span<const double> usage, std::span<const double> tenant_shares) const {
  HR_CHECK(usage.size() == queue_of_tenant_.size() && tenant_shares.size() == usage.size());
  std::vector<Level> levels(parents_.size());
  for (size_t t = 0; t < usage.size(); ++t) levels[queue_of_tenant_[t]].usage += usage[t];
  // Children come after their parents: one backward pass sums every subtree.
  for (size_t q = parents_.size() - 1; q >= 1; --q) levels[parents_[q]].usage += levels[q].usage;
  const std::vector<double> child_shares = ChildShares(tenant_shares);
  levels[0].usage_share = 1;
  levels[0].share = 1;
  levels[0].level_fs = std::numeric_limits<double>::infinity();
  for (uint32_t q = 0; q < parents_.size(); ++q) levels[q].children_share = child_shares[q];
  for (uint32_t q = 1; q < parents_.size(); ++q) {
    const Level& parent = levels[parents_[q]];
    Level& level = levels[q];
    level.usage_share = parent.usage > 0 ? level.usage / parent.usage : 0;
    level.share = parent.children_share > 0 ? shares_[q] / parent.children_share : 0;
    level.level_fs = LevelFairshare(level.share, level.usage_share);
  }
  return levels;
}

std::vector<double> FairShareTree::TenantShares(std::span<const double> tenant_shares) const {
  HR_CHECK(tenant_shares.size() == queue_of_tenant_.size());
  const std::vector<double> child_shares = ChildShares(tenant_shares);
  std::vector<double> out(tenant_shares.size(), 0);
  for (size_t t = 0; t < out.size(); ++t) {
    const double sum = child_shares[queue_of_tenant_[t]];
    out[t] = sum > 0 ? tenant_shares[t] / sum : 0;
  }
  return out;
}

// One depth-first ranking pass (fair_tree.c's _calc_tree_fs, as its documentation states it).
struct FairShareTree::Walk {
  const FairShareTree& tree;
  const std::vector<Level>& levels;
  std::span<const double> usage;
  std::span<const double> tenant_shares;
  std::vector<double>& factors;
  uint32_t rank;    // The rank the next tenant gets unless tied.
  uint32_t untied;  // The rank it would get with no ties so far.

  // The children of `nodes`, merged, each with its LF within its own parent.
  std::vector<Item> ChildrenOf(std::span<const Item> nodes) const {
    std::vector<Item> items;
    for (const Item& node : nodes) {
      const uint32_t q = node.index;
      for (uint32_t child : tree.child_queues_[q])
        items.push_back({false, child, levels[child].level_fs});
      const Level& level = levels[q];
      for (uint32_t t : tree.tenants_at_[q]) {
        const double s = level.children_share > 0 ? tenant_shares[t] / level.children_share : 0;
        const double u = level.usage > 0 ? usage[t] / level.usage : 0;
        items.push_back({true, t, LevelFairshare(s, u)});
      }
    }
    return items;
  }

  void Rank(std::vector<Item> items, bool parent_tied) {
    // Highest LF first; on a tie tenants before queues (Slurm's rule 3); else as listed.
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      if (a.level_fs != b.level_fs) return a.level_fs > b.level_fs;
      return a.tenant && !b.tenant;
    });
    for (size_t i = 0; i < items.size(); ++i) {
      const bool tied = i == 0 ? parent_tied : SameLevel(items[i].level_fs, items[i - 1].level_fs);
      if (items[i].tenant) {
        if (!tied) rank = untied;
        factors[items[i].index] = static_cast<double>(rank) / static_cast<double>(factors.size());
        --untied;
        continue;
      }
      size_t last = i;  // Sibling queues with the same LF are walked as one.
      while (last + 1 < items.size() && !items[last + 1].tenant &&
             SameLevel(items[last + 1].level_fs, items[i].level_fs)) {
        ++last;
      }
      Rank(ChildrenOf(std::span<const Item>(items).subspan(i, last - i + 1)), tied);
      i = last;
    }
  }
};

std::vector<double> FairShareTree::ClassicFactors(std::span<const double> usage,
                                                  std::span<const double> tenant_shares) const {
  const std::vector<Level> levels = Levels(usage, tenant_shares);
  std::vector<double> factors(usage.size(), 1.0);
  const double total = levels[0].usage;
  if (total <= 0) return factors;
  // Parents come before children: one forward pass gives every node its share of the whole
  // and its effective usage.
  std::vector<double> whole_share(parents_.size(), 1.0);
  std::vector<double> effective(parents_.size(), 0.0);
  for (uint32_t q = 1; q < parents_.size(); ++q) {
    const uint32_t parent = parents_[q];
    const double u = levels[q].usage / total;
    whole_share[q] = whole_share[parent] * levels[q].share;
    effective[q] = parent == 0 ? u : u + (effective[parent] - u) * levels[q].share;
  }
  for (size_t t = 0; t < factors.size(); ++t) {
    const uint32_t q = queue_of_tenant_[t];
    const double children_share = levels[q].children_share;
    const double level_share = children_share > 0 ? tenant_shares[t] / children_share : 0;
    const double u = usage[t] / total;
    const double ue = q == 0 ? u : u + (effective[q] - u) * level_share;
    const double s = whole_share[q] * level_share;
    factors[t] = s > 0 ? std::exp2(-ue / s) : 0;
  }
  return factors;
}

std::vector<double> FairShareTree::FairTreeFactors(std::span<const double> usage,
                                                   std::span<const double> tenant_shares) const {
  const std::vector<Level> levels = Levels(usage, tenant_shares);
  std::vector<double> factors(usage.size(), 1.0);
  if (factors.empty()) return factors;
  const auto count = static_cast<uint32_t>(factors.size());
  Walk walk{*this, levels, usage, tenant_shares, factors, count, count};
  const Item root{false, 0, levels[0].level_fs};
  walk.Rank(walk.ChildrenOf(std::span<const Item>(&root, 1)), false);
  return factors;
}

}  // namespace headroom::engine
