// The agent's side of the headroomd v1 contract (docs/api.md "Agents"), as both ends define it
// (model/agent_protocol.h), and the register body built from the agent's inventory.
// Threading: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "agent/inventory.h"
#include "model/agent_protocol.h"

namespace headroom::agent {

using model::DesiredTask;
using model::HeartbeatJson;
using model::HeartbeatRequest;
using model::kDefaultStopGraceS;
using model::LabelledTelemetry;
using model::ParseHeartbeatReply;
using model::ParseRegisterReply;
using model::RegisterReply;
using model::TaskKey;
using model::TaskReport;
using model::TaskState;
using model::TelemetryJson;

struct RegisterRequest {
  std::string node;
  Inventory inventory;
  bool ready = false;
  std::string readiness_message;
  std::string address;
};

// An inventory device in the contract's form (an index in 0..kMaxDeviceIndex, as inventories
// promise).
model::RegisteredDevice RegisteredDeviceOf(const InventoryDevice& device);
nlohmann::json DeviceJson(const InventoryDevice& device);
nlohmann::json RegisterJson(const RegisterRequest& request);

}  // namespace headroom::agent
