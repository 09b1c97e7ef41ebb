// fifo: submit time, then id (Slurm's builtin order; the FIFO baselines).
#include "engine/queue_orders/builtin_queue_orders.h"

namespace headroom::engine {
namespace {

class FifoOrder final : public QueueOrder {
 public:
  std::string_view name() const override { return "fifo"; }
  QueueKey Key(const model::Job& job, JobId id, const OrderContext&) const override {
    return {0, job.submit_time_us, id.value()};
  }
};

}  // namespace

std::unique_ptr<QueueOrder> MakeFifoOrder(const PolicyConfig&) {
  return std::make_unique<FifoOrder>();
}

}  // namespace headroom::engine
