// SpeedModel: how much slower a gang runs when its tasks are spread over more of the fabric.
// Trace runtimes are taken as the runtime at the most compact placement; a placement that
// crosses a boundary pays a fixed fraction for it, summed over every boundary crossed:
//
//   stretch = 1 + Σ_{levels ℓ the gang spans more than one domain of} penalty_ℓ
//
// where the levels are the topology's own (cluster, pod, leaf, rack, ...) plus "node" (the
// gang spans more than one node). A gang inside one node runs at stretch 1.
// Defaults (an assumption, [A] in PHYSICS.md terms; tune per building): crossing nodes inside
// an NVLink/rack domain +5%, crossing the deepest fabric domain +10%, each level above +15%.
// They are of the order measured for communication-heavy models on spread placements
// (Gandiva, OSDI'18, and Tiresias, NSDI'19, report up to 1.5-2x for VGG-class models).
#pragma once

#include <vector>

#include "engine/decision.h"
#include "model/cluster.h"

namespace headroom::sim {

class SpeedModel {
 public:
  // penalties[level] for level in [0, domain_levels) and node_penalty for crossing nodes.
  SpeedModel(std::vector<double> level_penalties, double node_penalty);
  static SpeedModel Default(const model::Cluster& cluster);

  double Stretch(const model::Cluster& cluster,
                 const std::vector<engine::TaskAllocation>& tasks) const;

 private:
  std::vector<double> level_penalties_;
  double node_penalty_;
};

}  // namespace headroom::sim
