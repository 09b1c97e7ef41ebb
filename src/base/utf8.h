// UTF-8 well-formedness, for every boundary that takes text it will store, echo or serialize as
// JSON (nlohmann::json refuses to dump a string that is not UTF-8): the YAML loader, names, job
// specs. Well-formed means RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace headroom {

// The offset of the first byte that does not start a well-formed sequence; nullopt when all do.
std::optional<size_t> FirstInvalidUtf8(std::string_view text);

inline bool IsValidUtf8(std::string_view text) { return !FirstInvalidUtf8(text).has_value(); }

}  // namespace headroom
