#include "engine/victim_selector.h"

#include <array>

#include "engine/victim_selectors/builtin_victim_selectors.h"

namespace headroom::engine {

const Registry<VictimSelector>& VictimSelectors() {
  static constexpr std::array<Registry<VictimSelector>::Entry, 3> kEntries = {{
      {"cheapest_move", "least checkpoint + restart device-time first", &MakeCheapestMoveSelector},
      {"lowest_priority", "lowest priority first, then cheapest", &MakeLowestPrioritySelector},
      {"lowest_priority_newest", "lowest priority first, then the latest started",
       &MakeLowestPriorityNewestSelector},
  }};
  static const Registry<VictimSelector> registry("victim selector", kEntries);
  return registry;
}

}  // namespace headroom::engine
