#include "control/records.h"

#include <array>
#include <string>

namespace headroom::control {
namespace {

constexpr std::array<std::string_view, 3> kRoleNames = {"admin", "user", "agent"};

}  // namespace

std::string_view RoleName(Role role) { return kRoleNames[static_cast<size_t>(role)]; }

std::optional<Role> RoleByName(std::string_view name) {
  for (size_t i = 0; i < kRoleNames.size(); ++i) {
    if (kRoleNames[i] == name) return static_cast<Role>(i);
  }
  return std::nullopt;
}

std::string SpecJson(const JobRecord& job) {
  return job.spec_json != nullptr ? *job.spec_json : JobSpecToJson(job.spec);
}

model::Job EngineJobOf(const JobRecord& job) {
  model::Job out = ToModelJob(job.spec, job.spec.tenant, job.submit_us);
  out.preemptions = job.preemptions;
  out.pending_since_us = job.requeued_us;
  out.attained_device_us = job.attained_device_us;
  out.hold_reason = job.hold_reason;
  out.expedited = job.expedited;
  // A service's replicas spread across racks (engine/placement.h).
  if (job.service_id != 0) out.spread_group = "service/" + std::to_string(job.service_id);
  out.serving = job.service_id != 0;
  return out;
}

JobRecord NewReplica(const ServiceRecord& service, uint64_t id, TimeUs submit_us) {
  JobRecord replica{
      .id = id, .service_id = service.id, .spec = service.spec, .submit_us = submit_us};
  replica.spec.kind = JobKind::kJob;
  replica.spec.replicas = 0;
  replica.spec.autoscaling.reset();  // The service's; a Job has none.
  replica.spec.tasks = 1;
  return replica;
}

JobProgress ProgressOf(const JobRecord& job) {
  return JobProgress{.id = job.id,
                     .state = job.state,
                     .start_us = job.start_us,
                     .end_us = job.end_us,
                     .placement = job.placement,
                     .exit_code = job.exit_code,
                     .requeues = job.requeues,
                     .starts = job.starts,
                     .message = job.message};
}

}  // namespace headroom::control
