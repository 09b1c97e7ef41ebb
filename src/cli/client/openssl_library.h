// OpenSslLibrary: the OpenSSL functions the CLI's https transport calls, from Debian's shared
// libssl, opened with dlopen the first time an https URL is used. Linked into the program
// instead, OpenSSL cost every start a fifth of its time, https or not: 400 KB of tables the
// dynamic linker fixes up page by page, and a probe of the CPU (docs/cli.md "Start time").
// Each member has the type of the function it names in OpenSSL's headers, so a call is checked
// as a direct call would be. Thread-safe; the library stays loaded until the process exits.
#pragma once

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <string>

#include <tl/expected.hpp>

namespace headroom::cli {

struct OpenSslLibrary {
  decltype(&::TLS_client_method) tls_client_method = nullptr;
  decltype(&::SSL_CTX_new) ctx_new = nullptr;
  decltype(&::SSL_CTX_free) ctx_free = nullptr;
  decltype(&::SSL_CTX_ctrl) ctx_ctrl = nullptr;
  decltype(&::SSL_CTX_set_verify) ctx_set_verify = nullptr;
  decltype(&::SSL_CTX_set_default_verify_paths) ctx_set_default_verify_paths = nullptr;
  decltype(&::SSL_CTX_load_verify_locations) ctx_load_verify_locations = nullptr;
  decltype(&::SSL_new) ssl_new = nullptr;
  decltype(&::SSL_free) ssl_free = nullptr;
  decltype(&::SSL_ctrl) ssl_ctrl = nullptr;
  decltype(&::SSL_set_fd) set_fd = nullptr;
  decltype(&::SSL_set1_host) set1_host = nullptr;
  decltype(&::SSL_get0_param) get0_param = nullptr;
  decltype(&::X509_VERIFY_PARAM_set1_ip_asc) verify_param_set1_ip_asc = nullptr;
  decltype(&::SSL_connect) connect = nullptr;
  decltype(&::SSL_get_error) get_error = nullptr;
  decltype(&::SSL_get_verify_result) get_verify_result = nullptr;
  decltype(&::X509_verify_cert_error_string) verify_cert_error_string = nullptr;
  decltype(&::SSL_read) read = nullptr;
  decltype(&::SSL_write) write = nullptr;
  decltype(&::ERR_get_error) err_get_error = nullptr;
  decltype(&::ERR_error_string_n) err_error_string_n = nullptr;
};

// The library, loaded on the first call; or why it cannot be (a message naming the file and
// the package that has it). Later calls return the first call's outcome.
tl::expected<const OpenSslLibrary*, std::string> LoadOpenSsl();

}  // namespace headroom::cli
