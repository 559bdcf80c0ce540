#pragma once
/// \file
/// Einsum, layer 2: contraction order. Path search sees only metadata
/// (labels and extents), never tensors.
///
/// ```cpp
/// using namespace tenferro;
/// ContractionPath p = einsum_path("ij,jk,kl->il", {{64, 8}, {8, 64}, {64, 2}});
/// // p.pairs == {{1, 2}, {0, 1}}: first B*C, then A*(BC)
/// // p.cost.flops, p.cost.largest_intermediate, p.cost.total_intermediate,
/// // p.cost.traffic; the search minimised flops + kTrafficWeight * traffic
/// // (.objective = PathObjective::flops minimises flops alone).
///
/// // Large networks: the annealing optimizer, deterministic for a seed and
/// // effort; a memory limit (elements per intermediate) slices labels when
/// // no order fits.
/// ContractionPath q = einsum_path(spec, shapes, {.optimizer = PathOptimizer::annealing,
///                                                .memory_limit = 1 << 20, .seed = 7});
/// ```
///
/// Note [Contraction path format]: `pairs` is the opt_einsum / JAX format.
/// Operands sit in a list; step (i, j) removes positions i and j from the
/// list and appends their contraction at the end. A network of n operands
/// has n - 1 steps (none for a single operand).
///
/// Note [Contraction cost]: the cost of one step that contracts A and B
/// follows opt_einsum: the product of the extents of every label of A and B,
/// doubled when the step sums a label away. Its result keeps the labels
/// that the output or a later operand still needs. `flops` is the sum over
/// the steps; `largest_intermediate` and `total_intermediate` are the
/// largest and summed result sizes (elements, the final result included).
/// With slicing, `flops`, `total_intermediate` and `traffic` count every
/// slice and `largest_intermediate` is per slice.
///
/// Note [Executor cost model]: flops alone misjudge networks of many small
/// labels. There a step with few flops reads and writes intermediates of
/// hundreds of MiB through permutations and thin GEMMs, and memory bounds its
/// time. `traffic` counts, over the steps, the elements of both operands and
/// of the result. The default objective of the optimizers
/// (PathObjective::executor) is `flops + kTrafficWeight * traffic`:
/// measured along the stored and searched paths of the benchmark instances
/// (bench/peer), one element moved costs our executor about as much time
/// as 100-150 flops. That is GEMM at 40-50 GFLOP/s per core against
/// permutations and streams at 2-3 ns per element. Over the one-thread
/// timings of bench/results/REPORT.md (2026-12-06), among the paths of one
/// instance whose times differ by more than 10 %, flops alone orders 3
/// pairs wrongly and this objective none (gm_queen5_5_3's searched path:
/// 6x fewer flops than opt_size, 1.6x the traffic, and slower).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tenferro/einsum/spec.hpp"
#include "tenferro/tensor/shape.hpp"

namespace tenferro {

/// What a contraction path costs (Note [Contraction cost]).
struct ContractionCost {
  double flops = 0;
  double largest_intermediate = 0;
  double total_intermediate = 0;
  /// Elements read and written: both operands and the result of every step.
  double traffic = 0;
};

/// Flops that one element of `traffic` weighs in the executor's cost model
/// (Note [Executor cost model]).
inline constexpr double kTrafficWeight = 128;

/// What the optimizers minimise (Note [Executor cost model]).
enum class PathObjective : std::uint8_t {
  /// `flops + kTrafficWeight * traffic`: a model of this library's executor.
  executor,
  /// `flops` alone (opt_einsum's "flops").
  flops,
};

/// The value of `objective` for `cost`.
double objective_value(const ContractionCost& cost, PathObjective objective);

/// How path search proceeds.
enum class PathOptimizer : std::uint8_t {
  /// `optimal` up to 10 operands, `annealing` above.
  automatic,
  /// Repeatedly contracts the pair that shrinks memory most (opt_einsum's
  /// greedy rule): fast, often far from optimal on large networks.
  greedy,
  /// Exact minimum of the objective by dynamic programming over operand
  /// subsets; practical up to about 15 operands (at most 16).
  optimal,
  /// Simulated annealing over contraction trees (subtree rotations) from
  /// bucket-elimination, randomised greedy and recursive-bisection starting
  /// trees, each polished by exact re-optimisation of its subtrees of up to
  /// 8 leaves (Note [Tree annealing] in src/einsum/anneal.cpp). For large
  /// networks; about 0.1 s per 100 operands at effort 1.
  annealing,
};

const char* path_optimizer_name(PathOptimizer o);

/// Largest `PathOptions::effort`: a million units, days of annealing on a
/// large network, and far below the restart count's int range.
inline constexpr double kMaxPathEffort = 1e6;

/// Options of `einsum_path` (and of `einsum`, which plans through it).
struct PathOptions {
  PathOptimizer optimizer = PathOptimizer::automatic;
  /// What `optimal` and `annealing` minimise (`greedy` follows its own rule).
  PathObjective objective = PathObjective::executor;
  /// A path to use as given (Note [Contraction path format]); empty means
  /// "search with `optimizer`". Its cost is reported all the same.
  std::vector<std::pair<int, int>> path{};
  /// Largest intermediate allowed, in elements (0: no limit). Intermediates
  /// here exclude the final result, which must exist anyway. When the
  /// search finds no order that fits, labels are sliced: each slice fixes
  /// their index, and the slices are contracted one after another and
  /// summed.
  double memory_limit = 0;
  /// Seed of the randomised optimizers.
  std::uint64_t seed = 0;
  /// Work budget of `annealing`: effort e runs 3 * ceil(e) restarts of
  /// 2000 * e / ceil(e) sweeps over the tree. The result is a pure function
  /// of the network, `seed` and `effort`. Must lie in [0, kMaxPathEffort]
  /// (else ValueError).
  double effort = 1.0;
  /// Wall-clock cap in seconds on `annealing` (0: none). If the cap is
  /// reached before `effort` is spent, the result depends on machine speed.
  double time_limit_seconds = 0;
};

/// A contraction order with its cost.
struct ContractionPath {
  /// Note [Contraction path format].
  std::vector<std::pair<int, int>> pairs;
  /// Label ids (EinsumSpec) whose index each slice fixes; empty without slicing.
  DimVec sliced_labels;
  /// Product of the sliced labels' extents (1 without slicing).
  std::int64_t num_slices = 1;
  ContractionCost cost;
  /// The optimizer that produced `pairs` (`automatic` for a given path).
  PathOptimizer optimizer = PathOptimizer::automatic;
  /// Wall-clock time of the search (and slicing), in seconds.
  double planning_seconds = 0;
};

/// Finds (or checks, when `options.path` is given) a contraction path for
/// the operands of `shapes`. Throws ValueError for an invalid user path or a
/// memory limit that even slicing cannot meet, and the spec's errors for
/// shapes that do not fit the subscripts.
ContractionPath einsum_path(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                            const PathOptions& options = {});
/// `einsum_path(parse_einsum(subscripts, ranks of shapes), shapes, options)`.
ContractionPath einsum_path(std::string_view subscripts, const std::vector<Shape>& shapes,
                            const PathOptions& options = {});

/// The cost of `pairs` (no search), with `sliced_labels` fixed per slice.
ContractionCost contraction_cost(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                                 const std::vector<std::pair<int, int>>& pairs,
                                 const DimVec& sliced_labels = {});

}  // namespace tenferro
