// The client verbs against a fake headroomd (FakeApi): what each verb sends (method, path,
// query, token, body, content type), the tables it prints, `--json` passing the API's JSON
// through, and the error contract — the API's message as one line with exit 2 for 4xx, exit 1
// when headroomd cannot be reached or fails, env vars used only when flags are absent.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/client_fake_api.h"
#include "cli/client_test_support.h"
#include "testing/binaries.h"

namespace headroom::testing {
namespace {

using nlohmann::json;

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class ClientVerbs : public ::testing::Test {
 protected:
  ClientVerbs() : api_(FakeApi::Options{}) {}

  // Runs `headroom --server URL --token secret ARGS...`.
  CommandOutcome Run(std::vector<std::string> args, const std::string& token = "secret") {
    args.insert(args.begin(), {"--server", api_.url(), "--token", token});
    return RunHeadroom(args);
  }

  FakeApi api_;
};

TEST_F(ClientVerbs, QueueAsksForRunningAndPendingAndPrintsSqueueColumns) {
  const double now = Now();
  api_.Answer(
      "GET", "/v1/jobs?state=pending",
      {200, json{{"jobs",
                  {{{"id", 43},
                    {"name", "sweep"},
                    {"tenant", "team-b"},
                    {"state", "pending"},
                    {"tasks", 2},
                    {"devices_per_task", 8},
                    {"share_milli", 1000},
                    {"submit_time", now - 65},
                    {"start_time", nullptr},
                    {"pending_reason",
                     {{"code", "capacity"}, {"message", "16 free H100, 16 needed in one rack"}}},
                    {"expected_start", now + 720},
                    {"placement", json::array()}}}}}
                .dump()});
  api_.Answer("GET", "/v1/jobs?state=running",
              {200, json{{"jobs",
                          {{{"id", 42},
                            {"name", "llama-pretrain"},
                            {"tenant", "team-a"},
                            {"state", "running"},
                            {"tasks", 2},
                            {"devices_per_task", 8},
                            {"share_milli", 1000},
                            {"submit_time", now - 4000},
                            {"start_time", now - 3725},
                            {"pending_reason", nullptr},
                            {"expected_start", nullptr},
                            {"placement",
                             {{{"rank", 0}, {"node", "n1"}, {"devices", {0, 1}}},
                              {{"rank", 1}, {"node", "n2"}, {"devices", {0, 1}}}}}},
                           {{"id", 44},
                            {"name", "notebook"},
                            {"tenant", "team-a"},
                            {"state", "running"},
                            {"tasks", 1},
                            {"devices_per_task", 1},
                            {"share_milli", 250},
                            {"start_time", now - 5},
                            {"placement", {{{"rank", 0}, {"node", "n3"}, {"devices", {4}}}}}}}}}
                        .dump()});
  const CommandOutcome run = Run({"queue"});
  ASSERT_EQ(run.status, 0) << run.err;
  // Times are measured against the CLI's clock, so allow the second it may have ticked.
  const std::regex expected(
      "ID  NAME            TENANT  STATE    TASKS×GPUS     TIME  NODES\\(REASON\\)\n"
      "42  llama-pretrain  team-a  running         2×8  1:02:0[56]  n1,n2\n"
      "44  notebook        team-a  running      1×0.25        [56]  n3\n"
      "43  sweep           team-b  pending         2×8     1:0[56]  \\(capacity: 16 free H100, 16 "
      "needed in one rack\\) expected start in 1[12]:[0-9][0-9]\n");
  EXPECT_TRUE(std::regex_match(run.out, expected)) << run.out;
  const auto requests = api_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].authorization, "Bearer secret");
}

