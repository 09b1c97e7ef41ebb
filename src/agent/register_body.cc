// The register body (agent_protocol.h): the agent's inventory in the contract's form.
#include "agent/agent_protocol.h"

namespace headroom::agent {

model::RegisteredDevice RegisteredDeviceOf(const InventoryDevice& device) {
  return {.index = static_cast<uint32_t>(device.index),
          .uuid = device.uuid,
          .model = device.model,
          .memory_mib = device.memory_mib,
          .clique_id = device.clique_id.value_or("")};
}

nlohmann::json DeviceJson(const InventoryDevice& device) {
  return model::RegisteredDeviceJson(RegisteredDeviceOf(device));
}

nlohmann::json RegisterJson(const RegisterRequest& request) {
  model::Registration registration{.node = request.node,
                                   .cpu_milli = request.inventory.cpu_milli,
                                   .memory_mib = request.inventory.memory_mib,
                                   .ready = request.ready,
                                   .readiness_message = request.readiness_message,
                                   .devices = {},
                                   .address = request.address};
  for (const InventoryDevice& device : request.inventory.devices) {
    registration.devices.push_back(RegisteredDeviceOf(device));
  }
  return model::RegistrationJson(registration);
}

}  // namespace headroom::agent
