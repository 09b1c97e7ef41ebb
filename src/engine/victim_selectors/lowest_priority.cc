// lowest_priority: the lowest-priority job first, then the cheapest to lose, then the lower id:
// priority decides as in Slurm's preempt/qos (slurm.schedmd.com/preempt.html), and among equals
// the job that loses least work goes (lowest_priority_newest is Kubernetes' order).
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
