// `headroom replay --data-dir DIR`: runs a headroomd's engine log (docs/control.md "Replay")
// offline through a fresh engine and reports every step whose decisions come out differently.
// Exit status: 0 every decision reproduced, 1 one differs, 2 bad usage or a log that cannot be
// read. `headroom explain JOB --data-dir DIR [--at TIME]` (explain_command.cc) replays up to TIME
// and asks the engine why the job waited then. Both open the store read-only, beside a running
// headroomd or not.
#include <time.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/client/output.h"
#include "cli/commands/commands.h"
#include "control/data_dir.h"
#include "control/engine_replay.h"
#include "engine/pending_reason.h"

namespace headroom::cli {
namespace {

std::string FormatTime(TimeUs time_us) {
  const time_t seconds = static_cast<time_t>(time_us / kUsPerSecond);
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Replays DIR's engine log; records after `until_us` are not applied.
Result<control::EngineReplay> Replay(const std::string& data_dir, const char* holder,
                                     TimeUs until_us) {
  auto offline = control::OpenStoreOffline(data_dir, holder);
  if (!offline) return tl::unexpected(offline.error());
  control::EngineReplay replay;
  auto ok = offline->store->ForEachEngineLogRecord(
      0, [&](const control::EngineLogRecord& record) -> tl::expected<void, Error> {
        if (record.time_us > until_us) return {};
        return replay.Apply(record);
      });
  if (!ok) return tl::unexpected(WithContext(ok.error(), offline->path));
  return replay;
}

int RunReplay(const std::string& data_dir) {
  auto replay = Replay(data_dir, "headroom replay", kNever);
  if (!replay) return Fail(WithContext(replay.error(), "replay"));
  for (const control::ReplayMismatch& mismatch : replay->mismatches()) {
    std::printf("differs: record %" PRId64 " at %s: logged %s, replayed %s\n", mismatch.seq,
                FormatTime(mismatch.time_us).c_str(), mismatch.recorded.c_str(),
                mismatch.replayed.c_str());
  }
  std::printf("%s: %" PRIu64 " engine builds, %" PRIu64 " steps, %" PRIu64 " events, %" PRIu64
              " decisions; %s\n",
              data_dir.c_str(), replay->builds(), replay->steps(), replay->events(),
              replay->decisions(),
              replay->mismatch_count() == 0
                  ? "every decision reproduced"
                  : fmt::format("{} steps decided differently", replay->mismatch_count()).c_str());
  return replay->mismatch_count() == 0 ? 0 : 1;
}

}  // namespace

Result<TimeUs> ParseAtTime(const std::string& text) {
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(seconds) &&
      seconds >= 0 && seconds < 1e11) {
    return static_cast<TimeUs>(std::llround(seconds * 1e6));
  }
  struct tm utc {};
  const char* rest = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &utc);
  if (rest != nullptr && (*rest == '\0' || (rest[0] == 'Z' && rest[1] == '\0'))) {
    return static_cast<TimeUs>(timegm(&utc)) * kUsPerSecond;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "--at '{}': expected seconds since the epoch (1764460000) or a UTC time "
                   "(2026-12-01T08:30:00Z)",
                   text);
}

int ExplainOffline(const std::string& data_dir, uint64_t job, TimeUs at_us) {
  auto replay = Replay(data_dir, "headroom explain", at_us);
  if (!replay) return Fail(WithContext(replay.error(), "explain"));
  const std::string when = at_us == kNever ? "at the log's end" : "at " + FormatTime(at_us);
  const engine::Engine* engine = replay->engine();
  const std::optional<JobId> id = replay->EngineIdOf(job);
  if (engine == nullptr || !id) {
    std::printf("job %" PRIu64
                " %s: not in the engine (not submitted yet, or ended before the "
                "engine was last rebuilt)\n",
                job, when.c_str());
    return 1;
  }
  const std::optional<model::JobState> state = engine->state(*id);
  if (state != model::JobState::kPending) {
    std::printf("job %" PRIu64 " %s: %s\n", job, when.c_str(),
                state ? std::string(model::JobStateName(*state)).c_str() : "unknown");
    return 0;
  }
  const engine::PendingStatus status = engine->Explain(*id, engine::ExplainDetail::kNodes);
  std::vector<std::string> reasons;
  for (engine::PendingCode code : status.reasons) {
    reasons.emplace_back(engine::PendingCodeName(code));
  }
  std::printf("job %" PRIu64 " %s: pending (%s): %s\n", job, when.c_str(),
              fmt::format("{}", fmt::join(reasons, ", ")).c_str(), status.message.c_str());
  for (const engine::NodeTally& tally : status.nodes) {
    std::printf("  %u nodes %s\n", tally.nodes, tally.constraint.c_str());
  }
  if (status.expected_start_us != kNever) {
    std::printf("  expected start: %s\n", FormatTime(status.expected_start_us).c_str());
  }
  return 0;
}

std::function<int()> AddReplayCommand(CLI::App& app) {
  auto data_dir = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "replay",
      "Run a headroomd's engine log through the engine again, offline; list every step "
      "decided differently (exit 1 when any)");
  command->add_option("--data-dir", *data_dir, "headroomd's --data-dir")->required();
  return [data_dir] { return RunReplay(*data_dir); };
}

}  // namespace headroom::cli
