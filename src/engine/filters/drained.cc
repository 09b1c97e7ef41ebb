// drained: a drained node takes no new work. Mandatory: ClusterState leaves drained nodes out
// of every domain's free aggregates, so placing there would break the engine's books.
#include "engine/filters/builtin_filters.h"

namespace headroom::engine {
namespace {

class Drained final : public NodeFilter {
 public:
  std::string_view name() const override { return "drained"; }
  std::string_view rejects() const override { return "drained"; }
  bool mandatory() const override { return true; }
  bool Admits(const ClusterState& state, NodeId node, const PlacementRequest&) const override {
    return !state.drained(node);
  }
};

}  // namespace

std::unique_ptr<NodeFilter> MakeDrainedFilter() { return std::make_unique<Drained>(); }

}  // namespace headroom::engine
