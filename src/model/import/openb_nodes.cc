#include "model/import/openb_nodes.h"

#include <array>
#include <unordered_set>
#include <utility>

#include "base/csv.h"
#include "model/cluster_builder.h"

namespace headroom::model {
namespace {

constexpr int64_t kMaxGpusPerNode = 1024;
constexpr int64_t kMaxCpuMilli = 1'000'000'000'000;
constexpr int64_t kMaxMemoryMib = int64_t{1} << 40;

Result<int64_t> IntInRange(const CsvTable& table, size_t row, size_t column, int64_t max,
                           std::string_view expected) {
  auto value = table.Int(row, column);
  if (!value || *value < 0 || *value > max) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: expected {}, got \"{}\"",
                     table.Where(row, column), expected, table.Field(row, column));
  }
  return *value;
}

}  // namespace

std::optional<double> OpenbModelMemoryGib(std::string_view model) {
  static constexpr std::array<std::pair<std::string_view, double>, 4> kKnown = {
      {{"T4", 16}, {"A10", 24}, {"V100M16", 16}, {"V100M32", 32}}};
  for (const auto& [name, gib] : kKnown) {
    if (name == model) return gib;
  }
  return std::nullopt;
}

Result<Cluster> ParseOpenbNodes(std::string_view text, const std::string& source) {
  auto table = CsvTable::Parse(text, source);
  if (!table) return tl::unexpected(table.error());
  size_t columns[5];
  constexpr std::array<std::string_view, 5> kColumns = {"sn", "cpu_milli", "memory_mib", "gpu",
                                                        "model"};
  for (size_t i = 0; i < kColumns.size(); ++i) {
    auto column = table->Column(kColumns[i]);
    if (!column) return tl::unexpected(column.error());
    columns[i] = *column;
  }
  const auto [sn, cpu, memory, gpu, model] = columns;

  ClusterBuilder builder({"cluster"}, "openb");
  std::unordered_set<std::string> names;
  for (size_t row = 0; row < table->row_count(); ++row) {
    NodeSpec spec;
    spec.name = std::string(table->Field(row, sn));
    if (spec.name.empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "{}: expected a node name, got \"\"",
                       table->Where(row, sn));
    }
    if (!names.insert(spec.name).second) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: expected unique node names, got a second \"{}\"", table->Where(row, sn),
                       spec.name);
    }
    auto cpu_milli = IntInRange(*table, row, cpu, kMaxCpuMilli, "a non-negative integer");
    if (!cpu_milli) return tl::unexpected(cpu_milli.error());
    auto memory_mib = IntInRange(*table, row, memory, kMaxMemoryMib, "a non-negative integer");
    if (!memory_mib) return tl::unexpected(memory_mib.error());
    auto gpus = IntInRange(*table, row, gpu, kMaxGpusPerNode, "an integer from 0 to 1024");
    if (!gpus) return tl::unexpected(gpus.error());
    spec.cpu_milli = *cpu_milli;
    spec.memory_mib = *memory_mib;
    if (*gpus > 0) {
      const std::string_view model_name = table->Field(row, model);
      if (model_name.empty()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "{}: expected a GPU model on a node with {} GPUs, got \"\"",
                         table->Where(row, model), *gpus);
      }
      Attributes attributes;
      attributes.Set("model", std::string(model_name));
      if (auto gib = OpenbModelMemoryGib(model_name)) attributes.Set("memory_gib", *gib);
      spec.devices.assign(static_cast<size_t>(*gpus), attributes);
    }
    builder.AddNode(builder.root(), std::move(spec));
  }
  auto cluster = std::move(builder).Build();
  if (!cluster) return tl::unexpected(WithContext(cluster.error(), source));
  return cluster;
}

Result<Cluster> LoadOpenbNodes(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  return ParseOpenbNodes(*text, path);
}

}  // namespace headroom::model
