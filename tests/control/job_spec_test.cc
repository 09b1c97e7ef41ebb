// Job specs: YAML and JSON read the same way; errors name the field and the line; the
// canonical JSON reads back to an equal spec.
#include "control/job_spec.h"

#include <gtest/gtest.h>

namespace headroom::control {
namespace {

constexpr const char* kFullYaml = R"(apiVersion: headroom/v1
kind: Job
metadata:
  name: llama-pretrain
spec:
  tenant: team-a
  priority: 10
  tasks: 4
  timeLimit: 2h
  runtime: 90m
  checkpointInterval: 30m
  checkpointCost: 10s
  command: ["python", "train.py"]
  env: {MASTER_PORT: "29500"}
  resources:
    cpu: "500m"
    memory: 128Gi
  devices:
    requests:
    - name: gpus
      deviceClassName: gpu
      count: 8
      selectors:
      - cel: {expression: 'model == "H100"'}
  topology:
    required: rack
    preferred: nvlink
)";

TEST(ControlJobSpec, ParsesTheDocumentedExample) {
  auto spec = ParseJobSpec(kFullYaml);
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->name, "llama-pretrain");
  EXPECT_EQ(spec->tenant, "team-a");
  EXPECT_EQ(spec->priority, 10);
  EXPECT_EQ(spec->tasks, 4u);
  EXPECT_EQ(spec->time_limit_us, 2 * 3600 * kUsPerSecond);
  EXPECT_EQ(spec->runtime_us, 90 * 60 * kUsPerSecond);
  EXPECT_EQ(spec->checkpoint_interval_us, 30 * 60 * kUsPerSecond);
  EXPECT_EQ(spec->checkpoint_cost_us, 10 * kUsPerSecond);
  EXPECT_EQ(spec->command, (std::vector<std::string>{"python", "train.py"}));
  ASSERT_EQ(spec->env.size(), 1u);
  EXPECT_EQ(spec->env[0].second, "29500");
  EXPECT_EQ(spec->cpu_milli, 500);
  EXPECT_EQ(spec->memory_mib, 128 * 1024);
  EXPECT_EQ(spec->devices, 8u);
  EXPECT_EQ(spec->selector.text(), "model == \"H100\"");
  const model::Job job = ToModelJob(*spec, "team-a", 7);
  EXPECT_EQ(job.task_count, 4u);
  EXPECT_EQ(job.total_milli(), 32'000u);
  EXPECT_EQ(job.runtime_estimate_us, spec->time_limit_us);
  EXPECT_EQ(job.checkpoint_interval_us, 30 * 60 * kUsPerSecond);
  EXPECT_EQ(job.checkpoint_cost_us, 10 * kUsPerSecond);
  EXPECT_EQ(job.required_topology_level, "rack");
  EXPECT_EQ(job.preferred_topology_level, "nvlink");
}

TEST(ControlJobSpec, TopologyLevelsAreNamesInAMap) {
  auto bad_name = ParseJobSpec("spec:\n  timeLimit: 1h\n  topology:\n    required: [rack]\n");
  ASSERT_FALSE(bad_name.has_value());
  EXPECT_NE(bad_name.error().message.find("request body:4: field 'spec.topology.required'"),
            std::string::npos)
      << bad_name.error().message;
  auto unknown = ParseJobSpec("spec:\n  timeLimit: 1h\n  topology: {segment: 4}\n");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("'spec.topology.segment'"), std::string::npos)
      << unknown.error().message;
  auto none = ParseJobSpec("spec:\n  timeLimit: 1h\n  topology: {}\n");
  ASSERT_TRUE(none.has_value()) << none.error().message;
  EXPECT_TRUE(none->required_topology_level.empty());
  EXPECT_EQ(JobSpecToJson(*none).find("topology"), std::string::npos);
}

