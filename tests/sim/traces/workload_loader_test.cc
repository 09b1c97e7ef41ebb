// Tests for LoadWorkload's dispatch on FORMAT:PATH and its errors.
#include "sim/traces/workload_loader.h"

#include <gtest/gtest.h>

namespace headroom::sim {
namespace {

std::string LoadError(std::string_view spec, const WorkloadOptions& options = {}) {
  auto loaded = LoadWorkload(spec, options);
  EXPECT_FALSE(loaded.has_value());
  return loaded.has_value() ? "" : loaded.error().message;
}

TEST(WorkloadLoaderTest, RejectsMalformedSpecs) {
  EXPECT_EQ(LoadError("philly"),
            "workload: expected FORMAT:PATH (openb, philly, helios, itp or synthetic), got "
            "\"philly\"");
  EXPECT_EQ(LoadError("philly:"),
            "workload: expected FORMAT:PATH (openb, philly, helios, itp or synthetic), got "
            "\"philly:\"");
  EXPECT_EQ(LoadError("slurm:x.csv"),
            "workload: expected a format of openb, philly, helios, itp or synthetic, got "
            "\"slurm\"");
  EXPECT_EQ(LoadError("synthetic:small", WorkloadOptions{.max_devices_per_node = 0}),
            "workload: expected max_devices_per_node of at least 1, got 0");
}

TEST(WorkloadLoaderTest, MissingFilesAreNotFound) {
  for (const char* format : {"openb", "philly", "helios", "itp"}) {
    auto loaded = LoadWorkload(std::string(format) + ":/nonexistent/trace.csv", {});
    ASSERT_FALSE(loaded.has_value());
    EXPECT_EQ(loaded.error().code, ErrorCode::kNotFound);
    EXPECT_EQ(loaded.error().message, "/nonexistent/trace.csv: cannot open file");
  }
}

TEST(WorkloadLoaderTest, PathsMayContainColons) {
  auto loaded = LoadWorkload("itp:/nonexistent/a:b.csv", {});
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().message, "/nonexistent/a:b.csv: cannot open file");
}

}  // namespace
}  // namespace headroom::sim
