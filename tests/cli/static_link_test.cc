// The CLI starts once per command, so it loads no library that it can take statically
// (CMakeLists.txt, docs/cli.md "Start time"): only the C library's own are left to the dynamic
// linker. A new dependency that brings a shared C++ library back fails here, not in a timing.
#include <string>

#include <gtest/gtest.h>

#include "cli/client_test_support.h"
#include "testing/binaries.h"

namespace headroom::testing {
namespace {

TEST(CliStaticLink, TheCliLoadsNoCxxRuntimeAndNoLibraryItCouldTakeStatically) {
  if (!HEADROOM_CLI_STATIC_RUNTIME) {
    GTEST_SKIP() << "this build links the CLI against shared libraries (a sanitizer or fuzz "
                    "build, or a static archive or fmt 9 missing; CMakeLists.txt)";
  }
  const auto ldd = FindProgram("ldd");
  if (!ldd) GTEST_SKIP() << "ldd not found";
  const CommandOutcome listed = RunProgram({ldd->string(), BinaryPath("headroom")});
  ASSERT_EQ(listed.status, 0) << listed.err;
  EXPECT_NE(listed.out.find("libc.so.6"), std::string::npos) << listed.out;
  for (const char* library : {"libstdc++", "libgcc_s", "libfmt", "libspdlog", "libyaml-cpp",
                              "libsqlite3", "libnettle", "libssl", "libcrypto", "libmicrohttpd"}) {
    EXPECT_EQ(listed.out.find(library), std::string::npos) << library << " in\n" << listed.out;
  }
}

}  // namespace
}  // namespace headroom::testing
