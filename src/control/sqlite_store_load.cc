// Loading a SqliteStore: every row is read and judged before it becomes a record. A row whose
// columns have the wrong type or range, or whose JSON (spec, placement, devices) does not
// parse, is a BadRow that names its table, its key and the problem; it never becomes a
// record and never crashes the loader. Load refuses on a bad row, LoadAll lists them, and
// Quarantine moves them to the quarantine table (headroomd --repair, docs/control.md).
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "control/sqlite_store.h"

namespace headroom::control {
namespace {

constexpr size_t kMaxExcerptBytes = 40;
constexpr size_t kMaxProblemBytes = 300;

// At most `limit` bytes of `text`, printable ASCII kept and everything else (and the bytes of
// `also`) as \xNN, with "..." when cut: what a message may quote of a stored value.
std::string Escape(std::string_view text, size_t limit, std::string_view also) {
  std::string out;
  for (const char c : text) {
    if (out.size() >= limit) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && also.find(c) == std::string_view::npos) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", byte);
    }
  }
  return out;
}

// A value to quote between double quotes.
std::string Excerpt(std::string_view text, size_t limit = kMaxExcerptBytes) {
  return Escape(text, limit, "\"\\");
}

std::string Text(sqlite3_stmt* statement, int column) {
  const unsigned char* text = sqlite3_column_text(statement, column);
  return text == nullptr
             ? std::string()
             : std::string(reinterpret_cast<const char*>(text),
                           static_cast<size_t>(sqlite3_column_bytes(statement, column)));
}

// The row's columns after the leading rowid, as a JSON object (what the quarantine keeps).
std::string RowJson(sqlite3_stmt* statement) {
  nlohmann::json row = nlohmann::json::object();
  for (int column = 1; column < sqlite3_column_count(statement); ++column) {
    nlohmann::json& value = row[sqlite3_column_name(statement, column)];
    switch (sqlite3_column_type(statement, column)) {
      case SQLITE_INTEGER:
        value = sqlite3_column_int64(statement, column);
        break;
      case SQLITE_FLOAT:
        value = sqlite3_column_double(statement, column);
        break;
      case SQLITE_NULL:
        value = nullptr;
        break;
      default:  // Text, and blobs as the bytes they hold.
        value = Text(statement, column);
    }
  }
  return row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Reads one row's columns, keeping the first problem found. Column 0 is the rowid.
class RowReader {
 public:
  explicit RowReader(sqlite3_stmt* statement) : statement_(statement) {}

  // The integer in `column` when it is one in [min, max]; otherwise records why and gives min.
  int64_t Int(int column, int64_t min, int64_t max) {
    if (sqlite3_column_type(statement_, column) != SQLITE_INTEGER) {
      Fail(fmt::format("column '{}': expected an integer, got {}", Name(column), Shown(column)));
      return min;
    }
    const int64_t value = sqlite3_column_int64(statement_, column);
    if (value < min || value > max) {
      Fail(fmt::format("column '{}': expected an integer in [{}, {}], got {}", Name(column), min,
                       max, value));
      return min;
    }
    return value;
  }
  bool Null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }
  // The text in `column`; a NULL, number or blob is recorded as a problem.
  std::string Str(int column) {
    if (sqlite3_column_type(statement_, column) != SQLITE_TEXT) {
      Fail(fmt::format("column '{}': expected text, got {}", Name(column), Shown(column)));
    }
    return Text(statement_, column);
  }
  void Fail(std::string problem) {
    if (!problem_) problem_ = std::move(problem);
  }
  // A failed Result's message, prefixed with the column it came from.
  template <typename T>
  bool Check(const Result<T>& result, int column) {
    if (result) return true;
    Fail(fmt::format("column '{}': {}", Name(column), result.error().message));
    return false;
  }
  const std::optional<std::string>& problem() const { return problem_; }

 private:
  const char* Name(int column) const { return sqlite3_column_name(statement_, column); }
  std::string Shown(int column) const {
    switch (sqlite3_column_type(statement_, column)) {
      case SQLITE_NULL:
        return "NULL";
      case SQLITE_FLOAT:
        return fmt::format("{}", sqlite3_column_double(statement_, column));
      case SQLITE_BLOB:
        return "a blob";
      default:
        return "\"" + Excerpt(Text(statement_, column)) + "\"";
    }
  }

  sqlite3_stmt* statement_;
  std::optional<std::string> problem_;
};

