// Services beside training, through the simulator and the engine: a replica takes a training
// gang's devices under priority preemption and serves after its model load; without preemption
// it waits and the requests miss their SLO; and, over random bursts, clusters and policies,
// no request, replica or job is lost and the engine's books (gangs whole) hold at every step.
#include "sim/service_driver.h"

#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/presets.h"
#include "sim/simulator.h"
#include "testing/cluster_fixtures.h"

namespace headroom::sim {
namespace {

using testing::JobOf;
using testing::TinyCluster;
using testing::WorkloadOf;

// One request a second from `from_s` for `seconds`, each 1,000 prompt tokens and 10 generated.
RequestTrace SteadyTrace(int from_s, int seconds) {
  RequestTrace trace{.format = "test", .source = "test", .requests = {}};
  for (int i = from_s; i < from_s + seconds; ++i) {
    trace.requests.push_back(InferenceRequest{i * kUsPerSecond, 1000, 10});
  }
  return trace;
}

ServiceLoad Llama70bLoad(RequestTrace trace, uint32_t min_replicas) {
  ServiceLoad load;
  load.service.name = "chat";
  load.service.model = *model::FindServedModel("llama-2-70b");
  load.service.min_replicas = min_replicas;
  load.service.max_replicas = 4;
  load.trace = std::move(trace);
  EXPECT_TRUE(model::ValidateService(load.service).has_value());
  return load;
}

// 30 requests a second for `burst_s`, then one a second until `end_s`; a 70B replica sustains
// about 14 a second of these (1,000 prompt tokens, 10 generated).
RequestTrace BurstThenSteady(int burst_s, int end_s) {
  RequestTrace trace{.format = "test", .source = "test", .requests = {}};
  for (int i = 0; i < burst_s * 30; ++i) {
    trace.requests.push_back(InferenceRequest{i * kUsPerSecond / 30, 1000, 10});
  }
  for (int i = burst_s; i < end_s; ++i) trace.requests.push_back({i * kUsPerSecond, 1000, 10});
  return trace;
}

// Two 8-device nodes, and training arriving over `minutes` (one 4-device job a minute, 2
// minutes each), run with the service of `trace` under `preset`.
PolicyRun RunBesideSmallJobs(RequestTrace trace, int minutes, const char* preset) {
  SimOptions options;
  options.paranoid = true;
  options.series_points = 120;
  options.services.push_back(Llama70bLoad(std::move(trace), 1));
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  std::vector<model::Job> jobs;
  for (int i = 0; i < minutes; ++i) jobs.push_back(JobOf(1, 4, "", 0, 0, 120, 120, i * 60.0));
  return Simulate(cluster, WorkloadOf(std::move(jobs)), *engine::PresetPolicy(preset), options);
}

// Two 8-device nodes held by one 16-device training gang from t=0 for 10 h; the service's
// requests start at 400 s, after its first scale-down window (so it starts with no replica
// loaded), and it asks for its first replica at the 405 s sync.
struct GangAndService {
  model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  model::Workload workload = WorkloadOf({JobOf(2, 8, "", 0, 0, 36000, 36000, 0)});
  SimOptions options;
  GangAndService() {
    options.paranoid = true;
    options.services.push_back(Llama70bLoad(SteadyTrace(400, 600), 0));
  }
};

TEST(ServiceDriver, AReplicaTakesAGangsDevicesUnderPriorityPreemption) {
  GangAndService inputs;
  const PolicyRun run = Simulate(inputs.cluster, inputs.workload,
                                 *engine::PresetPolicy("k8s-preemption"), inputs.options);
  ASSERT_TRUE(run.services.has_value());
  const ServiceMetrics& services = *run.services;
  EXPECT_EQ(run.metrics.preemptions, 1u);  // The whole gang, at 405 s.
  EXPECT_EQ(services.replica_preemptions, 0u);
  EXPECT_EQ(services.replicas_started, 1u);
  // Decided and started at 405 s, serving 60 s later.
  EXPECT_DOUBLE_EQ(services.scale_up_to_serving_s.p95, 60);
  EXPECT_EQ(services.requests.requests, 600u);
  EXPECT_EQ(services.requests.failed, 0u);
  // The first minute's requests waited for the model load; the rest (after the backlog
  // drained) met the 2 s TTFT.
  EXPECT_GT(services.requests.slo_attainment, 0.8);
  EXPECT_LT(services.requests.slo_attainment, 0.9);
  EXPECT_GT(services.requests.ttft_s.max, 60);
  // The replica is withdrawn when the trace ends; the gang restarts and completes.
  EXPECT_EQ(run.metrics.jobs_completed, 1u);
  // Held from 405 s to the sync after the last request (at 999 s): 1,005 s.
  EXPECT_DOUBLE_EQ(services.replica_device_hours, 4.0 * (1005 - 405) / 3600);
}

TEST(ServiceDriver, WithoutPreemptionTheReplicaWaitsAndTheRequestsFail) {
  GangAndService inputs;
  engine::PolicyConfig policy = *engine::PresetPolicy("k8s-preemption");
  policy.preemption.enabled = false;
  const PolicyRun run = Simulate(inputs.cluster, inputs.workload, policy, inputs.options);
  ASSERT_TRUE(run.services.has_value());
  EXPECT_EQ(run.metrics.preemptions, 0u);
  EXPECT_EQ(run.services->replicas_started, 0u);
  // Withdrawn unserved when the trace ended: every request failed.
  EXPECT_EQ(run.services->requests.failed, 600u);
  EXPECT_DOUBLE_EQ(run.services->requests.slo_attainment, 0);
}

TEST(ServiceDriver, ReplicasFollowTheRateUpAndDown) {
  // The burst for 10 minutes, then 20 steady: the HPA holds 3 at 0.7 target utilisation, then 1.
  const PolicyRun run = RunBesideSmallJobs(BurstThenSteady(600, 1800), 30, "k8s-preemption");
  ASSERT_TRUE(run.services.has_value());
  uint64_t peak = 0;
  uint64_t late_max = 0;
  uint64_t late_min = UINT64_MAX;
  for (const SeriesPoint& point : run.series) {
    peak = std::max(peak, point.service_devices);
    if (point.time_s > 1500 && point.time_s < 1790) {
      late_max = std::max(late_max, point.service_devices);
      late_min = std::min(late_min, point.service_devices);
    }
  }
  EXPECT_EQ(peak, 12u);  // Three replicas of 4.
  // Back to one after the 300 s scale-down window, until the trace ends at 1,799 s.
  EXPECT_EQ(late_max, 4u);
  EXPECT_EQ(late_min, 4u);
  EXPECT_EQ(run.services->requests.requests, 600u * 30 + 1200);
  EXPECT_EQ(run.metrics.jobs_completed, 30u);
}

// A trace is a slice of a running service: it starts with what the HPA would hold, the replicas
// of its busiest 15 s within one scale-down window, and the HPA keeps them through that window.
TEST(ServiceDriver, AWarmServiceHoldsWhatItsFirstWindowNeeds) {
  RequestTrace trace{.format = "test", .source = "test", .requests = {}};
  for (int i = 0; i < 600; ++i) trace.requests.push_back({i * kUsPerSecond, 1000, 10});
  for (int i = 0; i < 15 * 30; ++i) {  // 30 more a second from 120 s to 135 s.
    trace.requests.push_back({120 * kUsPerSecond + i * kUsPerSecond / 30, 1000, 10});
  }
  NormalizeArrivals(trace);
  const PolicyRun run = RunBesideSmallJobs(std::move(trace), 10, "k8s-preemption");
  ASSERT_TRUE(run.services.has_value());
  EXPECT_DOUBLE_EQ(run.services->requests.slo_attainment, 1.0);
  EXPECT_EQ(run.services->scale_up_to_serving_s.count, 0u);  // Nothing added: all warm.
  for (const SeriesPoint& point : run.series) {
    if (point.time_s > 0 && point.time_s < 140) {
      EXPECT_EQ(point.service_devices, 16u) << point.time_s;  // 31 a second: four replicas.
    }
    if (point.time_s > 480 && point.time_s < 595) {
      EXPECT_EQ(point.service_devices, 4u) << point.time_s;  // One, after the window.
    }
  }
}

TEST(ServiceDriver, AStaticPartitionHoldsItsPeaksReplicasThroughout) {
  // The burst for 5 minutes, then 15 steady: the peak needs 3 replicas, kept to the end.
  const PolicyRun run = RunBesideSmallJobs(BurstThenSteady(300, 1200), 20, "static-partition");
  ASSERT_TRUE(run.services.has_value());
  EXPECT_EQ(run.services->replicas_started, 3u);
  EXPECT_EQ(run.services->scale_up_to_serving_s.count, 0u);  // Loaded before the origin.
  EXPECT_EQ(run.metrics.preemptions, 0u);
  for (const SeriesPoint& point : run.series) {
    if (point.time_s > 0 && point.time_s < 1190) {  // The first sample precedes the start.
      EXPECT_EQ(point.service_devices, 12u) << point.time_s;
    }
  }
  EXPECT_DOUBLE_EQ(run.services->requests.slo_attainment, 1.0);
}

// A service replayed by its replica count (a DLRM instance trace's, ServiceLoad::
// replica_schedule): it runs one replica from the origin, three from 600 s, one from 1,200 s
// and none from 1,800 s, each asked for at its change; a static partition runs the peak's three
// throughout.
TEST(ServiceDriver, AScheduledServiceRunsTheCountItsScheduleSays) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 8}}).Rack("r1", {{"n1", 8}}).Build();
  ServiceLoad load;
  load.service.name = "dlrm-app";
  load.service.model = *model::FindServedModel("llama-2-70b");
  load.service.devices_per_replica = 2;
  load.service.min_replicas = 0;
  load.service.max_replicas = 3;
  load.replica_schedule = {
      {0, 1}, {SecondsToUs(600), 3}, {SecondsToUs(1200), 1}, {SecondsToUs(1800), 0}};
  SimOptions options;
  options.paranoid = true;
  options.series_points = 200;
  options.services.push_back(load);
  const model::Workload workload = WorkloadOf({JobOf(1, 4, "", 0, 0, 3000, 3000, 0)});
  const PolicyRun run = Simulate(cluster, workload, *engine::PresetPolicy("headroom"), options);
  ASSERT_TRUE(run.services.has_value());
  EXPECT_EQ(run.services->replicas_started, 3u);
  // Two scale-ups, each serving one model load (60 s) after its change: devices were free.
  EXPECT_EQ(run.services->scale_up_to_serving_s.count, 2u);
  EXPECT_DOUBLE_EQ(run.services->scale_up_to_serving_s.max, 60);
  EXPECT_EQ(run.services->requests.requests, 0u);
  EXPECT_EQ(run.metrics.jobs_completed, 1u);
  // (from, until, devices), away from the changes.
  const std::vector<std::tuple<double, double, uint64_t>> spans = {
      {0, 590, 2}, {610, 1190, 6}, {1210, 1790, 2}, {1810, 1e9, 0}};
  for (const SeriesPoint& point : run.series) {
    for (const auto& [from_s, until_s, devices] : spans) {
      if (point.time_s > from_s && point.time_s < until_s) {
        EXPECT_EQ(point.service_devices, devices) << point.time_s;
      }
    }
  }
  EXPECT_NEAR(run.services->replica_device_hours, (2 * 600 + 6 * 600 + 2 * 600) / 3600.0, 1e-6);

  const PolicyRun fixed =
      Simulate(cluster, workload, *engine::PresetPolicy("static-partition"), options);
  ASSERT_TRUE(fixed.services.has_value());
  EXPECT_EQ(fixed.services->replicas_started, 3u);
  EXPECT_NEAR(fixed.services->replica_device_hours, 6 * 1800 / 3600.0, 1e-6);
}

