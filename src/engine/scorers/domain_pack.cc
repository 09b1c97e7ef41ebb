// domain_pack: prefer nodes whose deepest fabric domain (rack, NVLink domain) is already more
// allocated — the allocated fraction of its devices — so whole domains stay free for gangs.
#include "engine/scorers/builtin_scorers.h"

namespace headroom::engine {
namespace {

class DomainPack final : public NodeScorer {
 public:
  std::string_view name() const override { return "domain_pack"; }
  double Score(const ClusterState& state, NodeId node_id, const PlacementRequest&,
               uint32_t) const override {
    const DomainId domain = state.cluster().node(node_id).domain;
    const uint64_t capacity = state.domain_device_capacity(domain);
    if (capacity == 0) return 0;
    uint64_t free = 0;
    for (uint32_t c = 0; c < state.class_count(); ++c) {
      free += state.domain_free_milli(domain, DeviceClassId(c));
    }
    return 1.0 - static_cast<double>(free) / (1000.0 * static_cast<double>(capacity));
  }
};

}  // namespace

std::unique_ptr<NodeScorer> MakeDomainPackScorer() { return std::make_unique<DomainPack>(); }

}  // namespace headroom::engine
