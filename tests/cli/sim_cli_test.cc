// End-to-end tests of the `headroom` binary: the command-line contract of `sim` and
// `gen-cluster` — exit status 2 and one line naming file, line and field on bad input; both
// report files on success; byte-identical report.json for the same seed.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/filter.h"
#include "engine/presets.h"
#include "engine/queue_order.h"
#include "engine/scorer.h"
#include "engine/share_scorers.h"
#include "engine/victim_selector.h"
#include "testing/traces.h"

using headroom::testing::TracePath;

namespace {

struct Outcome {
  int status = -1;
  std::string output;  // stdout and stderr together
};

std::string Binary() { return std::string(HEADROOM_BINARY_DIR) + "/bin/headroom"; }

Outcome RunHeadroom(const std::string& arguments) {
  Outcome outcome;
  const std::string command = Binary() + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return outcome;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) outcome.output.append(buffer, n);
  const int status = pclose(pipe);
  outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class SimCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("headroom-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Cluster() {
    const std::string path = (dir_ / "cluster.yaml").string();
    const Outcome generated = RunHeadroom("gen-cluster --devices 64 --nvlink-domain 16 > " + path);
    EXPECT_EQ(generated.status, 0) << generated.output;
    return path;
  }

  // 300 jobs: these tests check the command's contract, not the policies at scale (the ASan
  // build ran synthetic:small, 2,000 jobs, for minutes).
  std::string Workload() {
    const std::filesystem::path path = dir_ / "workload.yaml";
    std::ofstream(path) << "jobs: " << kWorkloadJobs << "\n";
    return "synthetic:" + path.string();
  }
  static constexpr int kWorkloadJobs = 300;

  std::filesystem::path dir_;
};

TEST_F(SimCliTest, WritesBothReportsAndTheTable) {
  const std::string cluster = Cluster();
  const Outcome run = RunHeadroom("sim --cluster " + cluster + " --workload " + Workload() +
                                  " --policy all --out " + (dir_ / "out").string());
  ASSERT_EQ(run.status, 0) << run.output;
  for (const char* policy : {"fifo", "slurm-like", "spread", "headroom"}) {
    EXPECT_NE(run.output.find(policy), std::string::npos) << policy;
  }
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ / "out/report.json"));
  EXPECT_EQ(report["cluster"]["devices"], 64);
  EXPECT_EQ(report["workload"]["format"], "synthetic");
  EXPECT_EQ(report["workload"]["jobs"], kWorkloadJobs);
  ASSERT_EQ(report["policies"].size(), 4u);
  for (const auto& policy : report["policies"]) {
    const auto& metrics = policy["metrics"];
    for (const char* key : {"allocation_rate", "fragmentation_rate", "makespan_s"}) {
      EXPECT_TRUE(metrics[key].is_number()) << key;
    }
    for (const char* key : {"mean", "p50", "p95", "p99"}) {
      EXPECT_TRUE(metrics["wait_s"][key].is_number()) << key;
      EXPECT_TRUE(metrics["jct_s"][key].is_number()) << key;
    }
    EXPECT_TRUE(metrics["bounded_slowdown"]["mean"].is_number());
    EXPECT_EQ(metrics["jobs_completed"].get<int>() + metrics["jobs_unplaced"].get<int>(),
              kWorkloadJobs);
  }
  const std::string html = ReadFile(dir_ / "out/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out/jobs-fifo.csv"));  // Only with --jobs-csv.
}

