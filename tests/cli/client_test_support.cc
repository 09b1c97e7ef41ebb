#include "cli/client_test_support.h"
#include "testing/binaries.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

extern char** environ;

namespace headroom::testing {
namespace {

// The inherited environment without the client's variables (tests set them explicitly), with
// `extra` added.
std::vector<std::string> Environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string key = text.substr(0, text.find('='));
    if (key == "HEADROOM_SERVER" || key == "HEADROOM_TOKEN" || extra.count(key) != 0) continue;
    env.push_back(text);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

CommandOutcome RunProgram(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env,
                          const std::string& stdin_text) {
  CommandOutcome outcome;
  char out_path[] = "/tmp/headroom-run-out-XXXXXX";
  char err_path[] = "/tmp/headroom-run-err-XXXXXX";
  char in_path[] = "/tmp/headroom-run-in-XXXXXX";
  const int out_fd = mkstemp(out_path);
  const int err_fd = mkstemp(err_path);
  const int in_fd = mkstemp(in_path);
  if (out_fd < 0 || err_fd < 0 || in_fd < 0) return outcome;
  if (!stdin_text.empty() && write(in_fd, stdin_text.data(), stdin_text.size()) !=
                                 static_cast<ssize_t>(stdin_text.size())) {
    return outcome;
  }
  lseek(in_fd, 0, SEEK_SET);
  std::vector<std::string> args = argv;
  std::vector<std::string> environment = Environment(env);
  std::vector<char*> arg_pointers = Pointers(args);
  std::vector<char*> env_pointers = Pointers(environment);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    execve(arg_pointers[0], arg_pointers.data(), env_pointers.data());
    _exit(127);
  }
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  close(out_fd);
  close(err_fd);
  close(in_fd);
  outcome.out = ReadText(out_path);
  outcome.err = ReadText(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  std::filesystem::remove(in_path);
  outcome.status = pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

CommandOutcome RunHeadroom(const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = {BinaryPath("headroom")};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv, env);
}

std::optional<std::filesystem::path> FindProgram(const std::string& name) {
  std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  path += ":/usr/bin:/usr/sbin:/bin";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

ChildProcess::~ChildProcess() { Stop(); }

bool ChildProcess::Start(const std::vector<std::string>& argv, const std::filesystem::path& log,
                         std::string* error) {
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (log_fd < 0) {
    *error = "cannot open " + log.string();
    return false;
  }
  std::vector<std::string> args = argv;
  std::vector<std::string> environment = Environment({});
  std::vector<char*> arg_pointers = Pointers(args);
  std::vector<char*> env_pointers = Pointers(environment);
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so Stop() also reaches its children
    const int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    execve(arg_pointers[0], arg_pointers.data(), env_pointers.data());
    _exit(127);
  }
  close(log_fd);
  if (pid < 0) {
    *error = "fork failed";
    return false;
  }
  setpgid(pid, pid);
  pid_ = pid;
  return true;
}

bool ChildProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void ChildProcess::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return;
  kill(-pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Children of the group that outlived their parent (e.g. chromium's helpers).
  kill(-pid_, SIGKILL);
  pid_ = -1;
}

bool WaitForHttp(int port, const std::string& path, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(1);
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto response = client.Get(path.c_str()); response && response->status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TestDir::TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  path_ = std::filesystem::temp_directory_path() / ("headroom-" + std::to_string(::getpid()) + "-" +
                                                    info->test_suite_name() + "-" + info->name());
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TestDir::~TestDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

bool DaemonBuilt() { return std::filesystem::exists(BinaryPath("headroomd")); }

std::string Daemon::Start(const Options& options) {
  const std::filesystem::path cluster = dir_ / "cluster.yaml";
  const CommandOutcome generated =
      RunHeadroom({"gen-cluster", "--devices", std::to_string(options.devices), "--nvlink-domain",
                   "16", "--name", "dc"});
  if (generated.status != 0) return "gen-cluster failed: " + generated.err;
  std::ofstream(cluster) << generated.out;
  const std::filesystem::path data = dir_ / "data";
  std::filesystem::create_directories(data);
  const std::filesystem::path port_file = dir_ / "headroomd.port";
  std::string error;
  std::vector<std::string> argv = {
      BinaryPath("headroomd"), "--listen",   "127.0.0.1:0", "--port-file",
      port_file.string(),      "--data-dir", data.string(), "--cluster",
      cluster.string(),        "--backend",  "simulated"};
  argv.insert(argv.end(), options.flags.begin(), options.flags.end());
  if (!process_.Start(argv, dir_ / "headroomd.log", &error)) {
    return error;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!std::filesystem::exists(port_file)) {
    if (!process_.Running()) return "headroomd exited; its log:\n" + Log();
    if (std::chrono::steady_clock::now() > deadline) {
      return "headroomd wrote no port file within 20 s; its log:\n" + Log();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  port_ = std::stoi(ReadText(port_file));
  if (!WaitForHttp(port_, "/healthz", std::chrono::seconds(20))) {
    return "headroomd did not answer /healthz within 20 s; its log:\n" + Log();
  }
  admin_token_ = ReadText(data / "admin.token");
  while (!admin_token_.empty() && std::isspace(static_cast<unsigned char>(admin_token_.back()))) {
    admin_token_.pop_back();
  }
  if (admin_token_.empty()) return "headroomd wrote no " + (data / "admin.token").string();
  return "";
}

}  // namespace headroom::testing
