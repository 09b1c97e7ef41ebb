#include "web/headless_chromium.h"

#include <fstream>

#include "cli/client_test_support.h"

namespace headroom::testing {
namespace {

std::vector<std::string> BaseArgs(const std::filesystem::path& chromium, int budget_ms,
                                  const std::filesystem::path& profile_dir) {
  // `timeout` bounds a hung browser; --user-data-dir keeps parallel runs apart.
  return {"/usr/bin/timeout",
          "-k",
          "5",
          "90",
          chromium.string(),
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-dev-shm-usage",
          "--no-first-run",
          "--hide-scrollbars",
          "--user-data-dir=" + profile_dir.string(),
          "--virtual-time-budget=" + std::to_string(budget_ms)};
}

// Decodes an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes) and prints the number of
// distinct pixel values; standard library only.
constexpr const char* kCountColours = R"PY(
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
pos, idat, ihdr = 8, b'', None
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    chunk = data[pos + 8:pos + 8 + length]
    if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', chunk)
    if kind == b'IDAT': idat += chunk
    pos += 12 + length
width, height, depth, colour, _, _, interlace = ihdr
channels = {2: 3, 6: 4}[colour]
assert depth == 8 and interlace == 0
raw = zlib.decompress(idat)
stride = width * channels
prev = bytearray(stride)
colours = set()
for y in range(height):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b = prev[i]
        c = prev[i - channels] if i >= channels else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 3 == 0:
        for x in range(0, stride, channels * 3): colours.add(bytes(line[x:x + channels]))
    prev = line
print(len(colours))
)PY";

}  // namespace

std::optional<std::filesystem::path> FindChromium() {
  if (auto found = FindProgram("chromium")) return found;
  return FindProgram("chromium-browser");
}

std::string DumpDom(const std::filesystem::path& chromium, const std::string& url, int budget_ms,
                    const std::filesystem::path& profile_dir, std::string* error) {
  std::vector<std::string> args = BaseArgs(chromium, budget_ms, profile_dir);
  args.push_back("--dump-dom");
  args.push_back(url);
  const CommandOutcome run = RunProgram(args);
  if (run.status != 0 || run.out.empty()) {
    *error = "chromium --dump-dom exited " + std::to_string(run.status) + ": " + run.err;
    return "";
  }
  return run.out;
}

bool Screenshot(const std::filesystem::path& chromium, const std::string& url, int budget_ms,
                const std::filesystem::path& png, const std::filesystem::path& profile_dir,
                std::string* error) {
  std::filesystem::remove(png);
  std::vector<std::string> args = BaseArgs(chromium, budget_ms, profile_dir);
  args.push_back("--window-size=1400,900");
  args.push_back("--screenshot=" + png.string());
  args.push_back(url);
  const CommandOutcome run = RunProgram(args);
  if (!std::filesystem::exists(png)) {
    *error = "chromium --screenshot exited " + std::to_string(run.status) + " without " +
             png.string() + ": " + run.err;
    return false;
  }
  return true;
}

PngFacts InspectPng(const std::filesystem::path& png) {
  PngFacts facts;
  facts.file_bytes = std::filesystem::file_size(png);
  std::ifstream in(png, std::ios::binary);
  unsigned char header[24] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  facts.signature_ok = in.gcount() == sizeof header &&
                       std::equal(std::begin(kSignature), std::end(kSignature), header) &&
                       std::string(reinterpret_cast<char*>(header) + 12, 4) == "IHDR";
  const auto be32 = [&](int at) {
    return (uint32_t{header[at]} << 24) | (uint32_t{header[at + 1]} << 16) |
           (uint32_t{header[at + 2]} << 8) | uint32_t{header[at + 3]};
  };
  facts.width = be32(16);
  facts.height = be32(20);
  if (const auto python = FindProgram("python3"); python && facts.signature_ok) {
    const CommandOutcome run = RunProgram({python->string(), "-c", kCountColours, png.string()});
    if (run.status == 0) facts.distinct_colours = std::stoi(run.out);
  }
  return facts;
}

}  // namespace headroom::testing
