// Result<T>: the value a boundary function returns — either a T or an Error with a message a
// user can act on. Used by loading, parsing and the API; the engine itself throws nothing.
#pragma once

#include <string>
#include <utility>

#include <fmt/format.h>
#include <tl/expected.hpp>

namespace headroom {

enum class ErrorCode {
  kInvalidArgument,  // Malformed input: a bad flag, field, row or expression.
  kNotFound,         // A named file, node, job or preset does not exist.
  kIo,               // Reading or writing failed.
  kUnsupported,      // Well-formed but outside what this build can do.
};

struct Error {
  ErrorCode code = ErrorCode::kInvalidArgument;
  std::string message;
};

template <typename T>
using Result = tl::expected<T, Error>;

// Builds the unexpected branch of a Result with a formatted message.
template <typename... Args>
tl::unexpected<Error> MakeError(ErrorCode code, fmt::format_string<Args...> format,
                                Args&&... args) {
  return tl::unexpected<Error>(Error{code, fmt::format(format, std::forward<Args>(args)...)});
}

// Prefixes an error's message with where it happened ("file:line: "), keeping its code.
inline Error WithContext(Error error, std::string_view context) {
  error.message = fmt::format("{}: {}", context, error.message);
  return error;
}

}  // namespace headroom
