// Routes: queues with quotas (docs/api.md "Queues"). GET lists each queue's guarantee, limits
// and usage as the engine had them at its last step — an admin sees every queue, a user the
// queues its tenant's jobs count against (its leaf and the queues above it) and its tenant's
// fair share. PUT (admin) replaces the policy's queues with a queues file's, journaled with the
// policy, so that they stay in force across restarts until changed.
#include <cmath>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "control/api_routes.h"
#include "engine/quota.h"

namespace headroom::control {
namespace {

using engine::QuotaAmounts;
using engine::QuotaResource;
using engine::QuotaTree;

// {"devices": 12.5, "cpu": 64, "memory_gib": 512, "device_models": {"H100": 8}}: whole units;
// with `limits`, only the resources that have a limit (kNoQuotaLimit: none).
Json AmountsJson(const QuotaTree& tree, const QuotaAmounts& amounts, bool limits) {
  Json out = Json::object();
  const std::pair<QuotaResource, const char*> keys[] = {{QuotaResource::kDevices, "devices"},
                                                        {QuotaResource::kCpu, "cpu"},
                                                        {QuotaResource::kMemory, "memory_gib"}};
  for (const auto& [resource, key] : keys) {
    const int64_t amount = amounts[static_cast<size_t>(resource)];
    if (!tree.governs(resource) || (limits && amount == engine::kNoQuotaLimit)) continue;
    const double unit = resource == QuotaResource::kMemory ? 1024.0 : 1000.0;
    out[key] = static_cast<double>(amount) / unit;
  }
  if (!tree.device_models().empty()) {
    Json models = Json::object();
    for (size_t m = 0; m < tree.device_models().size(); ++m) {
      const int64_t amount = amounts[engine::kFixedQuotaResources + m];
      if (limits && amount == engine::kNoQuotaLimit) continue;
      models[tree.device_models()[m]] = static_cast<double>(amount) / 1000.0;
    }
    out["device_models"] = std::move(models);
  }
  return out;
}

// A queue's fair-share level; level_fairshare is null (JSON has no infinity) with no usage.
Json FairShareJson(const engine::Engine::QueueFairShare& share) {
  return {{"share", share.share},
          {"usage_device_s", share.usage_device_s},
          {"level_fairshare",
           std::isinf(share.level_fairshare) ? Json(nullptr) : Json(share.level_fairshare)}};
}

Json QueueJson(const QuotaTree& tree, uint32_t q) {
  bool borrowing = false;
  for (size_t k = 0; k < engine::kQuotaResources; ++k) {
    borrowing = borrowing || (tree.governs_slot(k) && tree.usage(q)[k] > tree.guaranteed(q)[k]);
  }
  return {{"name", tree.name(q)},
          {"parent",
           tree.parent(q) == QuotaTree::kRoot ? Json(nullptr) : Json(tree.name(tree.parent(q)))},
          {"guaranteed", AmountsJson(tree, tree.guaranteed(q), false)},
          {"borrowing_limit", AmountsJson(tree, tree.borrowing_limit(q), true)},
          {"lending_limit", AmountsJson(tree, tree.lending_limit(q), true)},
          {"usage", AmountsJson(tree, tree.usage(q), false)},
          {"borrowing", borrowing}};
}

ApiResult<Reply> GetQueues(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  const QuotaTree tree = context.loop.Queues();
  const std::vector<engine::Engine::QueueFairShare> shares = context.loop.QueueFairShares();
  Json queues = Json::array();
  if (!tree.empty()) {
    std::vector<uint8_t> shown(tree.size(), principal->role == Role::kAdmin ? 1 : 0);
    if (principal->role != Role::kAdmin) {
      for (uint32_t q = tree.QueueOf(principal->tenant); q != QuotaTree::kRoot;
           q = tree.parent(q)) {
        shown[q] = 1;
      }
    }
    for (uint32_t q = 1; q < tree.size(); ++q) {
      if (shown[q] == 0) continue;
      queues.push_back(QueueJson(tree, q));
      // QueueFairShares lists the queues in the tree's order, the root left out (the two were
      // read apart: a policy change between them may have renamed the queues).
      if (q - 1 < shares.size() && shares[q - 1].queue == tree.name(q)) {
        queues.back()["fair_share"] = FairShareJson(shares[q - 1]);
      }
    }
  }
  Json body = {{"queues", std::move(queues)}};
  if (principal->role != Role::kAdmin) {
    for (const auto& tenant : context.loop.TenantFairShares()) {
      if (tenant.tenant != principal->tenant) continue;
      body["fair_share"] = {{"tenant", tenant.tenant},
                            {"share", tenant.share},
                            {"usage_device_s", tenant.usage_device_s},
                            {"factor", tenant.factor}};
    }
  }
  return Reply{200, std::move(body)};
}

// A device model the queues give quotas that no node has (yet): likely a misspelling, or a
// model whose agents have not registered. Its quotas count nothing until such a node comes.
Json ModelWarnings(ApiContext& context, const std::vector<engine::QueueConfig>& queues) {
  std::set<std::string> named;
  for (const engine::QueueConfig& queue : queues) {
    for (const auto& [model, unused_quota] : queue.device_models) named.insert(model);
  }
  std::set<std::string> present;
  {
    std::lock_guard lock(context.state.mu);
    if (const Topology* topology = context.state.topology.get();
        topology != nullptr && topology->cluster != nullptr) {
      for (const model::DeviceClass& device_class : topology->cluster->device_classes()) {
        if (!device_class.model.empty()) present.insert(device_class.model);
      }
    }
  }
  Json warnings = Json::array();
  for (const std::string& model : named) {
    if (present.contains(model)) continue;
    warnings.push_back(fmt::format(
        "device model '{}' is on no node (the nodes have: {}); its quotas count nothing until "
        "a node with it registers",
        model,
        present.empty() ? std::string("none yet") : fmt::format("{}", fmt::join(present, ", "))));
  }
  return warnings;
}

ApiResult<Reply> PutQueues(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateAdmin(context, request);
  if (!principal) return tl::unexpected(principal.error());
  if (auto ok = context.loop.SetQueues(request.body); !ok) return tl::unexpected(ok.error());
  const engine::PolicyConfig policy = context.loop.policy();
  return Reply{200,
               {{"policy", policy.name},
                {"queues", policy.queues.size()},
                {"warnings", ModelWarnings(context, policy.queues)}}};
}

}  // namespace

void RegisterQueueRoutes(Router& server, ApiContext& context) {
  server.Get("/v1/queues", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return GetQueues(context, request); });
  });
  server.Put("/v1/queues", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return PutQueues(context, request); });
  });
}

}  // namespace headroom::control
