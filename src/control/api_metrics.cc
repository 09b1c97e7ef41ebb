// Route: GET /metrics, Prometheus text (docs/api.md "Health and metrics"). No token.
#include "control/api_routes.h"

namespace headroom::control {
namespace {

// One gauge family per member of `Row`, each with a sample per row labelled by `key`:
// Prometheus wants each family's samples together.
template <typename Row>
struct Gauge {
  const char* name;
  const char* help;
  double Row::*value;
};
template <typename Row>
void AppendGauges(MetricsText& out, std::initializer_list<Gauge<Row>> gauges,
                  const std::vector<Row>& rows, const char* label, std::string Row::*key) {
  for (const Gauge<Row>& gauge : gauges) {
    out.Family(gauge.name, "gauge", gauge.help);
    for (const Row& row : rows) out.Sample(gauge.name, {{label, row.*key}}, row.*gauge.value);
  }
}

std::string MetricsBody(ApiContext& context) {
  MetricsText out;
  const auto reasons = context.loop.PendingByReason();
  out.Family("headroom_queue_jobs", "gauge", "Pending jobs by the reason they wait.");
  for (const auto& [reason, count] : reasons) {
    out.Sample("headroom_queue_jobs", {{"reason", reason}}, static_cast<double>(count));
  }
  // Fair share by tenant and by queue (none without queues).
  using TenantFairShare = engine::Engine::TenantFairShare;
  AppendGauges<TenantFairShare>(
      out,
      {{"headroom_tenant_fairshare",
        "Fair-share factor by tenant, in [0, 1]: 2^(-UE/S) (Slurm's classic formula; without "
        "queues 2^(-U/S)), or Fair Tree's rank over the tenant count.",
        &TenantFairShare::factor},
       {"headroom_tenant_share",
        "Normalized fair-share share S by tenant (with queues, within its queue).",
        &TenantFairShare::share},
       {"headroom_tenant_usage_device_seconds",
        "Decayed device usage U by tenant (half-life: the policy's decay_half_life_s).",
        &TenantFairShare::usage_device_s}},
      context.loop.TenantFairShares(), "tenant", &TenantFairShare::tenant);
  using QueueFairShare = engine::Engine::QueueFairShare;
  AppendGauges<QueueFairShare>(
      out,
      {{"headroom_queue_share", "Fair-share share S of a queue among its siblings.",
        &QueueFairShare::share},
       {"headroom_queue_usage_device_seconds",
        "Decayed device usage U of a queue's tenants (half-life: decay_half_life_s).",
        &QueueFairShare::usage_device_s},
       {"headroom_queue_level_fairshare",
        "Level Fairshare S/U of a queue among its siblings (U over the parent's usage; +Inf "
        "with no usage).",
        &QueueFairShare::level_fairshare}},
      context.loop.QueueFairShares(), "queue", &QueueFairShare::queue);
  // Queues with quotas: devices each uses and is guaranteed (no samples without queues).
  const engine::QuotaTree queues = context.loop.Queues();
  const struct {
    const char* name;
    const char* help;
    const engine::QuotaAmounts& (engine::QuotaTree::*amounts)(uint32_t) const;
  } queue_families[] = {
      {"headroom_queue_usage_devices", "Devices the running jobs of a queue (and below) hold.",
       &engine::QuotaTree::usage},
      {"headroom_queue_guaranteed_devices", "Devices a queue is guaranteed.",
       &engine::QuotaTree::guaranteed}};
  for (const auto& family : queue_families) {
    out.Family(family.name, "gauge", family.help);
    for (uint32_t q = 1; q < queues.size(); ++q) {
      out.Sample(family.name, {{"queue", queues.name(q)}},
                 static_cast<double>((queues.*family.amounts)(q)[0]) / 1000.0);
    }
    // By device model, where queues count devices by model.
    const std::string by_model = std::string(family.name) + "_by_model";
    if (queues.device_models().empty()) continue;
    out.Family(by_model, "gauge", std::string(family.help) + " Of one device model.");
    for (uint32_t q = 1; q < queues.size(); ++q) {
      for (size_t m = 0; m < queues.device_models().size(); ++m) {
        out.Sample(
            by_model, {{"queue", queues.name(q)}, {"model", queues.device_models()[m]}},
            static_cast<double>((queues.*family.amounts)(q)[engine::kFixedQuotaResources + m]) /
                1000.0);
      }
    }
  }
  std::lock_guard lock(context.state.mu);
  DaemonState& state = context.state;
  out.Family("headroom_jobs", "gauge", "Jobs by state.");
  for (JobState s : {JobState::kPending, JobState::kRunning, JobState::kCompleted,
                     JobState::kFailed, JobState::kCancelled}) {
    out.Sample("headroom_jobs", {{"state", std::string(JobStateName(s))}},
               static_cast<double>(state.jobs.CountIn(s)));
  }
  const Topology* topology = state.topology.get();
  std::map<std::string, std::string> model_of_node;
  std::map<std::string, uint64_t> devices_by_class;
  if (topology != nullptr) {
    for (const TopologyNode& node : topology->nodes) {
      model_of_node[node.name] = node.device_model;
      if (node.devices > 0) devices_by_class[node.device_model] += node.devices;
    }
  }
  std::map<std::pair<std::string, std::string>, uint64_t> allocated;  // (tenant, class) → milli
  for (uint64_t id : state.jobs.running_ids()) {
    const JobRecord& job = state.jobs.at(id);
    for (const TaskPlacement& task : job.placement) {
      allocated[{job.spec.tenant, model_of_node[task.node]}] +=
          uint64_t{task.milli_per_device} * task.device_indices.size();
    }
  }
  out.Family("headroom_allocated_devices", "gauge",
             "Devices held by running jobs (shares count as fractions).");
  for (const auto& [key, milli] : allocated) {
    out.Sample("headroom_allocated_devices", {{"tenant", key.first}, {"class", key.second}},
               static_cast<double>(milli) / 1000.0);
  }
  out.Family("headroom_devices", "gauge", "Devices in the cluster by class.");
  for (const auto& [device_class, count] : devices_by_class) {
    out.Sample("headroom_devices", {{"class", device_class}}, static_cast<double>(count));
  }
  out.Family("headroom_hot_spare_nodes", "gauge",
             "Idle nodes the engine keeps for jobs faults requeue (recovery.hot_spares).");
  out.Sample("headroom_hot_spare_nodes", {}, static_cast<double>(state.hot_spares.size()));
  const std::pair<const char*, uint64_t> counters[] = {
      {"headroom_placements_total", state.placements_total},
      {"headroom_migrations_total", state.migrations_total},
      {"headroom_elastic_resizes_total", state.resizes_total},
      {"headroom_preemptions_total", state.preemptions_total},
      {"headroom_power_caps_total", state.power_caps_total},
      {"headroom_requeues_total", state.requeues_total},
      {"headroom_foreign_task_reports_total", state.foreign_reports_total},
      {"headroom_submissions_total", state.submissions_total}};
  for (const auto& [name, value] : counters) {
    out.Family(name, "counter", "Since this daemon process started.");
    out.Sample(name, {}, static_cast<double>(value));
  }
  // Services: the count in force, the autoscaler's last, and the last reported load.
  out.Family("headroom_service_replicas", "gauge", "Replicas a service is set to run.");
  for (const auto& [id, service] : state.services) {
    out.Sample("headroom_service_replicas",
               {{"service", std::to_string(id)}, {"name", service.spec.name}},
               static_cast<double>(service.spec.replicas));
  }
  const auto service_labels = [&](uint64_t id) -> Labels {
    auto service = state.services.find(id);
    return {{"service", std::to_string(id)},
            {"name", service == state.services.end() ? "" : service->second.spec.name}};
  };
  out.Family("headroom_service_requests_per_second", "gauge",
             "Requests/s a service last reported (POST /v1/services/{id}/load).");
  for (const auto& [id, load] : state.service_loads) {
    if (load.reported_us < 0) continue;
    out.Sample("headroom_service_requests_per_second", service_labels(id), load.requests_per_s);
  }
  out.Family("headroom_service_desired_replicas", "gauge",
             "Replicas the service's autoscaler last asked for.");
  for (const auto& [id, load] : state.service_loads) {
    if (load.decided_us < 0) continue;
    out.Sample("headroom_service_desired_replicas", service_labels(id),
               static_cast<double>(load.desired_replicas));
  }
  context.cycle_seconds.Write(out, "headroom_cycle_seconds",
                              "Wall time of one live-loop cycle (engine step, journal, backend).");
  out.Family("headroom_node_state", "gauge", "1 for the node's current state.");
  for (const auto& [name, node] : state.nodes) {
    out.Sample("headroom_node_state", {{"node", name}, {"state", NodeStateName(node)}}, 1);
  }
  out.Family("headroom_facility_headroom_watts", "gauge",
             "Power limit minus measured draw, summed over the facility's power domains.");
  if (topology != nullptr && topology->cluster != nullptr &&
      !topology->cluster->facility().power_domains.empty()) {
    double limit_w = 0;
    for (const model::PowerDomain& power : topology->cluster->facility().power_domains) {
      if (power.parent.empty()) limit_w += static_cast<double>(power.limit_w);
    }
    double draw_w = 0;
    for (const auto& [name, node] : state.nodes) {
      for (const model::LabelledTelemetry& device : node.telemetry) {
        draw_w += device.reading.power_w.value_or(0);
      }
    }
    out.Sample("headroom_facility_headroom_watts", {}, limit_w - draw_w);
  }
  out.Family("headroom_health_storm", "gauge",
             "1 while the storm guard holds health back from taking devices out of use.");
  out.Sample("headroom_health_storm", {}, state.health_storm.tripped ? 1 : 0);
  out.Family("headroom_devices_by_health", "gauge",
             "Devices per node and health state (healthy, suspect, degraded, diagnosing, failed, "
             "in_repair), as headroomd judged them.");
  for (const auto& [name, node] : state.nodes) {
    size_t devices = node.record.devices.size();
    if (topology != nullptr && topology->cluster != nullptr) {
      if (const model::Node* spec = topology->cluster->FindNode(name)) devices = spec->device_count;
    }
    if (devices == 0 && node.health_book.empty()) continue;
    std::map<DeviceState, double> by_state;
    size_t judged = 0;
    for (const auto& [index, health] : node.health_book.devices()) {
      if (health.state != DeviceState::kHealthy) {
        ++by_state[health.state];
        ++judged;
      }
    }
    by_state[DeviceState::kHealthy] = static_cast<double>(devices > judged ? devices - judged : 0);
    for (DeviceState health : kDeviceStates) {
      out.Sample("headroom_devices_by_health",
                 {{"node", name}, {"state", std::string(DeviceStateName(health))}},
                 by_state[health]);
    }
  }
  const std::pair<const char*, std::optional<double> model::DeviceTelemetry::*> per_device[] = {
      {"headroom_device_temperature_celsius", &model::DeviceTelemetry::temp_c},
      {"headroom_device_power_watts", &model::DeviceTelemetry::power_w}};
  for (const auto& [metric, member] : per_device) {
    out.Family(metric, "gauge", "As the node's agent last reported it.");
    for (const auto& [name, node] : state.nodes) {
      for (const model::LabelledTelemetry& device : node.telemetry) {
        if (!(device.reading.*member)) continue;
        out.Sample(metric,
                   {{"node", name},
                    {"device", std::to_string(device.reading.index)},
                    {"job", device.job ? std::to_string(*device.job) : ""},
                    {"tenant", device.tenant.value_or("")}},
                   *(device.reading.*member));
      }
    }
  }
  return out.text();
}

}  // namespace

void RegisterMetricsRoutes(Router& server, ApiContext& context) {
  server.Get(
      "/metrics",
      [&context](const HttpRequest&, HttpResponse& response) {
        response.set_content(MetricsBody(context), "text/plain; version=0.0.4");
      },
      RouteAccess::kPublic);
}

}  // namespace headroom::control
