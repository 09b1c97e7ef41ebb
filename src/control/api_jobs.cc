// Routes: jobs and tokens (docs/api.md "Jobs", "Authentication and roles").
#include <algorithm>
#include <memory>
#include <optional>
#include <tuple>

#include <fmt/ranges.h>

#include "control/api_routes.h"
#include "control/job_spec.h"
#include "control/names.h"
#include "model/job_topology.h"

namespace headroom::control {
namespace {

bool AcceptedSpecType(const std::string& content_type) {
  const std::string type = content_type.substr(0, content_type.find(';'));
  for (std::string_view accepted :
       {"", "application/json", "application/yaml", "application/x-yaml", "text/yaml",
        "text/x-yaml", "text/plain"}) {
    if (type == accepted) return true;
  }
  return false;
}

// The spec's topology levels against the cluster's, where the daemon has one: a level it lacks
// would leave the job pending for good. (Before any node is known, the engine explains it.)
ApiResult<void> CheckTopologyLevels(ApiContext& context, const JobSpec& spec) {
  if (spec.required_topology_level.empty() && spec.preferred_topology_level.empty()) return {};
  std::shared_ptr<const Topology> topology;
  {
    std::lock_guard lock(context.state.mu);
    topology = context.state.topology;
  }
  if (topology == nullptr || topology->cluster == nullptr) return {};
  const model::Cluster& cluster = *topology->cluster;
  std::optional<uint32_t> required;
  std::optional<uint32_t> preferred;
  for (const auto& [field, name, index] :
       {std::tuple{"required", &spec.required_topology_level, &required},
        std::tuple{"preferred", &spec.preferred_topology_level, &preferred}}) {
    if (name->empty()) continue;
    *index = model::LevelIndex(cluster, *name);
    if (!*index) {
      return Fail(400,
                  "field 'spec.topology.{}': expected one of this cluster's levels ({}), got {}",
                  field, fmt::join(cluster.level_names(), ", "), QuoteExcerpt(*name));
    }
  }
  if (required && preferred && *preferred < *required) {
    return Fail(400,
                "field 'spec.topology.preferred': expected a level at or below the required "
                "one ({}), got {}: the whole gang is inside one {} already",
                QuoteExcerpt(spec.required_topology_level),
                QuoteExcerpt(spec.preferred_topology_level), spec.required_topology_level);
  }
  return {};
}

ApiResult<Reply> Submit(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  if (!AcceptedSpecType(request.get_header_value("Content-Type"))) {
    return Fail(415, "Content-Type must be application/json or application/yaml, got {}",
                QuoteExcerpt(request.get_header_value("Content-Type")));
  }
  auto spec = ParseJobSpec(request.body);
  if (!spec) return Fail(400, "{}", spec.error().message);
  // Agents run each task's command; one without any would be handed out and refused by every
  // agent, and never start.
  if (context.agents != nullptr && spec->command.empty()) {
    return Fail(400,
                "field 'spec.command': expected a non-empty list (the agents backend runs it on "
                "the nodes), got nothing");
  }
  if (auto ok = CheckTopologyLevels(context, *spec); !ok) return tl::unexpected(ok.error());
  // The store reads back any count (a scale may have left one outside bounds changed later), but
  // a new service starts within its own.
  if (const auto& autoscaling = spec->autoscaling;
      autoscaling &&
      (spec->replicas < autoscaling->min_replicas || spec->replicas > autoscaling->max_replicas)) {
    return Fail(400,
                "field 'spec.replicas': expected a count within spec.autoscaling's [{}, {}], got "
                "{}",
                autoscaling->min_replicas, autoscaling->max_replicas, spec->replicas);
  }
  if (principal->role == Role::kUser) {
    if (spec->tenant.empty()) spec->tenant = principal->tenant;
    if (auto ok = CheckTenant(*principal, spec->tenant); !ok) return tl::unexpected(ok.error());
    // A token made before tenant names were checked may carry one the store could not read
    // back; refuse to store it rather than fail every later start.
    if (!IsValidName(spec->tenant, NameKind::kLabel)) {
      return Fail(400,
                  "this token's tenant {} is not a valid tenant name ({}); ask an admin for "
                  "a new token",
                  QuoteExcerpt(spec->tenant), NameExpectation(NameKind::kLabel));
    }
  } else if (spec->tenant.empty()) {
    spec->tenant = "default";
  }
  const TimeUs now = context.clock.NowUs();
  std::vector<StoreWrite> writes;
  std::vector<JobRecord> jobs;
  std::optional<ServiceRecord> service;
  const uint64_t new_jobs = spec->kind == JobKind::kService ? spec->replicas : 1;
  {
    std::lock_guard lock(context.state.mu);
    // Checked and reserved before the commit, under the lock: concurrent submissions cannot
    // together pass a limit.
    if (auto admitted = context.state.admission.Reserve(context.state.jobs, spec->tenant, new_jobs);
        !admitted) {
      return tl::unexpected(admitted.error());
    }
    if (spec->kind == JobKind::kService) {
      service =
          ServiceRecord{.id = context.state.next_service_id++, .spec = *spec, .submit_us = now};
      writes.push_back(*service);
      for (uint32_t i = 0; i < spec->replicas; ++i) {
        jobs.push_back(NewReplica(*service, context.state.next_job_id++, now));
      }
    } else {
      jobs.push_back(JobRecord{.id = context.state.next_job_id++, .spec = *spec, .submit_us = now});
    }
  }
  for (JobRecord& job : jobs) {
    // Made here, outside the state's lock, for the store and the engine log (records.h).
    job.spec_json = std::make_shared<const std::string>(JobSpecToJson(job.spec));
    writes.push_back(job);
  }
  if (auto ok = context.journal.Commit(std::move(writes)); !ok) {
    std::lock_guard lock(context.state.mu);
    context.state.admission.Release(spec->tenant, new_jobs);
    return StoreFailure(ok.error());
  }
  {
    std::lock_guard lock(context.state.mu);
    if (service) context.state.services[service->id] = *service;
    for (const JobRecord& job : jobs) {
      JobRecord kept = job;
      kept.spec_json.reset();  // The loop's engine log gets it below; the state need not keep it.
      context.state.jobs.Put(std::move(kept));
    }
    context.state.admission.Release(spec->tenant, new_jobs);
    context.state.submissions_total += jobs.size();
  }
  Json ids = Json::array();
  for (const JobRecord& job : jobs) {
    context.events.Append(LoggedEvent{
        .time_us = now,
        .type = "submitted",
        .job = job.id,
        .message = fmt::format("job {} submitted by tenant {}", job.id, job.spec.tenant)});
    context.loop.Submitted(job.id, job.spec_json);
    ids.push_back(job.id);
  }
  if (service) {
    return Reply{201,
                 {{"id", service->id}, {"state", "pending"}, {"kind", "service"}, {"jobs", ids}}};
  }
  return Reply{201, {{"id", jobs.front().id}, {"state", "pending"}}};
}

ApiResult<Reply> List(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  std::optional<JobState> state;
  if (request.has_param("state")) {
    state = JobStateByName(request.get_param_value("state"));
    if (!state) {
      return Fail(400, "state: expected pending, running, completed, failed or cancelled, got {}",
                  QuoteExcerpt(request.get_param_value("state")));
    }
  }
  std::string tenant = request.get_param_value("tenant");
  if (principal->role == Role::kUser) {
    if (tenant.empty()) tenant = principal->tenant;
    if (auto ok = CheckTenant(*principal, tenant); !ok) return tl::unexpected(ok.error());
  }
  uint64_t limit = 1000;
  if (request.has_param("limit")) {
    auto parsed = ParseId(request.get_param_value("limit"), "limit");
    if (!parsed) return tl::unexpected(parsed.error());
    limit = std::clamp<uint64_t>(*parsed, 1, 100'000);
  }
  std::vector<JobRecord> jobs;
  {
    std::lock_guard lock(context.state.mu);
    for (const auto& [id, job] : context.state.jobs) {
      if (state && job.state != *state) continue;
      if (!tenant.empty() && job.spec.tenant != tenant) continue;
      jobs.push_back(job);
      if (jobs.size() >= limit) break;
    }
  }
  std::vector<uint64_t> pending;
  for (const JobRecord& job : jobs) {
    if (job.state == JobState::kPending) pending.push_back(job.id);
  }
  const auto reasons = context.loop.Explain(pending);
  Json out = Json::array();
  for (const JobRecord& job : jobs) {
    auto it = reasons.find(job.id);
    out.push_back(JobJson(job, it == reasons.end() ? nullptr : &it->second));
  }
  return Reply{200, {{"jobs", std::move(out)}}};
}

// The job, after checking the principal may see it.
ApiResult<JobRecord> FindJob(ApiContext& context, const HttpRequest& request,
                             const Principal& principal) {
  auto id = ParseId(request.matches[1], "job id");
  if (!id) return tl::unexpected(id.error());
  JobRecord job;
  {
    std::lock_guard lock(context.state.mu);
    auto it = context.state.jobs.find(*id);
    if (it == context.state.jobs.end()) {
      return Fail(404, "job {} does not exist; list jobs with GET /v1/jobs", *id);
    }
    job = it->second;
  }
  if (auto ok = CheckTenant(principal, job.spec.tenant); !ok) return tl::unexpected(ok.error());
  return job;
}

ApiResult<Reply> Get(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  auto job = FindJob(context, request, *principal);
  if (!job) return tl::unexpected(job.error());
  if (job->state == JobState::kPending) {
    const auto reasons = context.loop.Explain({job->id}, /*with_nodes=*/true);
    return Reply{200, JobJson(*job, &reasons.at(job->id))};
  }
  return Reply{200, JobJson(*job, nullptr)};
}

ApiResult<Reply> Cancel(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  auto job = FindJob(context, request, *principal);
  if (!job) return tl::unexpected(job.error());
  auto cancelled = context.loop.Cancel(job->id);
  if (!cancelled) return tl::unexpected(cancelled.error());
  return Reply{200, JobJson(*cancelled, nullptr)};
}

// POST /v1/jobs/{id}/hold (body {"reason": ...} or none) and /release: an operator's.
ApiResult<Reply> Hold(ApiContext& context, const HttpRequest& request, bool held) {
  auto principal = AuthenticateAdmin(context, request);
  if (!principal) return tl::unexpected(principal.error());
  auto job = FindJob(context, request, *principal);
  if (!job) return tl::unexpected(job.error());
  std::string reason;
  if (held) {
    auto text = ReasonOf(request.body);
    if (!text) return tl::unexpected(text.error());
    reason = text->empty() ? "no reason given" : std::move(*text);
  }
  auto changed = context.loop.Hold(job->id, held, std::move(reason));
  if (!changed) return tl::unexpected(changed.error());
  return Reply{200, JobJson(*changed, nullptr)};
}

ApiResult<Reply> CreateToken(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateAdmin(context, request);
  if (!principal) return tl::unexpected(principal.error());
  auto body = ParseBody(request.body);
  if (!body) return tl::unexpected(body.error());
  auto role_name = StringField(*body, "role", "role", true);
  if (!role_name) return tl::unexpected(role_name.error());
  auto role = RoleByName(*role_name);
  if (!role) {
    return Fail(400, "role: expected admin, user or agent, got {}", QuoteExcerpt(*role_name));
  }
  TokenRecord record{.role = *role};
  Json out = {{"role", *role_name}};
  if (*role == Role::kUser) {
    if (auto ok = RejectUnknownFields(*body, "", {"role", "tenant"}); !ok) {
      return tl::unexpected(ok.error());
    }
    auto tenant = NameField(*body, "tenant", "tenant", NameKind::kLabel);
    if (!tenant) return tl::unexpected(tenant.error());
    record.tenant = *tenant;
    out["tenant"] = *tenant;
  } else if (*role == Role::kAgent) {
    if (auto ok = RejectUnknownFields(*body, "", {"role", "node"}); !ok) {
      return tl::unexpected(ok.error());
    }
    auto node = NameField(*body, "node", "node", NameKind::kNode);
    if (!node) return tl::unexpected(node.error());
    record.node = *node;
    out["node"] = *node;
  } else if (auto ok = RejectUnknownFields(*body, "", {"role"}); !ok) {
    return tl::unexpected(ok.error());
  }
  const std::string token = NewToken();
  record.hash_hex = Sha256Hex(token);
  if (auto ok = context.journal.Commit({record}); !ok) return StoreFailure(ok.error());
  context.tokens.Add(record);
  out["token"] = token;
  return Reply{201, std::move(out)};
}

}  // namespace

void RegisterJobRoutes(Router& server, ApiContext& context) {
  server.Post("/v1/jobs", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Submit(context, request); });
  });
  server.Get("/v1/jobs", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return List(context, request); });
  });
  server.Get("/v1/jobs/{}", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Get(context, request); });
  });
  server.Post("/v1/jobs/{}/cancel", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Cancel(context, request); });
  });
  server.Post("/v1/jobs/{}/hold", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Hold(context, request, true); });
  });
  server.Post("/v1/jobs/{}/release",
              [&context](const HttpRequest& request, HttpResponse& response) {
                Respond(response, [&] { return Hold(context, request, false); });
              });
  server.Post("/v1/tokens", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return CreateToken(context, request); });
  });
}

}  // namespace headroom::control
