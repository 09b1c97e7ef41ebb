// `headroom submit` flags → the exact job spec JSON (docs/api.md "Jobs"), checked through the
// real binary with --dry-run (no server): sbatch-style durations and sizes are normalised,
// --gpu-type becomes a selector, bad combinations exit 2 with one line naming the flag.
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/client_test_support.h"

namespace headroom::testing {
namespace {

using nlohmann::json;

json DryRun(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"submit", "--dry-run"};
  args.insert(args.end(), flags.begin(), flags.end());
  const CommandOutcome run = RunHeadroom(args);
  EXPECT_EQ(run.status, 0) << run.err;
  return json::parse(run.out, nullptr, false);
}

TEST(ClientSubmitFlags, FullFlagSetBecomesTheExactSpec) {
  const json spec = DryRun({"--gpus",     "32",
                            "--gpu-type", "H100",
                            "--ntasks",   "4",
                            "--time",     "2h",
                            "--priority", "10",
                            "--tenant",   "team-a",
                            "--cpus",     "16",
                            "--mem",      "128G",
                            "--name",     "llama-pretrain",
                            "--env",      "MASTER_PORT=29500",
                            "--",         "python",
                            "train.py",   "--lr",
                            "3e-4"});
  const json expected = json::parse(R"({
    "apiVersion": "headroom/v1", "kind": "Job", "metadata": {"name": "llama-pretrain"},
    "spec": {"tenant": "team-a", "priority": 10, "tasks": 4, "timeLimit": 7200,
             "command": ["python", "train.py", "--lr", "3e-4"],
             "env": {"MASTER_PORT": "29500"},
             "resources": {"cpu": "16", "memory": "128Gi"},
             "devices": {"requests": [{"name": "gpus", "deviceClassName": "gpu", "count": 8,
                         "selectors": [{"cel": {"expression": "model == \"H100\""}}]}]}}})");
  EXPECT_EQ(spec, expected) << spec.dump(2);
}

TEST(ClientSubmitFlags, MinimalJobDefaultsToOneTaskAndNamesItAfterTheProgram) {
  const json spec = DryRun({"--gpus", "1", "--time", "90m", "--", "/opt/bin/serve.sh"});
  const json expected = json::parse(R"({
    "apiVersion": "headroom/v1", "kind": "Job", "metadata": {"name": "serve.sh"},
    "spec": {"tasks": 1, "timeLimit": 5400, "command": ["/opt/bin/serve.sh"],
             "devices": {"requests": [{"name": "gpus", "deviceClassName": "gpu", "count": 1}]}}})");
  EXPECT_EQ(spec, expected) << spec.dump(2);
}

TEST(ClientSubmitFlags, ShareAsksForOneDeviceWithAShare) {
  const json spec =
      DryRun({"--share", "250", "--time", "00:30:00", "--nodes", "2", "--name", "nb"});
  const json& request = spec["spec"]["devices"]["requests"][0];
  EXPECT_EQ(request["count"], 1);
  EXPECT_EQ(request["share"], 250);
  EXPECT_EQ(spec["spec"]["timeLimit"], 1800);
  EXPECT_EQ(spec["spec"]["tasks"], 2);  // A task per node.
  EXPECT_FALSE(request.contains("acceptDegraded"));
}

TEST(ClientSubmitFlags, AcceptDegradedGoesIntoTheDeviceRequest) {
  const json spec = DryRun({"--gpus-per-task", "8", "--accept-degraded", "--time", "1h"});
  EXPECT_EQ(spec["spec"]["devices"]["requests"][0]["acceptDegraded"], true);
}

TEST(ClientSubmitFlags, CheckpointCostGoesIntoTheSpecInSeconds) {
  EXPECT_EQ(
      DryRun({"--gpus", "1", "--checkpoint-cost", "2m", "--time", "1h"})["spec"]["checkpointCost"],
      120);
  EXPECT_FALSE(DryRun({"--gpus", "1", "--time", "1h"})["spec"].contains("checkpointCost"));
}

