// TokenAuth: bearer tokens for headroomd (docs/api.md "Authentication and roles"). A token is
// 32 random bytes from the kernel's CSPRNG (getrandom(2)) as hex, handed out once; only its
// SHA-256 (Nettle's, which GnuTLS under the HTTPS server uses too) is kept, in memory and in the
// store. Authenticate maps an Authorization header to the principal it names.
// Threading: thread-safe (a shared mutex around the hash table).
#pragma once

#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "control/records.h"

namespace headroom::control {

// Lowercase hex SHA-256 of `text`.
std::string Sha256Hex(std::string_view text);
// 32 bytes from the kernel's CSPRNG, as 64 hex characters.
std::string NewToken();

struct Principal {
  Role role = Role::kUser;
  std::string tenant;  // Users.
  std::string node;    // Agents.
};

class TokenAuth {
 public:
  void Add(const TokenRecord& token);
  // `authorization` is the header's value, "Bearer <token>"; nullopt when absent or unknown.
  std::optional<Principal> Authenticate(std::string_view authorization) const;
  size_t size() const;

 private:
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, TokenRecord> by_hash_;
};

}  // namespace headroom::control