// Issue 13's acceptance command on a small scale: a request trace and a DLRM instance trace
// beside the workload under the four service policies; report.json says what was loaded and
// gives each policy the services' figures.
TEST_F(SimCliTest, ServicesBesideTheWorkloadReportTheirFiguresPerPolicy) {
  const std::string cluster = Cluster();
  const std::filesystem::path requests = dir_ / "code.csv";
  {
    std::ofstream out(requests);
    out << "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    for (int i = 0; i < 600; ++i)
      out << "2023-11-16 18:" << 10 + i / 60 << ":" << (i % 60 < 10 ? "0" : "") << i % 60
          << ".5,900,40\n";
  }
  const std::filesystem::path dlrm = dir_ / "dlrm.csv";
  std::ofstream(dlrm)
      << "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,"
         "rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,"
         "creation_time,scheduled_time,deletion_time\n"
         "i0,HN,app_0,8,8,1,1,25,25,60.0,60.0,100,100,8,,,\n"
         "i1,HN,app_0,8,8,1,1,25,25,60.0,60.0,100,100,8,300,310,1200\n"
         "i2,CN,app_0,8,8,0,0,0,0,60.0,60.0,100,100,-1,,,1800\n";
  const std::string services = "azure-llm:" + requests.string() + ",dlrm:" + dlrm.string();
  const Outcome run = RunHeadroom(
      "sim --cluster " + cluster + " --workload " + Workload() + " --services " + services +
      " --service-rate 4 --policy static-partition,k8s-preemption,kueue-like,headroom --out " +
      (dir_ / "out").string());
  ASSERT_EQ(run.status, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ / "out/report.json"));
  const auto& loaded = report["services"];
  EXPECT_EQ(loaded["traces"], services);
  EXPECT_TRUE(loaded["load_curve"].is_null());
  EXPECT_EQ(loaded["services"], 2);  // The request trace's, and app_0's.
  EXPECT_EQ(loaded["replayed_by_count"], 1);
  EXPECT_EQ(loaded["model"], "llama-2-70b");
  EXPECT_EQ(loaded["rate_scale"], 4);
  ASSERT_EQ(report["policies"].size(), 4u);
  for (const auto& policy : report["policies"]) {
    const auto& figures = policy["services"];
    SCOPED_TRACE(policy["name"].get<std::string>());
    EXPECT_EQ(figures["requests"], 4 * 600);
    for (const char* key : {"slo_attainment", "training_goodput_device_h",
                            "preemption_lost_device_h", "allocation_rate", "replica_device_h"}) {
      EXPECT_TRUE(figures[key].is_number()) << key;
    }
    for (const char* key : {"latency_s", "scale_up_to_serving_s"}) {
      EXPECT_TRUE(figures[key]["p50"].is_number()) << key;
    }
    EXPECT_TRUE(figures["latency_s"]["p99"].is_number());
    EXPECT_TRUE(figures["scale_up_to_serving_s"]["p95"].is_number());
    EXPECT_TRUE(figures["preemptions"].is_number());
  }
  const std::string html = ReadFile(dir_ / "out/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
}

TEST_F(SimCliTest, FailuresReportWhatFaultsCostEachPolicy) {
  const std::filesystem::path faults = dir_ / "fault_trace.json";
  std::ofstream(faults) << R"([{"node_id": "a", "event_time": 1, "event_type": "fault_start",
               "fault_type": {"Level": "Hardware Failure", "Class": "GPU", "Desc": "XID 79"}},
              {"node_id": "a", "event_time": 1.25, "event_type": "fault_end",
               "fault_type": {"Level": "Hardware Failure", "Class": "GPU", "Desc": "XID 79"}}])";
  const std::string spec = "stepfun:" + faults.string();
  const Outcome run = RunHeadroom("sim --cluster " + Cluster() + " --workload " + Workload() +
                                  " --failures " + spec +
                                  " --failure-rate 2 --large-job-devices 16"
                                  " --warned-share 0.5 --false-warnings 0.5"
                                  " --policy no-health,slurm-expedite,headroom --out " +
                                  (dir_ / "out").string());
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("faults under slurm-expedite: "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("warnings under headroom: "), std::string::npos) << run.output;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ / "out/report.json"));
  EXPECT_EQ(report["failures"]["trace"], spec);
  EXPECT_EQ(report["failures"]["warned_share"], 0.5);
  EXPECT_EQ(report["failures"]["warning_lead_s"], 3600);
  EXPECT_EQ(report["failures"]["false_warnings_per_day"], 0.5);
  EXPECT_EQ(report["failures"]["node_failures_per_day"], 2);
  EXPECT_EQ(report["failures"]["fault_classes"], 1);
  ASSERT_EQ(report["policies"].size(), 3u);
  for (const auto& policy : report["policies"]) {
    SCOPED_TRACE(policy["name"].get<std::string>());
    const auto& figures = policy["failures"];
    EXPECT_GT(figures["node_faults"].get<int>(), 0);
    EXPECT_GT(figures["interruptions"].get<int>(), 0);
    EXPECT_GT(figures["lost_device_h"].get<double>(), 0);
    EXPECT_GE(figures["mttr_s"].get<double>(), 600);  // At least the restart pause.
    EXPECT_DOUBLE_EQ(figures["mean_repair_s"].get<double>(), 0.25 * 86400);
    EXPECT_EQ(figures["faults_by_class"]["GPU"], figures["node_faults"]);
    EXPECT_GT(figures["warnings"].get<int>(), 0);
    EXPECT_GT(figures["false_warnings"].get<int>(), 0);
    // Only headroom (recovery.evacuate) acts on them.
    EXPECT_EQ(figures["diagnoses"].get<int>() > 0, policy["name"] == "headroom");
    EXPECT_LE(figures["diagnoses_found"].get<int>(), figures["diagnoses"].get<int>());
    EXPECT_EQ(policy["series"]["down_devices"].size(), policy["series"]["time_s"].size());
    EXPECT_EQ(policy["metrics"]["jobs_completed"], kWorkloadJobs);
  }
  EXPECT_NE(ReadFile(dir_ / "out/report.html").find("Devices out of service"), std::string::npos);
  const Outcome bad = RunHeadroom("sim --cluster " + Cluster() + " --workload " + Workload() +
                                  " --failures faults.json --out " + (dir_ / "bad").string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.output.find("--failures: expected stepfun:PATH"), std::string::npos) << bad.output;
}

