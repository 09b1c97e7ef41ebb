// PendingAdmission: how many pending jobs headroomd takes, per tenant and in total
// (docs/control.md "Admission limits"). POST /v1/jobs and service scale-ups are held to it;
// replicas that replace ended ones and requeued jobs are not, since they were admitted once.
//
// Promises:
//  1. Exact under concurrent submissions: a submission reserves its room under the state's lock
//     before its journal commit, so pending jobs in the table plus reservations never pass a
//     limit through admission. The reservation is released once the jobs are in the table, or
//     when the commit failed.
//  2. A refusal is a 429 (resource_exhausted) naming the limit and its flag.
// Threading: none of its own; DaemonState's `mu` guards it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "control/api_error.h"
#include "control/job_table.h"

namespace headroom::control {

// Why these defaults: docs/control.md "Admission limits".
struct AdmissionLimits {
  uint64_t max_pending_per_tenant = 10'000;
  uint64_t max_pending = 200'000;
};

class PendingAdmission {
 public:
  explicit PendingAdmission(AdmissionLimits limits = {}) : limits_(limits) {}

  const AdmissionLimits& limits() const { return limits_; }
  void set_limits(AdmissionLimits limits) { limits_ = limits; }

  // Reserves room for `count` more pending jobs of `tenant` when the pending jobs of `jobs` and
  // the reservations leave it under both limits; else a 429 saying which limit and what to do.
  ApiResult<void> Reserve(const JobTable& jobs, const std::string& tenant, uint64_t count);
  // Gives back what Reserve took, once the jobs are in the table (or will never be).
  void Release(const std::string& tenant, uint64_t count);

 private:
  AdmissionLimits limits_;
  std::unordered_map<std::string, uint64_t> reserved_by_tenant_;
  uint64_t reserved_total_ = 0;
};

}  // namespace headroom::control
