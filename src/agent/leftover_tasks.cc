#include "agent/leftover_tasks.h"

#include <signal.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "agent/proc_stat.h"

namespace headroom::agent {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(50);

// The live processes of the record's group, or none when the group is not the task's.
std::vector<ProcStat> MembersOf(const TaskRecord& record) {
  if (const std::optional<ProcStat> leader = ReadProcStat(record.pgid)) {
    // The number is taken: by the task's own leader, or (reused) by an unrelated process, which
    // Linux allows only after the task's whole group was gone.
    if (leader->start_ticks != record.start_ticks) return {};
  }
  return LiveGroupMembers(record.pgid, record.start_ticks);
}

// Waits up to `limit` for every group in `alive` to have no live member; returns those that
// still have some.
std::vector<size_t> WaitForGroups(const std::vector<TaskRecord>& records, std::vector<size_t> alive,
                                  TimeUs limit_us) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(limit_us);
  while (true) {
    std::erase_if(alive, [&](size_t i) { return MembersOf(records[i]).empty(); });
    if (alive.empty() || std::chrono::steady_clock::now() >= deadline) return alive;
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace

Result<std::vector<StoppedLeftover>> StopLeftoverTasks(const std::vector<TaskRecord>& records,
                                                       const LeftoverOptions& options) {
  std::vector<size_t> alive;
  for (size_t i = 0; i < records.size(); ++i) {
    if (MembersOf(records[i]).empty()) continue;
    kill(-records[i].pgid, SIGTERM);
    alive.push_back(i);
  }
  std::vector<StoppedLeftover> stopped;
  for (const size_t i : alive) stopped.push_back({.record = records[i]});
  const std::vector<size_t> stubborn = WaitForGroups(records, alive, options.term_grace_us);
  for (const size_t i : stubborn) {
    kill(-records[i].pgid, SIGKILL);
    for (StoppedLeftover& entry : stopped) {
      if (entry.record == records[i]) entry.needed_kill = true;
    }
  }
  const std::vector<size_t> survivors = WaitForGroups(records, stubborn, options.kill_wait_us);
  if (!survivors.empty()) {
    std::vector<std::string> described;
    for (const size_t i : survivors) {
      std::vector<std::string> pids;
      for (const ProcStat& member : MembersOf(records[i])) {
        pids.push_back(fmt::format("{} (state {})", member.pid, member.state));
      }
      described.push_back(fmt::format("job {} rank {} attempt {}: process group {}: {}",
                                      records[i].job, records[i].rank, records[i].attempt,
                                      records[i].pgid, fmt::join(pids, ", ")));
    }
    return MakeError(ErrorCode::kIo,
                     "task processes left by an earlier run survive SIGKILL, so their devices "
                     "may still be held; not registering: {}",
                     fmt::join(described, "; "));
  }
  return stopped;
}

}  // namespace headroom::agent