// sbatch's meanings: -G is the job's total, -N nodes with a task each, -n tasks.
TEST(ClientSubmitFlags, GpuFlagsSplitIntoTasksAsSbatchDoes) {
  struct Case {
    std::vector<std::string> flags;
    int tasks;
    int gpus_per_task;
  };
  const std::vector<Case> cases = {
      {{"-G", "64", "--gpus-per-node", "8"}, 8, 8},
      {{"-N", "4", "--gpus-per-node", "8"}, 4, 8},
      {{"-n", "16", "--gpus-per-task", "1"}, 16, 1},
      {{"-G", "16", "-N", "2"}, 2, 8},
      {{"-G", "12", "-n", "3"}, 3, 4},
      {{"-G", "64", "-N", "8", "--gpus-per-node", "8"}, 8, 8},
      {{"-G", "1"}, 1, 1},
      {{"--gpus-per-task", "4"}, 1, 4},
  };
  for (const Case& c : cases) {
    std::vector<std::string> flags = c.flags;
    flags.insert(flags.end(), {"--time", "1h", "--name", "g"});
    const json spec = DryRun(flags);
    EXPECT_EQ(spec["spec"]["tasks"], c.tasks) << fmt::format("{}", fmt::join(c.flags, " "));
    EXPECT_EQ(spec["spec"]["devices"]["requests"][0]["count"], c.gpus_per_task)
        << fmt::format("{}", fmt::join(c.flags, " "));
  }
  const json cpu_only = DryRun({"-N", "3", "--time", "1h", "--name", "c"});
  EXPECT_EQ(cpu_only["spec"]["tasks"], 3);
  EXPECT_FALSE(cpu_only["spec"].contains("devices"));
}

TEST(ClientSubmitFlags, TopologyLevelsBecomeTheSpecsTopology) {
  const json spec = DryRun({"-N", "8", "--gpus-per-node", "8", "--topology-required", "rack",
                            "--topology-preferred", "nvlink", "--time", "1h", "--name", "t"});
  EXPECT_EQ(spec["spec"]["topology"],
            json::parse(R"({"required": "rack", "preferred": "nvlink"})"));
  const json plain = DryRun({"-N", "2", "--time", "1h", "--name", "p"});
  EXPECT_FALSE(plain["spec"].contains("topology"));
}

TEST(ClientSubmitFlags, SlurmDurationForms) {
  const std::vector<std::pair<std::string, int>> cases = {
      {"45s", 45},        {"30m", 1800},         {"2h", 7200},       {"1d", 86400},
      {"90", 5400},       {"5:30", 330},         {"01:02:03", 3723}, {"1-12", 129600},
      {"1-00:30", 88200}, {"2-01:00:05", 176405}};
  for (const auto& [text, seconds] : cases) {
    const json spec = DryRun({"--time", text, "--name", "t"});
    EXPECT_EQ(spec["spec"]["timeLimit"], seconds) << text;
  }
}

TEST(ClientSubmitFlags, MemorySizesBecomeBinaryQuantities) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"64G", "64Gi"},  {"500M", "500Mi"}, {"2T", "2Ti"}, {"4096", "4096Mi"},
      {"64Gi", "64Gi"}, {"1536K", "2Mi"},  {"8g", "8Gi"}};
  for (const auto& [text, quantity] : cases) {
    const json spec = DryRun({"--time", "1h", "--mem", text, "--name", "m"});
    EXPECT_EQ(spec["spec"]["resources"]["memory"], quantity) << text;
  }
}

TEST(ClientSubmitFlags, ReplicasMakeAService) {
  const json spec = DryRun(
      {"--replicas", "3", "--gpus", "1", "--time", "1d", "--runtime", "2h", "--name", "chat"});
  EXPECT_EQ(spec["kind"], "Service");
  EXPECT_EQ(spec["spec"]["replicas"], 3);
  EXPECT_FALSE(spec["spec"].contains("tasks"));
  EXPECT_EQ(spec["spec"]["runtime"], 7200);
}

