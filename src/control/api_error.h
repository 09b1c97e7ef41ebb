// ApiError: an HTTP API failure as docs/api.md "Errors" defines it — status, code and a message
// that says what to do. Rendered as {"error": {"code": ..., "message": ...}}.
// Threading: plain values.
#pragma once

#include <string>
#include <utility>

#include <fmt/format.h>
#include <tl/expected.hpp>

#include "base/result.h"

namespace headroom::control {

struct ApiError {
  int status = 500;
  std::string code = "internal";
  std::string message;
};

template <typename T>
using ApiResult = tl::expected<T, ApiError>;

template <typename... Args>
tl::unexpected<ApiError> Fail(int status, fmt::format_string<Args...> format, Args&&... args) {
  const char* code = "internal";
  switch (status) {
    case 400:
      code = "invalid_argument";
      break;
    case 401:
      code = "unauthenticated";
      break;
    case 403:
      code = "permission_denied";
      break;
    case 404:
      code = "not_found";
      break;
    case 409:
      code = "conflict";
      break;
    case 413:
      code = "payload_too_large";
      break;
    case 415:
      code = "unsupported_media_type";
      break;
    case 429:
      code = "resource_exhausted";
      break;
    case 503:
      code = "unavailable";
      break;
    default:
      break;
  }
  return tl::unexpected(ApiError{status, code, fmt::format(format, std::forward<Args>(args)...)});
}

// A store failure seen by a request: the change was not made.
inline tl::unexpected<ApiError> StoreFailure(const Error& error) {
  return Fail(503, "the store could not commit the change ({}); retry later", error.message);
}

}  // namespace headroom::control
