#include "model/import/philly_machines.h"

#include <array>
#include <charconv>
#include <unordered_set>

#include "base/csv.h"
#include "model/cluster_builder.h"

namespace headroom::model {
namespace {

constexpr int64_t kMaxGpusPerNode = 1024;
constexpr int64_t kMaxGpuMemoryGb = 1'000'000;

// " 12GB" (already trimmed by the CSV reader) → 12; the unit may be any case.
Result<int64_t> ParseGigabytes(const CsvTable& table, size_t row, size_t column) {
  std::string_view text = table.Field(row, column);
  int64_t value = 0;
  const bool has_unit = text.size() > 2 &&
                        (text[text.size() - 2] == 'G' || text[text.size() - 2] == 'g') &&
                        (text.back() == 'B' || text.back() == 'b');
  if (has_unit) {
    const std::string_view digits = text.substr(0, text.size() - 2);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error == std::errc() && end == digits.data() + digits.size() && value > 0 &&
        value <= kMaxGpuMemoryGb) {
      return value;
    }
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "{}: expected a positive whole number of GB such as \"12GB\", got \"{}\"",
                   table.Where(row, column), text);
}

}  // namespace

Result<Cluster> ParsePhillyMachines(std::string_view text, const std::string& source,
                                    const PhillyMachineOptions& options) {
  if (options.cpu_milli_per_gpu < 0 || options.memory_mib_per_gpu < 0 ||
      options.cpu_milli_per_gpu > 1'000'000'000 ||
      options.memory_mib_per_gpu > (int64_t{1} << 30)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "philly options: expected non-negative per-GPU CPU and memory, got "
                     "cpu_milli_per_gpu {} and memory_mib_per_gpu {}",
                     options.cpu_milli_per_gpu, options.memory_mib_per_gpu);
  }
  auto table = CsvTable::Parse(text, source);
  if (!table) return tl::unexpected(table.error());
  size_t columns[3];
  constexpr std::array<std::string_view, 3> kColumns = {"machineId", "number of GPUs",
                                                        "single GPU mem"};
  for (size_t i = 0; i < kColumns.size(); ++i) {
    auto column = table->Column(kColumns[i]);
    if (!column) return tl::unexpected(column.error());
    columns[i] = *column;
  }
  const auto [machine, gpu_count, gpu_memory] = columns;

  ClusterBuilder builder({"cluster"}, "philly");
  std::unordered_set<std::string> names;
  for (size_t row = 0; row < table->row_count(); ++row) {
    NodeSpec spec;
    spec.name = std::string(table->Field(row, machine));
    if (spec.name.empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "{}: expected a machine id, got \"\"",
                       table->Where(row, machine));
    }
    if (!names.insert(spec.name).second) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: expected unique machine ids, got a second \"{}\"",
                       table->Where(row, machine), spec.name);
    }
    auto gpus = table->Int(row, gpu_count);
    if (!gpus || *gpus < 0 || *gpus > kMaxGpusPerNode) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: expected an integer from 0 to {}, got \"{}\"",
                       table->Where(row, gpu_count), kMaxGpusPerNode, table->Field(row, gpu_count));
    }
    auto gigabytes = ParseGigabytes(*table, row, gpu_memory);
    if (!gigabytes) return tl::unexpected(gigabytes.error());
    spec.cpu_milli = *gpus * options.cpu_milli_per_gpu;
    spec.memory_mib = *gpus * options.memory_mib_per_gpu;
    Attributes attributes;
    attributes.Set("model", fmt::format("philly-{}GB", *gigabytes));
    attributes.Set("memory_gib", static_cast<double>(*gigabytes));
    spec.devices.assign(static_cast<size_t>(*gpus), attributes);
    builder.AddNode(builder.root(), std::move(spec));
  }
  auto cluster = std::move(builder).Build();
  if (!cluster) return tl::unexpected(WithContext(cluster.error(), source));
  return cluster;
}

Result<Cluster> LoadPhillyMachines(const std::string& path, const PhillyMachineOptions& options) {
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  return ParsePhillyMachines(*text, path, options);
}

}  // namespace headroom::model
