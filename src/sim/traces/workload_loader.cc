#include "sim/traces/workload_loader.h"

#include <string>

#include "base/csv.h"
#include "sim/traces/gen_parallel_trace.h"
#include "sim/traces/itp_trace.h"
#include "sim/traces/openb_trace.h"
#include "sim/traces/synthetic_workload.h"

namespace headroom::sim {
namespace {

using TraceParser = Result<LoadedWorkload> (*)(std::string_view text, std::string source,
                                               const WorkloadOptions& options);

Result<LoadedWorkload> LoadTraceFile(TraceParser parse, std::string_view path,
                                     const WorkloadOptions& options) {
  auto text = ReadTextFile(std::string(path));
  if (!text) return tl::unexpected(text.error());
  return parse(*text, std::string(path), options);
}

}  // namespace

Result<LoadedWorkload> LoadWorkload(std::string_view spec, const WorkloadOptions& options) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos || colon + 1 == spec.size()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "workload: expected FORMAT:PATH (openb, philly, helios, itp or synthetic), "
                     "got \"{}\"",
                     spec);
  }
  if (options.max_devices_per_node == 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "workload: expected max_devices_per_node of at least 1, got 0");
  }
  const std::string_view format = spec.substr(0, colon);
  const std::string_view path = spec.substr(colon + 1);
  if (format == "openb") return LoadTraceFile(&ParseOpenbTrace, path, options);
  if (format == "philly") return LoadTraceFile(&ParsePhillyTrace, path, options);
  if (format == "helios") return LoadTraceFile(&ParseHeliosTrace, path, options);
  if (format == "itp") return LoadTraceFile(&ParseItpTrace, path, options);
  if (format == "synthetic") return LoadSyntheticWorkload(path, options);
  return MakeError(ErrorCode::kInvalidArgument,
                   "workload: expected a format of openb, philly, helios, itp or synthetic, got "
                   "\"{}\"",
                   format);
}

}  // namespace headroom::sim
