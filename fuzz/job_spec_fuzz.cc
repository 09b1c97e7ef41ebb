// Fuzzes ParseJobSpec (headroomd's job and service specs, YAML or JSON): no input may crash,
// hang or leak; every error is one line that names where it happened ("request body:LINE:");
// and every spec that parses must survive JobSpecToJson → ParseJobSpec unchanged (the
// parser's promise 2, on which the store relies). The store's fast reader, ReadCanonicalJobSpec,
// is fuzzed against it: whatever it reads, ParseJobSpec reads the same, and it reads every
// canonical text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/check.h"
#include "control/job_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace headroom::control;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = ParseJobSpec(text, "request body");
  if (auto fast = ReadCanonicalJobSpec(text)) {
    HR_CHECK(spec.has_value());
    HR_CHECK(*fast == *spec);
  }
  if (!spec) {
    const std::string& message = spec.error().message;
    HR_CHECK(message.rfind("request body:", 0) == 0);
    HR_CHECK(message.find('\n') == std::string::npos);
    return 0;
  }
  const std::string json = JobSpecToJson(*spec);
  auto again = ParseJobSpec(json, "canonical");
  HR_CHECK(again.has_value());
  HR_CHECK(*again == *spec);
  HR_CHECK(JobSpecToJson(*again) == json);
  auto fast = ReadCanonicalJobSpec(json);
  HR_CHECK(fast.has_value());
  HR_CHECK(*fast == *spec);
  (void)ToModelJob(*again, again->tenant.empty() ? "default" : again->tenant, 0);
  return 0;
}
