#include "engine/queue_order.h"

#include <array>

#include "engine/queue_orders/builtin_queue_orders.h"

namespace headroom::engine {

const Registry<QueueOrder, const PolicyConfig&>& QueueOrders() {
  using OrderRegistry = Registry<QueueOrder, const PolicyConfig&>;
  static constexpr std::array<OrderRegistry::Entry, 5> kEntries = {{
      {"fifo", "submit time", &MakeFifoOrder},
      {"priority", "priority descending, then submit time", &MakePriorityOrder},
      {"multifactor", "Slurm priority/multifactor: age, fair share, size, QoS",
       &MakeMultifactorOrder},
      {"qssf", "quasi-shortest-service-first: devices x runtime from the tenant's history, aged",
       &MakeServiceOrder},
      {"las", "Tiresias's discretized least attained service: queues of device-time run",
       &MakeAttainedServiceOrder},
  }};
  static const OrderRegistry registry("queue order", kEntries);
  return registry;
}

}  // namespace headroom::engine
