// Registry: the named implementations of one policy role (scorer, filter, queue order, victim
// selector), so that a policy file can name its pieces and every piece can be found, listed in
// an error message and run through its role's contract tests. An entry is a name, a line saying
// what it does and a factory; the registry of a role lists its built-in pieces explicitly, in
// one place (no static-initialisation tricks, so a piece a static library would drop cannot go
// missing). Unknown names are errors that list the known ones.
// Threading: the registries are immutable after construction.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace headroom::engine {

template <typename Piece, typename... Args>
class Registry {
 public:
  using Factory = std::unique_ptr<Piece> (*)(Args...);
  struct Entry {
    std::string_view name;
    std::string_view summary;
    Factory make;
  };

  // `role` names the role in messages ("scorer", "queue order").
  constexpr Registry(std::string_view role, std::span<const Entry> entries)
      : role_(role), entries_(entries) {}

  std::string_view role() const { return role_; }
  std::span<const Entry> entries() const { return entries_; }

  const Entry* Find(std::string_view name) const {
    for (const Entry& entry : entries_) {
      if (entry.name == name) return &entry;
    }
    return nullptr;
  }

  Result<std::unique_ptr<Piece>> Make(std::string_view name, Args... args) const {
    if (const Entry* entry = Find(name)) return entry->make(args...);
    return tl::unexpected(Unknown(name));
  }

  std::vector<std::string_view> Names() const {
    std::vector<std::string_view> names;
    for (const Entry& entry : entries_) names.push_back(entry.name);
    return names;
  }

  // "<role> 'name': expected one of a, b, c".
  Error Unknown(std::string_view name) const {
    std::string known;
    for (const Entry& entry : entries_) {
      known += (known.empty() ? "" : ", ") + std::string(entry.name);
    }
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("{} '{}': expected one of {}", role_, name, known)};
  }

 private:
  std::string_view role_;
  std::span<const Entry> entries_;
};

}  // namespace headroom::engine
