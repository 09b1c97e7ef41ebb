#include "control/admission.h"

#include "base/check.h"
#include "control/names.h"

namespace headroom::control {
namespace {

// ", and this submission adds 20" when one submission brings more than one job.
std::string Adding(uint64_t count) {
  return count == 1 ? std::string() : fmt::format(", and this submission adds {}", count);
}

}  // namespace

ApiResult<void> PendingAdmission::Reserve(const JobTable& jobs, const std::string& tenant,
                                          uint64_t count) {
  if (count == 0) return {};
  auto reserved = reserved_by_tenant_.find(tenant);
  const uint64_t tenant_pending =
      jobs.PendingOf(tenant) + (reserved == reserved_by_tenant_.end() ? 0 : reserved->second);
  if (tenant_pending + count > limits_.max_pending_per_tenant) {
    return Fail(429,
                "tenant {} has {} pending jobs{}, the limit is {} (--max-pending-per-tenant); wait "
                "for some to start or cancel some",
                QuoteExcerpt(tenant), tenant_pending, Adding(count),
                limits_.max_pending_per_tenant);
  }
  const uint64_t total_pending = jobs.CountIn(JobState::kPending) + reserved_total_;
  if (total_pending + count > limits_.max_pending) {
    return Fail(429,
                "headroomd has {} pending jobs of all tenants{}, the limit is {} (--max-pending); "
                "wait for some to start or cancel some",
                total_pending, Adding(count), limits_.max_pending);
  }
  reserved_by_tenant_[tenant] += count;
  reserved_total_ += count;
  return {};
}

void PendingAdmission::Release(const std::string& tenant, uint64_t count) {
  if (count == 0) return;
  auto it = reserved_by_tenant_.find(tenant);
  HR_CHECK(it != reserved_by_tenant_.end() && it->second >= count && reserved_total_ >= count);
  reserved_total_ -= count;
  it->second -= count;
  if (it->second == 0) reserved_by_tenant_.erase(it);
}

}  // namespace headroom::control
