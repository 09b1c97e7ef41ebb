#include "cli/client/server_url.h"

#include <charconv>

namespace headroom::cli {

std::string ServerUrl::HostPort() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return fmt::format("{}{}{}:{}", ipv6 ? "[" : "", host, ipv6 ? "]" : "", port);
}

std::string ServerUrl::SchemeHostPort() const { return scheme + "://" + HostPort(); }

std::string ServerUrl::ToString() const { return SchemeHostPort() + base_path; }

Result<ServerUrl> ParseServerUrl(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "server URL '{}': {} (expected e.g. http://127.0.0.1:8470)", text, why);
  };
  ServerUrl url;
  std::string_view rest = text;
  const size_t scheme_end = rest.find("://");
  if (scheme_end == std::string_view::npos) return bad("missing http:// or https://");
  url.scheme = std::string(rest.substr(0, scheme_end));
  if (url.scheme != "http" && url.scheme != "https") return bad("scheme must be http or https");
  rest.remove_prefix(scheme_end + 3);

  const size_t path_start = rest.find('/');
  std::string_view authority = rest.substr(0, path_start);
  if (path_start != std::string_view::npos) {
    std::string_view path = rest.substr(path_start);
    if (path.find_first_of("?#") != std::string_view::npos) {
      return bad("a query or fragment is not allowed");
    }
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    url.base_path = std::string(path);
  }
  if (authority.find('@') != std::string_view::npos) {
    return bad("credentials in the URL are not supported; use --token");
  }

  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed '[' in IPv6 address");
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("unexpected text after ']'");
      port_text = after.substr(1);
    }
  } else {
    const size_t colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (url.host.empty()) return bad("missing host");

  url.port = url.scheme == "https" ? 443 : 80;
  if (!port_text.empty()) {
    int port = 0;
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 ||
        port > 65535) {
      return bad("port must be a number in 1..65535");
    }
    url.port = port;
  }
  return url;
}

}  // namespace headroom::cli
