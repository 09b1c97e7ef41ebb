#include "agent/http_url.h"

#include <charconv>

#include "model/yaml_field.h"

namespace headroom::agent {
namespace {

bool IsHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

}  // namespace

std::string HttpUrl::Origin() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}", scheme, v6 ? "[" : "", host, v6 ? "]" : "", port);
}

Result<HttpUrl> ParseHttpUrl(std::string_view url) {
  const std::string quoted = model::QuoteForMessage(url);
  HttpUrl out;
  std::string_view rest = url;
  if (rest.starts_with("http://")) {
    out.scheme = "http";
    out.port = 80;
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    out.scheme = "https";
    out.port = 443;
    rest.remove_prefix(8);
  } else {
    return MakeError(ErrorCode::kInvalidArgument,
                     "expected a URL starting with http:// or https://, got {}", quoted);
  }
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  out.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (out.path.find_first_of("?#") != std::string::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "expected a URL without a query or fragment, got {}", quoted);
  }
  if (authority.find('@') != std::string_view::npos) {
    return MakeError(ErrorCode::kInvalidArgument, "expected a URL without user info, got {}",
                     quoted);
  }
  std::string_view port_text;
  if (authority.starts_with("[")) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "expected ']' closing the IPv6 address in the URL, got {}", quoted);
    }
    out.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(":")) {
      return MakeError(ErrorCode::kInvalidArgument, "expected ':' and a port after ']', got {}",
                       quoted);
    }
    if (!after.empty()) port_text = after.substr(1);
    for (const char c : out.host) {
      if (!(IsHostChar(c) || c == ':')) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "expected an IPv6 address inside the brackets, got {}", quoted);
      }
    }
  } else {
    const size_t colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    for (const char c : out.host) {
      if (!IsHostChar(c)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "expected a host name or address in the URL, got {}", quoted);
      }
    }
  }
  if (out.host.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "expected a host in the URL, got {}", quoted);
  }
  if (authority.find(':') != std::string_view::npos && !authority.starts_with("[") &&
      port_text.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "expected a port after ':', got {}", quoted);
  }
  if (!port_text.empty()) {
    int port = 0;
    const auto [end, error] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (error != std::errc() || end != port_text.data() + port_text.size() || port < 1 ||
        port > 65535) {
      return MakeError(ErrorCode::kInvalidArgument, "expected a port in 1..65535, got {}",
                       model::QuoteForMessage(port_text));
    }
    out.port = port;
  }
  return out;
}

std::string EncodePathSegment(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return out;
}

}  // namespace headroom::agent
