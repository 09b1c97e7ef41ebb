// cheapest_move: the job whose checkpoint and restart cost the least device-time first, then
// the lower id — the fewest device-seconds lost for the room gained.
#include "engine/victim_selectors/builtin_victim_selectors.h"

namespace headroom::engine {
namespace {

class CheapestMove final : public VictimSelector {
 public:
  std::string_view name() const override { return "cheapest_move"; }
  VictimKey Key(const MovableJob& job, int64_t cost_device_us) const override {
    return {cost_device_us, 0, job.id.value()};
  }
};

}  // namespace

std::unique_ptr<VictimSelector> MakeCheapestMoveSelector() {
  return std::make_unique<CheapestMove>();
}

}  // namespace headroom::engine
