// Queues as YAML: the `queues:` list of a policy file, or a queues file of its own (`headroom
// sim --queues FILE`, a top-level `queues:` list). Amounts are whole or fractional devices,
// CPUs (cores) and memory in GiB; a resource left out of `guaranteed` is guaranteed 0, and a
// limit left out is none.
//
//   queues:
//     - name: research                    # a top-level queue
//       guaranteed: {devices: 512}
//     - name: vision
//       parent: research
//       tenants: [alice, bob]             # jobs of these tenants; none listed: tenant "vision"
//       guaranteed: {devices: 256, cpu: 2048, memory_gib: 16384}
//       borrowing_limit: {devices: 128}   # may use up to 384 devices when others are idle
//       lending_limit: {devices: 64}      # at most 64 of its idle devices lent
//
// Errors name the file, line and field, as the policy parser's do; the parser never throws.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/quota_config.h"
#include "model/yaml_field.h"

namespace headroom::engine {

// One `queues:` list, validated (ValidateQueues).
Result<std::vector<QueueConfig>> ParseQueuesField(const model::YamlField& field);
// A queues file: a map with one key, `queues`; `source` names it in errors.
Result<std::vector<QueueConfig>> ParseQueuesYaml(std::string_view text, std::string_view source);
// `policy_text` (a valid policy file) with its `queues` replaced by those of `queues_text` (a
// queues file, checked as ParseQueuesYaml does; an empty list removes them). Text for text where
// the policy is a block-style map: its other lines, comments included, as they were and the
// queues as `queues_text` has them; else the merged policy as yaml-cpp writes it.
Result<std::string> PolicyTextWithQueues(std::string_view policy_text, std::string_view queues_text,
                                         std::string_view source);

}  // namespace headroom::engine
