// The built-in queue orders' factories (one file each in this folder), for the registry in
// queue_order.cc.
#pragma once

#include <memory>

#include "engine/queue_order.h"

namespace headroom::engine {

std::unique_ptr<QueueOrder> MakeFifoOrder(const PolicyConfig& policy);
std::unique_ptr<QueueOrder> MakePriorityOrder(const PolicyConfig& policy);
std::unique_ptr<QueueOrder> MakeMultifactorOrder(const PolicyConfig& policy);
std::unique_ptr<QueueOrder> MakeServiceOrder(const PolicyConfig& policy);
std::unique_ptr<QueueOrder> MakeAttainedServiceOrder(const PolicyConfig& policy);

}  // namespace headroom::engine