// A service whose tide is at its peak from 06:00 to 18:00 and at nothing by night, beside a
// queue of 4-device training jobs that never empties, on 16 devices over two days: static
// partition keeps the peak's 2 replicas (8 devices) all along; the autoscaled policies give
// training the night, taking it back each morning by preemption. Goodput is counted up to the
// services' end: the floor's 768 device-hours of the two days bound it, although all 1,200
// device-hours of training complete in the end.
TEST(ServiceDriver, ADailyTideLendsTheNightToTraining) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}}).Build();
  std::vector<model::Job> jobs;
  for (int i = 0; i < 299; ++i) jobs.push_back(JobOf(1, 4, "", 0, 0, 3600, 3600, 0));
  const double two_days_s = 2 * 86400;
  jobs.push_back(JobOf(1, 4, "", 0, 0, 3600, 3600, two_days_s));
  const model::Workload workload = WorkloadOf(std::move(jobs));
  // 15 requests a second at the peak: 2 replicas of about 14 a second at 0.7 utilisation.
  RequestTrace trace{.format = "test", .source = "test", .requests = {}};
  for (int i = 0; i < 54000; ++i) trace.requests.push_back({i * kUsPerSecond / 15, 1000, 10});
  ServiceLoad load = Llama70bLoad(std::move(trace), 0);
  LoadCurve curve{.format = "test", .source = "test", .relative_rate = {}};
  for (size_t bin = 0; bin < LoadCurve::kBins; ++bin) {
    curve.relative_rate.push_back(bin >= 24 && bin < 72 ? 1.0 : 0.0);
  }
  load.curve = std::move(curve);
  load.span_us = SecondsToUs(two_days_s);
  SimOptions options;
  options.services.push_back(std::move(load));
  const PolicyRun fixed =
      Simulate(cluster, workload, *engine::PresetPolicy("static-partition"), options);
  const PolicyRun tidal =
      Simulate(cluster, workload, *engine::PresetPolicy("k8s-preemption"), options);
  ASSERT_TRUE(fixed.services.has_value() && tidal.services.has_value());
  EXPECT_EQ(fixed.metrics.jobs_completed, 300u);
  EXPECT_EQ(tidal.metrics.jobs_completed, 300u);
  // Static: training has 8 devices for 48 h, two jobs at a time.
  EXPECT_LE(fixed.metrics.goodput_device_hours, 8 * 48.0);
  EXPECT_GE(fixed.metrics.goodput_device_hours, 8 * 47.0);
  EXPECT_EQ(fixed.metrics.preemptions, 0u);
  // Tidal: 16 devices by night and 8 by day, less what the mornings' preemptions lose.
  EXPECT_LE(tidal.metrics.goodput_device_hours, 16 * 48.0);
  EXPECT_GT(tidal.metrics.goodput_device_hours, 1.3 * fixed.metrics.goodput_device_hours);
  EXPECT_GT(tidal.metrics.preemptions, 0u);
  EXPECT_EQ(tidal.services->requests.requests, fixed.services->requests.requests);
  // About 12 h a day at 15 a second (ramps included).
  EXPECT_GT(fixed.services->requests.requests, 2 * 11.5 * 54000);
  EXPECT_LT(fixed.services->requests.requests, 2 * 12.5 * 54000);
  EXPECT_DOUBLE_EQ(fixed.services->requests.slo_attainment, 1.0);
  EXPECT_GT(tidal.services->requests.slo_attainment, 0.99);
}

