// Random scheduling states for the policy roles' contract suites: a small random cluster, some
// work already placed on it by headroom's placer, some nodes drained, and requests of every
// kind (whole devices, shares, CPU only, selectors that match one model, both or none).
#pragma once

#include <memory>
#include <vector>

#include <rapidcheck.h>

#include "engine/cluster_state.h"
#include "engine/placement.h"
#include "engine/presets.h"
#include "engine/request.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine::testing {

// A request with the storage it points into.
struct OwnedRequest {
  model::Job job;
  ClassMask mask;
  PlacementRequest request() const { return PlacementRequest{&job.task, job.task_count, &mask}; }
};

inline OwnedRequest RequestFor(const model::Cluster& cluster, model::Job job) {
  OwnedRequest owned{std::move(job), {}};
  owned.mask.matches.assign(std::max<size_t>(cluster.device_classes().size(), 1), 0);
  for (uint32_t c = 0; c < cluster.device_classes().size(); ++c) {
    if (owned.job.task.selector.Matches(cluster.device_classes()[c].attributes)) {
      owned.mask.matches[c] = 1;
      owned.mask.classes.push_back(DeviceClassId(c));
    }
  }
  return owned;
}

// A random state: a cluster, its state with the placeable part of a workload allocated by
// headroom's placer, and a few drained nodes; plus the requests of a second workload to ask
// about. The cluster lives on the heap so that the state's reference stays valid.
struct RandomState {
  std::unique_ptr<model::Cluster> cluster;
  std::unique_ptr<ClusterState> state;
  std::vector<OwnedRequest> requests;
};

inline RandomState GenRandomState() {
  RandomState out;
  out.cluster = std::make_unique<model::Cluster>((*headroom::testing::GenClusterSpec()).Build());
  out.state = std::make_unique<ClusterState>(*out.cluster);
  const Placer placer(PlacementOptionsOf(*PresetPolicy("headroom")));
  for (const auto& spec : *headroom::testing::GenWorkload()) {
    const OwnedRequest owned = RequestFor(*out.cluster, spec.ToJob());
    if (auto tasks = placer.Place(*out.state, owned.request(), nullptr)) {
      for (const TaskAllocation& task : *tasks) out.state->Allocate(task);
    }
  }
  const auto nodes = static_cast<uint32_t>(out.cluster->nodes().size());
  for (uint32_t node :
       *rc::gen::container<std::vector<uint32_t>>(rc::gen::inRange<uint32_t>(0, nodes))) {
    if (node % 3 == 0) out.state->SetDrained(NodeId(node), true);
  }
  out.state->Commit(0);
  for (const auto& spec : *headroom::testing::GenWorkload()) {
    out.requests.push_back(RequestFor(*out.cluster, spec.ToJob()));
  }
  return out;
}

}  // namespace headroom::engine::testing
