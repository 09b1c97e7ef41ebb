#include "sim/report/json_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace headroom::sim {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kSignificantDigits = 6;

Json Number(double value) {
  const double rounded = RoundForReport(value);
  if (std::isnan(rounded)) return Json(nullptr);
  return Json(rounded);
}

Json DistributionJson(const Distribution& d, bool with_max) {
  Json out = Json::object();
  out["mean"] = Number(d.mean);
  out["p50"] = Number(d.p50);
  out["p95"] = Number(d.p95);
  out["p99"] = Number(d.p99);
  if (with_max) out["max"] = Number(d.max);
  return out;
}

Json CountsJson(const std::vector<std::pair<std::string, uint64_t>>& counts) {
  Json out = Json::object();
  for (const auto& [key, count] : counts) out[key] = count;
  return out;
}

Json ClusterJson(const ClusterSummary& c) {
  Json out = Json::object();
  out["devices"] = c.devices;
  out["nodes"] = c.nodes;
  out["source"] = c.source;
  out["levels"] = Json::array();
  for (const std::string& level : c.levels) out["levels"].push_back(level);
  out["devices_by_model"] = CountsJson(c.devices_by_model);
  return out;
}

Json WorkloadJson(const WorkloadSummary& w) {
  Json out = Json::object();
  out["format"] = w.format;
  out["source"] = w.source;
  out["jobs"] = w.jobs;
  out["offered_load"] = Number(w.offered_load);
  out["load_scale"] = Number(w.load_scale);
  out["arrival_span_s"] = Number(w.arrival_span_s);
  out["elastic_jobs"] = w.elastic_jobs;
  out["skipped_rows"] = w.skipped_rows;
  out["skipped_reasons"] = CountsJson(w.skipped_reasons);
  return out;
}

Json ServicesSummaryJson(const ServicesSummary& s) {
  Json out = Json::object();
  const ServiceOptions& o = s.options;
  out["traces"] = s.traces;
  out["load_curve"] = o.load_curve.empty() ? Json() : Json(o.load_curve);
  out["services"] = s.services;
  out["replayed_by_count"] = s.replayed_by_count;
  out["model"] = o.model;
  out["device_model"] = o.device_model;
  out["devices_per_replica"] = o.devices_per_replica;
  out["min_replicas"] = o.min_replicas;
  out["max_replicas"] = o.max_replicas;
  out["startup_s"] = Number(o.startup_s);
  out["rate_scale"] = Number(o.rate_scale);
  out["ttft_slo_s"] = Number(o.ttft_slo_s);
  out["tbt_slo_s"] = Number(o.tbt_slo_s);
  return out;
}

Json MetricsJson(const PolicyMetrics& m) {
  Json out = Json::object();
  out["allocation_rate"] = Number(m.allocation_rate);
  out["wait_s"] = DistributionJson(m.wait_s, /*with_max=*/true);
  out["jct_s"] = DistributionJson(m.jct_s, /*with_max=*/true);
  out["bounded_slowdown"] = DistributionJson(m.bounded_slowdown, /*with_max=*/false);
  out["fragmentation_rate"] = Number(m.fragmentation_rate);
  out["jobs_completed"] = m.jobs_completed;
  out["jobs_unplaced"] = m.jobs_unplaced;
  out["makespan_s"] = Number(m.makespan_s);
  out["mean_slowdown_from_placement"] = Number(m.mean_slowdown_from_placement);
  out["engine_steps"] = m.engine_steps;
  out["events"] = m.events;
  out["multi_node_jobs"] = m.multi_node_jobs;
  out["multi_node_within_one_block"] = Number(m.multi_node_within_one_block);
  Json by_level = Json::array();
  for (double share : m.multi_node_within_one_block_by_level) by_level.push_back(Number(share));
  out["multi_node_within_one_block_by_level"] = std::move(by_level);
  out["migrations"] = m.migrations;
  out["migration_cost_device_hours"] = Number(m.migration_cost_device_hours);
  out["preemptions"] = m.preemptions;
  out["preemption_lost_device_hours"] = Number(m.preemption_lost_device_hours);
  out["elastic_resizes"] = m.elastic_resizes;
  out["power_caps"] = m.power_caps;
  out["goodput_device_hours"] = Number(m.goodput_device_hours);
  return out;
}

