#include "engine/queue_order.h"

#include <array>

#include "engine/queue_orders/builtin_queue_orders.h"

namespace headroom::engine {

const Registry<QueueOrder, const MultifactorWeights&>& QueueOrders() {
  using OrderRegistry = Registry<QueueOrder, const MultifactorWeights&>;
  static constexpr std::array<OrderRegistry::Entry, 3> kEntries = {{
      {"fifo", "submit time", &MakeFifoOrder},
      {"priority", "priority descending, then submit time", &MakePriorityOrder},
      {"multifactor", "Slurm priority/multifactor: age, fair share, size, QoS",
       &MakeMultifactorOrder},
  }};
  static const OrderRegistry registry("queue order", kEntries);
  return registry;
}

}  // namespace headroom::engine
