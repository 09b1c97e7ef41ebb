// HR_CHECK: invariants that only a bug can break. A failed check prints where and why, then
// aborts; it is never used for user input, which gets a Result instead.
#pragma once

#include <cstdio>
#include <cstdlib>

#define HR_CHECK(condition)                                                              \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (false)
