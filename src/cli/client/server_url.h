// ServerUrl: where headroomd listens, parsed from `--server` / HEADROOM_SERVER
// ("http://127.0.0.1:8470", "https://ctl.example:443/headroom"). Promises: a parsed URL has a
// scheme of http or https, a non-empty host and a port in 1..65535 (80/443 when omitted);
// `base_path` is empty or starts with '/' and has no trailing '/'. Pure; any thread.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace headroom::cli {

struct ServerUrl {
  std::string scheme;     // "http" or "https"
  std::string host;       // a name, an IPv4 address, or an IPv6 address without brackets
  int port = 0;           // 1..65535
  std::string base_path;  // prefix for every API path, e.g. "/headroom"; usually empty

  // "host:port" as an HTTP Host header carries it (IPv6 hosts in brackets).
  std::string HostPort() const;
  // "scheme://" + HostPort().
  std::string SchemeHostPort() const;
  // The URL as the user would write it back: SchemeHostPort() + base_path.
  std::string ToString() const;
};

// Parses a server URL; the error names the URL and what is wrong with it.
Result<ServerUrl> ParseServerUrl(std::string_view text);

}  // namespace headroom::cli
