// ReadinessCheck: no command means ready; a failing command's message carries its last output
// line; a command past its timeout is killed and counts as not ready; checks repeat.
#include "agent/readiness_check.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "agent/agent.h"
#include "agent_test_files.h"

namespace headroom::agent {
namespace {

using testing::ScratchDir;
using testing::WaitUntil;

ReadinessOptions Options(const ScratchDir& dir, std::string command) {
  return {.command = std::move(command),
          .timeout_us = 5 * kUsPerSecond,
          .interval_us = 3600 * kUsPerSecond,
          .output_path = dir.File("readiness.out"),
          .env = {"PATH=/usr/bin:/bin"}};
}

bool TickUntilVerdict(ReadinessCheck& check) {
  return WaitUntil([&] {
    check.Tick(SteadyNowUs());
    return check.has_verdict();
  });
}

TEST(AgentReadinessCheck, WithoutACommandTheNodeIsReady) {
  ScratchDir dir;
  ReadinessCheck check(Options(dir, ""));
  EXPECT_TRUE(check.has_verdict());
  EXPECT_TRUE(check.current().ready);
  EXPECT_EQ(check.current().message, "");
}

TEST(AgentReadinessCheck, PassingAndFailingCommands) {
  ScratchDir dir;
  ReadinessCheck pass(Options(dir, "echo fine; exit 0"));
  EXPECT_FALSE(pass.current().ready);
  EXPECT_EQ(pass.current().message, "readiness check running");
  ASSERT_TRUE(TickUntilVerdict(pass));
  EXPECT_TRUE(pass.current().ready);
  EXPECT_EQ(pass.current().message, "");

  ReadinessCheck fail(Options(dir, "echo checking; echo 'GPU 3 failed memory test' >&2; exit 4"));
  ASSERT_TRUE(TickUntilVerdict(fail));
  EXPECT_FALSE(fail.current().ready);
  EXPECT_EQ(fail.current().message, "readiness check exited 4: GPU 3 failed memory test");
}

// With verified_for_us, a pass counts for that long; CheckNow runs one at the next Tick, the
// last verdict standing meanwhile; a failure is not verified.
TEST(AgentReadinessCheck, APassIsFreshForItsWindowAndCheckNowRunsAnother) {
  ScratchDir dir;
  ReadinessOptions options = Options(dir, "test -e " + dir.File("ok"));
  options.verified_for_us = 60 * kUsPerSecond;
  std::ofstream(dir.File("ok")) << "";
  ReadinessCheck check(options);
  ASSERT_TRUE(TickUntilVerdict(check));
  const TimeUs passed_us = SteadyNowUs();
  EXPECT_EQ(check.finished(), 1u);
  EXPECT_TRUE(check.VerifiedAt(passed_us));
  EXPECT_FALSE(check.VerifiedAt(passed_us + 61 * kUsPerSecond));
  // Checks are hourly: nothing runs until asked.
  check.Tick(passed_us + 30 * kUsPerSecond);
  EXPECT_EQ(check.finished(), 1u);
  std::filesystem::remove(dir.File("ok"));
  check.CheckNow(SteadyNowUs());
  EXPECT_TRUE(check.current().ready);  // The last verdict stands while it runs.
  ASSERT_TRUE(WaitUntil([&] {
    check.Tick(SteadyNowUs());
    return check.finished() == 2;
  }));
  EXPECT_FALSE(check.current().ready);
  EXPECT_FALSE(check.VerifiedAt(SteadyNowUs()));
  // Without a window every ready verdict is verified.
  ReadinessCheck plain(Options(dir, "true"));
  ASSERT_TRUE(TickUntilVerdict(plain));
  EXPECT_TRUE(plain.VerifiedAt(SteadyNowUs() + 86400 * kUsPerSecond));
}

TEST(AgentReadinessCheck, TimeoutKillsTheCheck) {
  ScratchDir dir;
  ReadinessOptions options = Options(dir, "sleep 30");
  options.timeout_us = 200'000;
  ReadinessCheck check(options);
  ASSERT_TRUE(TickUntilVerdict(check));
  EXPECT_FALSE(check.current().ready);
  EXPECT_EQ(check.current().message, "readiness check timed out after 0.2 s");
}

TEST(AgentReadinessCheck, RunsAgainAfterTheInterval) {
  ScratchDir dir;
  const std::string flag = dir.File("healthy");
  ReadinessOptions options = Options(dir, "test -e " + flag);
  options.interval_us = 50'000;
  ReadinessCheck check(options);
  ASSERT_TRUE(TickUntilVerdict(check));
  EXPECT_FALSE(check.current().ready);
  std::ofstream(flag).close();
  EXPECT_TRUE(WaitUntil([&] {
    check.Tick(SteadyNowUs());
    return check.current().ready;
  }));
}

// A failed check across a gang's nodes (Fail) holds the node not ready with its message: without
// a command for one interval, with one until its next check, an interval on, passes.
TEST(AgentReadinessCheck, AFailHoldsTheNodeUntilAnIntervalOrACheckPasses) {
  ScratchDir dir;
  ReadinessOptions options = Options(dir, "");
  options.interval_us = 10 * kUsPerSecond;
  ReadinessCheck plain(options);
  plain.Fail("gang communication check of job 4 attempt 1 exited 3", 100 * kUsPerSecond);
  EXPECT_FALSE(plain.current().ready);
  EXPECT_EQ(plain.current().message, "gang communication check of job 4 attempt 1 exited 3");
  plain.Tick(109 * kUsPerSecond);
  EXPECT_FALSE(plain.current().ready);
  plain.Tick(110 * kUsPerSecond);
  EXPECT_TRUE(plain.current().ready);
  EXPECT_EQ(plain.current().message, "");

  options.command = "true";
  ReadinessCheck checked(options);
  const TimeUs now_us = SteadyNowUs();
  ASSERT_TRUE(TickUntilVerdict(checked));
  ASSERT_TRUE(checked.current().ready);
  checked.Fail("gang communication check of job 4 attempt 1 exited 3", now_us);
  EXPECT_FALSE(checked.VerifiedAt(now_us));
  checked.Tick(now_us + 5 * kUsPerSecond);  // No check is due yet.
  EXPECT_FALSE(checked.current().ready);
  const uint64_t finished = checked.finished();
  EXPECT_TRUE(WaitUntil([&] {
    checked.Tick(std::max(SteadyNowUs(), now_us + 10 * kUsPerSecond));
    return checked.finished() > finished;
  }));
  EXPECT_TRUE(checked.current().ready);
}

}  // namespace
}  // namespace headroom::agent