// What the building metered (sim/facility_meter.h).
Json FacilityJson(const FacilitySummary& f) {
  Json out = Json::object();
  out["throttled_device_h"] = Number(f.throttled_device_h);
  out["energy_kwh"] = Number(f.energy_kwh);
  out["cooling_energy_kwh"] = Number(f.cooling_energy_kwh);
  out["useful_device_h_per_kwh"] = Number(f.useful_device_h_per_kwh);
  out["peak_power_kw"] = Number(f.peak_power_kw);
  out["power_violations"] = f.power_violations;
  out["power_violation_kw_s"] = Number(f.power_violation_kw_s);
  out["max_inlet_c"] = Number(f.max_inlet_c);
  out["inlet_over_limit_zone_s"] = Number(f.inlet_over_limit_zone_s);
  out["devices_per_feed_kw"] = Number(f.devices_per_feed_kw);
  return out;
}

// The devices' draw over time: in all, and per top power domain.
Json FacilitySeriesJson(const PolicyRun& run) {
  Json out = Json::object();
  Json total = Json::array();
  for (const SeriesPoint& point : run.series) total.push_back(Number(point.power_kw));
  out["all"] = std::move(total);
  for (size_t f = 0; f < run.facility.feed_names.size(); ++f) {
    Json values = Json::array();
    for (const SeriesPoint& point : run.series) {
      values.push_back(Number(f < point.feed_power_kw.size() ? point.feed_power_kw[f] : 0));
    }
    out[run.facility.feed_names[f]] = std::move(values);
  }
  return out;
}

// Issue 13's figures side by side: the services' requests and replicas, and what training got
// (its goodput, the preemptions and the device-hours they lost, over jobs and replicas).
Json ServicesJson(const ServiceMetrics& s, const PolicyMetrics& m) {
  Json out = Json::object();
  out["requests"] = s.requests.requests;
  out["failed_requests"] = s.requests.failed;
  out["restarted_requests"] = s.requests.restarted;
  out["slo_attainment"] = Number(s.requests.slo_attainment);
  out["ttft_s"] = DistributionJson(s.requests.ttft_s, /*with_max=*/true);
  out["latency_s"] = DistributionJson(s.requests.latency_s, /*with_max=*/true);
  out["scale_up_to_serving_s"] = DistributionJson(s.scale_up_to_serving_s, /*with_max=*/true);
  out["replicas_started"] = s.replicas_started;
  out["replica_preemptions"] = s.replica_preemptions;
  out["replica_device_h"] = Number(s.replica_device_hours);
  out["training_goodput_device_h"] = Number(m.goodput_device_hours);
  out["preemptions"] = m.preemptions + s.replica_preemptions;
  out["preemption_lost_device_h"] = Number(m.preemption_lost_device_hours);
  out["allocation_rate"] = Number(m.allocation_rate);
  return out;
}

Json FailuresSummaryJson(const FailuresSummary& f) {
  Json out = Json::object();
  out["trace"] = f.trace;
  out["node_failures_per_day"] = Number(f.node_failures_per_day);
  out["fault_classes"] = f.classes;
  out["latent_share"] = Number(f.latent_share);
  out["warned_share"] = Number(f.warned_share);
  out["warning_lead_s"] = Number(f.warning_lead_s);
  out["false_warnings_per_day"] = Number(f.false_warnings_per_day);
  out["check_catches"] = Number(f.check_catches);
  out["large_job_devices"] = f.large_job_devices;
  return out;
}

