// Where tests find the public traces: $HEADROOM_TRACES if set, else "../shared/traces" next to
// the source tree (HEADROOM_SOURCE_DIR, defined by the test target). A test that needs a trace
// file skips — it does not fail — when the file is absent:
//
//   const std::string path = headroom::testing::TracePath("microsoft-philly/cluster_machine_list");
//   HEADROOM_SKIP_IF_MISSING(path);
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace headroom::testing {

inline std::string TracesRoot() {
  if (const char* root = std::getenv("HEADROOM_TRACES"); root != nullptr && *root != '\0') {
    return root;
  }
#ifdef HEADROOM_SOURCE_DIR
  return std::string(HEADROOM_SOURCE_DIR) + "/../shared/traces";
#else
  return "../shared/traces";
#endif
}

// The full path of a file under the traces root, e.g. TracePath("microsoft-philly/README.md").
inline std::string TracePath(std::string_view relative) {
  return TracesRoot() + "/" + std::string(relative);
}

// Published results to reproduce: $HEADROOM_REFERENCE if set, else "reference" beside the
// traces root (../shared/reference).
inline std::string ReferencePath(std::string_view relative) {
  if (const char* root = std::getenv("HEADROOM_REFERENCE"); root != nullptr && *root != '\0') {
    return std::string(root) + "/" + std::string(relative);
  }
  return TracesRoot() + "/../reference/" + std::string(relative);
}

inline bool TraceExists(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

}  // namespace headroom::testing

// Skips the current test with "missing <path>" when the file is absent. Use in a TEST body.
#define HEADROOM_SKIP_IF_MISSING(path)             \
  do {                                             \
    if (!::headroom::testing::TraceExists(path)) { \
      GTEST_SKIP() << "missing " << (path);        \
    }                                              \
  } while (false)
