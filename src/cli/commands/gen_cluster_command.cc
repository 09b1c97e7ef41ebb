#include <cstdio>
#include <memory>

#include "cli/commands/commands.h"
#include "model/cluster_generator.h"
#include "model/cluster_yaml_writer.h"

namespace headroom::cli {

std::function<int()> AddGenClusterCommand(CLI::App& app) {
  auto options = std::make_shared<model::GeneratorOptions>();
  CLI::App* command = app.add_subcommand(
      "gen-cluster", "Write a synthetic building (cluster YAML) to standard output");
  command->add_option("--devices", options->devices, "Total devices")->required();
  command->add_option("--devices-per-node", options->devices_per_node, "Devices per node")
      ->capture_default_str();
  command->add_option("--nvlink-domain", options->nvlink_domain, "Devices per NVLink domain (rack)")
      ->capture_default_str();
  command->add_option("--racks-per-leaf", options->racks_per_leaf)->capture_default_str();
  command->add_option("--leaves-per-pod", options->leaves_per_pod)->capture_default_str();
  command->add_option("--model", options->model, "Device model")->capture_default_str();
  command->add_option("--memory-gib", options->memory_gib, "Memory per device (GiB)")
      ->capture_default_str();
  command->add_option("--cpu-milli-per-node", options->cpu_milli_per_node)->capture_default_str();
  command->add_option("--memory-gib-per-node", options->memory_gib_per_node)->capture_default_str();
  command->add_option("--name", options->name, "Name of the root domain")->capture_default_str();
  return [options] {
    auto cluster = model::GenerateCluster(*options);
    if (!cluster) {
      std::fprintf(stderr, "headroom gen-cluster: %s\n", cluster.error().message.c_str());
      return 2;
    }
    const std::string yaml = model::WriteClusterYaml(*cluster);
    std::fwrite(yaml.data(), 1, yaml.size(), stdout);
    return 0;
  };
}

}  // namespace headroom::cli
