// The dashboard page headroomd serves at GET / (docs/api.md "Dashboard"): one self-contained
// HTML document with inline CSS and JavaScript, no external resources. Its source is
// src/web/dashboard.html, embedded into the program at build time, so the bytes served are
// exactly that file's. The page itself calls the API with the token from its URL fragment.
// Any thread: the text is immutable.
#pragma once

#include <string_view>

namespace headroom::web {

// The page, UTF-8, to be served as `text/html; charset=utf-8`.
std::string_view DashboardHtml();

}  // namespace headroom::web