TEST_F(ClientVerbs, QueueFiltersGoIntoTheQueryAndJsonIsTheApisJson) {
  const json done = {{"jobs", {{{"id", 7}, {"name", "a b"}, {"state", "completed"}}}}};
  api_.Answer("GET", "/v1/jobs?state=completed&tenant=team%20a&limit=5", {200, done.dump()});
  const CommandOutcome run =
      Run({"queue", "--state", "completed", "--tenant", "team a", "--limit", "5", "--json"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(json::parse(run.out), done);

  api_.Answer("GET", "/v1/jobs", {200, done.dump()});
  const CommandOutcome all = Run({"queue", "--state", "all"});
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_NE(all.out.find("7  a b   -       completed"), std::string::npos) << all.out;

  const CommandOutcome bad = Run({"queue", "--state", "done"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("queue --state 'done'"), std::string::npos) << bad.err;
}

TEST_F(ClientVerbs, NodesPrintsSinfoColumns) {
  api_.Answer("GET", "/v1/nodes", {200, R"({"nodes": [
    {"name": "n1", "state": "up", "ready": true, "drain_reason": "", "devices": 8,
     "allocated_milli": 4500, "device_model": "H100", "path": ["dc", "row-1", "rack-03"],
     "last_heartbeat": null},
    {"name": "n2", "state": "drained", "ready": true, "drain_reason": "bad fan", "devices": 8,
     "allocated_milli": 0, "device_model": "H100", "path": ["dc", "row-1", "rack-03"],
     "device_health": {"failed": 1, "suspect": 2}},
    {"name": "n10", "state": "up", "ready": false, "devices": 8, "allocated_milli": 8000,
     "device_model": "A100", "path": ["dc", "row-2", "rack-11"]},
    {"name": "n11", "state": "up", "ready": true, "hot_spare": true, "devices": 8,
     "allocated_milli": 0, "device_model": "A100", "path": ["dc", "row-2", "rack-11"]}]})"});
  const CommandOutcome run = Run({"nodes"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out,
            "NODE  STATE          GPUS  ALLOC  MODEL  RACK     HEALTH              REASON\n"
            "n1    up                8    4.5  H100   rack-03  ok\n"
            "n2    drained           8      0  H100   rack-03  failed:1 suspect:2  bad fan\n"
            "n10   up(not ready)     8      8  A100   rack-11  ok\n"
            "n11   up(spare)         8      0  A100   rack-11  ok\n");
}

TEST_F(ClientVerbs, ServicesTable) {
  api_.Answer("GET", "/v1/services",
              {200, R"({"services": [{"id": 3, "name": "chat", "tenant": "team-a", "replicas": 2,
                        "running": 1, "jobs": [11, 12]},
                       {"id": 4, "name": "llm", "tenant": "team-a", "replicas": 6, "running": 5,
                        "jobs": [13], "autoscaling": {"minReplicas": 1, "maxReplicas": 12},
                        "load": {"requestsPerSecond": 30, "desiredReplicas": 6}}]})"});
  const CommandOutcome run = Run({"services"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out,
            "ID  NAME  TENANT  REPLICAS  RUNNING  AUTOSCALING           JOBS\n"
            " 3  chat  team-a         2        1  -                     11,12\n"
            " 4  llm   team-a         6        5  1..12, 30 req/s -> 6  13\n");
}

TEST_F(ClientVerbs, SubmitPostsTheSpecAndPrintsTheId) {
  api_.Answer("POST", "/v1/jobs", {201, R"({"id": 42, "state": "pending"})"});
  const CommandOutcome run =
      Run({"submit", "--gpus-per-task", "2", "--time", "1h", "--name", "x", "--", "sleep", "60"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "42\n");
  const CommandOutcome dry = RunHeadroom({"submit", "--dry-run", "--gpus-per-task", "2", "--time",
                                          "1h", "--name", "x", "--", "sleep", "60"});
  const auto requests = api_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].content_type, "application/json");
  EXPECT_EQ(json::parse(requests[0].body), json::parse(dry.out));

  // -G alone above 1 asks the daemon how large its nodes are, and fills them.
  api_.Answer("GET", "/v1/nodes",
              {200, R"({"nodes": [{"name": "n1", "devices": 4}, {"name": "n2", "devices": 8}]})"});
  const CommandOutcome whole_nodes =
      Run({"submit", "-G", "32", "--time", "1h", "--name", "big", "--", "sleep", "60"});
  ASSERT_EQ(whole_nodes.status, 0) << whole_nodes.err;
  const json big = json::parse(api_.Requests().back().body);
  EXPECT_EQ(big["spec"]["tasks"], 4);
  EXPECT_EQ(big["spec"]["devices"]["requests"][0]["count"], 8);
  const CommandOutcome ragged = Run({"submit", "-G", "12", "--time", "1h", "--name", "r"});
  EXPECT_EQ(ragged.status, 2);
  EXPECT_NE(ragged.err.find("-G 12 is not a whole number of 8-GPU nodes"), std::string::npos)
      << ragged.err;

  const CommandOutcome as_json = Run({"submit", "--time", "1h", "--name", "y", "--json"});
  ASSERT_EQ(as_json.status, 0) << as_json.err;
  EXPECT_EQ(json::parse(as_json.out), json::parse(R"({"id": 42, "state": "pending"})"));
}

TEST_F(ClientVerbs, SubmitFileIsSentAsYaml) {
  TestDir dir;
  const std::string yaml =
      "apiVersion: headroom/v1\nkind: Job\nmetadata:\n  name: from-file\nspec:\n  timeLimit: 1h\n";
  std::ofstream(dir.path() / "job.yaml") << yaml;
  api_.Answer("POST", "/v1/jobs", {201, R"({"id": 7, "state": "pending"})"});
  const CommandOutcome run = Run({"submit", "-f", (dir.path() / "job.yaml").string()});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "7\n");
  const auto requests = api_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].content_type, "application/yaml");
  EXPECT_EQ(requests[0].body, yaml);
}