constexpr int64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();

bool IsLowerHex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// How an operator names a row whose key is text: `name "n1"`; by rowid when the key is not text.
std::string TextKey(sqlite3_stmt* statement, const char* what, int column, size_t limit) {
  if (sqlite3_column_type(statement, column) != SQLITE_TEXT) {
    return fmt::format("rowid {}", sqlite3_column_int64(statement, 0));
  }
  return fmt::format("{} \"{}\"", what, Excerpt(Text(statement, column), limit));
}

}  // namespace

std::string DescribeBadRow(const BadRow& row) {
  return fmt::format("{} {}: {}", row.table, row.key, row.problem);
}

Result<LoadedStore> SqliteStore::LoadAll() {
  LoadedStore loaded;
  StoreSnapshot& snapshot = loaded.snapshot;
  // Runs `sql` (rowid first) over `table`; `read` turns a row into a record with the reader,
  // `key` names it. A row with a problem becomes a BadRow.
  auto query = [&](const char* table, const char* sql, auto&& key,
                   auto&& read) -> tl::expected<void, Error> {
    if (read_only_ &&
        std::find(missing_tables_.begin(), missing_tables_.end(), table) != missing_tables_.end()) {
      return {};  // Absent, and a read-only Open made no schema: nothing to load.
    }
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) {
      return tl::unexpected(Failure(fmt::format("loading {}", table)));
    }
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
      RowReader reader(statement);
      read(reader, statement);
      if (reader.problem()) {
        std::string problem = Escape(*reader.problem(), kMaxProblemBytes, "");
        loaded.bad_rows.push_back(BadRow{.table = table,
                                         .key = key(statement),
                                         .problem = std::move(problem),
                                         .rowid = sqlite3_column_int64(statement, 0),
                                         .row_json = RowJson(statement)});
      }
    }
    sqlite3_finalize(statement);
    if (rc != SQLITE_DONE) return tl::unexpected(Failure(fmt::format("loading {}", table)));
    return {};
  };
  auto id_key = [](sqlite3_stmt* s) { return fmt::format("id {}", sqlite3_column_int64(s, 0)); };
  JobSpecCache specs;  // Stored specs repeat (job_spec.h); each distinct one is parsed once.
  {
    // 200,000 jobs grown by doubling moved 400,000 records; count them first (a missing table
    // leaves the statement unprepared).
    sqlite3_stmt* count = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT count(*) FROM jobs", -1, &count, nullptr) == SQLITE_OK &&
        sqlite3_step(count) == SQLITE_ROW) {
      snapshot.jobs.reserve(
          static_cast<size_t>(std::max<int64_t>(0, sqlite3_column_int64(count, 0))));
    }
    sqlite3_finalize(count);
  }

  auto jobs = query(
      "jobs",
      "SELECT rowid, id, service_id, spec, state, submit_us, start_us, end_us, placement, "
      "exit_code, requeues, starts, message FROM jobs ORDER BY id",
      id_key, [&](RowReader& r, sqlite3_stmt*) {
        JobRecord job;
        job.id = static_cast<uint64_t>(r.Int(1, 1, kMaxI64));
        job.service_id = static_cast<uint64_t>(r.Int(2, 0, kMaxI64));
        auto spec = specs.Parse(r.Str(3), fmt::format("store job {}", job.id));
        job.state = static_cast<JobState>(r.Int(4, 0, static_cast<int>(JobState::kCancelled)));
        job.submit_us = r.Int(5, 0, kMaxI64);
        job.start_us = r.Int(6, 0, kMaxI64);
        job.end_us = r.Int(7, 0, kMaxI64);
        auto placement = PlacementFromJson(r.Str(8));
        if (!r.Null(9)) {
          job.exit_code = static_cast<int32_t>(
              r.Int(9, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
        }
        job.requeues = static_cast<uint32_t>(r.Int(10, 0, kMaxU32));
        job.starts = static_cast<uint32_t>(r.Int(11, 0, kMaxU32));
        job.message = r.Str(12);
        if (!r.Check(spec, 3) || !r.Check(placement, 8) || r.problem()) return;
        job.spec = std::move(*spec);
        job.placement = std::move(*placement);
        snapshot.jobs.push_back(std::move(job));
      });
  if (!jobs) return tl::unexpected(jobs.error());

  auto services = query("services", "SELECT rowid, id, spec, submit_us FROM services ORDER BY id",
                        id_key, [&](RowReader& r, sqlite3_stmt*) {
                          ServiceRecord service;
                          service.id = static_cast<uint64_t>(r.Int(1, 1, kMaxI64));
                          auto spec =
                              ParseJobSpec(r.Str(2), fmt::format("store service {}", service.id));
                          service.submit_us = r.Int(3, 0, kMaxI64);
                          if (!r.Check(spec, 2)) return;
                          if (spec->kind != JobKind::kService)
                            r.Fail("column 'spec': kind is Job, not Service");
                          if (r.problem()) return;
                          service.spec = std::move(*spec);
                          snapshot.services.push_back(std::move(service));
                        });
  if (!services) return tl::unexpected(services.error());

  auto nodes = query(
      "nodes",
      "SELECT rowid, name, drained, drain_reason, registered, cpu_milli, memory_mib, devices, "
      "address FROM nodes ORDER BY name",
      [](sqlite3_stmt* s) { return TextKey(s, "name", 1, kMaxExcerptBytes); },
      [&](RowReader& r, sqlite3_stmt*) {
        NodeRecord node;
        node.name = r.Str(1);
        if (!r.problem() && node.name.empty()) r.Fail("column 'name': empty");
        node.drained = r.Int(2, 0, 1) != 0;
        node.drain_reason = r.Str(3);
        node.registered = r.Int(4, 0, 1) != 0;
        node.cpu_milli = r.Int(5, 0, kMaxI64);
        node.memory_mib = r.Int(6, 0, kMaxI64);
        auto devices = InventoryFromJson(r.Str(7));
        node.address = r.Str(8);
        if (!r.Check(devices, 7) || r.problem()) return;
        node.devices = std::move(*devices);
        snapshot.nodes.push_back(std::move(node));
      });
  if (!nodes) return tl::unexpected(nodes.error());

  // A token's key is the start of its hash: enough to tell rows apart, and not the token.
  auto tokens = query(
      "tokens", "SELECT rowid, hash, role, tenant, node FROM tokens ORDER BY hash",
      [](sqlite3_stmt* s) { return TextKey(s, "hash", 1, 12); },
      [&](RowReader& r, sqlite3_stmt*) {
        TokenRecord token;
        token.hash_hex = r.Str(1);
        if (!r.problem() && (token.hash_hex.size() != 64 || !IsLowerHex(token.hash_hex))) {
          r.Fail("column 'hash': expected 64 lowercase hex digits (a SHA-256)");
        }
        const std::string role_name = r.Str(2);
        const std::optional<Role> role = RoleByName(role_name);
        if (!r.problem() && !role) {
          r.Fail(fmt::format("column 'role': unknown role \"{}\" (admin, user or agent)",
                             Excerpt(role_name)));
        }
        token.tenant = r.Str(3);
        token.node = r.Str(4);
        if (r.problem()) return;
        token.role = *role;
        snapshot.tokens.push_back(std::move(token));
      });
  if (!tokens) return tl::unexpected(tokens.error());

  auto meta = query(
      "meta", "SELECT rowid, key, value FROM meta ORDER BY key",
      [](sqlite3_stmt* s) { return TextKey(s, "key", 1, kMaxExcerptBytes); },
      [&](RowReader& r, sqlite3_stmt*) {
        MetaRecord record{.key = r.Str(1), .value = r.Str(2)};
        if (r.problem()) return;
        snapshot.meta.push_back(std::move(record));
      });
  if (!meta) return tl::unexpected(meta.error());
  return loaded;
}

Result<StoreSnapshot> SqliteStore::Load() {
  auto loaded = LoadAll();
  if (!loaded) return tl::unexpected(loaded.error());
  if (!loaded->bad_rows.empty()) {
    const std::string dir = std::filesystem::path(path_).parent_path().string();
    const size_t more = loaded->bad_rows.size() - 1;
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: bad row: {}{}; list the bad rows with `headroom store check --data-dir "
                     "{}`, or start with `headroomd --repair` to move them to the quarantine "
                     "table and go on without them",
                     path_, DescribeBadRow(loaded->bad_rows.front()),
                     more == 0 ? std::string() : fmt::format(" (and {} more)", more), dir);
  }
  return std::move(loaded->snapshot);
}

