// TLS: with a certificate and key the daemon serves HTTPS only; a bad certificate is a clear
// startup error.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

TEST(DaemonTls, ServesHttpsWithTheGivenCertificate) {
  const std::string dir = testing::TempDir("headroomd-tls");
  const std::string command =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -keyout " + dir +
      "/key.pem -out " + dir + "/cert.pem >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << "needs the openssl command";
  DaemonOptions options = testing::TestDaemon::Simulated();
  options.tls_cert = dir + "/cert.pem";
  options.tls_key = dir + "/key.pem";
  testing::TestDaemon daemon(options);

  httplib::SSLClient tls("127.0.0.1", daemon.port());
  tls.enable_server_certificate_verification(false);
  auto healthy = tls.Get("/healthz");
  ASSERT_TRUE(healthy) << httplib::to_string(healthy.error());
  EXPECT_EQ(healthy->status, 200);
  auto jobs = tls.Get("/v1/jobs", {{"Authorization", "Bearer " + daemon.admin()}});
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->status, 200);
  // Plain HTTP gets no answer from an HTTPS port.
  EXPECT_EQ(daemon.Get("/healthz", "").status, 0);

  DaemonOptions bad = testing::TestDaemon::Simulated();
  bad.data_dir = dir + "/bad";
  bad.tls_cert = dir + "/key.pem";  // Not a certificate.
  bad.tls_key = dir + "/key.pem";
  auto refused = Daemon::Start(bad);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("TLS certificate"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace headroom::control
