// What a share of a GPU is worth to the coming workload: the dual prices of the cutting-stock
// linear program over the typical shapes that share a GPU (Gilmore & Gomory, "A Linear
// Programming Approach to the Cutting-Stock Problem", Operations Research 9(6), 1961).
//
// Pack tasks of per-GPU demands d (milli, < 1000), in proportions n_d, onto GPUs of 1000 milli
// with as few GPUs as possible. The LP relaxation over packing patterns p (multisets of demands
// with Σ ≤ 1000) has the dual
//
//   maximise Σ_d n_d · y_d   subject to   Σ_{d ∈ p} y_d ≤ 1 for every pattern p,  y ≥ 0,
//
// so y_d is the share of a GPU a task of demand d is worth when the whole mix is packed as well
// as possible (810 milli: a whole GPU when the tasks that could fill its 190-milli remainder are
// few; 470 milli: half a GPU, as two make a GPU). K(g), the most that the typical tasks fitting
// in g free milli can be worth (an unbounded knapsack over y), values a GPU's free share. Putting
// a task of demand d on a GPU with g milli free loses
//
//   loss(g, d) = K(g) − y_d − K(g − d)  ≥ 0
//
// of a GPU's worth for good: zero when the placement is part of some best packing (a 320 beside
// a 650), positive when it spoils one (a 320 beside a lone 470 leaves 210 milli that only rare
// small tasks fit, where a second 470 would have filled it). A task whose demand is not typical
// is worth K(d). Solved by column generation: a simplex over the patterns found so far, priced
// by an unbounded knapsack over 0..1000 milli, until no pattern is worth more than one GPU.
// Promise: pure; the same typical shapes give the same values. Threading: immutable once built.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/frag.h"

namespace headroom::engine {

class PackingValues {
 public:
  // All values zero (no typical task shares a GPU): every loss is zero.
  PackingValues();
  explicit PackingValues(const std::vector<TypicalShape>& typical);

  // y_d for a typical demand, else K(d). `milli` in 0..1000.
  double TaskValue(uint32_t milli) const { return task_value_[milli]; }
  // K(g). `free_milli` in 0..1000.
  double FreeValue(uint32_t free_milli) const { return free_value_[free_milli]; }
  // loss(g, d) above; `milli` ≤ `free_milli` ≤ 1000.
  double PlacementLoss(uint32_t free_milli, uint32_t milli) const;

 private:
  std::array<double, 1001> task_value_{};
  std::array<double, 1001> free_value_{};
};

}  // namespace headroom::engine
