// las: Tiresias's discretized two-dimensional least-attained-service order (Gu et al., "Tiresias:
// A GPU Cluster Manager for Distributed Deep Learning", NSDI'19 §3.2; dlas-gpu in the
// SymbioticLab/Tiresias simulator, run_sim.py): pending jobs by the queue their attained service
// (devices × time run, since submission or promotion) puts them in, the least served first,
// then by submit time, first come first served within a queue, as the artifact appends
// arrivals. It needs no runtime estimate. The engine keeps the attained service and promotes
// starved jobs (AttainedServiceConfig::promote_knob); keys change only then, so the order is
// time-dependent only when promotion is on. With priority_first (headroom's), priority goes
// before the service queue.
#include "engine/attained_service.h"
#include "engine/queue_orders/builtin_queue_orders.h"

namespace headroom::engine {
namespace {

class AttainedServiceOrder final : public QueueOrder {
 public:
  explicit AttainedServiceOrder(AttainedServiceConfig config) : config_(std::move(config)) {}
  std::string_view name() const override { return "las"; }
  bool time_dependent() const override { return config_.promote_knob > 0; }
  const AttainedServiceConfig* attained_service() const override { return &config_; }

  QueueKey Key(const model::Job& job, JobId id, const OrderContext& context) const override {
    return {-static_cast<double>(ServiceRank(config_, job.priority, context.attained_device_us)),
            job.submit_time_us, id.value()};
  }

 private:
  AttainedServiceConfig config_;
};

}  // namespace

std::unique_ptr<QueueOrder> MakeAttainedServiceOrder(const PolicyConfig& policy) {
  return std::make_unique<AttainedServiceOrder>(policy.las);
}

}  // namespace headroom::engine