TEST_F(ClientVerbs, RefusedRequestPrintsTheApisMessageAndExitsTwo) {
  api_.Answer(
      "POST", "/v1/jobs",
      {400, ApiErrorBody("invalid_argument",
                         "spec.devices.requests[0].count: expected an integer >= 1, got 0")});
  const CommandOutcome bad = Run({"submit", "--time", "1h", "--name", "z"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "headroom: spec.devices.requests[0].count: expected an integer >= 1, got 0\n");

  const CommandOutcome unauthenticated = Run({"nodes"}, "wrong");
  EXPECT_EQ(unauthenticated.status, 2);
  EXPECT_EQ(unauthenticated.err,
            "headroom: unknown or missing token; pass --token or set HEADROOM_TOKEN\n");
  EXPECT_TRUE(unauthenticated.out.empty());
}

TEST_F(ClientVerbs, ServerFailureOrForeignAnswerExitsOne) {
  api_.Answer("GET", "/v1/nodes", {500, ApiErrorBody("internal", "store write failed: disk full")});
  const CommandOutcome failed = Run({"nodes"});
  EXPECT_EQ(failed.status, 1);
  EXPECT_EQ(failed.err, "headroom: store write failed: disk full\n");

  api_.Answer("GET", "/v1/services", {200, "<html>not an API</html>"});
  const CommandOutcome foreign = Run({"services"});
  EXPECT_EQ(foreign.status, 1);
  EXPECT_NE(foreign.err.find("not JSON"), std::string::npos) << foreign.err;
}

TEST_F(ClientVerbs, CancelTriesEveryIdAndReportsTheWorst) {
  api_.Answer("POST", "/v1/jobs/5/cancel", {200, R"({"id": 5, "state": "cancelled"})"});
  api_.Answer("POST", "/v1/jobs/6/cancel",
              {409, ApiErrorBody("conflict", "job 6 already completed")});
  api_.Answer("POST", "/v1/jobs/8/cancel", {200, R"({"id": 8, "state": "cancelled"})"});
  const CommandOutcome run = Run({"cancel", "5", "6", "8"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, "5 cancelled\n8 cancelled\n");
  EXPECT_EQ(run.err, "headroom: job 6: job 6 already completed\n");

  const CommandOutcome not_an_id = Run({"cancel", "5x"});
  EXPECT_EQ(not_an_id.status, 2);
  EXPECT_NE(not_an_id.err.find("'5x' is not a job id"), std::string::npos);
}

TEST_F(ClientVerbs, CancelServiceCancelsTheWholeService) {
  api_.Answer("POST", "/v1/services/3/cancel",
              {200, R"({"id": 3, "name": "serve", "state": "cancelled", "jobs": [7, 9]})"});
  const CommandOutcome run = Run({"cancel", "--service", "3"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "service 3 cancelled (2 live replicas)\n");
  api_.Answer("POST", "/v1/services/4/cancel",
              {404, ApiErrorBody("not_found", "service 4 does not exist")});
  const CommandOutcome missing = Run({"cancel", "--service", "4"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, "headroom: service 4: service 4 does not exist\n");
}

TEST_F(ClientVerbs, ScaleSetsTheReplicaCount) {
  api_.Answer("POST", "/v1/services/3/scale",
              {200, R"({"id": 3, "name": "serve", "replicas": 5, "added": [10, 11, 12],
                        "cancelled": []})"});
  const CommandOutcome run = Run({"scale", "3", "--replicas", "5"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "service 3 scaled to 5 replicas (3 added, 0 cancelled)\n");
  const auto requests = api_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(json::parse(requests[0].body), json::parse(R"({"replicas": 5})"));

  api_.Answer("POST", "/v1/services/4/scale",
              {404, ApiErrorBody("not_found", "service 4 does not exist")});
  const CommandOutcome missing = Run({"scale", "4", "--replicas", "1"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, "headroom: service 4: service 4 does not exist\n");
  const CommandOutcome no_count = Run({"scale", "3"});
  EXPECT_EQ(no_count.status, 2);
  EXPECT_NE(no_count.err.find("--replicas is required"), std::string::npos);
}

TEST_F(ClientVerbs, DrainSendsTheReasonAndUndoUndrains) {
  api_.Answer("POST", "/v1/nodes/n3/drain", {200, R"({"name": "n3", "state": "drained"})"});
  api_.Answer("POST", "/v1/nodes/n3/undrain", {200, R"({"name": "n3", "state": "up"})"});
  const CommandOutcome drain = Run({"drain", "n3", "--reason", "replace PSU"});
  ASSERT_EQ(drain.status, 0) << drain.err;
  EXPECT_EQ(drain.out, "n3 drained\n");
  const CommandOutcome undo = Run({"drain", "--undo", "n3"});
  ASSERT_EQ(undo.status, 0) << undo.err;
  EXPECT_EQ(undo.out, "n3 up\n");
  const auto requests = api_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(json::parse(requests[0].body), json::parse(R"({"reason": "replace PSU"})"));
  EXPECT_EQ(requests[1].target, "/v1/nodes/n3/undrain");

  const CommandOutcome no_reason = Run({"drain", "n3"});
  EXPECT_EQ(no_reason.status, 2);
  EXPECT_NE(no_reason.err.find("--reason is required"), std::string::npos);
}

TEST_F(ClientVerbs, HoldAndReleaseSayWhatTheJobsAreNow) {
  api_.Answer("POST", "/v1/jobs/4/hold",
              {200, R"({"id": 4, "state": "pending", "hold_reason": "Held by an operator: fw"})"});
  api_.Answer("POST", "/v1/jobs/4/release",
              {200, R"({"id": 4, "state": "pending", "hold_reason": null})"});
  api_.Answer("POST", "/v1/jobs/5/release", {409, R"({"error": "job 5 is running"})"});
  const CommandOutcome hold = Run({"hold", "4", "--reason", "fw"});
  ASSERT_EQ(hold.status, 0) << hold.err;
  EXPECT_EQ(hold.out, "4 Held by an operator: fw\n");
  const CommandOutcome release = Run({"release", "4", "5"});
  EXPECT_EQ(release.status, 2);  // Job 5's 4xx; job 4 is still released.
  EXPECT_EQ(release.out, "4 released\n");
  EXPECT_NE(release.err.find("job 5 is running"), std::string::npos) << release.err;
  const auto requests = api_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(json::parse(requests[0].body), json::parse(R"({"reason": "fw"})"));
  EXPECT_EQ(requests[1].body, "");
  EXPECT_EQ(Run({"hold", "x4"}).status, 2);
  EXPECT_EQ(Run({"release", "4", "--reason", "r"}).status, 2);  // Release takes no reason.
}

TEST_F(ClientVerbs, DeviceMovesOneDeviceWithItsReason) {
  api_.Answer("POST", "/v1/nodes/n3/devices/2/repair",
              {200, R"({"node": "n3", "index": 2, "state": "in_repair"})"});
  api_.Answer("POST", "/v1/nodes/n3/devices/2/return",
              {409, R"({"error": "device 2 is already healthy"})"});
  const CommandOutcome repair = Run({"device", "repair", "n3", "2", "--reason", "RMA 77"});
  ASSERT_EQ(repair.status, 0) << repair.err;
  EXPECT_EQ(repair.out, "n3 device 2 in_repair\n");
  const CommandOutcome again = Run({"device", "return", "n3", "2"});
  EXPECT_EQ(again.status, 2);  // A 4xx answer.
  EXPECT_NE(again.err.find("already healthy"), std::string::npos) << again.err;
  const auto requests = api_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(json::parse(requests[0].body), json::parse(R"({"reason": "RMA 77"})"));
  EXPECT_EQ(requests[1].body, "");
  EXPECT_EQ(Run({"device", "fix", "n3", "2"}).status, 2);
  EXPECT_EQ(Run({"device", "repair", "n3"}).status, 2);
  EXPECT_EQ(Run({"device", "resume", "n3", "2"}).status, 2);
  api_.Answer("POST", "/v1/health/resume", {200, R"({"was_tripped": true})"});
  const CommandOutcome resume = Run({"device", "resume"});
  ASSERT_EQ(resume.status, 0) << resume.err;
  EXPECT_EQ(resume.out, "storm guard reset: health takes devices out of use again\n");
  EXPECT_EQ(Run({"device", "repair", "n3", "1024"}).status, 2);
  EXPECT_EQ(Run({"device", "repair", "n3/x", "1"}).status, 2);
}

TEST(TelemetryParse, PrintsTheDevicesOfAnExporterFileOrTheLineThatIsWrong) {
  const std::string path = ::testing::TempDir() + "/telemetry_parse_test.prom";
  std::ofstream(path) << "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\",modelName=\"H100\"} 41\n"
                         "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-b\"} 79\n"
                         "gpu_gfx_activity{gpu_id=\"2\",card_series=\"MI300X\"} 50\n";
  const CommandOutcome table = RunHeadroom({"telemetry", "parse", path});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("GPU-a"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("3 devices\n"), std::string::npos) << table.out;
  const CommandOutcome as_json = RunHeadroom({"telemetry", "parse", path, "--json"});
  ASSERT_EQ(as_json.status, 0) << as_json.err;
  const json devices = json::parse(as_json.out);
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[1]["xid_errors"], 79);
  EXPECT_EQ(devices[2]["vendor"], "amd");
  EXPECT_EQ(devices[2]["util"], 0.5);
  EXPECT_EQ(devices[2]["model"], "MI300X");

  std::ofstream(path)
      << "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 41\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 140\n";
  const CommandOutcome bad = RunHeadroom({"telemetry", "parse", path});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "headroom: telemetry parse: " + path +
                         ": line 2: DCGM_FI_DEV_GPU_UTIL: expected a percentage in 0..100, got "
                         "140\n");
  const CommandOutcome missing = RunHeadroom({"telemetry", "parse", path + ".none"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find(": cannot open file"), std::string::npos);
  std::filesystem::remove(path);
}

TEST_F(ClientVerbs, EnvironmentIsUsedWhenFlagsAreAbsent) {
  api_.Answer("GET", "/v1/services", {200, R"({"services": []})"});
  const CommandOutcome from_env = RunHeadroom(
      {"services", "--json"}, {{"HEADROOM_SERVER", api_.url()}, {"HEADROOM_TOKEN", "secret"}});
  ASSERT_EQ(from_env.status, 0) << from_env.err;
  EXPECT_EQ(json::parse(from_env.out), json::parse(R"({"services": []})"));
  // Flags win over the environment (here: the flag's token is wrong).
  const CommandOutcome flag_wins =
      RunHeadroom({"services", "--token", "wrong"},
                  {{"HEADROOM_SERVER", api_.url()}, {"HEADROOM_TOKEN", "secret"}});
  EXPECT_EQ(flag_wins.status, 2);
}

TEST(ProgramVersion, EveryProgramSaysItsVersionAndCommit) {
  // "NAME MAJOR.MINOR.PATCH (COMMIT)", exit 0, nothing on stderr; the CLI needs no verb for it.
  for (const std::string name : {"headroom", "headroomd", "headroom-agent"}) {
    const CommandOutcome run = RunProgram({BinaryPath(name), "--version"});
    EXPECT_EQ(run.status, 0) << name << ": " << run.err;
    EXPECT_TRUE(run.err.empty()) << run.err;
    EXPECT_TRUE(std::regex_match(run.out, std::regex(name + R"( \d+\.\d+\.\d+ \([^()\n]+\)\n)")))
        << run.out;
  }
}

TEST(ClientConnection, RefusedConnectionExitsOneWithAClearLine) {
  const int port = FreePort();
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const CommandOutcome run = RunHeadroom({"queue"}, {{"HEADROOM_SERVER", url}});
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "headroom: cannot reach headroomd at " + url +
                         ": connection refused or host unreachable\n");
  const CommandOutcome bad_url = RunHeadroom({"--server", "ftp://x", "nodes"});
  EXPECT_EQ(bad_url.status, 2);
  EXPECT_NE(bad_url.err.find("scheme must be http or https"), std::string::npos) << bad_url.err;
}

// The CLI builds only the verb the command line names; a value that is another verb's name
// (here the token "submit") makes it build them all, and the verb still runs.
TEST(ClientConnection, AValueNamedLikeAVerbDoesNotTakeTheVerbsPlace) {
  const std::string url = "http://127.0.0.1:" + std::to_string(FreePort());
  const CommandOutcome run = RunHeadroom({"--token", "submit", "--server", url, "queue"});
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_NE(run.err.find("cannot reach headroomd"), std::string::npos) << run.err;
  const CommandOutcome help = RunHeadroom({"--help"});
  EXPECT_EQ(help.status, 0);
  for (const char* verb : {"sim", "submit", "queue", "policy", "replay"}) {
    EXPECT_NE(help.out.find(std::string("  ") + verb), std::string::npos) << verb;
  }
}

TEST(ClientConnection, AValueThatIsNotUtf8IsAClearErrorBeforeAnyRequest) {
  const std::string url = "http://127.0.0.1:" + std::to_string(FreePort());
  const CommandOutcome run =
      RunHeadroom({"drain", "n1", "--reason", "caf\xff"}, {{"HEADROOM_SERVER", url}});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err,
            "headroom: a value given is not UTF-8 text (invalid UTF-8 byte at index 3: 0xFF); "
            "headroomd takes UTF-8 only\n");
}

TEST(ClientConnection, HttpsVerifiesUnlessInsecure) {
  const auto openssl = FindProgram("openssl");
  if (!openssl) GTEST_SKIP() << "openssl not found; cannot make a test certificate";
  TestDir dir;
  const std::string cert = (dir.path() / "cert.pem").string();
  const std::string key = (dir.path() / "key.pem").string();
  const CommandOutcome made = RunProgram(
      {openssl->string(), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
       cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"});
  ASSERT_EQ(made.status, 0) << made.err;
  FakeApi api(FakeApi::Options{.token = "secret", .cert_file = cert, .key_file = key});
  api.Answer("GET", "/v1/services", {200, R"({"services": []})"});
  const std::vector<std::string> base = {"--server", api.url(), "--token", "secret"};

  std::vector<std::string> args = base;
  args.push_back("services");
  const CommandOutcome verified = RunHeadroom(args);
  EXPECT_EQ(verified.status, 1);
  EXPECT_NE(verified.err.find("--insecure"), std::string::npos) << verified.err;

  args.push_back("--insecure");
  const CommandOutcome insecure = RunHeadroom(args);
  EXPECT_EQ(insecure.status, 0) << insecure.err;
  EXPECT_EQ(insecure.out, "ID  NAME  TENANT  REPLICAS  RUNNING  AUTOSCALING  JOBS\n");

  args = base;
  args.insert(args.end(), {"--cacert", cert, "services"});
  const CommandOutcome trusted = RunHeadroom(args);
  EXPECT_EQ(trusted.status, 0) << trusted.err;
}

}  // namespace
}  // namespace headroom::testing
