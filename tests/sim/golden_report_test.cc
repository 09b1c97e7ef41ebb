// Determinism across processes and builds, not only within one: `headroom sim` on a checked-in
// cluster and a seeded synthetic workload, run as its own process, writes a report.json equal
// byte for byte to tests/sim/golden/small-synthetic-seed7.json. The sanitizer build (Debug)
// and the release build both compare against the same file. A change that moves any policy's
// numbers changes the file on purpose: regenerate it with the command in kCommand (from the
// repository root) and review the diff.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace {

constexpr const char* kCommand =
    "sim --cluster configs/small.yaml --workload synthetic:small --seed 7 --load 0.9 "
    "--series-points 16 --policy all --out ";

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(GoldenReport, ASeededReplayWritesTheCheckedInReportByteForByte) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("headroom-golden-" + std::to_string(::getpid()));
  const std::string command = std::string("cd '") + HEADROOM_SOURCE_DIR + "' && '" +
                              HEADROOM_BINARY_DIR + "/bin/headroom' " + kCommand + "'" +
                              out.string() + "' > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
  const std::string written = ReadFile(out / "report.json");
  const std::string golden = ReadFile(std::filesystem::path(HEADROOM_SOURCE_DIR) /
                                      "tests/sim/golden/small-synthetic-seed7.json");
  ASSERT_FALSE(golden.empty());
  EXPECT_TRUE(written == golden)
      << "report.json differs from tests/sim/golden/small-synthetic-seed7.json; if the change "
         "is intended, regenerate it: headroom "
      << kCommand << "DIR && cp DIR/report.json tests/sim/golden/small-synthetic-seed7.json";
  std::filesystem::remove_all(out);
}

}  // namespace
