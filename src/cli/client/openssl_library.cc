#include "cli/client/openssl_library.h"

#include <dlfcn.h>
#include <openssl/opensslv.h>

#include <fmt/format.h>

namespace headroom::cli {
namespace {

// The shared library of the OpenSSL the CLI was compiled against: libssl.so.3 for OpenSSL 3.
// Its functions from libcrypto (ERR_*, X509_*) are found through it, as libssl depends on it.
std::string LibraryFile() { return fmt::format("libssl.so.{}", OPENSSL_VERSION_MAJOR); }

template <typename Function>
void Resolve(void* library, const char* name, Function& function, std::string& missing) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  if (function == nullptr && missing.empty()) missing = name;
}

tl::expected<const OpenSslLibrary*, std::string> Open() {
  const std::string file = LibraryFile();
  void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return tl::make_unexpected(
        fmt::format("https needs OpenSSL's {} (Debian package libssl3), which cannot be loaded: {}",
                    file, why != nullptr ? why : "no detail"));
  }
  static OpenSslLibrary ssl;
  std::string missing;
  Resolve(library, "TLS_client_method", ssl.tls_client_method, missing);
  Resolve(library, "SSL_CTX_new", ssl.ctx_new, missing);
  Resolve(library, "SSL_CTX_free", ssl.ctx_free, missing);
  Resolve(library, "SSL_CTX_ctrl", ssl.ctx_ctrl, missing);
  Resolve(library, "SSL_CTX_set_verify", ssl.ctx_set_verify, missing);
  Resolve(library, "SSL_CTX_set_default_verify_paths", ssl.ctx_set_default_verify_paths, missing);
  Resolve(library, "SSL_CTX_load_verify_locations", ssl.ctx_load_verify_locations, missing);
  Resolve(library, "SSL_new", ssl.ssl_new, missing);
  Resolve(library, "SSL_free", ssl.ssl_free, missing);
  Resolve(library, "SSL_ctrl", ssl.ssl_ctrl, missing);
  Resolve(library, "SSL_set_fd", ssl.set_fd, missing);
  Resolve(library, "SSL_set1_host", ssl.set1_host, missing);
  Resolve(library, "SSL_get0_param", ssl.get0_param, missing);
  Resolve(library, "X509_VERIFY_PARAM_set1_ip_asc", ssl.verify_param_set1_ip_asc, missing);
  Resolve(library, "SSL_connect", ssl.connect, missing);
  Resolve(library, "SSL_get_error", ssl.get_error, missing);
  Resolve(library, "SSL_get_verify_result", ssl.get_verify_result, missing);
  Resolve(library, "X509_verify_cert_error_string", ssl.verify_cert_error_string, missing);
  Resolve(library, "SSL_read", ssl.read, missing);
  Resolve(library, "SSL_write", ssl.write, missing);
  Resolve(library, "ERR_get_error", ssl.err_get_error, missing);
  Resolve(library, "ERR_error_string_n", ssl.err_error_string_n, missing);
  if (!missing.empty()) {
    return tl::make_unexpected(
        fmt::format("{} has no function {}: not the OpenSSL headroom was built for (OpenSSL {})",
                    file, missing, OPENSSL_VERSION_MAJOR));
  }
  return &ssl;
}

}  // namespace

tl::expected<const OpenSslLibrary*, std::string> LoadOpenSsl() {
  static const tl::expected<const OpenSslLibrary*, std::string> loaded = Open();
  return loaded;
}

}  // namespace headroom::cli