// Random clusters, training gangs and request bursts, under priority preemption and under
// headroom's policy: at every step the engine's books hold (gangs whole, nothing double-booked);
// at the end every request is counted once and every training job completed or unplaced.
RC_GTEST_PROP(ServiceDriverProperty, NothingLostThroughBurstsAndPreemptions, ()) {
  const int nodes = *rc::gen::inRange(1, 4);
  std::vector<testing::TinyNode> tiny_nodes;
  for (int n = 0; n < nodes; ++n) tiny_nodes.push_back({"n" + std::to_string(n), 8});
  // One rack, or a rack a node (where replicas spread).
  TinyCluster racks;
  if (*rc::gen::arbitrary<bool>()) {
    racks.Rack("r0", tiny_nodes);
  } else {
    for (const testing::TinyNode& node : tiny_nodes) racks.Rack("r-" + node.name, {node});
  }
  const model::Cluster cluster = racks.Build();
  std::vector<model::Job> jobs;
  const int job_count = *rc::gen::inRange(1, 12);
  for (int i = 0; i < job_count; ++i) {
    const auto tasks = static_cast<uint32_t>(*rc::gen::inRange(1, nodes + 1));
    const auto devices = static_cast<uint32_t>(*rc::gen::element(1, 2, 4, 8));
    const double runtime_s = *rc::gen::inRange(60, 4000);
    jobs.push_back(
        JobOf(tasks, devices, "", 0, 0, runtime_s, runtime_s, *rc::gen::inRange(0, 1800)));
    jobs.back().priority = *rc::gen::inRange(0, 3);
  }
  RequestTrace trace{.format = "test", .source = "test", .requests = {}};
  const int bursts = *rc::gen::inRange(1, 5);
  for (int b = 0; b < bursts; ++b) {
    const int start_s = *rc::gen::inRange(0, 1800);
    const int per_s = *rc::gen::inRange(1, 60);
    const int length_s = *rc::gen::inRange(10, 300);
    for (int i = 0; i < per_s * length_s; ++i) {
      trace.requests.push_back({start_s * kUsPerSecond + i * kUsPerSecond / per_s,
                                static_cast<uint32_t>(*rc::gen::inRange(10, 4000)),
                                *rc::gen::inRange(1u, 300u)});
    }
  }
  NormalizeArrivals(trace);
  ServiceLoad load;
  // Sometimes a daily tide over up to three repetitions: the requests are then those its
  // stream makes.
  if (*rc::gen::arbitrary<bool>()) {
    LoadCurve curve{.format = "test", .source = "test", .relative_rate = {}};
    for (size_t bin = 0; bin < LoadCurve::kBins; ++bin) {
      curve.relative_rate.push_back(*rc::gen::inRange(0, 101) / 100.0);
    }
    load.curve = std::move(curve);
    load.span_us = *rc::gen::inRange<TimeUs>(1, 4) * (trace.span_us() + 1) - 1;
    load.seed = *rc::gen::inRange<uint64_t>(1, 100);
  }
  size_t requests = 0;
  for (RequestStream stream(trace, load.curve, load.span_us, load.seed); !stream.done();
       stream.Pop()) {
    ++requests;
  }
  load.service.name = "burst";
  load.service.model = *model::FindServedModel("llama-3-8b");
  load.service.devices_per_replica = static_cast<uint32_t>(*rc::gen::element(1, 2, 4));
  load.service.min_replicas = static_cast<uint32_t>(*rc::gen::inRange(0, 2));
  load.service.max_replicas = static_cast<uint32_t>(*rc::gen::inRange(1, 8));
  load.service.startup_us = *rc::gen::inRange(0, 120) * kUsPerSecond;
  load.trace = std::move(trace);
  RC_ASSERT(model::ValidateService(load.service).has_value());
  SimOptions options;
  options.paranoid = true;  // CheckInvariants after every step.
  options.series_points = 32;
  options.services.push_back(std::move(load));
  // Sometimes also a service replayed by its replica count.
  if (*rc::gen::arbitrary<bool>()) {
    ServiceLoad scheduled;
    scheduled.service.name = "scheduled";
    scheduled.service.model = *model::FindServedModel("llama-3-8b");
    scheduled.service.devices_per_replica = static_cast<uint32_t>(*rc::gen::element(1, 2, 4));
    scheduled.service.min_replicas = 0;
    scheduled.replica_schedule = {{0, *rc::gen::inRange(0u, 4u)}};
    const int changes = *rc::gen::inRange(1, 6);
    for (int c = 0; c < changes; ++c) {
      scheduled.replica_schedule.push_back(
          {scheduled.replica_schedule.back().first + *rc::gen::inRange(1, 600) * kUsPerSecond,
           *rc::gen::inRange(0u, 4u)});
    }
    scheduled.replica_schedule.back().second = 0;
    scheduled.service.max_replicas = 4;
    options.services.push_back(std::move(scheduled));
  }
  const model::Workload workload = WorkloadOf(std::move(jobs));
  for (const char* preset : {"k8s-preemption", "headroom"}) {
    const PolicyRun run = Simulate(cluster, workload, *engine::PresetPolicy(preset), options);
    RC_ASSERT(run.services.has_value());
    RC_ASSERT(run.services->requests.requests == requests);
    RC_ASSERT(run.services->requests.ttft_s.count + run.services->requests.failed == requests);
    RC_ASSERT(run.metrics.jobs_completed + run.metrics.jobs_unplaced == workload.jobs.size());
    for (const SeriesPoint& point : run.series) {
      RC_ASSERT(point.service_devices <= cluster.device_count());
    }
  }
}

}  // namespace
}  // namespace headroom::sim
