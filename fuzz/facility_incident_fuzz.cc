// Fuzzes `headroom sim --incident` text (sim/facility_incident.h) against a small building: no
// input may crash, hang or leak; a rejected text gets one line that quotes it; an accepted one
// names a zone or domain of the building, a share in [0, 1] and a positive duration.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "model/cluster_yaml.h"
#include "sim/facility_incident.h"

namespace {

const headroom::model::Cluster& Building() {
  static const headroom::model::Cluster cluster = *headroom::model::ParseClusterYaml(
      "levels: [cluster, rack]\n"
      "device_classes:\n  H100: {model: H100, memory_gib: 80}\n"
      "node_templates:\n"
      "  4xH100: {cpu_milli: 64000, memory_gib: 512, devices: {count: 4, class: H100}}\n"
      "topology:\n  - {name: r0, nodes: [{count: 1, template: 4xH100}]}\n"
      "facility:\n  cooling: [{domain: r0, capacity_kw: 10}]\n"
      "  power: [{name: feed, domains: [cluster], limit_kw: 2}]\n",
      "fuzz.yaml");
  return cluster;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using headroom::sim::FacilityIncident;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto incident = headroom::sim::ParseFacilityIncident(text, Building());
  if (!incident) {
    const std::string& message = incident.error().message;
    if (message.rfind("--incident '", 0) != 0) std::abort();
    if (text.find('\n') == std::string_view::npos && message.find('\n') != std::string::npos) {
      std::abort();
    }
    return 0;
  }
  if (incident->index != 0 || incident->share < 0 || incident->share > 1 ||
      incident->duration_us <= 0 || incident->start_us < 0) {
    std::abort();
  }
  return 0;
}