tl::expected<void, Error> SqliteStore::MoveToQuarantine(const BadRow& row, TimeUs now_us) {
  // The table name goes into SQL text, so it must be one of the schema's own.
  const auto* table = std::find(kStoreTables.begin(), kStoreTables.end(), row.table);
  if (table == kStoreTables.end()) {
    return MakeError(ErrorCode::kInvalidArgument, "quarantine: no table \"{}\"",
                     Excerpt(row.table));
  }
  sqlite3_stmt* insert = nullptr;
  sqlite3_stmt* remove = nullptr;
  const std::string delete_sql = fmt::format("DELETE FROM {} WHERE rowid = ?1", *table);
  bool ok = sqlite3_prepare_v2(db_,
                               "INSERT INTO quarantine (table_name, row_key, problem, row_json, "
                               "quarantined_us) VALUES (?1, ?2, ?3, ?4, ?5)",
                               -1, &insert, nullptr) == SQLITE_OK &&
            sqlite3_prepare_v2(db_, delete_sql.c_str(), -1, &remove, nullptr) == SQLITE_OK;
  if (ok) {
    const std::string* texts[] = {&row.table, &row.key, &row.problem, &row.row_json};
    for (int i = 0; i < 4; ++i) {
      sqlite3_bind_text(insert, i + 1, texts[i]->data(), static_cast<int>(texts[i]->size()),
                        SQLITE_TRANSIENT);
    }
    sqlite3_bind_int64(insert, 5, now_us);
    sqlite3_bind_int64(remove, 1, row.rowid);
    ok = sqlite3_step(insert) == SQLITE_DONE && sqlite3_step(remove) == SQLITE_DONE;
  }
  Error failure = Failure(fmt::format("quarantine {} {}", row.table, row.key));
  sqlite3_finalize(insert);
  sqlite3_finalize(remove);
  if (!ok) return tl::unexpected(failure);
  return {};
}

