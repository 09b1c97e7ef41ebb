// Routes: the scheduling policy in force (docs/api.md "Policy"). GET returns it with the YAML it
// was read from; PUT replaces it with a policy file's text, journaled, so that it stays in force
// across restarts until changed (DaemonOptions::policy).
#include "control/api_routes.h"
#include "engine/policy_yaml.h"

namespace headroom::control {
namespace {

Json PolicyJson(const engine::PolicyConfig& policy) {
  return {{"name", policy.name}, {"description", policy.description}};
}

ApiResult<Reply> GetPolicy(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  Json body = PolicyJson(context.loop.policy());
  body["text"] = context.loop.policy_text();
  return Reply{200, std::move(body)};
}

ApiResult<Reply> PutPolicy(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateAdmin(context, request);
  if (!principal) return tl::unexpected(principal.error());
  // The message names the body's line and field, as `headroom policy check` names a file's.
  auto policy = engine::ParsePolicyYaml(request.body, "body");
  if (!policy) return Fail(400, "{}", policy.error().message);
  Json reply = PolicyJson(*policy);
  if (auto ok = context.loop.SetPolicy(request.body, std::move(*policy)); !ok) {
    return tl::unexpected(ok.error());
  }
  return Reply{200, std::move(reply)};
}

}  // namespace

void RegisterPolicyRoutes(Router& server, ApiContext& context) {
  server.Get("/v1/policy", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return GetPolicy(context, request); });
  });
  server.Put("/v1/policy", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return PutPolicy(context, request); });
  });
}

}  // namespace headroom::control
