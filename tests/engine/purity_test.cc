// The engine is a pure function of (state, events, now): no I/O, no clock, no threads, no
// randomness of its own and no higher layer. This test reads every engine source file and
// fails on an include that would let any of those in.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace {

TEST(EnginePurity, IncludesNoIoClockThreadsOrHigherLayers) {
  const std::filesystem::path engine_dir =
      std::filesystem::path(HEADROOM_SOURCE_DIR) / "src/engine";
  ASSERT_TRUE(std::filesystem::is_directory(engine_dir)) << engine_dir;
  const std::regex forbidden(
      R"(#include\s*[<"](chrono|thread|mutex|condition_variable|future|atomic|fstream|iostream|)"
      R"(ostream|istream|sstream|cstdio|stdio\.h|filesystem|random|ctime|time\.h|)"
      R"(sim/|control/|agent/|cli/)[^>"]*[>"])");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(engine_dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      EXPECT_FALSE(std::regex_search(line, forbidden))
          << entry.path().string() << ":" << number << ": " << line;
      EXPECT_EQ(line.find("std::rand"), std::string::npos)
          << entry.path().string() << ":" << number << ": " << line;
    }
  }
  EXPECT_GT(files, 10);
}

}  // namespace
