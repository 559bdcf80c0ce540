// Contraction paths: the cost model by hand, the optimal optimizer against
// brute force, determinism, memory limits and slicing, path validation.
#include <cmath>
#include <functional>
#include <random>

#include "support/test_support.hpp"
#include "tenferro/einsum.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

std::vector<std::int64_t> ranks_of(const std::vector<Shape>& shapes) {
  std::vector<std::int64_t> r;
  for (const Shape& s : shapes) r.push_back(static_cast<std::int64_t>(s.size()));
  return r;
}

// A random connected network in integer-label form: `n` tensors of rank
// 1..4 over labels of extent 2..5, every label in two tensors (some in
// three, some in the output).
struct RandomNet {
  EinsumSpec spec;
  std::vector<Shape> shapes;
};

RandomNet random_network(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::int64_t>> inputs(static_cast<std::size_t>(n));
  std::vector<std::int64_t> extent;
  std::vector<std::int64_t> output;
  auto new_label = [&] {
    extent.push_back(2 + static_cast<std::int64_t>(rng() % 4));
    return static_cast<std::int64_t>(extent.size()) - 1;
  };
  // A spanning chain keeps the network connected, then random extra edges.
  for (int k = 1; k < n; ++k) {
    std::int64_t l = new_label();
    inputs[static_cast<std::size_t>(k)].push_back(l);
    inputs[rng() % static_cast<std::size_t>(k)].push_back(l);
  }
  for (int e = 0; e < n; ++e) {
    std::size_t a = rng() % static_cast<std::size_t>(n), b = rng() % static_cast<std::size_t>(n);
    if (a == b || inputs[a].size() >= 4 || inputs[b].size() >= 4) continue;
    std::int64_t l = new_label();
    inputs[a].push_back(l);
    inputs[b].push_back(l);
    if (rng() % 4 == 0) {
      std::size_t c = rng() % static_cast<std::size_t>(n);
      if (c != a && c != b && inputs[c].size() < 4) inputs[c].push_back(l);  // a hyperedge
    }
    if (rng() % 5 == 0) output.push_back(l);
  }
  RandomNet r{einsum_spec(inputs, output), {}};
  for (const auto& in : r.spec.inputs) {
    Shape s;
    for (auto id : in) s.push_back(extent[static_cast<std::size_t>(r.spec.names[static_cast<std::size_t>(id)])]);
    r.shapes.push_back(s);
  }
  return r;
}

// The minimum of the objective over every contraction order, by exhaustive search.
double brute_force(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                   PathObjective objective = PathObjective::flops) {
  const int n = static_cast<int>(shapes.size());
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::pair<int, int>> path;
  std::function<void(int)> rec = [&](int m) {
    if (m == 1) {
      best = std::min(best, objective_value(contraction_cost(spec, shapes, path), objective));
      return;
    }
    for (int i = 0; i < m; ++i)
      for (int j = i + 1; j < m; ++j) {
        path.emplace_back(i, j);
        rec(m - 1);
        path.pop_back();
      }
  };
  rec(n);
  return best;
}

}  // namespace

TEST(EinsumPath, CostModelByHand) {
  EinsumSpec s = parse_einsum("ij,jk,kl->il", {2, 2, 2});
  std::vector<Shape> shapes{{2, 3}, {3, 4}, {4, 5}};
  // (AB)C: ijk summed over j -> 2*2*3*4 = 48, result ik (8); ikl summed over
  // k -> 2*2*4*5 = 80, result il (10).
  ContractionCost left = contraction_cost(s, shapes, {{0, 1}, {0, 1}});
  EXPECT_EQ(left.flops, 128);
  EXPECT_EQ(left.largest_intermediate, 10);
  EXPECT_EQ(left.total_intermediate, 18);
  // Traffic: A, B and ik (6 + 12 + 8), then ik, C and il (8 + 20 + 10).
  EXPECT_EQ(left.traffic, 64);
  EXPECT_EQ(objective_value(left, PathObjective::flops), 128);
  EXPECT_EQ(objective_value(left, PathObjective::executor), 128 + kTrafficWeight * 64);
  // A(BC): jkl -> 120, result jl (15); ijl -> 60, result il (10).
  ContractionCost right = contraction_cost(s, shapes, {{1, 2}, {0, 1}});
  EXPECT_EQ(right.flops, 180);
  EXPECT_EQ(right.largest_intermediate, 15);
  EXPECT_EQ(right.total_intermediate, 25);
  EXPECT_EQ(right.traffic, (12 + 20 + 15) + (6 + 15 + 10));
  // Without a summed label (outer product) there is no factor 2.
  EXPECT_EQ(contraction_cost(parse_einsum("i,j->ij", {1, 1}), {{3}, {5}}, {{0, 1}}).flops, 15);
  // Slicing j: per slice ik has no j; flops count every slice.
  ContractionCost sliced = contraction_cost(s, shapes, {{0, 1}, {0, 1}}, {1});
  EXPECT_EQ(sliced.flops, 3 * (2 * 2 * 4 + 2 * 2 * 4 * 5));
  EXPECT_EQ(sliced.largest_intermediate, 10);
  // Per slice: A's column i (2), B's row k (4), ik (8); then ik, C, il.
  EXPECT_EQ(sliced.traffic, 3 * ((2 + 4 + 8) + (8 + 20 + 10)));
}

