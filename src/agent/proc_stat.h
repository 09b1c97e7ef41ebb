// ProcStat: what /proc/PID/stat says about one process — its state letter, process group and
// start time — and a scan of /proc for the members of a process group. The agent uses the start
// time to recognise its own task processes after a restart: a pid (and so a process group id)
// can be reused by an unrelated process once the original is gone, but the pair (pid, start
// time) names one process for the life of the machine.
//
// Promises:
//  1. ReadProcStat returns nullopt when the process does not exist (or vanished while being
//     read); it never throws. A command name holding spaces or ')' is parsed correctly (the
//     fields are read after the last ')').
//  2. start_ticks is field 22 of proc(5): clock ticks after boot, fixed for the process's life.
//  3. A zombie (state 'Z') or a dead process ('X') is not alive: it holds no device and runs
//     nothing; only its parent can remove it.
// Threading: pure reads of /proc; any thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace headroom::agent {

struct ProcStat {
  pid_t pid = 0;
  char state = '?';  // R, S, D, Z, T, ... as proc(5) lists them.
  pid_t pgid = 0;
  uint64_t start_ticks = 0;

  bool alive() const { return state != 'Z' && state != 'X'; }
};

std::optional<ProcStat> ReadProcStat(pid_t pid);

// The live (not zombie) processes of process group `pgid` that started at or after
// `min_start_ticks`, in pid order.
std::vector<ProcStat> LiveGroupMembers(pid_t pgid, uint64_t min_start_ticks);

}  // namespace headroom::agent
