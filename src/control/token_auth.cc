#include "control/token_auth.h"

#include <nettle/sha2.h>
#include <sys/random.h>

#include <array>
#include <cerrno>
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
  sha256_ctx context{};
  sha256_init(&context);
  sha256_update(&context, text.size(), reinterpret_cast<const uint8_t*>(text.data()));
  std::array<uint8_t, SHA256_DIGEST_SIZE> digest{};
  sha256_digest(&context, digest.size(), digest.data());
  return Hex(digest.data(), digest.size());
}

std::string NewToken() {
  std::array<unsigned char, 32> bytes{};
  size_t filled = 0;
  while (filled < bytes.size()) {
    const ssize_t got = getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    HR_CHECK(got > 0 || errno == EINTR);
    if (got > 0) filled += static_cast<size_t>(got);
  }
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
