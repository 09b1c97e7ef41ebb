// The register body (agent_protocol.h), built from the agent's inventory.
#include "agent/agent_protocol.h"

namespace headroom::agent {

using nlohmann::json;

json DeviceJson(const InventoryDevice& device) {
  return {{"index", device.index},
          {"uuid", device.uuid},
          {"model", device.model},
          {"memory_mib", device.memory_mib},
          {"clique_id", device.clique_id ? json(*device.clique_id) : json(nullptr)}};
}

json RegisterJson(const RegisterRequest& request) {
  json devices = json::array();
  for (const InventoryDevice& device : request.inventory.devices) {
    devices.push_back(DeviceJson(device));
  }
  return {{"node", request.node},
          {"cpu_milli", request.inventory.cpu_milli},
          {"memory_mib", request.inventory.memory_mib},
          {"ready", request.ready},
          {"readiness_message", request.readiness_message},
          {"devices", std::move(devices)},
          {"address", request.address}};
}

}  // namespace headroom::agent
