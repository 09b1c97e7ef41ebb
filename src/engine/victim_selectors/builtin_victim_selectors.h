// The built-in victim selectors' factories (one file each in this folder), for the registry in
// victim_selector.cc.
#pragma once

#include <memory>

#include "engine/victim_selector.h"

namespace headroom::engine {

std::unique_ptr<VictimSelector> MakeCheapestMoveSelector();
std::unique_ptr<VictimSelector> MakeLowestPrioritySelector();
std::unique_ptr<VictimSelector> MakeLowestPriorityNewestSelector();

}  // namespace headroom::engine