// Issue 14's figures: what the faults cost and how fast the jobs came back.
Json FailuresJson(const FailureMetrics& f) {
  Json out = Json::object();
  out["node_faults"] = f.node_faults;
  out["interruptions"] = f.interruptions;
  out["jobs_held"] = f.jobs_held;
  out["lost_device_h"] = Number(f.lost_device_hours);
  out["mttr_s"] = Number(f.recovery_s.mean);
  out["recovery_s"] = DistributionJson(f.recovery_s, /*with_max=*/true);
  out["mean_repair_s"] = Number(f.mean_repair_s);
  out["jobs_started_on_faulty"] = f.jobs_started_on_faulty;
  out["checks"] = f.checks;
  out["checks_failed"] = f.checks_failed;
  out["gang_checks"] = f.gang_checks;
  out["warnings"] = f.warnings;
  out["false_warnings"] = f.false_warnings;
  out["diagnoses"] = f.diagnoses;
  out["diagnoses_found"] = f.diagnoses_found;
  out["check_device_h"] = Number(f.check_device_hours);
  out["large_jobs_completed"] = f.large_jobs_completed;
  out["effective_training_time"] =
      f.effective_training_time < 0 ? Json(nullptr) : Number(f.effective_training_time);
  out["faults_by_class"] = CountsJson(f.faults_by_class);
  return out;
}

// By queue name, one value per sample of a per-queue series.
Json QueueSeriesJson(const PolicyRun& run, std::vector<double> SeriesPoint::*series) {
  Json out = Json::object();
  for (size_t q = 0; q < run.queues.size(); ++q) {
    Json values = Json::array();
    for (const SeriesPoint& point : run.series) {
      const std::vector<double>& by_queue = point.*series;
      values.push_back(Number(q < by_queue.size() ? by_queue[q] : 0));
    }
    out[run.queues[q].name] = std::move(values);
  }
  return out;
}

Json QueuesJson(const std::vector<QueueRun>& queues) {
  Json out = Json::array();
  for (const QueueRun& q : queues) {
    Json queue = Json::object();
    queue["name"] = q.name;
    queue["parent"] = q.parent.empty() ? Json(nullptr) : Json(q.parent);
    queue["guaranteed_devices"] = Number(q.guaranteed_devices);
    queue["limit_devices"] = q.limit_devices < 0 ? Json(nullptr) : Number(q.limit_devices);
    queue["fair_share"] = q.fair_share < 0 ? Json(nullptr) : Number(q.fair_share);
    queue["fair_share_devices"] =
        q.fair_share_devices < 0 ? Json(nullptr) : Number(q.fair_share_devices);
    queue["jobs_started"] = q.jobs_started;
    queue["jobs_completed"] = q.jobs_completed;
    queue["wait_s"] = DistributionJson(q.wait_s, /*with_max=*/true);
    queue["jct_s"] = DistributionJson(q.jct_s, /*with_max=*/true);
    queue["mean_usage_devices"] = Number(q.mean_usage_devices);
    queue["peak_usage_devices"] = Number(q.peak_usage_devices);
    if (!q.device_models.empty()) {
      Json models = Json::array();
      for (const QueueModelRun& m : q.device_models) {
        models.push_back(
            {{"model", m.model},
             {"guaranteed_devices", Number(m.guaranteed_devices)},
             {"limit_devices", m.limit_devices < 0 ? Json(nullptr) : Number(m.limit_devices)},
             {"peak_usage_devices", Number(m.peak_usage_devices)}});
      }
      queue["device_models"] = std::move(models);
    }
    queue["preemptions"] = q.preemptions;
    queue["preemption_lost_device_hours"] = Number(q.preemption_lost_device_hours);
    out.push_back(std::move(queue));
  }
  return out;
}

// One array per level (the cluster's level names as keys; "level N" where the summary has no
// name for it), one entry per series point.
Json LargestFreeBlockJson(const std::vector<SeriesPoint>& series,
                          const std::vector<std::string>& levels) {
  size_t level_count = 0;
  for (const SeriesPoint& point : series) {
    level_count = std::max(level_count, point.largest_free_block_by_level.size());
  }
  Json out = Json::object();
  for (size_t level = 0; level < level_count; ++level) {
    Json values = Json::array();
    for (const SeriesPoint& point : series) {
      const auto& blocks = point.largest_free_block_by_level;
      values.push_back(level < blocks.size() ? blocks[level] : 0);
    }
    out[level < levels.size() ? levels[level] : fmt::format("level {}", level)] = std::move(values);
  }
  return out;
}

