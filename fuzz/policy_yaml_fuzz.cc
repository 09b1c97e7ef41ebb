// Fuzzes ParsePolicyYaml: no input may crash, hang or leak, and every policy that parses must
// make an engine (every piece it names is registered, every parameter in range) that can take
// a job and step.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/engine.h"
#include "engine/policy_yaml.h"
#include "model/cluster_builder.h"

namespace {

const headroom::model::Cluster& TinyCluster() {
  static const headroom::model::Cluster cluster = [] {
    headroom::model::ClusterBuilder builder({"cluster", "rack"});
    for (int r = 0; r < 2; ++r) {
      const headroom::DomainId rack = builder.AddDomain(builder.root(), "r" + std::to_string(r));
      for (int n = 0; n < 2; ++n) {
        headroom::model::NodeSpec node{
            "r" + std::to_string(r) + "n" + std::to_string(n), 64000, 512 * 1024, {}};
        for (int d = 0; d < 4; ++d)
          node.devices.push_back(headroom::model::DeviceAttributes("H100", 80));
        builder.AddNode(rack, std::move(node));
      }
    }
    return *std::move(builder).Build();
  }();
  return cluster;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace headroom;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto policy = engine::ParsePolicyYaml(text, "fuzz.yaml");
  if (!policy) return 0;
  engine::Engine engine(TinyCluster(), *policy);
  model::Job job;
  job.task_count = 3;
  job.task.devices = 2;
  job.runtime_us = job.runtime_estimate_us = 60 * kUsPerSecond;
  std::vector<engine::Event> events{engine::JobSubmitted{JobId(0), job}};
  engine.Step(events, 0);
  return 0;
}