TEST(ControlJobSpec, CanonicalJsonReadsBackEqual) {
  auto spec = ParseJobSpec(kFullYaml);
  ASSERT_TRUE(spec.has_value());
  const std::string json = JobSpecToJson(*spec);
  auto again = ParseJobSpec(json);
  ASSERT_TRUE(again.has_value()) << again.error().message << "\n" << json;
  EXPECT_TRUE(*again == *spec) << json;
  EXPECT_EQ(JobSpecToJson(*again), json);
  const std::optional<JobSpec> canonical = ReadCanonicalJobSpec(json);
  ASSERT_TRUE(canonical.has_value()) << json;
  EXPECT_TRUE(*canonical == *spec) << json;
}

TEST(ControlJobSpec, ErrorsNameFieldAndLine) {
  const char* yaml = "spec:\n  timeLimit: 1h\n  devices:\n    requests:\n    - count: eight\n";
  auto spec = ParseJobSpec(yaml);
  ASSERT_FALSE(spec.has_value());
  EXPECT_EQ(spec.error().message,
            "request body:5: field 'spec.devices.requests[0].count': expected an integer in [1, "
            "1024], got \"eight\"");

  auto json = ParseJobSpec("{\"spec\": {\"timeLimit\": \"soon\"}}");
  ASSERT_FALSE(json.has_value());
  EXPECT_NE(json.error().message.find("field 'spec.timeLimit'"), std::string::npos)
      << json.error().message;

  auto missing = ParseJobSpec("spec:\n  tasks: 2\n");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("'spec.timeLimit'"), std::string::npos);

  auto unknown = ParseJobSpec("spec:\n  timeLimit: 1h\n  gpus: 8\n");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("request body:3: field 'spec.gpus'"), std::string::npos)
      << unknown.error().message;

  auto interval = ParseJobSpec("spec:\n  timeLimit: 1h\n  checkpointInterval: often\n");
  ASSERT_FALSE(interval.has_value());
  EXPECT_NE(interval.error().message.find("request body:3: field 'spec.checkpointInterval'"),
            std::string::npos)
      << interval.error().message;
  auto cost = ParseJobSpec("spec:\n  timeLimit: 1h\n  checkpointCost: 0\n");
  ASSERT_FALSE(cost.has_value());
  EXPECT_NE(cost.error().message.find("request body:3: field 'spec.checkpointCost': expected a "
                                      "duration such as 90s"),
            std::string::npos)
      << cost.error().message;

  auto syntax = ParseJobSpec("spec: [\n");
  ASSERT_FALSE(syntax.has_value());
  EXPECT_NE(syntax.error().message.find("YAML syntax error"), std::string::npos);
}

TEST(ControlJobSpec, ErrorsStayOnOneLine) {
  // yaml-cpp quotes a bad escape's byte as it is; the message must still be one line (found by
  // fuzz/job_spec_fuzz.cc, fuzz/corpus/job_spec/regression-escape-newline).
  const std::string input("a\xe1 c:\0\n\0\x10\0\0\0\0\0\0\0", 16);
  auto spec = ParseJobSpec(input);
  ASSERT_FALSE(spec.has_value());
  EXPECT_EQ(spec.error().message.find('\n'), std::string::npos) << spec.error().message;
  EXPECT_EQ(spec.error().message.rfind("request body:", 0), 0u);

  // A key holding a control byte lands in the field path of the message; it is escaped there
  // too (fuzz/corpus/job_spec/regression-control-byte-in-key).
  auto key = ParseJobSpec("apiVersion: headroom/v1\n\"ki\\nd\": Service\n");
  ASSERT_FALSE(key.has_value());
  EXPECT_EQ(key.error().message.find('\n'), std::string::npos) << key.error().message;
  EXPECT_NE(key.error().message.find("field 'ki\\nd'"), std::string::npos) << key.error().message;
}

