// Headless Chromium for the dashboard tests: the DOM after the page's scripts ran
// (--dump-dom with a virtual-time budget, so the 2 s refresh has fired at least once) and a
// PNG screenshot, plus an honest check that a PNG is a real, non-blank image (signature, IHDR
// size, and — decoded by Python's standard library — how many distinct colours it has).
// Each run uses its own profile directory; every run is bounded by `timeout`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace headroom::testing {

// The chromium binary, if installed.
std::optional<std::filesystem::path> FindChromium();

// The serialized DOM of `url` after `budget_ms` of virtual time; "" if chromium failed (the
// reason goes to *error).
std::string DumpDom(const std::filesystem::path& chromium, const std::string& url, int budget_ms,
                    const std::filesystem::path& profile_dir, std::string* error);

// Writes a 1400x900 PNG of `url`; false (reason in *error) if none was written.
bool Screenshot(const std::filesystem::path& chromium, const std::string& url, int budget_ms,
                const std::filesystem::path& png, const std::filesystem::path& profile_dir,
                std::string* error);

struct PngFacts {
  bool signature_ok = false;
  uint32_t width = 0;
  uint32_t height = 0;
  uintmax_t file_bytes = 0;
  int distinct_colours = -1;  // -1: not decoded (no python3)
};

// Reads the PNG's signature and IHDR; decodes it with python3's zlib when python3 exists.
PngFacts InspectPng(const std::filesystem::path& png);

}  // namespace headroom::testing
