#include "control/token_auth.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <array>
#include <mutex>

#include "base/check.h"

namespace headroom::control {
namespace {

std::string Hex(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

}  // namespace

std::string Sha256Hex(std::string_view text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  // Fetched once: EVP_sha256() makes every digest look the implementation up again, under a
  // lock that every request's token check (heartbeats included) would share.
  static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  HR_CHECK(sha256 != nullptr);
  HR_CHECK(EVP_Digest(text.data(), text.size(), digest.data(), &size, sha256, nullptr) == 1);
  return Hex(digest.data(), size);
}

std::string NewToken() {
  std::array<unsigned char, 32> bytes{};
  HR_CHECK(RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) == 1);
  return Hex(bytes.data(), bytes.size());
}

void TokenAuth::Add(const TokenRecord& token) {
  std::unique_lock lock(mu_);
  by_hash_[token.hash_hex] = token;
}

std::optional<Principal> TokenAuth::Authenticate(std::string_view authorization) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (!authorization.starts_with(kBearer)) return std::nullopt;
  std::string_view token = authorization.substr(kBearer.size());
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty() || token.size() > 256) return std::nullopt;
  const std::string hash = Sha256Hex(token);
  std::shared_lock lock(mu_);
  auto it = by_hash_.find(hash);
  if (it == by_hash_.end()) return std::nullopt;
  return Principal{it->second.role, it->second.tenant, it->second.node};
}

size_t TokenAuth::size() const {
  std::shared_lock lock(mu_);
  return by_hash_.size();
}

}  // namespace headroom::control