TEST(EinsumPath, OptimalPicksTheCheapOrder) {
  ContractionPath p = einsum_path("ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}, {.optimizer = PathOptimizer::optimal});
  EXPECT_EQ(p.pairs, (std::vector<std::pair<int, int>>{{0, 1}, {0, 1}}));
  EXPECT_EQ(p.cost.flops, 128);
  EXPECT_EQ(p.optimizer, PathOptimizer::optimal);
  EXPECT_GE(p.planning_seconds, 0);
  ContractionPath q = einsum_path("ij,jk,kl->il", {{64, 8}, {8, 64}, {64, 2}});
  EXPECT_EQ(q.pairs, (std::vector<std::pair<int, int>>{{1, 2}, {0, 1}}));
}

TEST(EinsumPath, OptimalMatchesBruteForceAndOthersAreNoBetter) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    RandomNet r = random_network(3 + static_cast<int>(seed % 4), seed);
    const double best = brute_force(r.spec, r.shapes);
    ContractionPath opt = einsum_path(r.spec, r.shapes,
                                      {.optimizer = PathOptimizer::optimal, .objective = PathObjective::flops});
    EXPECT_DOUBLE_EQ(opt.cost.flops, best) << r.spec.to_string();
    EXPECT_DOUBLE_EQ(contraction_cost(r.spec, r.shapes, opt.pairs).flops, opt.cost.flops);
    ContractionPath greedy = einsum_path(r.spec, r.shapes, {.optimizer = PathOptimizer::greedy});
    EXPECT_GE(greedy.cost.flops, best);
    // Up to 8 operands the annealer's subtree polish covers the whole tree.
    ContractionPath ann = einsum_path(
        r.spec, r.shapes,
        {.optimizer = PathOptimizer::annealing, .objective = PathObjective::flops, .seed = seed});
    EXPECT_DOUBLE_EQ(ann.cost.flops, best) << r.spec.to_string();
  }
}

// The default objective (Note [Executor cost model]): optimal and annealing
// reach the exhaustive minimum of flops + kTrafficWeight * traffic, which on
// some of these networks is a different order from the fewest flops.
TEST(EinsumPath, ExecutorObjectiveMatchesBruteForceAndDiffersFromFlops) {
  int differ = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    RandomNet r = random_network(3 + static_cast<int>(seed % 5), seed);
    const double best = brute_force(r.spec, r.shapes, PathObjective::executor);
    ContractionPath opt = einsum_path(r.spec, r.shapes, {.optimizer = PathOptimizer::optimal});
    EXPECT_DOUBLE_EQ(objective_value(opt.cost, PathObjective::executor), best) << r.spec.to_string();
    ContractionPath ann = einsum_path(r.spec, r.shapes, {.optimizer = PathOptimizer::annealing, .seed = seed});
    EXPECT_DOUBLE_EQ(objective_value(ann.cost, PathObjective::executor), best) << r.spec.to_string();
    ContractionPath fewest = einsum_path(r.spec, r.shapes,
                                         {.optimizer = PathOptimizer::optimal, .objective = PathObjective::flops});
    if (objective_value(fewest.cost, PathObjective::executor) > best * (1 + 1e-12)) ++differ;
  }
  EXPECT_GT(differ, 0);
}

TEST(EinsumPath, OptimalOnTwelveOperands) {
  RandomNet r = random_network(12, 99);
  ContractionPath opt = einsum_path(r.spec, r.shapes, {.optimizer = PathOptimizer::optimal});
  ContractionPath greedy = einsum_path(r.spec, r.shapes, {.optimizer = PathOptimizer::greedy});
  ContractionPath ann = einsum_path(r.spec, r.shapes, {.optimizer = PathOptimizer::annealing});
  auto value = [](const ContractionPath& p) { return objective_value(p.cost, PathObjective::executor); };
  EXPECT_LE(value(opt), value(greedy));
  EXPECT_LE(value(opt), value(ann));
  EXPECT_EQ(opt.pairs.size(), 11u);
}

