#include "agent/readiness_check.h"

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <utility>

#include <fmt/format.h>

namespace headroom::agent {
namespace {

constexpr size_t kMaxMessageChars = 200;
constexpr std::streamoff kTailBytes = 64 * 1024;

}  // namespace

ReadinessCheck::ReadinessCheck(ReadinessOptions options) : options_(std::move(options)) {
  if (options_.command.empty()) {
    current_ = {.ready = true, .message = ""};
    has_verdict_ = true;
  } else {
    current_ = {.ready = false, .message = "readiness check running"};
  }
}

void ReadinessCheck::Tick(TimeUs now_us) {
  if (options_.command.empty()) {
    if (!current_.ready && now_us >= failed_until_us_) current_ = {.ready = true, .message = ""};
    return;
  }
  if (running_) {
    if (const std::optional<int> code = running_->Poll()) {
      Finish(*code);
      if (current_.ready) passed_us_ = now_us;
      next_us_ = now_us + options_.interval_us;
    } else if (now_us - started_us_ >= options_.timeout_us) {
      running_->SignalGroup(SIGKILL);
      running_->Wait();
      running_.reset();
      current_ = {.ready = false,
                  .message = fmt::format("readiness check timed out after {:g} s",
                                         UsToSeconds(options_.timeout_us))};
      has_verdict_ = true;
      ++finished_;
      next_us_ = now_us + options_.interval_us;
    }
    return;
  }
  if (now_us >= next_us_) Start(now_us);
}

bool ReadinessCheck::VerifiedAt(TimeUs now_us) const {
  if (!current_.ready) return false;
  if (options_.command.empty() || options_.verified_for_us <= 0) return true;
  return passed_us_ >= 0 && now_us - passed_us_ < options_.verified_for_us;
}

void ReadinessCheck::Fail(std::string message, TimeUs now_us) {
  current_ = {.ready = false, .message = std::move(message)};
  has_verdict_ = true;
  passed_us_ = -1;
  failed_until_us_ = now_us + options_.interval_us;
  if (!running_) next_us_ = now_us + options_.interval_us;
}

void ReadinessCheck::CheckNow(TimeUs now_us) {
  if (!running_) next_us_ = std::min(next_us_, now_us);
}

void ReadinessCheck::Start(TimeUs now_us) {
  // Truncate the previous run's output so the last line is this run's.
  std::ofstream(options_.output_path, std::ios::trunc).close();
  auto child = ChildProcess::Spawn({.argv = {"/bin/sh", "-c", options_.command},
                                    .env = options_.env,
                                    .stdout_path = options_.output_path,
                                    .stderr_path = options_.output_path});
  if (!child) {
    current_ = {.ready = false,
                .message = fmt::format("readiness check cannot start: {}", child.error().message)};
    has_verdict_ = true;
    ++finished_;
    next_us_ = now_us + options_.interval_us;
    return;
  }
  running_.emplace(std::move(*child));
  started_us_ = now_us;
}

void ReadinessCheck::Finish(int exit_code) {
  running_.reset();
  has_verdict_ = true;
  ++finished_;
  if (exit_code == 0) {
    current_ = {.ready = true, .message = ""};
    return;
  }
  const std::string last = LastOutputLine(options_.output_path);
  current_ = {.ready = false,
              .message = last.empty()
                             ? fmt::format("readiness check exited {}", exit_code)
                             : fmt::format("readiness check exited {}: {}", exit_code, last)};
}

std::string LastOutputLine(const std::string& path) {
  // Only the tail matters; a chatty diagnostic may write megabytes.
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : 0;
  in.seekg(std::max<std::streamoff>(0, size - kTailBytes));
  std::string line;
  std::string last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  if (!last.empty() && last.back() == '\r') last.pop_back();
  if (last.size() > kMaxMessageChars) last = last.substr(last.size() - kMaxMessageChars);
  return last;
}

}  // namespace headroom::agent