TEST(ControlJobSpec, SharesNeedOneDeviceAndSelectorsMustParse) {
  auto share = ParseJobSpec(
      "spec:\n  timeLimit: 30m\n  devices:\n    requests:\n    - {count: 2, share: 500}\n");
  ASSERT_FALSE(share.has_value());
  EXPECT_NE(share.error().message.find("spec.devices.requests[0].share"), std::string::npos);

  auto ok = ParseJobSpec(
      "spec:\n  timeLimit: 30m\n  devices:\n    requests:\n    - {count: 1, share: 250}\n");
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  EXPECT_EQ(ToModelJob(*ok, "t", 0).total_milli(), 250u);

  auto selector = ParseJobSpec(
      "spec:\n  timeLimit: 30m\n  devices:\n    requests:\n    - count: 1\n      selectors:\n"
      "      - cel: {expression: 'model =='}\n");
  ASSERT_FALSE(selector.has_value());
  EXPECT_NE(selector.error().message.find("request body:7: field "
                                          "'spec.devices.requests[0].selectors[0].cel.expression'"),
            std::string::npos)
      << selector.error().message;
}

TEST(ControlJobSpec, ARequestMayAcceptDegradedDevices) {
  auto accepting = ParseJobSpec(
      "spec:\n  timeLimit: 30m\n  devices:\n    requests:\n    - {count: 2, acceptDegraded: "
      "true}\n");
  ASSERT_TRUE(accepting.has_value()) << accepting.error().message;
  EXPECT_TRUE(accepting->accept_degraded);
  EXPECT_TRUE(ToModelJob(*accepting, "t", 0).accepts_degraded);
  const std::string canonical = JobSpecToJson(*accepting);
  EXPECT_NE(canonical.find(R"("acceptDegraded":true)"), std::string::npos) << canonical;
  auto read_back = ReadCanonicalJobSpec(canonical);
  ASSERT_TRUE(read_back.has_value());
  EXPECT_EQ(*read_back, *accepting);

  auto plain =
      ParseJobSpec("spec:\n  timeLimit: 30m\n  devices:\n    requests:\n    - {count: 2}\n");
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(ToModelJob(*plain, "t", 0).accepts_degraded);
  EXPECT_EQ(JobSpecToJson(*plain).find("acceptDegraded"), std::string::npos);

  auto bad = ParseJobSpec(
      "spec:\n  timeLimit: 30m\n  devices:\n    requests:\n    - {count: 2, acceptDegraded: "
      "yes}\n");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(
      bad.error().message.find("request body:5: field 'spec.devices.requests[0].acceptDegraded'"
                               ": expected true or false, got \"yes\""),
      std::string::npos)
      << bad.error().message;
}