TEST_F(SimCliTest, SameSeedGivesByteIdenticalReport) {
  const std::string cluster = Cluster();
  const std::string workload = Workload();
  for (const char* out : {"a", "b"}) {
    const Outcome run = RunHeadroom("sim --cluster " + cluster + " --workload " + workload +
                                    " --seed 7 --out " + (dir_ / out).string());
    ASSERT_EQ(run.status, 0) << run.output;
  }
  const std::string a = ReadFile(dir_ / "a/report.json");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, ReadFile(dir_ / "b/report.json"));
}

// An operator's own policy file runs beside a preset, under the name it gives itself, and a
// copy of a shipped preset's file gives exactly the preset's results.
TEST_F(SimCliTest, RunsAnOperatorsPolicyFileBesideThePresets) {
  const std::string cluster = Cluster();
  const std::filesystem::path mine = dir_ / "pack.yaml";
  std::ofstream(mine) << "name: pack\ndescription: most allocated, worst-fit domains\n"
                         "backfill: {mode: skip}\nplacement:\n  domain_order: worst_fit\n"
                         "  scorers: [{name: most_allocated}]\n";
  const std::filesystem::path copy = dir_ / "copy-of-headroom.yaml";
  std::filesystem::copy_file(
      std::filesystem::path(HEADROOM_SOURCE_DIR) / "configs/policies/headroom.yaml", copy);
  const Outcome run = RunHeadroom("sim --cluster " + cluster + " --workload " + Workload() +
                                  " --seed 3 --policy headroom," + mine.string() + "," +
                                  copy.string() + " --out " + (dir_ / "out").string());
  ASSERT_EQ(run.status, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ / "out/report.json"));
  ASSERT_EQ(report["policies"].size(), 3u);
  EXPECT_EQ(report["policies"][0]["name"], "headroom");
  EXPECT_EQ(report["policies"][1]["name"], "pack");
  EXPECT_EQ(report["policies"][2]["name"], "headroom");
  EXPECT_EQ(report["policies"][0]["metrics"], report["policies"][2]["metrics"]);
  EXPECT_GT(report["policies"][1]["metrics"]["jobs_completed"].get<int>(), 0);
}

