// Names the calling thread, so that `top -H`, `ps -L` and /proc/PID/task/*/comm show which of
// headroomd's threads spends the CPU ("hr-loop", "hr-journal", "hr-worker", "hr-parked"); the
// HTTP library's own event thread keeps the process's name. Linux keeps 15 bytes of a name; a
// longer one is cut there. A failure to name is ignored: a name is for people, not behaviour.
#pragma once

#include <string_view>

namespace headroom::control {

void NameThisThread(std::string_view name);

}  // namespace headroom::control
