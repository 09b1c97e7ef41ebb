// Fuzzes ParseClusterYaml: no input may crash, hang or leak, and every cluster that parses must
// survive WriteClusterYaml → ParseClusterYaml unchanged (the writer's promise 1). Limits are
// small so that each input runs in milliseconds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "model/cluster_yaml.h"
#include "model/cluster_yaml_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace headroom::model;
  const ClusterYamlLimits limits{
      .max_nodes = 2000, .max_domains = 2000, .max_devices = 20000, .max_devices_per_node = 64};
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cluster = ParseClusterYaml(text, "fuzz.yaml", limits);
  if (!cluster) return 0;
  const std::string written = WriteClusterYaml(*cluster);
  auto again = ParseClusterYaml(written, "written.yaml", limits);
  if (!again || again->nodes().size() != cluster->nodes().size() ||
      again->device_count() != cluster->device_count() ||
      again->domains().size() != cluster->domains().size() || WriteClusterYaml(*again) != written) {
    std::abort();  // The writer produced YAML that does not read back as the same cluster.
  }
  return 0;
}