// --jobs-csv writes a row per job for each policy (a second policy of the same name gets "-2"),
// and the rows agree with report.json: the jobs that started, and their mean wait.
TEST_F(SimCliTest, JobsCsvHasARowPerJobAgreeingWithTheReport) {
  const std::filesystem::path copy = dir_ / "copy-of-headroom.yaml";
  std::filesystem::copy_file(
      std::filesystem::path(HEADROOM_SOURCE_DIR) / "configs/policies/headroom.yaml", copy);
  const Outcome run =
      RunHeadroom("sim --cluster " + Cluster() + " --workload " + Workload() + " --policy fifo," +
                  copy.string() + ",headroom --jobs-csv --out " + (dir_ / "out").string());
  ASSERT_EQ(run.status, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ / "out/report.json"));
  const char* files[] = {"jobs-fifo.csv", "jobs-headroom.csv", "jobs-headroom-2.csv"};
  for (size_t p = 0; p < 3; ++p) {
    SCOPED_TRACE(files[p]);
    std::istringstream csv(ReadFile(dir_ / "out" / files[p]));
    std::string line;
    ASSERT_TRUE(std::getline(csv, line));
    EXPECT_EQ(line.rfind("job,name,tenant,", 0), 0u) << line;
    int rows = 0;
    int started = 0;
    double wait_sum = 0;
    while (std::getline(csv, line)) {
      ++rows;
      std::vector<std::string> fields;  // Synthetic names hold no commas.
      std::istringstream row(line);
      for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
      ASSERT_EQ(fields.size(), 12u) << line;
      if (fields[8].empty()) continue;
      ++started;
      wait_sum += std::stod(fields[8]);
    }
    const nlohmann::json& metrics = report["policies"][p]["metrics"];
    EXPECT_EQ(rows, kWorkloadJobs);
    EXPECT_EQ(started, kWorkloadJobs - metrics["jobs_unplaced"].get<int>());
    ASSERT_GT(started, 0);
    // report.json keeps six significant digits, the rows milliseconds.
    const double mean = metrics["wait_s"]["mean"].get<double>();
    EXPECT_NEAR(wait_sum / started, mean, std::max(0.01, 1e-5 * mean));
  }
}

// --queues gives every policy the queues: report.json has each queue's guarantee, limit, waits
// and usage (never above its guarantee plus its borrowing limit), report.html plots the usage.
TEST_F(SimCliTest, QueuesFileGivesEveryPolicyItsQueuesAndTheirMetrics) {
  const std::string cluster = Cluster();
  const std::filesystem::path queues = dir_ / "queues.yaml";
  std::ofstream(queues) << "queues:\n"
                           "  - {name: ab, tenants: [team-a, team-b], guaranteed: {devices: 32},"
                           " borrowing_limit: {devices: 8}}\n"
                           "  - {name: cd, tenants: [team-c, team-d], guaranteed: {devices: 32}}\n";
  const Outcome run =
      RunHeadroom("sim --cluster " + cluster + " --workload " + Workload() +
                  " --policy k8s-preemption,kueue-like,tiresias,headroom --queues " +
                  queues.string() + " --out " + (dir_ / "out").string());
  ASSERT_EQ(run.status, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ / "out/report.json"));
  ASSERT_EQ(report["policies"].size(), 4u);
  EXPECT_EQ(report["policies"][0]["name"], "k8s-preemption");
  EXPECT_EQ(report["policies"][1]["name"], "kueue-like");
  EXPECT_EQ(report["policies"][2]["name"], "tiresias");
  for (const auto& policy : report["policies"]) {
    // The baselines preempt as shipped; headroom's preset does not.
    EXPECT_TRUE(policy["metrics"]["preemptions"].is_number()) << policy["name"];
    EXPECT_GE(policy["metrics"]["preemption_lost_device_hours"].get<double>(), 0.0);
    ASSERT_EQ(policy["queues"].size(), 3u) << policy["name"];  // ab, cd, (unqueued).
    const auto& ab = policy["queues"][0];
    EXPECT_EQ(ab["name"], "ab");
    EXPECT_EQ(ab["guaranteed_devices"], 32);
    EXPECT_EQ(ab["limit_devices"], 40);
    EXPECT_LE(ab["peak_usage_devices"].get<double>(), 40.0);
    EXPECT_GT(ab["jobs_started"].get<int>(), 0);
    EXPECT_TRUE(ab["wait_s"]["mean"].is_number());
    EXPECT_EQ(policy["queues"][2]["jobs_started"], 0);
    EXPECT_EQ(policy["series"]["queue_usage_devices"]["ab"].size(),
              policy["series"]["time_s"].size());
    // Shares by guarantee, 32 each, and 1 for (unqueued), of 64 devices.
    EXPECT_NEAR(ab["fair_share"].get<double>(), 32.0 / 65, 1e-6);  // report.json: 6 digits.
    EXPECT_NEAR(ab["fair_share_devices"].get<double>(), 64.0 * 32 / 65, 1e-4);
    const auto& usage_share = policy["series"]["queue_usage_share"];
    ASSERT_EQ(usage_share["ab"].size(), policy["series"]["time_s"].size());
    for (size_t i = 0; i < usage_share["ab"].size(); ++i) {
      // U of ab and cd are shares of the same parent's usage ((unqueued) runs nothing).
      const double sum = usage_share["ab"][i].get<double>() + usage_share["cd"][i].get<double>();
      EXPECT_TRUE(sum == 0 || std::abs(sum - 1) < 1e-5) << sum;
    }
    int started = 0;
    for (const auto& queue : policy["queues"]) started += queue["jobs_started"].get<int>();
    EXPECT_EQ(started, kWorkloadJobs - policy["metrics"]["jobs_unplaced"].get<int>());
  }
  EXPECT_NE(ReadFile(dir_ / "out/report.html").find("Queue usage over time (kueue-like)"),
            std::string::npos);
  EXPECT_NE(ReadFile(dir_ / "out/report.html").find("Queue usage against fair share (headroom)"),
            std::string::npos);
  std::ofstream(queues) << "queues:\n  - {name: x, lending_limit: {devices: 2}}\n";
  const Outcome bad = RunHeadroom("sim --cluster " + cluster + " --workload " + Workload() +
                                  " --queues " + queues.string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.output.find(queues.string() + ":2: field 'queues': queue 'x': devices: a lending "
                                              "limit of 2 devices is above the guarantee"),
            std::string::npos)
      << bad.output;
}

