#pragma once
// Internal: the metadata network that path search works on, path format
// conversions, the cost model (Note [Contraction cost] in
// tenferro/einsum/path.hpp) and the optimizers.
#include <cstdint>
#include <utility>
#include <vector>

#include "tenferro/einsum/path.hpp"

namespace tenferro::detail {

/// Labels are dense ids; every term lists its distinct labels in increasing order.
struct Network {
  std::vector<std::vector<int>> terms;
  std::vector<double> size;   // extent of each label
  std::vector<int> total;     // number of terms that contain each label
  std::vector<char> output;   // 1 when the label is in the output
  double traffic_weight = kTrafficWeight;  // 0: the objective is flops alone
  int num_terms() const { return static_cast<int>(terms.size()); }
  int num_labels() const { return static_cast<int>(size.size()); }
};

/// The network of a spec: repeated labels within a term count once, and an
/// axis of extent 1 whose label is longer elsewhere (a broadcast axis) does
/// not count at all. `sliced` labels get extent 1.
Network make_network(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                     const std::vector<std::int64_t>& sizes, const DimVec& sliced = {},
                     PathObjective objective = PathObjective::executor);

/// The weight of traffic under `objective` (Note [Executor cost model]).
inline double traffic_weight_of(PathObjective objective) {
  return objective == PathObjective::flops ? 0.0 : kTrafficWeight;
}

/// The objective's cost of one step (Note [Executor cost model]): its flops
/// plus `weight` times the elements of its operands and result.
inline double step_cost(double flops, double size_a, double size_b, double size_out, double weight) {
  return flops + weight * (size_a + size_b + size_out);
}

/// Contraction steps as pairs of node ids: ids below n are operands, id
/// n + s is the result of step s.
using SsaPath = std::vector<std::pair<int, int>>;

/// Converts the opt_einsum format (Note [Contraction path format]); throws
/// ValueError naming the bad step.
SsaPath ssa_from_linear(const std::vector<std::pair<int, int>>& pairs, int n);
std::vector<std::pair<int, int>> linear_from_ssa(const SsaPath& ssa, int n);

/// A label of an intermediate and how many operands below it carry the label.
struct Leg {
  int label;
  int count;
};
using Legs = std::vector<Leg>;

Legs leaf_legs(const Network& net, int term);
/// Contracts `a` and `b`: writes the result's legs into `out`, its size into
/// `size`, and returns the step's flops.
double contract_legs(const Network& net, const Legs& a, const Legs& b, Legs& out, double& size);
double legs_size(const Network& net, const Legs& legs);

/// Cost of a complete path; `largest_inner` (optional) receives the largest
/// intermediate other than the final result.
ContractionCost path_cost(const Network& net, const SsaPath& ssa, double* largest_inner = nullptr);

/// A small deterministic generator (splitmix64), identical on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [0, n).
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t state_;
};

/// opt_einsum's greedy rule: contract the connected pair whose result
/// minus its inputs is smallest, then outer products smallest first. With
/// `rng`, every candidate's score gets Gumbel noise scaled by `temperature`
/// times the inputs' size.
SsaPath greedy_path(const Network& net, Rng* rng = nullptr, double temperature = 0);

/// Bucket elimination: repeatedly picks the summed label whose operands
/// together carry the fewest other elements (with Gumbel noise of scale
/// `noise` in log2 units when `rng` is given), contracts those operands
/// (smallest result first), and finishes with what shares only output labels.
SsaPath elimination_path(const Network& net, Rng* rng = nullptr, double noise = 0);

/// Recursive hypergraph bisection (Note [Bisection trees] in bisect.cpp).
SsaPath bisection_path(const Network& net, Rng& rng);

/// Exact optimum over the given terms (at most 16) of the summed step costs
/// (step_cost with `traffic_weight`). Terms are label lists; `keep` marks
/// labels needed beyond these terms. Intermediates other than the final one
/// must not exceed `cap` (0: no cap).
struct DpResult {
  SsaPath ssa;     // ids below terms.size() are the terms
  double cost = 0;
  double largest = 0;  // largest intermediate other than the final one
  bool feasible = false;
};
inline constexpr int kMaxOptimalTerms = 16;
DpResult optimal_order(const std::vector<std::vector<int>>& terms, const std::vector<char>& keep,
                       const std::vector<double>& size, double cap, double traffic_weight);

struct AnnealOptions {
  std::uint64_t seed = 0;
  double effort = 1.0;
  double time_limit_seconds = 0;
  double cap = 0;  // memory limit on intermediates other than the final one (0: none)
};
/// Simulated annealing over contraction trees plus subtree re-optimisation.
SsaPath anneal_path(const Network& net, const AnnealOptions& options);

}  // namespace tenferro::detail