tl::expected<void, Error> SqliteStore::Quarantine(std::span<const BadRow> rows,
                                                  std::span<const StoreWrite> writes,
                                                  TimeUs now_us) {
  if (rows.empty() && writes.empty()) return {};
  if (read_only_) return MakeError(ErrorCode::kIo, "store {} is open read-only", path_);
  if (auto ok = Exec("BEGIN IMMEDIATE"); !ok) return ok;
  auto all = [&]() -> tl::expected<void, Error> {
    for (const BadRow& row : rows) {
      if (auto ok = MoveToQuarantine(row, now_us); !ok) return ok;
    }
    for (const StoreWrite& write : writes) {
      if (auto ok = Write(write); !ok) return ok;
    }
    return Exec("COMMIT");
  }();
  if (!all) (void)Exec("ROLLBACK");
  return all;
}

Result<int64_t> SqliteStore::QuarantinedRows() {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT count(*) FROM sqlite_master WHERE name = 'quarantine'", -1,
                         &statement, nullptr) != SQLITE_OK) {
    return tl::unexpected(Failure("quarantine"));
  }
  const bool exists =
      sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int64(statement, 0) > 0;
  sqlite3_finalize(statement);
  if (!exists) return 0;
  if (sqlite3_prepare_v2(db_, "SELECT count(*) FROM quarantine", -1, &statement, nullptr) !=
      SQLITE_OK) {
    return tl::unexpected(Failure("quarantine"));
  }
  int64_t count = -1;
  if (sqlite3_step(statement) == SQLITE_ROW) count = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  if (count < 0) return tl::unexpected(Failure("quarantine"));
  return count;
}

}  // namespace headroom::control
