#include "model/cluster_generator.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/cluster_builder.h"
#include "model/cluster_yaml_names.h"

namespace headroom::model {
namespace {

constexpr int64_t kMaxDevicesPerNode = 1024;
constexpr int64_t kMaxPowerW = int64_t{1} << 50;

tl::unexpected<Error> Invalid(std::string_view option, std::string_view expected,
                              std::string_view got) {
  return MakeError(ErrorCode::kInvalidArgument, "generator option '{}': expected {}, got {}",
                   option, expected, got);
}

Result<void> Validate(const GeneratorOptions& options) {
  if (options.devices_per_node < 1 || options.devices_per_node > kMaxDevicesPerNode) {
    return Invalid("devices_per_node", fmt::format("an integer from 1 to {}", kMaxDevicesPerNode),
                   fmt::format("{}", options.devices_per_node));
  }
  if (options.devices <= 0 || options.devices % options.devices_per_node != 0 ||
      options.devices > kMaxGeneratedDevices) {
    return Invalid("devices",
                   fmt::format("a positive multiple of devices_per_node ({}), at most {}",
                               options.devices_per_node, kMaxGeneratedDevices),
                   fmt::format("{}", options.devices));
  }
  for (const auto& [name, value] : {std::pair{"nvlink_domain", options.nvlink_domain},
                                    std::pair{"racks_per_leaf", options.racks_per_leaf},
                                    std::pair{"leaves_per_pod", options.leaves_per_pod}}) {
    if (value < 1 || value > kMaxGeneratedDevices) {
      return Invalid(name, fmt::format("an integer from 1 to {}", kMaxGeneratedDevices),
                     fmt::format("{}", value));
    }
  }
  if (options.model.empty()) return Invalid("model", "a device model name", "\"\"");
  if (!std::isfinite(options.memory_gib) || options.memory_gib <= 0 || options.memory_gib > 1e9) {
    return Invalid("memory_gib", "a positive number of GiB", fmt::format("{}", options.memory_gib));
  }
  if (options.cpu_milli_per_node < 0 || options.cpu_milli_per_node > 1'000'000'000'000) {
    return Invalid("cpu_milli_per_node", "a non-negative integer",
                   fmt::format("{}", options.cpu_milli_per_node));
  }
  if (options.memory_gib_per_node < 0 || options.memory_gib_per_node > (int64_t{1} << 30)) {
    return Invalid("memory_gib_per_node", "a non-negative integer",
                   fmt::format("{}", options.memory_gib_per_node));
  }
  for (const auto& [name, value] :
       {std::pair{"node_max_power_w", options.node_max_power_w},
        std::pair{"cooling_w_per_rack", options.cooling_w_per_rack},
        std::pair{"power_limit_w_per_pod", options.power_limit_w_per_pod}}) {
    if (value < 0 || value > kMaxPowerW) {
      return Invalid(name, "a non-negative number of watts (0 for the default)",
                     fmt::format("{}", value));
    }
  }
  if (options.name.empty()) return Invalid("name", "a root domain name", "\"\"");
  return {};
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// a × b for non-negative values, saturating at kMaxPowerW (limits stay readable numbers).
int64_t CappedProduct(std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  for (const int64_t factor : factors) {
    if (factor != 0 && product > kMaxPowerW / factor) return kMaxPowerW;
    product *= factor;
  }
  return std::min(product, kMaxPowerW);
}

}  // namespace

Result<Cluster> GenerateCluster(const GeneratorOptions& options) {
  if (auto valid = Validate(options); !valid) return tl::unexpected(valid.error());

  const int64_t node_count = options.devices / options.devices_per_node;
  const int64_t nodes_per_rack =
      std::max<int64_t>(1, options.nvlink_domain / options.devices_per_node);
  const int64_t rack_count = CeilDiv(node_count, nodes_per_rack);
  const int64_t leaf_count = CeilDiv(rack_count, options.racks_per_leaf);
  const int64_t pod_count = CeilDiv(leaf_count, options.leaves_per_pod);
  const int64_t node_power_w = options.node_max_power_w > 0
                                   ? options.node_max_power_w
                                   : kDgxH100MaxPowerW * options.devices_per_node / 8;
  const int64_t rack_cooling_w =
      options.cooling_w_per_rack > 0
          ? options.cooling_w_per_rack
          : std::max<int64_t>(1, CappedProduct({nodes_per_rack, node_power_w}));
  const int64_t pod_power_w =
      options.power_limit_w_per_pod > 0
          ? options.power_limit_w_per_pod
          : std::max<int64_t>(1, CappedProduct({nodes_per_rack, options.racks_per_leaf,
                                                options.leaves_per_pod, node_power_w}));

  const std::vector<std::string> levels = {"cluster", "pod", "leaf", "rack"};
  ClusterBuilder builder(levels, options.name);
  NodeSpec spec{.cpu_milli = options.cpu_milli_per_node,
                .memory_mib = options.memory_gib_per_node * 1024};
  spec.devices.assign(static_cast<size_t>(options.devices_per_node),
                      DeviceAttributes(options.model, options.memory_gib));
  Facility facility;

  int64_t nodes_left = node_count;
  int64_t racks_left = rack_count;
  int64_t leaves_left = leaf_count;
  for (int64_t p = 0; p < pod_count; ++p) {
    const std::string pod_name =
        DefaultDomainPrefix(options.name, true, levels[1]) + std::to_string(p);
    const DomainId pod = builder.AddDomain(builder.root(), pod_name);
    facility.power_domains.push_back(
        PowerDomain{.name = pod_name + "-power", .domains = {pod}, .limit_w = pod_power_w});
    const std::string leaf_prefix = DefaultDomainPrefix(pod_name, false, levels[2]);
    for (int64_t l = 0; l < options.leaves_per_pod && leaves_left > 0; ++l, --leaves_left) {
      const std::string leaf_name = leaf_prefix + std::to_string(l);
      const DomainId leaf = builder.AddDomain(pod, leaf_name);
      const std::string rack_prefix = DefaultDomainPrefix(leaf_name, false, levels[3]);
      for (int64_t r = 0; r < options.racks_per_leaf && racks_left > 0; ++r, --racks_left) {
        const std::string rack_name = rack_prefix + std::to_string(r);
        const DomainId rack = builder.AddDomain(leaf, rack_name);
        facility.cooling_zones.push_back(
            CoolingZone{.name = rack_name, .domain = rack, .cooling_capacity_w = rack_cooling_w});
        const std::string node_prefix = DefaultNodePrefix(rack_name);
        for (int64_t n = 0; n < nodes_per_rack && nodes_left > 0; ++n, --nodes_left) {
          NodeSpec node = spec;
          node.name = node_prefix + std::to_string(n);
          builder.AddNode(rack, std::move(node));
        }
      }
    }
  }
  builder.SetFacility(std::move(facility));
  return std::move(builder).Build();
}

}  // namespace headroom::model