// sbatch's `--nodes=MIN-MAX`: an elastic job of MAX tasks that may run on as few as MIN.
TEST(ClientSubmitFlags, ANodeRangeMakesAnElasticJob) {
  const json spec = DryRun({"-N", "2-4", "--gpus-per-node", "8", "--time", "1h", "--", "train"});
  EXPECT_EQ(spec["spec"]["tasks"], 4);
  EXPECT_EQ(spec["spec"]["elastic"], json::parse(R"({"minTasks": 2, "step": 1})"));
  EXPECT_EQ(spec["spec"]["devices"]["requests"][0]["count"], 8);
  const json fixed = DryRun({"-N", "3-3", "--gpus-per-node", "8", "--time", "1h", "--", "train"});
  EXPECT_EQ(fixed["spec"]["tasks"], 3);
  EXPECT_FALSE(fixed["spec"].contains("elastic"));
}

TEST(ClientSubmitFlags, BadFlagsExitTwoWithOneLineNamingTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--gpus", "1"}, "--time is required"},
      {{"--time", "2 hours"}, "--time: duration '2 hours'"},
      {{"--time", "1h", "--mem", "lots"}, "--mem: memory 'lots'"},
      {{"--time", "1h", "--gpus-per-task", "2", "--share", "500"}, "--share is a part of one GPU"},
      {{"--time", "1h", "-n", "16", "-N", "2"}, "one task per node when -N is given"},
      {{"--time", "1h", "-G", "10", "-N", "4"}, "-G 10 does not divide evenly over 4 task(s)"},
      {{"--time", "1h", "-G", "64", "-N", "4", "--gpus-per-node", "8"}, "-G 64 is not 4 task(s)"},
      {{"--time", "1h", "-G", "12", "--gpus-per-node", "8"}, "-G 12 is not a whole number"},
      {{"--time", "1h", "--gpus-per-task", "1", "--gpus-per-node", "8"}, "exclude each other"},
      {{"--time", "1h", "-N", "0"}, "--nodes: expected an integer >= 1"},
      {{"--time", "1h", "-N", "4-2"}, "--nodes: expected an integer >= 1, or MIN-MAX"},
      {{"--time", "1h", "-N", "2-"}, "got '2-'"},
      {{"--time", "1h", "-N", "1-4", "--replicas", "2"}, "exclude each other"},
      {{"--time", "1h", "--share", "1000"}, "--share: expected milli"},
      {{"--time", "1h", "--gpu-type", "H100"}, "--gpu-type needs --gpus"},
      {{"--time", "1h", "--accept-degraded"}, "--accept-degraded needs --gpus"},
      {{"--time", "1h", "--env", "NOEQUALS"}, "--env 'NOEQUALS': expected KEY=VALUE"},
      {{"--time", "1h", "--checkpoint-cost", "soon"}, "--checkpoint-cost: "},
      {{"--time", "1h", "--tasks", "2", "--replicas", "2"}, "exclude each other"},
      {{"--time", "1h", "--cpus", "many"}, "--cpus 'many'"},
      {{"-f", "spec.yaml", "--gpus", "1"}, "-f takes the whole job from the file"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"submit", "--dry-run"};
    args.insert(args.end(), flags.begin(), flags.end());
    const CommandOutcome run = RunHeadroom(args);
    EXPECT_EQ(run.status, 2) << message;
    EXPECT_TRUE(run.out.empty()) << run.out;
    EXPECT_EQ(run.err.rfind("headroom: ", 0), 0u) << run.err;
    EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
  }
}

TEST(ClientSubmitFlags, SpecFileIsSentAsItIs) {
  TestDir dir;
  const std::string yaml = "apiVersion: headroom/v1\nkind: Job\nmetadata: {name: x}\n";
  std::ofstream(dir.path() / "spec.yaml") << yaml;
  const CommandOutcome run =
      RunHeadroom({"submit", "--dry-run", "-f", (dir.path() / "spec.yaml").string()});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, yaml);
  const CommandOutcome missing = RunHeadroom({"submit", "-f", (dir.path() / "nope.yaml").string()});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("nope.yaml: cannot open the job spec"), std::string::npos)
      << missing.err;
}

}  // namespace
}  // namespace headroom::testing
