// JobSpec: a job or service as a user submits it to headroomd (docs/api.md "Jobs"), in the
// Kubernetes shape with device requests after ResourceClaim. One parser reads YAML and JSON
// (JSON is read as YAML), so both give the same errors:
//   request body:7: field 'spec.devices.requests[0].count': expected an integer >= 1, got "eight"
//
// Promises:
//  1. ParseJobSpec never throws and never crashes on any bytes (fuzz/job_spec_fuzz.cc); every
//     error is one line naming the line and the field.
//  2. JobSpecToJson writes the canonical JSON form; ParseJobSpec reads it back to an equal spec
//     (the store keeps specs this way).
//  3. A parsed spec is valid: sizes in range, share only with count 1, selector parsed.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "control/spec_quantities.h"
#include "model/job.h"
#include "model/selector.h"

namespace headroom::control {

enum class JobKind : uint8_t { kJob, kService };

// spec.autoscaling of a Service: headroomd sets its replica count from the request rate reported
// to it (docs/api.md "Services"), as Kubernetes' HorizontalPodAutoscaler does (engine/
// autoscaler.h); `replicas` is then the count the service starts with.
struct ServiceAutoscaling {
  uint32_t min_replicas = 1;
  uint32_t max_replicas = 1;
  // Requests/s one replica serves at full utilisation, in thousandths (exact, as written).
  int64_t capacity_milli_per_s = 0;
  uint32_t target_utilization_percent = 70;
  TimeUs scale_down_window_us = 300 * kUsPerSecond;
  // How far ahead the rate's trend is forecast, for replicas that take this long to load; 0: no
  // forecast (Kubernetes' HPA).
  TimeUs forecast_us = 0;
  // A PromQL expression whose answer is the service's request rate, run against headroomd's
  // --prometheus-url (prometheus_load.h); empty: only reports posted to the API count.
  std::string prometheus_query;

  friend bool operator==(const ServiceAutoscaling&, const ServiceAutoscaling&) = default;
};

struct JobSpec {
  JobKind kind = JobKind::kJob;
  std::string name;
  std::string tenant;  // Empty: the submitter's own tenant.
  int32_t priority = 0;
  uint32_t tasks = 1;  // Gang size; 1 for a service's jobs.
  // spec.elastic: {minTasks, step}: the job may run with min_tasks..tasks tasks in steps of
  // task_step (model::Job's elastic range). 0: rigid (also what minTasks = tasks reads as).
  uint32_t min_tasks = 0;
  uint32_t task_step = 1;
  uint32_t replicas = 0;                          // Services only.
  std::optional<ServiceAutoscaling> autoscaling;  // Services only.
  TimeUs time_limit_us = 0;
  // Simulated backend: how long it runs; 0 (not given) runs until the time limit and
  // completes there.
  TimeUs runtime_us = 0;
  // How often the job saves its progress (model::Job::checkpoint_interval_us); a preempted job
  // restarts from its last checkpoint. 0 (not given): the policy's default.
  TimeUs checkpoint_interval_us = 0;
  // How long one checkpoint pauses the job (model::Job::checkpoint_cost_us); a policy with
  // recovery.direct_checkpoints then tells each start how often to checkpoint
  // (HEADROOM_CHECKPOINT_INTERVAL_S). 0 (not given): not declared.
  TimeUs checkpoint_cost_us = 0;
  std::vector<std::string> command;
  std::vector<std::pair<std::string, std::string>> env;  // In document order, unique keys.
  int64_t cpu_milli = 0;                                 // Per task.
  int64_t memory_mib = 0;                                // Per task.
  std::string request_name;                              // devices.requests[0].name
  uint32_t devices = 0;                                  // Whole devices per task.
  uint32_t share_milli = model::kMilliPerDevice;         // < 1000: a share of one device.
  model::Selector selector;                              // The request's selectors, ANDed.
  // The request's acceptDegraded: its tasks may run on degraded devices (model::Job's
  // accepts_degraded; a device is degraded while it runs hot, device_health.h).
  bool accept_degraded = false;
  // spec.topology: fabric level names (model::Job has what they mean); empty = not stated.
  std::string required_topology_level;
  std::string preferred_topology_level;

  friend bool operator==(const JobSpec& a, const JobSpec& b);
};

// Limits on one spec, so that no request can make the daemon allocate without bound.
inline constexpr uint32_t kMaxTasks = 100'000;
inline constexpr uint32_t kMaxReplicas = 10'000;
inline constexpr uint32_t kMaxDevicesPerTask = 1024;
inline constexpr size_t kMaxListItems = 1024;
inline constexpr int64_t kMaxCapacityMilliPerS = 1'000'000'000;  // A million requests/s.

// `source` prefixes every message ("request body").
Result<JobSpec> ParseJobSpec(std::string_view text, std::string_view source = "request body");

std::string JobSpecToJson(const JobSpec& spec);

// The spec that `text` holds when it is exactly in JobSpecToJson's form (members in any order)
// and valid; nullopt for anything else, which ParseJobSpec then reads or explains. Promise: when
// it returns a spec, ParseJobSpec(text) returns the same one (tests and fuzz/job_spec_fuzz.cc
// check both readers against each other). ~20x faster than ParseJobSpec: a restart reads every
// stored spec (job_spec_json.cc).
std::optional<JobSpec> ReadCanonicalJobSpec(std::string_view text);

// The spec's rules for free text (command items, env values, request names and selectors):
// valid UTF-8 of at most 64 KiB without control characters other than tab; and for env names:
// letters, digits and '_', not starting with a digit.
bool IsPlainText(std::string_view text, bool allow_empty);
bool IsEnvName(std::string_view key);

// ParseJobSpec for a store's rows (ReadCanonicalJobSpec first), each distinct text parsed once
// into the cache: a service's replicas share
// one spec, and so do jobs submitted in a loop, which is how a queue grows to 100,000s of jobs
// (a restart re-parsed 190,000 equal specs, one by one). Remembers the first `capacity`
// distinct texts that parsed; errors are never remembered, so each failing row gets its own
// message. Threading: single-threaded.
class JobSpecCache {
 public:
  explicit JobSpecCache(size_t capacity = 4096) : capacity_(capacity) {}
  Result<JobSpec> Parse(std::string_view text, std::string_view source);

 private:
  // Finds a string_view without copying it into a std::string first.
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>()(text); }
  };
  size_t capacity_;
  std::unordered_map<std::string, JobSpec, TextHash, std::equal_to<>> parsed_;
};

// The engine's view of one gang (one replica for a service) submitted at `submit_us`.
// The wall-clock limit of an attempt with `width` tasks: an elastic job started narrower has
// its time limit stretched as its work is (model::Job::AtWidth).
inline TimeUs TimeLimitAtWidth(const JobSpec& spec, uint64_t width) {
  return model::Job::ScaledToWidth(spec.time_limit_us, spec.tasks, width);
}

model::Job ToModelJob(const JobSpec& spec, std::string_view tenant, TimeUs submit_us);

}  // namespace headroom::control
