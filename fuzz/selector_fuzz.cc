// libFuzzer target for the selector language: any bytes must parse or fail with a column-naming
// error, never crash, and a selector that parses must evaluate against every attribute set and
// parse again to the same text and the same answers.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/check.h"
#include "model/attributes.h"
#include "model/selector.h"

namespace {

using headroom::model::Attributes;
using headroom::model::Selector;

const std::vector<Attributes>& AttributeSets() {
  static const auto* sets = [] {
    auto* out = new std::vector<Attributes>(4);
    (*out)[1].Set("model", "H100");
    (*out)[1].Set("memory_gib", 80.0);
    (*out)[1].Set("interconnect", "nvlink");
    (*out)[1].Set("nvidia.com/mig", "1g.10gb");
    (*out)[2].Set("model", "V100M16");
    (*out)[2].Set("memory_gib", 16.0);
    (*out)[2].Set("interconnect", "pcie");
    (*out)[3].Set("model", 1.0);  // Types swapped: every comparison is a mismatch.
    (*out)[3].Set("memory_gib", "80");
    return out;
  }();
  return *sets;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto selector = Selector::Parse(text);
  if (!selector) {
    HR_CHECK(selector.error().message.rfind("column ", 0) == 0);
    return 0;
  }
  auto again = Selector::Parse(selector->text());
  HR_CHECK(again.has_value());
  HR_CHECK(again->text() == selector->text());
  for (const auto& attributes : AttributeSets()) {
    HR_CHECK(selector->Matches(attributes) == again->Matches(attributes));
  }
  return 0;
}