TEST(EinsumPath, AnnealingIsDeterministicAndBeatsGreedyOnLargeNetworks) {
  RandomNet r = random_network(60, 7);
  PathOptions o{.optimizer = PathOptimizer::annealing, .seed = 42, .effort = 0.5};
  ContractionPath a = einsum_path(r.spec, r.shapes, o);
  ContractionPath b = einsum_path(r.spec, r.shapes, o);
  EXPECT_EQ(a.pairs, b.pairs);
  EXPECT_EQ(a.cost.flops, b.cost.flops);
  ContractionPath g = einsum_path(r.spec, r.shapes, {.optimizer = PathOptimizer::greedy});
  EXPECT_LE(objective_value(a.cost, PathObjective::executor), objective_value(g.cost, PathObjective::executor));
  EXPECT_EQ(contraction_cost(r.spec, r.shapes, a.pairs).flops, a.cost.flops);
}

TEST(EinsumPath, UserPathIsCheckedAndCosted) {
  std::vector<Shape> shapes{{2, 3}, {3, 4}, {4, 5}};
  ContractionPath p = einsum_path("ij,jk,kl->il", shapes, {.path = {{1, 2}, {0, 1}}});
  EXPECT_EQ(p.pairs, (std::vector<std::pair<int, int>>{{1, 2}, {0, 1}}));
  EXPECT_EQ(p.cost.flops, 180);
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum_path("ij,jk,kl->il", shapes, {.path = {{0, 1}}}); },
                                      {"einsum_path", "the path has 1 steps but 3 operands need 2"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum_path("ij,jk,kl->il", shapes, {.path = {{0, 3}, {0, 1}}}); },
                                      {"step 0 (0, 3) must name two different positions in [0, 3)"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum_path("ij,jk,kl->il", shapes, {.path = {{0, 1}, {1, 1}}}); },
                                      {"step 1 (1, 1)"}));
  // A single operand has the empty path.
  EXPECT_TRUE(einsum_path("ii->i", {{3, 3}}).pairs.empty());
}

TEST(EinsumPath, MemoryLimitPrefersAnOrderThatFits) {
  // (AB) is 64 x 64; (BC) is 8 x 2: with a limit of 100 elements the
  // optimizer must avoid AB even if it were cheaper.
  std::vector<Shape> shapes{{64, 8}, {8, 64}, {64, 2}};
  for (PathOptimizer o : {PathOptimizer::optimal, PathOptimizer::annealing}) {
    ContractionPath p = einsum_path("ij,jk,kl->il", shapes, {.optimizer = o, .memory_limit = 100});
    EXPECT_EQ(p.num_slices, 1);
    EXPECT_EQ(p.pairs, (std::vector<std::pair<int, int>>{{1, 2}, {0, 1}})) << path_optimizer_name(o);
  }
}

TEST(EinsumPath, SlicingWhenNoOrderFits) {
  // Every order of this ring has an intermediate of 8*8 = 64 elements.
  const char* sub = "ab,bc,cd,da->";
  std::vector<Shape> shapes{{8, 8}, {8, 8}, {8, 8}, {8, 8}};
  EinsumSpec spec = parse_einsum(sub, ranks_of(shapes));
  for (PathOptimizer o : {PathOptimizer::greedy, PathOptimizer::optimal, PathOptimizer::annealing}) {
    ContractionPath p = einsum_path(spec, shapes, {.optimizer = o, .memory_limit = 16});
    EXPECT_GT(p.num_slices, 1) << path_optimizer_name(o);
    ContractionCost per = contraction_cost(spec, shapes, p.pairs, p.sliced_labels);
    EXPECT_EQ(per.flops, p.cost.flops);
    // Per slice, every intermediate but the (scalar) result fits.
    EXPECT_LE(p.cost.largest_intermediate, 16) << path_optimizer_name(o);
    std::int64_t slices = 1;
    for (std::size_t i = 0; i < p.sliced_labels.size(); ++i) slices *= 8;
    EXPECT_EQ(p.num_slices, slices);
  }
}