Json SeriesJson(const std::vector<SeriesPoint>& series) {
  Json time_s = Json::array();
  Json allocation = Json::array();
  Json fragmentation = Json::array();
  Json pending_jobs = Json::array();
  for (const SeriesPoint& point : series) {
    time_s.push_back(Number(point.time_s));
    allocation.push_back(Number(point.allocation));
    fragmentation.push_back(Number(point.fragmentation));
    pending_jobs.push_back(point.pending_jobs);
  }
  Json out = Json::object();
  out["time_s"] = std::move(time_s);
  out["allocation"] = std::move(allocation);
  out["fragmentation"] = std::move(fragmentation);
  out["pending_jobs"] = std::move(pending_jobs);
  return out;
}

}  // namespace

double RoundForReport(double value) {
  if (!std::isfinite(value)) return std::numeric_limits<double>::quiet_NaN();
  if (value == 0) return 0;  // Also turns -0 into 0.
  // Decimals that leave 6 significant digits, but never fewer than 0 (promise 2). Printing
  // with fixed decimals and parsing back gives the double nearest that decimal, which
  // nlohmann then prints as its shortest round-trip form, i.e. the same short decimal.
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value)))) + 1;
  const int decimals = std::max(0, kSignificantDigits - magnitude);
  const std::string text = fmt::format("{:.{}f}", value, decimals);
  double rounded = 0;
  std::from_chars(text.data(), text.data() + text.size(), rounded);  // Locale-independent.
  return rounded == 0 ? 0 : rounded;
}

std::string WriteJsonReport(const RunReport& report) {
  Json root = Json::object();
  root["cluster"] = ClusterJson(report.cluster);
  root["workload"] = WorkloadJson(report.workload);
  if (report.services) root["services"] = ServicesSummaryJson(*report.services);
  if (report.failures) root["failures"] = FailuresSummaryJson(*report.failures);
  if (!report.incidents.empty()) root["incidents"] = report.incidents;
  root["seed"] = report.seed;
  Json policies = Json::array();
  for (const PolicyRun& run : report.policies) {
    Json policy = Json::object();
    policy["name"] = run.name;
    policy["description"] = run.description;
    policy["metrics"] = MetricsJson(run.metrics);
    policy["facility"] = FacilityJson(run.facility);
    policy["series"] = SeriesJson(run.series);
    policy["series"]["largest_free_block"] =
        LargestFreeBlockJson(run.series, report.cluster.levels);
    policy["series"]["power_kw"] = FacilitySeriesJson(run);
    if (run.services) {
      policy["services"] = ServicesJson(*run.services, run.metrics);
      Json service_devices = Json::array();
      for (const SeriesPoint& point : run.series) service_devices.push_back(point.service_devices);
      policy["series"]["service_devices"] = std::move(service_devices);
    }
    if (run.failures) {
      policy["failures"] = FailuresJson(*run.failures);
      Json down_devices = Json::array();
      for (const SeriesPoint& point : run.series) down_devices.push_back(point.down_devices);
      policy["series"]["down_devices"] = std::move(down_devices);
    }
    if (!run.queues.empty()) {
      policy["queues"] = QueuesJson(run.queues);
      policy["series"]["queue_usage_devices"] =
          QueueSeriesJson(run, &SeriesPoint::queue_usage_devices);
      if (run.queues.front().fair_share >= 0) {
        policy["series"]["queue_usage_share"] =
            QueueSeriesJson(run, &SeriesPoint::queue_usage_share);
      }
    }
    policies.push_back(std::move(policy));
  }
  root["policies"] = std::move(policies);
  return root.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
}

}  // namespace headroom::sim
