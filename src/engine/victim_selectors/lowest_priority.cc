// lowest_priority: the lowest-priority job first, then the cheapest, then the lower id — the
// order in which Kubernetes' default preemption and Slurm's preempt/qos pick victims
// (kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption,
// slurm.schedmd.com/preempt.html).
#include "engine/victim_selectors/builtin_victim_selectors.h"

namespace headroom::engine {
namespace {

class LowestPriority final : public VictimSelector {
 public:
  std::string_view name() const override { return "lowest_priority"; }
  VictimKey Key(const MovableJob& job, int64_t cost_device_us) const override {
    return {job.priority, cost_device_us, job.id.value()};
  }
};

}  // namespace

std::unique_ptr<VictimSelector> MakeLowestPrioritySelector() {
  return std::make_unique<LowestPriority>();
}

}  // namespace headroom::engine