TEST(ControlJobSpec, AnElasticRangeIsMinTasksUpToTasksInSteps) {
  auto spec =
      ParseJobSpec("spec:\n  tasks: 8\n  elastic: {minTasks: 2, step: 3}\n  timeLimit: 1h\n");
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->min_tasks, 2u);
  EXPECT_EQ(spec->task_step, 3u);
  const model::Job job = ToModelJob(*spec, "t", 0);
  EXPECT_TRUE(job.elastic());
  EXPECT_TRUE(job.AllowsWidth(5));
  EXPECT_FALSE(job.AllowsWidth(4));
  // Two tasks take four times as long as eight, and their time limit stretches with the work.
  EXPECT_EQ(TimeLimitAtWidth(*spec, 2), 4 * 3600 * kUsPerSecond);
  EXPECT_EQ(TimeLimitAtWidth(*spec, 8), 3600 * kUsPerSecond);
  auto canonical = ReadCanonicalJobSpec(JobSpecToJson(*spec));
  ASSERT_TRUE(canonical.has_value()) << JobSpecToJson(*spec);
  EXPECT_TRUE(*canonical == *spec);

  // The step defaults to one; the full width alone is a rigid job.
  auto one = ParseJobSpec("spec:\n  tasks: 4\n  elastic: {minTasks: 1}\n  timeLimit: 1h\n");
  ASSERT_TRUE(one.has_value()) << one.error().message;
  EXPECT_EQ(one->task_step, 1u);
  auto rigid = ParseJobSpec("spec:\n  tasks: 4\n  elastic: {minTasks: 4}\n  timeLimit: 1h\n");
  ASSERT_TRUE(rigid.has_value()) << rigid.error().message;
  EXPECT_EQ(rigid->min_tasks, 0u);
  EXPECT_FALSE(ToModelJob(*rigid, "t", 0).elastic());

  const auto error_of = [](const std::string& yaml) {
    auto bad = ParseJobSpec(yaml);
    EXPECT_FALSE(bad.has_value()) << yaml;
    return bad ? std::string() : bad.error().message;
  };
  EXPECT_NE(
      error_of("spec:\n  tasks: 4\n  elastic: {minTasks: 5}\n  timeLimit: 1h\n")
          .find("request body:3: field 'spec.elastic.minTasks': expected an integer in [1, 4]"),
      std::string::npos);
  EXPECT_NE(
      error_of("spec:\n  tasks: 8\n  elastic: {minTasks: 1, step: 2}\n  timeLimit: 1h\n")
          .find("field 'spec.elastic.step': expected a step that divides tasks - minTasks (7)"),
      std::string::npos);
  EXPECT_NE(error_of("spec:\n  tasks: 8\n  elastic: {step: 2}\n  timeLimit: 1h\n")
                .find("'spec.elastic.minTasks'"),
            std::string::npos);
  EXPECT_NE(error_of("kind: Service\nspec:\n  replicas: 2\n  elastic: {minTasks: 1}\n"
                     "  timeLimit: 1h\n")
                .find("field 'spec.elastic': expected no elastic range for kind Service"),
            std::string::npos);
}

TEST(ControlJobSpec, ServicesUseReplicas) {
  auto service = ParseJobSpec("kind: Service\nspec:\n  replicas: 3\n  timeLimit: 1d\n");
  ASSERT_TRUE(service.has_value()) << service.error().message;
  EXPECT_EQ(service->kind, JobKind::kService);
  EXPECT_EQ(service->replicas, 3u);
  auto tasks = ParseJobSpec("kind: Service\nspec:\n  tasks: 3\n  timeLimit: 1d\n");
  ASSERT_FALSE(tasks.has_value());
  EXPECT_NE(tasks.error().message.find("spec.tasks"), std::string::npos);
}

