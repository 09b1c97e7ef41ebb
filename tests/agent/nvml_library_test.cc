// NVML loading on a machine without a GPU driver: absent library and a library without NVML's
// symbols are clean errors, never a crash; clique ids format as the DRA driver names them.
#include "agent/nvml_library.h"

#include <gtest/gtest.h>

namespace headroom::agent {
namespace {

TEST(AgentNvmlLibrary, AbsentLibraryIsReportedAsNotPresent) {
  auto library = NvmlLibrary::Load("libnvidia-ml-not-installed.so.1");
  ASSERT_FALSE(library.has_value());
  EXPECT_EQ(library.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(library.error().message.rfind(
                "NVML is not present: cannot load libnvidia-ml-not-installed.so.1 (", 0),
            0u)
      << library.error().message;
}

TEST(AgentNvmlLibrary, TheRealSonameLoadsOrIsReportedAbsent) {
  // On this machine (no driver) the default soname is absent; on a GPU node it initializes.
  auto library = NvmlLibrary::Load();
  if (library) {
    auto devices = (*library)->Devices();
    ASSERT_TRUE(devices.has_value()) << devices.error().message;
    auto sample = (*library)->Sample();
    ASSERT_TRUE(sample.has_value()) << sample.error().message;
    EXPECT_EQ(sample->size(), devices->size());
  } else {
    EXPECT_TRUE(library.error().code == ErrorCode::kNotFound ||
                library.error().code == ErrorCode::kIo)
        << library.error().message;
    EXPECT_NE(library.error().message.find("libnvidia-ml.so.1"), std::string::npos);
  }
}

TEST(AgentNvmlLibrary, LibraryWithoutNvmlSymbolsIsUnsupported) {
  auto library = NvmlLibrary::Load("libm.so.6");
  ASSERT_FALSE(library.has_value());
  EXPECT_EQ(library.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(library.error().message.rfind("libm.so.6 lacks the NVML function nvmlInit_v2", 0), 0u)
      << library.error().message;
}

TEST(AgentNvmlLibrary, CliqueIdIsClusterUuidDotClique) {
  nvml::GpuFabricInfo info{};
  for (int i = 0; i < nvml::kGpuFabricUuidLen; ++i) {
    info.cluster_uuid[i] = static_cast<unsigned char>(i * 17);
  }
  info.clique_id = 32766;
  info.state = nvml::kGpuFabricStateCompleted;
  EXPECT_EQ(FormatCliqueId(info), "00112233-4455-6677-8899-aabbccddeeff.32766");
}

}  // namespace
}  // namespace headroom::agent
