#include "sim/traces/dlrm_trace.h"

#include <cmath>
#include <utility>

#include "base/csv.h"
#include "sim/traces/trace_fields.h"

namespace headroom::sim {
namespace {

// Far above any node: 1,000,000 vCPUs, GiB or GPUs is a malformed cell, not an instance.
constexpr double kMaxAmount = 1'000'000;

Result<double> ReadAmount(const CsvTable& table, size_t row, size_t column) {
  auto value = table.Double(row, column);
  if (!value) return tl::unexpected(value.error());
  if (*value < 0 || *value > kMaxAmount) {
    return MakeError(
        ErrorCode::kInvalidArgument, "{}: expected a non-negative number at most {}, got \"{}\"",
        table.Where(row, column), static_cast<int64_t>(kMaxAmount), table.Field(row, column));
  }
  return *value;
}

// Seconds from the trace's start, or nullopt for an empty cell (NaN as published).
Result<std::optional<TimeUs>> ReadTime(const CsvTable& table, size_t row, size_t column) {
  const std::string_view text = table.Field(row, column);
  if (text.empty() || text == "NaN" || text == "nan") return std::optional<TimeUs>();
  auto seconds = table.Double(row, column);
  if (!seconds || *seconds < 0 || *seconds > static_cast<double>(kMaxTraceSeconds)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: expected seconds from the trace's start (0 to {}) or nothing, got \"{}\"",
                     table.Where(row, column), kMaxTraceSeconds, text);
  }
  return std::optional<TimeUs>(std::llround(*seconds * static_cast<double>(kUsPerSecond)));
}

}  // namespace

Result<ServiceInstanceTrace> ParseDlrmTrace(std::string_view text, std::string source) {
  auto table = CsvTable::Parse(text, source);
  if (!table) return tl::unexpected(table.error());
  constexpr size_t kColumns = 12;
  const char* const names[kColumns] = {"instance_sn",    "role",           "app_name",
                                       "cpu_request",    "gpu_request",    "rdma_request",
                                       "memory_request", "disk_request",   "max_instance_per_node",
                                       "creation_time",  "scheduled_time", "deletion_time"};
  size_t columns[kColumns] = {};
  for (size_t i = 0; i < kColumns; ++i) {
    auto column = table->Column(names[i]);
    if (!column) return tl::unexpected(column.error());
    columns[i] = *column;
  }
  const auto [instance_sn, role, app_name, cpu, gpu, rdma, memory, disk, max_per_node, created,
              scheduled, deleted] = columns;

  ServiceInstanceTrace trace;
  trace.instances.reserve(table->row_count());
  for (size_t row = 0; row < table->row_count(); ++row) {
    ServiceInstance instance;
    instance.name = std::string(table->Field(row, instance_sn));
    instance.service = std::string(table->Field(row, app_name));
    if (instance.service.empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "{}: expected a service name, got nothing",
                       table->Where(row, app_name));
    }
    const std::string_view role_text = table->Field(row, role);
    if (role_text != "CN" && role_text != "HN") {
      return MakeError(ErrorCode::kInvalidArgument, "{}: expected CN or HN, got \"{}\"",
                       table->Where(row, role), role_text);
    }
    instance.gpu_node = role_text == "HN";
    auto cpus = ReadAmount(*table, row, cpu);
    if (!cpus) return tl::unexpected(cpus.error());
    auto gpus = ReadCount(*table, row, gpu, kMaxTraceCount);
    if (!gpus) return tl::unexpected(gpus.error());
    auto rdma_percent = ReadCount(*table, row, rdma, 100);
    if (!rdma_percent) return tl::unexpected(rdma_percent.error());
    auto memory_gib = ReadAmount(*table, row, memory);
    if (!memory_gib) return tl::unexpected(memory_gib.error());
    auto disk_gib = ReadAmount(*table, row, disk);
    if (!disk_gib) return tl::unexpected(disk_gib.error());
    auto per_node = ReadSignedInteger(*table, row, max_per_node, kMaxTraceCount);
    if (!per_node) return tl::unexpected(per_node.error());
    if (*per_node == 0 || *per_node < -1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: expected -1 (no limit) or a positive integer, got \"{}\"",
                       table->Where(row, max_per_node), table->Field(row, max_per_node));
    }
    instance.cpus = *cpus;
    instance.gpus = static_cast<uint32_t>(*gpus);
    instance.rdma_percent = static_cast<uint32_t>(*rdma_percent);
    instance.memory_gib = *memory_gib;
    instance.disk_gib = *disk_gib;
    instance.max_per_node = *per_node < 0 ? 0 : static_cast<uint32_t>(*per_node);
    for (const auto& [column, out] :
         {std::pair{created, &instance.created_us}, std::pair{scheduled, &instance.scheduled_us},
          std::pair{deleted, &instance.deleted_us}}) {
      auto time = ReadTime(*table, row, column);
      if (!time) return tl::unexpected(time.error());
      *out = *time;
    }
    if (instance.created_us.has_value() != instance.scheduled_us.has_value() ||
        (instance.created_us && *instance.scheduled_us < *instance.created_us) ||
        (instance.scheduled_us && instance.deleted_us &&
         *instance.deleted_us < *instance.scheduled_us)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}:{}: expected creation_time <= scheduled_time <= deletion_time, the "
                       "first two both given or both empty, got \"{}\", \"{}\", \"{}\"",
                       table->source(), table->LineOf(row), table->Field(row, created),
                       table->Field(row, scheduled), table->Field(row, deleted));
    }
    trace.instances.push_back(std::move(instance));
  }
  trace.source = std::move(source);
  return trace;
}

Result<ServiceInstanceTrace> LoadDlrmTrace(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  return ParseDlrmTrace(*text, path);
}

}  // namespace headroom::sim