// Quotas by device model in a replay: the shipped example on the small mixed building; every
// queue's use of each model stays within its limit, and report.json lists it per model.
TEST_F(SimCliTest, QueuesByDeviceModelKeepEachModelsLimit) {
  const std::string source = HEADROOM_SOURCE_DIR;
  const Outcome run =
      RunHeadroom("sim --cluster " + source + "/configs/small.yaml --workload " + Workload() +
                  " --load 0.9 --preemption on --policy kueue-like,headroom --queues " + source +
                  "/configs/queues/small-by-model.yaml --out " + (dir_ / "out").string());
  ASSERT_EQ(run.status, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ / "out/report.json"));
  ASSERT_EQ(report["policies"].size(), 2u);
  for (const auto& policy : report["policies"]) {
    const auto& team_a = policy["queues"][0];
    ASSERT_EQ(team_a["name"], "team-a");
    ASSERT_EQ(team_a["device_models"].size(), 2u) << team_a.dump();
    const auto& h100 = team_a["device_models"][1];
    EXPECT_EQ(h100["model"], "H100");
    EXPECT_EQ(h100["guaranteed_devices"], 8);
    EXPECT_EQ(h100["limit_devices"], 12);
    EXPECT_LE(h100["peak_usage_devices"].get<double>(), 12.0);
    EXPECT_GT(h100["peak_usage_devices"].get<double>(), 0.0);
    EXPECT_TRUE(team_a["device_models"][0]["limit_devices"].is_null());  // A100: no limit.
    for (const auto& queue : policy["queues"]) {
      for (const auto& model : queue["device_models"]) {
        EXPECT_LE(model["peak_usage_devices"].get<double>(), model["model"] == "H100" ? 16 : 8);
      }
    }
  }
}

// `headroom policy`: list names every registered piece, show prints a preset's file as shipped,
// check reads presets and files as headroomd --policy would.
TEST_F(SimCliTest, PolicyListShowAndCheck) {
  const Outcome list = RunHeadroom("policy list");
  ASSERT_EQ(list.status, 0) << list.output;
  for (const auto& names :
       {headroom::engine::Filters().Names(), headroom::engine::Scorers().Names(),
        headroom::engine::QueueOrders().Names(), headroom::engine::VictimSelectors().Names()}) {
    for (std::string_view name : names) {
      EXPECT_NE(list.output.find("  " + std::string(name) + " "), std::string::npos) << name;
    }
  }
  EXPECT_NE(list.output.find("share scorers (placement.share.scorer):"), std::string::npos);
  for (std::string_view name : headroom::engine::ShippedPolicyNames()) {
    EXPECT_NE(list.output.find("  " + std::string(name) + " "), std::string::npos) << name;
  }
  for (const auto& [name, summary] : headroom::engine::SharePolicySummaries()) {
    EXPECT_NE(list.output.find("  " + std::string(name) + " "), std::string::npos) << name;
  }
  const Outcome show = RunHeadroom("policy show slurm-like");
  ASSERT_EQ(show.status, 0) << show.output;
  EXPECT_EQ(show.output, ReadFile(std::filesystem::path(HEADROOM_SOURCE_DIR) /
                                  "configs/policies/slurm-like.yaml"));
  EXPECT_EQ(RunHeadroom("policy show nosuch").status, 2);

  const std::filesystem::path good = dir_ / "good.yaml";
  std::ofstream(good) << "name: good\n";
  const std::filesystem::path bad = dir_ / "bad.yaml";
  std::ofstream(bad) << "name: bad\nbackfill:\n  mode: eager\n";
  const Outcome ok = RunHeadroom("policy check fifo " + good.string());
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("good.yaml: ok, policy 'good'"), std::string::npos) << ok.output;
  const Outcome broken = RunHeadroom("policy check " + good.string() + " " + bad.string());
  EXPECT_EQ(broken.status, 2) << broken.output;
  EXPECT_NE(broken.output.find("bad.yaml:3: field 'backfill.mode': expected one of none, skip, "
                               "easy, got \"eager\""),
            std::string::npos)
      << broken.output;
}

