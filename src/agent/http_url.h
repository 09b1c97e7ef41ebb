// HttpUrl: an http:// or https:// URL split into what cpp-httplib's Client needs — the
// "scheme://host:port" it connects to and the path it requests. Used for --server and
// --dcgm-url, so both flags reject the same mistakes with the same messages.
//
// Promises: the host is a name, an IPv4 address or a bracketed IPv6 address; the port, when
// given, is 1..65535; there is no user info, query or fragment. The path is "/" when absent.
// Threading: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace headroom::agent {

struct HttpUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // Without brackets for IPv6.
  int port = 0;        // 80 or 443 when the URL names none.
  std::string path;    // Starts with '/'.

  // "scheme://host:port" (IPv6 hosts bracketed), for httplib::Client.
  std::string Origin() const;
};

Result<HttpUrl> ParseHttpUrl(std::string_view url);

// `text` with every byte outside [A-Za-z0-9-._~] percent-encoded, for one path segment.
std::string EncodePathSegment(std::string_view text);

}  // namespace headroom::agent
