// headroom_fill_store: writes a headroomd data dir whose store holds --jobs pending jobs, fast
// (SqliteStore::Apply, --batch jobs per transaction), for measuring how long headroomd takes
// to start on a large queue (docs/control.md "Numbers"; scripts/restart-time.sh times it).
//
// Each job is one task of one device for one hour, of tenant "fill-0" ... "fill-<T-1>" in
// turn. With --distinct-names every job has its own metadata.name, so no two stored specs are
// the same text (the worst case for a loader that parses each distinct spec once); without,
// all jobs of a tenant share one spec, as a script that submits one spec in a loop makes them.
// The data dir must not hold a store yet; headroomd writes its admin token at its first start.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "control/clock.h"
#include "control/data_dir.h"
#include "control/sqlite_store.h"

namespace {

using headroom::control::JobRecord;
using headroom::control::JobSpec;
using headroom::control::StoreWrite;

int Fail(const std::string& message) {
  std::fprintf(stderr, "headroom_fill_store: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"headroom_fill_store: a data dir with many pending jobs"};
  std::string data_dir;
  uint64_t jobs = 200'000;
  uint64_t tenants = 1;
  uint64_t batch = 10'000;
  bool distinct_names = false;
  app.add_option("--data-dir", data_dir, "Directory to create the store in")->required();
  app.add_option("--jobs", jobs, "Pending jobs to write (default 200000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  app.add_option("--tenants", tenants, "Tenants the jobs are spread over (default 1)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000}));
  app.add_option("--batch", batch, "Jobs per transaction (default 10000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000}));
  app.add_flag("--distinct-names", distinct_names, "Give every job its own name");
  CLI11_PARSE(app, argc, argv);

  const std::string path = data_dir + "/" + headroom::control::kStoreFileName;
  if (std::filesystem::exists(path)) return Fail(path + " exists; give a new --data-dir");
  if (auto ok = headroom::control::CreateDataDir(data_dir); !ok) return Fail(ok.error().message);
  auto store = headroom::control::SqliteStore::Open(path);
  if (!store) return Fail(store.error().message);

  const auto started = std::chrono::steady_clock::now();
  const headroom::TimeUs now_us = headroom::control::SystemClock(1.0, 0).WallNowUs();
  std::vector<StoreWrite> writes;
  for (uint64_t id = 1; id <= jobs; ++id) {
    JobSpec spec;
    spec.name = distinct_names ? fmt::format("fill-job-{}", id) : "fill-job";
    spec.tenant = fmt::format("fill-{}", id % tenants);
    spec.time_limit_us = 3600 * headroom::kUsPerSecond;
    spec.command = {"sleep", "3600"};
    spec.cpu_milli = 1000;
    spec.memory_mib = 1024;
    spec.request_name = "gpus";
    spec.devices = 1;
    writes.push_back(JobRecord{.id = id, .spec = std::move(spec), .submit_us = now_us});
    if (writes.size() == batch || id == jobs) {
      if (auto ok = (*store)->Apply(writes); !ok) return Fail(ok.error().message);
      writes.clear();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("wrote %llu pending jobs of %llu tenant(s)%s to %s in %.1f s\n",
              static_cast<unsigned long long>(jobs), static_cast<unsigned long long>(tenants),
              distinct_names ? ", each named apart," : "", path.c_str(), seconds);
  return 0;
}