TEST(ControlJobSpec, AServiceMayAutoscaleWithinItsBounds) {
  auto service = ParseJobSpec(R"(kind: Service
spec:
  replicas: 2
  autoscaling:
    minReplicas: 1
    maxReplicas: 16
    requestsPerReplica: 2.5
    targetUtilization: 60
    scaleDownWindow: 2m
    forecast: 90s
    prometheusQuery: sum(rate(vllm:request_success_total{model_name="chat"}[1m]))
  timeLimit: 1d
)");
  ASSERT_TRUE(service.has_value()) << service.error().message;
  ASSERT_TRUE(service->autoscaling.has_value());
  EXPECT_EQ(service->autoscaling,
            (ServiceAutoscaling{.min_replicas = 1,
                                .max_replicas = 16,
                                .capacity_milli_per_s = 2500,
                                .target_utilization_percent = 60,
                                .scale_down_window_us = 120 * kUsPerSecond,
                                .forecast_us = 90 * kUsPerSecond,
                                .prometheus_query = "sum(rate(vllm:request_success_total{"
                                                    "model_name=\"chat\"}[1m]))"}));
  // The canonical form reads back equal, through both readers.
  const std::string json = JobSpecToJson(*service);
  auto again = ParseJobSpec(json);
  ASSERT_TRUE(again.has_value()) << again.error().message << "\n" << json;
  EXPECT_TRUE(*again == *service) << json;
  const std::optional<JobSpec> canonical = ReadCanonicalJobSpec(json);
  ASSERT_TRUE(canonical.has_value()) << json;
  EXPECT_TRUE(*canonical == *service) << json;

  // The defaults: a 70% target, a 5-minute scale-down window, no forecast.
  auto defaults = ParseJobSpec(
      "kind: Service\nspec:\n  replicas: 1\n  autoscaling: {maxReplicas: 4, requestsPerReplica: "
      "3}\n  timeLimit: 1d\n");
  ASSERT_TRUE(defaults.has_value()) << defaults.error().message;
  EXPECT_EQ(defaults->autoscaling->min_replicas, 1u);
  EXPECT_EQ(defaults->autoscaling->target_utilization_percent, 70u);
  EXPECT_EQ(defaults->autoscaling->scale_down_window_us, 300 * kUsPerSecond);
  EXPECT_EQ(defaults->autoscaling->forecast_us, 0);

  const auto error_of = [](const std::string& autoscaling, const std::string& kind = "Service") {
    auto spec =
        ParseJobSpec("kind: " + kind + "\nspec:\n  replicas: 1\n  autoscaling: " + autoscaling +
                     "\n  timeLimit: 1d\n");
    return spec ? std::string("parsed") : spec.error().message;
  };
  EXPECT_EQ(error_of("{maxReplicas: 4, requestsPerReplica: fast}"),
            "request body:4: field 'spec.autoscaling.requestsPerReplica': expected requests/s > 0 "
            "with at most 3 decimals, such as 2.5, got \"fast\"");
  EXPECT_NE(error_of("{maxReplicas: 4, requestsPerReplica: 0}").find("requestsPerReplica"),
            std::string::npos);
  EXPECT_NE(error_of("{maxReplicas: 4, requestsPerReplica: 0.0001}").find("requestsPerReplica"),
            std::string::npos);
  EXPECT_EQ(error_of("{minReplicas: 5, maxReplicas: 4, requestsPerReplica: 1}"),
            "request body:4: field 'spec.autoscaling.maxReplicas': expected an integer in [5, "
            "10000] (at least minReplicas and 1), got \"4\"");
  EXPECT_NE(error_of("{requestsPerReplica: 1}").find("'spec.autoscaling.maxReplicas'"),
            std::string::npos);
  EXPECT_NE(error_of("{maxReplicas: 4, requestsPerReplica: 1, targetUtilization: 120}")
                .find("expected a percentage in [1, 100]"),
            std::string::npos);
  EXPECT_NE(error_of("{maxReplicas: 4, requestsPerReplica: 1, burst: 2}")
                .find("'spec.autoscaling.burst'"),
            std::string::npos);
  // A Job has no replicas to scale; its replicas are refused first, so try it alone.
  auto job = ParseJobSpec(
      "spec:\n  autoscaling: {maxReplicas: 2, requestsPerReplica: 1}\n"
      "  timeLimit: 1h\n");
  ASSERT_FALSE(job.has_value());
  EXPECT_NE(job.error().message.find("expected no autoscaling for kind Job"), std::string::npos)
      << job.error().message;
}

TEST(ControlJobSpec, Quantities) {
  EXPECT_EQ(ParseDuration("90s").value(), 90 * kUsPerSecond);
  EXPECT_EQ(ParseDuration("120").value(), 120 * kUsPerSecond);
  EXPECT_FALSE(ParseDuration("0s").has_value());
  EXPECT_FALSE(ParseDuration("-5m").has_value());
  EXPECT_FALSE(ParseDuration("1w").has_value());
  EXPECT_EQ(ParseCpuMilli("16").value(), 16'000);
  EXPECT_EQ(ParseCpuMilli("0.25").value(), 250);
  EXPECT_FALSE(ParseCpuMilli("abc").has_value());
  EXPECT_EQ(ParseMemoryMib("1.5Gi").value(), 1536);
  EXPECT_FALSE(ParseMemoryMib("128GB").has_value());
}

}  // namespace
}  // namespace headroom::control