TEST_F(SimCliTest, BadInputExitsWithStatusTwoAndOneLine) {
  const std::string cluster = Cluster();
  const std::filesystem::path bad_yaml = dir_ / "bad.yaml";
  std::ofstream(bad_yaml) << "levels: [cluster, rack]\ntopology:\n  - name: r0\n    nodes: [{name: "
                             "n0, cpu_milli: abc}]\n";
  const std::filesystem::path bad_policy = dir_ / "bad-policy.yaml";
  std::ofstream(bad_policy) << "name: mine\nplacement:\n  scorers:\n    - {name: bset_fit}\n";
  const std::filesystem::path bad_csv = dir_ / "bad.csv";
  std::ofstream(bad_csv) << "job_id,submission_time,duration,num_gpu\nj1,0,100,1\nj2,5,oops,1\n";
  struct Case {
    std::string arguments;
    std::string expected;  // A piece of the message.
  };
  const Case cases[] = {
      {"sim --cluster " + cluster + " --workload synthetic:small --bogus-flag", "bogus"},
      {"sim --cluster /nonexistent.yaml --workload synthetic:small", "/nonexistent.yaml"},
      {"sim --cluster " + bad_yaml.string() + " --workload synthetic:small", "bad.yaml:4"},
      {"sim --cluster " + cluster + " --workload itp:" + bad_csv.string(), "bad.csv:3"},
      {"sim --cluster " + cluster + " --workload nosuch:x", "nosuch"},
      {"sim --cluster " + cluster + " --workload synthetic:small --policy nosuch", "nosuch"},
      {"sim --cluster " + cluster + " --workload synthetic:small --policy " + bad_policy.string(),
       "bad-policy.yaml:4: field 'placement.scorers[0].name': expected one of best_fit"},
      {"sim --cluster " + cluster + " --workload synthetic:small --policy fifo,/nonexistent.yaml",
       "/nonexistent.yaml"},
      {"gen-cluster --devices 7 --devices-per-node 8", "devices"},
      {"sim --cluster " + cluster + " --workload synthetic:small --incident cooling:nosuch:0:60:0",
       "field 'name': expected a cooling zone"},
  };
  for (const Case& c : cases) {
    const Outcome run = RunHeadroom(c.arguments);
    EXPECT_EQ(run.status, 2) << c.arguments << "\n" << run.output;
    EXPECT_NE(run.output.find(c.expected), std::string::npos) << c.arguments << "\n" << run.output;
    // One line: the message ends with the only newline.
    EXPECT_EQ(run.output.find('\n'), run.output.size() - 1) << c.arguments << "\n" << run.output;
  }
}

TEST_F(SimCliTest, ReplaysThePhillyTraceOnItsMachineList) {
  const std::string machines = TracePath("microsoft-philly/cluster_machine_list");
  const std::string jobs = TracePath("microsoft-philly/philly_data_training.csv");
  HEADROOM_SKIP_IF_MISSING(machines);
  HEADROOM_SKIP_IF_MISSING(jobs);
  const Outcome run =
      RunHeadroom("sim --cluster philly:" + machines + " --workload philly:" + jobs +
                  " --policy fifo,headroom --out " + (dir_ / "philly").string());
  ASSERT_EQ(run.status, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ / "philly/report.json"));
  EXPECT_EQ(report["cluster"]["devices"], 2490);
  EXPECT_EQ(report["workload"]["jobs"], 15000);
  for (const auto& policy : report["policies"]) {
    EXPECT_EQ(policy["metrics"]["jobs_completed"], 15000) << policy["name"];
  }
}

}  // namespace
