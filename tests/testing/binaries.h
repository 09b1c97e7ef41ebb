// Where the tests find the project's programs (headroom, headroomd, headroom-agent): the
// directory in $HEADROOM_BIN when set (ctest sets it), else the build's bin/.
#pragma once

#include <cstdlib>
#include <string>

namespace headroom::testing {

inline std::string BinDir() {
  const char* bin = std::getenv("HEADROOM_BIN");
  return bin != nullptr && *bin != '\0' ? std::string(bin)
                                        : std::string(HEADROOM_BINARY_DIR "/bin");
}

inline std::string BinaryPath(const std::string& name) { return BinDir() + "/" + name; }

}  // namespace headroom::testing
