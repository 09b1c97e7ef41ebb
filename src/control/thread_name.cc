#include "control/thread_name.h"

#include <pthread.h>

#include <string>

namespace headroom::control {

void NameThisThread(std::string_view name) {
  constexpr size_t kLinuxLimit = 15;  // TASK_COMM_LEN is 16 with the terminating NUL.
  const std::string cut(name.substr(0, kLinuxLimit));
  pthread_setname_np(pthread_self(), cut.c_str());
}

}  // namespace headroom::control
