// Names: the one check of every name and free text that the API accepts into the store or
// shows back — tenants, node names, job and service names, device models and identifiers,
// addresses, drain reasons — and the short, escaped excerpt an error message may quote.
//
// Promises:
//  1. Every API path that stores a name checks it here, and the job-spec parser (which reads
//     stored specs back at every start) checks tenants and names with the same rule, so a name
//     the API accepted can never fail a later start.
//  2. No accepted name or reason holds a byte that a terminal reads as a control sequence
//     (ESC, CSI, BEL, ...): labels allow tab as their only control character, node names and
//     addresses are ASCII from a small set, reasons allow none.
//  3. QuoteExcerpt shows at most kMaxExcerptBytes bytes of its input, escaped, on one line.
// Threading: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace headroom::control {

enum class NameKind : uint8_t {
  // Tenants, job and service names (metadata.name), device models, UUIDs, clique ids: 1 to 253
  // bytes of UTF-8 text; tab is the one control character allowed (the job-spec parser always
  // took it, and stores written before this check hold such names).
  kLabel,
  // Node names: 1 to 253 bytes of letters, digits, '.', '-' and '_' — safe as a URL path
  // segment (/v1/agents/{node}/heartbeat, /v1/nodes/{name}/drain) and as a host name.
  kNode,
  // An agent's address: 0 to 253 bytes of letters, digits and ".:-_%[]" (IPv4, IPv6, host name).
  kAddress,
  // A drain reason: 0 to 256 bytes of UTF-8 text without any control character.
  kReason,
};

inline constexpr size_t kMaxLabelBytes = 253;
inline constexpr size_t kMaxReasonBytes = 256;
inline constexpr size_t kMaxExcerptBytes = 40;

bool IsValidName(std::string_view text, NameKind kind);

// What a valid name of `kind` is, for "expected ..." messages.
std::string_view NameExpectation(NameKind kind);

// `text` in double quotes, cut to kMaxExcerptBytes bytes (at a UTF-8 boundary, "..." marking
// the cut), with quotes, backslashes and control bytes escaped: what an error message or a
// terminal may show of a value it did not choose.
std::string QuoteExcerpt(std::string_view text);

}  // namespace headroom::control
