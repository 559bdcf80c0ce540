// einsum_path: optimizer dispatch, memory limits and slicing, path costs.
#include <chrono>
#include <cmath>

#include "network.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro {

const char* path_optimizer_name(PathOptimizer o) {
  switch (o) {
    case PathOptimizer::automatic:
      return "automatic";
    case PathOptimizer::greedy:
      return "greedy";
    case PathOptimizer::optimal:
      return "optimal";
    case PathOptimizer::annealing:
      return "annealing";
  }
  return "?";
}

double objective_value(const ContractionCost& cost, PathObjective objective) {
  return cost.flops + detail::traffic_weight_of(objective) * cost.traffic;
}

namespace {

constexpr int kAutomaticOptimalMax = 10;

// Slice counts stay at most 2^53: exact in a double, and far beyond any run.
constexpr double kMaxSlices = 0x1p53;

std::int64_t slices_of(const std::vector<std::int64_t>& sizes, const DimVec& sliced, const char* op) {
  double n = 1;
  for (auto l : sliced) n *= static_cast<double>(sizes[static_cast<std::size_t>(l)]);
  TF_CHECK(n <= kMaxSlices, ValueError, op, "slicing ", sliced.size(), " labels gives ", n,
           " slices, more than 2^53");
  return static_cast<std::int64_t>(n);
}

ContractionCost sliced_cost(const detail::Network& net, const detail::SsaPath& ssa, std::int64_t slices) {
  ContractionCost c = detail::path_cost(net, ssa);
  c.flops *= static_cast<double>(slices);
  c.total_intermediate *= static_cast<double>(slices);
  c.traffic *= static_cast<double>(slices);
  return c;
}

// Picks labels to slice, one at a time, each time the one that brings the
// largest intermediate (other than the result) down most, ties broken by
// the total flops over all slices. When no label lowers the largest
// intermediate (several intermediates share that size and none has all
// their labels), the one that lowers the total size of the intermediates
// most is taken, so that the next step can make progress.
DimVec choose_slices(const EinsumSpec& spec, const detail::Network& net, const detail::SsaPath& ssa,
                     double cap) {
  DimVec sliced;
  detail::Network cur = net;
  double inner = 0;
  double total = detail::path_cost(cur, ssa, &inner).total_intermediate;
  double slices = 1;
  while (inner > cap) {
    int best = -1, fallback = -1;
    double best_inner = inner, best_flops = 0, best_total = total;
    for (int l = 0; l < cur.num_labels(); ++l) {
      const std::size_t ul = static_cast<std::size_t>(l);
      if (cur.size[ul] <= 1 || cur.output[ul] || cur.total[ul] == 0) continue;
      const double extent = cur.size[ul];
      cur.size[ul] = 1;
      double trial_inner = 0;
      const ContractionCost c = detail::path_cost(cur, ssa, &trial_inner);
      double flops = c.flops * slices * extent;
      cur.size[ul] = extent;
      if (trial_inner < best_inner || (best >= 0 && trial_inner == best_inner && flops < best_flops)) {
        best = l;
        best_inner = trial_inner;
        best_flops = flops;
      }
      if (trial_inner == inner && c.total_intermediate < best_total) {
        fallback = l;
        best_total = c.total_intermediate;
      }
    }
    if (best < 0) {
      best = fallback;
      best_inner = inner;
    }
    TF_CHECK(best >= 0, ValueError, "einsum_path", "memory limit of ", cap,
             " elements cannot be met for \"", einsum_echo(spec.text), "\": an intermediate of ", inner,
             " elements remains after slicing every summed label that helps");
    slices *= cur.size[static_cast<std::size_t>(best)];
    TF_CHECK(slices <= kMaxSlices, ValueError, "einsum_path", "memory limit of ", cap, " elements for \"",
             einsum_echo(spec.text), "\" needs more than 2^53 slices: after slicing ", sliced.size() + 1,
             " labels an intermediate of ", best_inner, " elements remains");
    cur.size[static_cast<std::size_t>(best)] = 1;
    sliced.push_back(best);
    inner = best_inner;
    total = detail::path_cost(cur, ssa, &inner).total_intermediate;
  }
  return sliced;
}

}  // namespace