// Two intermediates of the same largest size with no label in common
// besides the path's: slicing one of their labels lowers neither maximum on
// its own. The slicer still progresses (it lowers the total size first) and
// meets the limit. Path [[0, 1], [0, 1], [0, 1]] on "ab,cd,abx,cdx->":
// ab*cd (ab cd, 4096), then abx (cd x), then cdx.
TEST(EinsumPath, SlicingProgressesThroughTiedIntermediates) {
  const char* sub = "ab,cd,abx,cdx->";
  std::vector<Shape> shapes{{8, 8}, {8, 8}, {8, 8, 2}, {8, 8, 2}};
  EinsumSpec spec = parse_einsum(sub, ranks_of(shapes));
  const std::vector<std::pair<int, int>> path{{0, 2}, {0, 1}, {0, 1}};
  // ab*abx -> x (2), cd (64) * x -> cdx (128), cdx*cdx -> scalar: largest 128.
  ContractionPath p = einsum_path(spec, shapes, {.path = path, .memory_limit = 8});
  EXPECT_LE(p.cost.largest_intermediate, 8);
  EXPECT_EQ(contraction_cost(spec, shapes, p.pairs, p.sliced_labels).largest_intermediate,
            p.cost.largest_intermediate);
  // A 4 x 4 grid of bond 9 (a PEPS norm) under 4096 elements: the greedy
  // rule alone used to stop at 6561 with several tied intermediates.
  std::vector<std::vector<std::int64_t>> in;
  std::vector<Shape> grid;
  const int L = 4;
  for (int r = 0; r < L; ++r)
    for (int c = 0; c < L; ++c) {
      std::vector<std::int64_t> t;
      if (c > 0) t.push_back(r * (L - 1) + c - 1);
      if (c + 1 < L) t.push_back(r * (L - 1) + c);
      if (r > 0) t.push_back(L * (L - 1) + (r - 1) * L + c);
      if (r + 1 < L) t.push_back(L * (L - 1) + r * L + c);
      in.push_back(t);
      grid.push_back(Shape(t.size(), 9));
    }
  EinsumSpec g = einsum_spec(in, {});
  ContractionPath q = einsum_path(g, grid, {.optimizer = PathOptimizer::annealing, .memory_limit = 4096});
  EXPECT_LE(q.cost.largest_intermediate, 4096);
  EXPECT_GT(q.num_slices, 1);
  EXPECT_EQ(contraction_cost(g, grid, q.pairs, q.sliced_labels).largest_intermediate, q.cost.largest_intermediate);
}

TEST(EinsumPath, Errors) {
  // Slicing cannot shrink an intermediate made of output labels only.
  EXPECT_TRUE(throws_with<ValueError>(
      [] { einsum_path("ai,bi,ci->abc", {{4, 2}, {4, 2}, {4, 2}}, {.optimizer = PathOptimizer::greedy, .memory_limit = 8}); },
      {"einsum_path", "memory limit of 8 elements cannot be met", "\"ai,bi,ci->abc\""}));
  EXPECT_TRUE(throws_with<ValueError>([] { einsum_path("ij->", {{2, 2}}, {.memory_limit = -1}); }, {"memory_limit"}));
  EXPECT_TRUE(throws_with<ValueError>([] { einsum_path("ij->", {{2, 2}}, {.effort = -1}); }, {"effort"}));
  RandomNet big = random_network(17, 3);
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum_path(big.spec, big.shapes, {.optimizer = PathOptimizer::optimal}); },
                                      {"handles at most 16 operands", "has 17"}));
  EXPECT_TRUE(throws_with<ValueError>([] { contraction_cost(parse_einsum("ij->", {2}), {{2, 2}}, {}, {5}); },
                                      {"sliced label id 5 is out of range"}));
  // a, b and c (2^20 each) sit in all three operands, so every inner
  // intermediate carries them: a limit of one element needs 2^60 slices,
  // which once overflowed num_slices.
  const std::int64_t m = std::int64_t{1} << 20;
  const std::vector<Shape> wide{{m, m, m, 2}, {m, m, m, 3}, {m, m, m, 4}};
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum_path("abct,abcu,abcv->", wide, {.memory_limit = 1}); },
                                      {"einsum_path", "memory limit of 1 elements", "needs more than 2^53 slices"}));
  const EinsumSpec ws = parse_einsum("abct,abcu,abcv->", {4, 4, 4});
  EXPECT_TRUE(throws_with<ValueError>([&] { contraction_cost(ws, wide, {{0, 1}, {0, 1}}, {0, 1, 2}); },
                                      {"contraction_cost", "slicing 3 labels gives", "more than 2^53"}));
  // Two sliced labels: m^2 slices of (c t u, summed: 2 * 6m) + (c v, summed: 2 * 4m).
  const ContractionCost two = contraction_cost(ws, wide, {{0, 1}, {0, 1}}, {0, 1});
  EXPECT_EQ(two.flops, static_cast<double>(m) * m * (12.0 * m + 8.0 * m));
}
