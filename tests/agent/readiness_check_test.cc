// ReadinessCheck: no command means ready; a failing command's message carries its last output
// line; a command past its timeout is killed and counts as not ready; checks repeat.
#include "agent/readiness_check.h"

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

}  // namespace
}  // namespace headroom::agent
