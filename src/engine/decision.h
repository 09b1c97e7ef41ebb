// Decisions: what the engine tells its caller to do after a step. Placements name nodes and
// devices exactly; the caller executes them and reports back with events.
// A migration moves a running job: it checkpoints and stops on its old devices (free at once
// in the engine's accounting), then restarts on `tasks` and continues with its remaining work;
// it holds the new devices from this step on, including the pause. The job stays running in
// the engine throughout, and its eventual JobFinished is reported as for any running job. A
// migration whose tasks differ in number from the job's is a resize of an elastic job (shrunk
// to make room, or grown into idle capacity; engine_elastic.cc): the rest of its work runs at
// the new width's pace, and its workers restart with the new world size.
// A preemption requeues a running job to make room for a higher-priority one: it gets its
// checkpoint signal and stops (its devices free at once in the engine's accounting), and it is
// pending again under the same id, to restart from its last checkpoint after a restart pause.
// Nothing is reported for the stopped attempt; its next start is a StartJob like any other.
// A power cap changes the limit a running job's devices run under (engine_power_caps.cc): it
// runs on where it is, slower and drawing less (model/device_power.h), until a later cap lifts
// it; the engine caps to keep the building's power domains and cooling zones within their limits
// and lifts caps when room returns.
//
// Every kind is an alternative of `Decision`; executors (the simulator, the live loop and its
// backends) go through Decisions::Visit, which requires a handler for every kind, so a kind
// added here does not compile until every executor handles it.
#pragma once

#include <cstdint>
#include <type_traits>
#include <variant>
#include <vector>

#include "base/ids.h"
#include "base/time.h"

namespace headroom::engine {

struct TaskAllocation {
  NodeId node;
  std::vector<DeviceId> devices;
  uint32_t milli_per_device = 1000;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  // The power limit of each of its devices, watts; 0: the device's default (its TDP). Only
  // whole-device tasks are capped (a device shared by several tasks has one limit).
  uint32_t power_cap_w = 0;

  bool operator==(const TaskAllocation&) const = default;
};

struct StartJob {
  JobId job;
  std::vector<TaskAllocation> tasks;  // One per task, rank order.
  // How often the job is told to checkpoint (recovery.direct_checkpoints); 0: as it declared.
  TimeUs checkpoint_interval_us = 0;
};

struct MigrateJob {
  JobId job;
  std::vector<TaskAllocation> tasks;  // The new placement, one per task, rank order.
  TimeUs pause_us = 0;                // Checkpoint + restart the engine planned with.
  int64_t cost_device_us = 0;         // pause_us × the job's devices.
};

// Why a job is preempted, for the message its owner reads (not journaled: a replay compares
// what the engine decides, not the words).
enum class PreemptReason : uint8_t {
  kPriority,     // The preemptor outranks it.
  kReclaim,      // It runs on capacity its queue borrows from the preemptor's (quota.h).
  kLessService,  // The preemptor has had less service (least attained service, Tiresias).
  kFacility,     // Capping its work was not enough to keep the building within its limits.
};

struct PreemptJob {
  JobId job;
  JobId preemptor;  // The job it makes room for.
  PreemptReason reason = PreemptReason::kPriority;
  TimeUs checkpoint_interval_us = 0;  // In force for the job; 0: it saves nothing.
  TimeUs lost_us = 0;                 // Work since its last checkpoint, by the engine's clock.
  TimeUs restart_us = 0;              // The pause its next start takes before working again.
  int64_t cost_device_us = 0;         // (lost_us + restart_us) × the job's devices.
};

struct CapJob {
  JobId job;
  // The job's tasks as it holds them, each with its new power_cap_w (0: the cap is lifted).
  std::vector<TaskAllocation> tasks;
  double speed = 1;  // Its projected throughput under the caps, a share of uncapped.
};

// Every kind of decision, in the order a step's decisions are executed.
using Decision = std::variant<PreemptJob, CapJob, MigrateJob, StartJob>;

// A visitor with one call operator per decision kind: Visit(Handlers{[](const StartJob&) ...}).
template <typename... Handler>
struct Handlers : Handler... {
  using Handler::operator()...;
};
template <typename... Handler>
Handlers(Handler...) -> Handlers<Handler...>;

// Whether `Handler` takes every alternative of `Variant`.
template <typename Handler, typename Variant>
struct HandlesEvery;
template <typename Handler, typename... Kind>
struct HandlesEvery<Handler, std::variant<Kind...>>
    : std::bool_constant<(std::is_invocable_v<Handler&, const Kind&> && ...)> {};

struct Decisions {
  std::vector<StartJob> starts;
  // Executed before the starts of the same step (a start may use devices a move freed).
  std::vector<MigrateJob> migrations;
  // Executed after the preemptions: a lowered cap makes room under a limit before the moves and
  // starts of the step draw on it.
  std::vector<CapJob> caps;
  // Executed first: what they free is what the step's moves and starts may use.
  std::vector<PreemptJob> preemptions;

  bool empty() const {
    return starts.empty() && migrations.empty() && caps.empty() && preemptions.empty();
  }

  // Calls `handler` with every decision in execution order: preemptions, caps, migrations,
  // starts.
  template <typename Handler>
  void Visit(Handler&& handler) const {
    static_assert(std::variant_size_v<Decision> == 4,
                  "a new decision kind: hold it in Decisions and visit it here");
    static_assert(HandlesEvery<Handler, Decision>::value,
                  "an executor must handle every decision kind");
    for (const PreemptJob& preemption : preemptions) handler(preemption);
    for (const CapJob& cap : caps) handler(cap);
    for (const MigrateJob& move : migrations) handler(move);
    for (const StartJob& start : starts) handler(start);
  }
};

}  // namespace headroom::engine
