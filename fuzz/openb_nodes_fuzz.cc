// Fuzzes ParseOpenbNodes: no node-list text may crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/import/openb_nodes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cluster = headroom::model::ParseOpenbNodes(text, "fuzz.csv");
  (void)cluster;
  return 0;
}
