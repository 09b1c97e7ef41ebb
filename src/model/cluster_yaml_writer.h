// WriteClusterYaml: a Cluster as cluster YAML (docs/cluster-yaml.md), compact and
// deterministic, so generated and imported buildings can be saved, diffed and edited.
//
// Promises:
//  1. ParseClusterYaml(WriteClusterYaml(c)) reproduces c: the same levels, domains in the same
//     order with the same names, nodes with the same names, resources and devices (in order),
//     the same device classes in the same order, and the same facility. This holds for every
//     cluster whose attribute numbers are finite and whose names are valid UTF-8 without
//     control characters (what the parser accepts).
//  2. The same cluster always gives the same bytes.
//  3. Repetition is folded: every device class and node shape is written once (as
//     `device_classes` and `node_templates`); consecutive nodes of one shape whose names count
//     up (n0, n1, ...) become one `count:` entry, and so do consecutive sibling domains whose
//     names count up and whose subtrees are identical up to those names.
// Threading: a pure function.
#pragma once

#include <string>

#include "model/cluster.h"

namespace headroom::model {

std::string WriteClusterYaml(const Cluster& cluster);

}  // namespace headroom::model
