#include "cli/client/output.h"

#include <chrono>
#include <cstdio>

#include "cli/client/api_client.h"
#include "model/yaml_field.h"

namespace headroom::cli {

int Fail(const Error& error) {
  // The message may quote the server's words; it stays one line a terminal does not obey.
  std::fprintf(stderr, "headroom: %s\n", model::PrintableLine(error.message).c_str());
  return ExitStatusFor(error);
}

void PrintJson(const nlohmann::json& value) {
  const std::string text = value.dump(2) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
}

double NowSeconds() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration<double>(since_epoch).count();
}

}  // namespace headroom::cli