ContractionPath einsum_path(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                            const PathOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::int64_t> sizes = einsum_label_sizes(spec, shapes);
  TF_CHECK(options.memory_limit >= 0 && std::isfinite(options.memory_limit), ValueError,
           "einsum_path", "memory_limit must be finite and >= 0, got ", options.memory_limit);
  TF_CHECK(options.effort >= 0 && options.effort <= kMaxPathEffort, ValueError, "einsum_path",
           "effort must lie in [0, ", kMaxPathEffort, "], got ", options.effort);
  TF_CHECK(options.time_limit_seconds >= 0, ValueError, "einsum_path",
           "time_limit_seconds must be >= 0, got ", options.time_limit_seconds);
  const detail::Network net = detail::make_network(spec, shapes, sizes, {}, options.objective);
  const int n = net.num_terms();
  const double cap = options.memory_limit;
  ContractionPath out;
  detail::SsaPath ssa;
  if (!options.path.empty() || n <= 1) {
    ssa = detail::ssa_from_linear(options.path, n);
    out.optimizer = PathOptimizer::automatic;
  } else {
    PathOptimizer opt = options.optimizer;
    if (opt == PathOptimizer::automatic)
      opt = n <= kAutomaticOptimalMax ? PathOptimizer::optimal : PathOptimizer::annealing;
    out.optimizer = opt;
    switch (opt) {
      case PathOptimizer::automatic:
      case PathOptimizer::greedy:
        ssa = detail::greedy_path(net);
        break;
      case PathOptimizer::optimal: {
        TF_CHECK(n <= detail::kMaxOptimalTerms, ValueError, "einsum_path", "the optimal optimizer ",
                 "handles at most ", detail::kMaxOptimalTerms, " operands, \"", einsum_echo(spec.text), "\" has ", n,
                 "; use greedy or annealing");
        detail::DpResult dp = detail::optimal_order(net.terms, net.output, net.size, cap, net.traffic_weight);
        if (!dp.feasible)  // then slice
          dp = detail::optimal_order(net.terms, net.output, net.size, 0, net.traffic_weight);
        ssa = std::move(dp.ssa);
        break;
      }
      case PathOptimizer::annealing:
        ssa = detail::anneal_path(net, {.seed = options.seed,
                                        .effort = options.effort,
                                        .time_limit_seconds = options.time_limit_seconds,
                                        .cap = cap});
        break;
    }
  }
  if (cap > 0) out.sliced_labels = choose_slices(spec, net, ssa, cap);
  out.num_slices = slices_of(sizes, out.sliced_labels, "einsum_path");
  out.pairs = detail::linear_from_ssa(ssa, n);
  out.cost = sliced_cost(detail::make_network(spec, shapes, sizes, out.sliced_labels), ssa, out.num_slices);
  out.planning_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

ContractionPath einsum_path(std::string_view subscripts, const std::vector<Shape>& shapes,
                            const PathOptions& options) {
  std::vector<std::int64_t> ranks;
  for (const Shape& s : shapes) ranks.push_back(static_cast<std::int64_t>(s.size()));
  return einsum_path(parse_einsum(subscripts, ranks), shapes, options);
}

ContractionCost contraction_cost(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                                 const std::vector<std::pair<int, int>>& pairs, const DimVec& sliced_labels) {
  const std::vector<std::int64_t> sizes = einsum_label_sizes(spec, shapes);
  for (auto l : sliced_labels)
    TF_CHECK(l >= 0 && l < spec.num_labels(), ValueError, "contraction_cost", "sliced label id ", l,
             " is out of range [0, ", spec.num_labels(), ")");
  const detail::Network net = detail::make_network(spec, shapes, sizes, sliced_labels);
  return sliced_cost(net, detail::ssa_from_linear(pairs, net.num_terms()), slices_of(sizes, sliced_labels, "contraction_cost"));
}

}  // namespace tenferro
