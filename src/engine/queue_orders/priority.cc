// priority: priority class descending, then submit time (kube-scheduler's PrioritySort).
#include "engine/queue_orders/builtin_queue_orders.h"

namespace headroom::engine {
namespace {

class PriorityOrder final : public QueueOrder {
 public:
  std::string_view name() const override { return "priority"; }
  QueueKey Key(const model::Job& job, JobId id, const OrderContext&) const override {
    return {-static_cast<double>(job.priority), job.submit_time_us, id.value()};
  }
};

}  // namespace

std::unique_ptr<QueueOrder> MakePriorityOrder(const PolicyConfig&) {
  return std::make_unique<PriorityOrder>();
}

}  // namespace headroom::engine
