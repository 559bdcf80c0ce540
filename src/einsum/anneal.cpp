// The annealing path optimizer.
//
// Note [Tree annealing]: a contraction order is a binary tree whose leaves
// are the operands. A rotation at an inner node X with parent P = (A, X) and
// X = (B, C) swaps A with one child of X: P = (B, (A, C)) or P = (C, (A, B)).
// Only X's legs and the step costs of X and P change (P covers the same
// leaves), so a move costs two leg merges. The energy is log2(total flops),
// plus, with a memory cap, kCapWeight per doubling of every intermediate
// above the cap. Moves are accepted by the Metropolis rule under a
// temperature that falls geometrically from T0 to kT1 over kStages stages;
// the best tree seen at a stage boundary is kept.
//
// Under PathObjective::executor the annealed tree is polished (below) for
// flops, then again for the objective (step_cost: flops plus weighted
// memory traffic), and restarts are compared by the objective. Annealing
// the objective itself did worse: on gm_queen5_5_3 (every label of extent
// 3) its best tree cost 2.6 times as much, under the objective, as
// annealing flops and polishing for the objective.
//
// Restarts cycle through three kinds of starting tree, each the best of
// kCandidates randomised candidates: bucket elimination, greedy, and
// recursive bisection (more bisection candidates under a cap, since
// bisection is what finds narrow trees); and through three initial
// temperatures kT0 (low, high, middle) every three restarts. Each restart is
// polished by re-optimising every subtree of up to kReconfLeaves leaves
// exactly (optimal_order on the subtree's frontier, expanding intermediates
// above the cap first, then the costliest), costliest first, until a
// pass finds nothing. The best tree over the restarts wins: no intermediate
// above the cap first, then the lowest cost, then the smallest largest
// intermediate. All randomness comes from one seeded Rng, so the result is a
// pure function of (network, seed, effort) unless the time limit cuts it short.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "network.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro::detail {
namespace {

constexpr double kT0[3] = {0.03, 0.3, 0.1};
constexpr double kT1 = 0.0005;
constexpr double kCapWeight = 1.0;
constexpr int kStages = 50;
constexpr int kSweepsPerUnit = 2000;  // per restart at effort 1
constexpr int kReconfLeaves = 8;
constexpr int kReconfPasses = 8;
constexpr double kGreedyNoise = 0.3;
constexpr double kEliminationNoise = 1.0;
constexpr int kCandidates = 8;
constexpr int kBisectionCapFactor = 8;

struct Tree {
  int n = 0;
  std::vector<int> left, right, parent;
  std::vector<Legs> legs;
  std::vector<double> cost, size;  // per node: its step's cost, its size
  int root = 0;
};

// Recomputes node m's legs, size and step cost from its children.
void set_step(Tree& t, const Network& net, std::size_t m) {
  const std::size_t a = static_cast<std::size_t>(t.left[m]), b = static_cast<std::size_t>(t.right[m]);
  const double f = contract_legs(net, t.legs[a], t.legs[b], t.legs[m], t.size[m]);
  t.cost[m] = step_cost(f, t.size[a], t.size[b], t.size[m], net.traffic_weight);
}

Tree build_tree(const Network& net, const SsaPath& ssa) {
  Tree t;
  t.n = net.num_terms();
  const std::size_t nodes = static_cast<std::size_t>(2 * t.n - 1);
  t.left.assign(nodes, -1);
  t.right.assign(nodes, -1);
  t.parent.assign(nodes, -1);
  t.legs.resize(nodes);
  t.cost.assign(nodes, 0);
  t.size.assign(nodes, 0);
  for (int i = 0; i < t.n; ++i) {
    t.legs[static_cast<std::size_t>(i)] = leaf_legs(net, i);
    t.size[static_cast<std::size_t>(i)] = legs_size(net, t.legs[static_cast<std::size_t>(i)]);
  }
  for (std::size_t s = 0; s < ssa.size(); ++s) {
    const std::size_t m = static_cast<std::size_t>(t.n) + s;
    auto [a, b] = ssa[s];
    t.left[m] = a;
    t.right[m] = b;
    t.parent[static_cast<std::size_t>(a)] = static_cast<int>(m);
    t.parent[static_cast<std::size_t>(b)] = static_cast<int>(m);
    set_step(t, net, m);
  }
  t.root = static_cast<int>(nodes) - 1;
  return t;
}

// Post-order (children before parents) without recursion.
SsaPath tree_ssa(const Tree& t) {
  SsaPath ssa;
  std::vector<int> id(t.left.size(), -1);
  for (int i = 0; i < t.n; ++i) id[static_cast<std::size_t>(i)] = i;
  std::vector<std::pair<int, bool>> stack{{t.root, false}};
  int next = t.n;
  while (!stack.empty()) {
    auto [v, expanded] = stack.back();
    stack.pop_back();
    if (v < t.n) continue;
    const std::size_t u = static_cast<std::size_t>(v);
    if (expanded) {
      ssa.emplace_back(id[static_cast<std::size_t>(t.left[u])], id[static_cast<std::size_t>(t.right[u])]);
      id[u] = next++;
    } else {
      stack.push_back({v, true});
      stack.push_back({t.right[u], false});
      stack.push_back({t.left[u], false});
    }
  }
  return ssa;
}

double excess(double size, double cap) { return cap > 0 && size > cap ? std::log2(size / cap) : 0.0; }

struct Score {
  double cost = 0;
  double excess = 0;
  double largest = 0;
  // Feasibility first, then cost, then the largest intermediate.
  bool better_than(const Score& o) const {
    if (excess != o.excess) return excess < o.excess;
    if (cost != o.cost) return cost < o.cost;
    return largest < o.largest;
  }
};

Score score_of(const Tree& t, double cap) {
  Score s;
  for (std::size_t v = static_cast<std::size_t>(t.n); v < t.left.size(); ++v) {
    s.cost += t.cost[v];
    if (static_cast<int>(v) != t.root) {
      s.excess += excess(t.size[v], cap);
      s.largest = std::max(s.largest, t.size[v]);
    }
  }
  return s;
}

using Clock = std::chrono::steady_clock;

struct Deadline {
  Clock::time_point end;
  bool active = false;
  bool passed() const { return active && Clock::now() >= end; }
};

void anneal(Tree& t, const Network& net, Rng& rng, double sweeps, double cap, const Deadline& deadline,
            double T0) {
  std::vector<int> movable;
  for (int v = t.n; v < static_cast<int>(t.left.size()); ++v)
    if (v != t.root) movable.push_back(v);
  if (movable.empty()) return;
  const std::int64_t moves_per_stage = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(sweeps * static_cast<double>(movable.size()) / kStages));
  Legs nx, np;
  Tree best = t;
  Score best_score = score_of(t, cap);
  for (int stage = 0; stage < kStages; ++stage) {
    if (deadline.passed()) break;
    const double T = T0 * std::pow(kT1 / T0, static_cast<double>(stage) / (kStages - 1));
    const Score sc = score_of(t, cap);  // exact totals once per stage
    if (sc.better_than(best_score)) {
      best = t;
      best_score = sc;
    }
    double F = sc.cost;
    for (std::int64_t mv = 0; mv < moves_per_stage; ++mv) {
      const int x = movable[static_cast<std::size_t>(rng.below(movable.size()))];
      const std::size_t ux = static_cast<std::size_t>(x);
      const int p = t.parent[ux];
      const std::size_t up = static_cast<std::size_t>(p);
      const int a = t.left[up] == x ? t.right[up] : t.left[up];
      const bool swap_left = rng.next() & 1;
      const int b = swap_left ? t.left[ux] : t.right[ux];
      const int c = swap_left ? t.right[ux] : t.left[ux];
      const std::size_t ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b),
                        uc = static_cast<std::size_t>(c);
      double sx = 0, sp = 0;
      const double w = net.traffic_weight;
      const double fx = step_cost(contract_legs(net, t.legs[ua], t.legs[uc], nx, sx), t.size[ua], t.size[uc], sx, w);
      const double fp = step_cost(contract_legs(net, t.legs[ub], nx, np, sp), t.size[ub], sx, sp, w);
      const double dF = fx + fp - t.cost[ux] - t.cost[up];
      const double dX = excess(sx, cap) - excess(t.size[ux], cap);
      const double dE = std::log2(std::max(F + dF, 1e-300) / F) + kCapWeight * dX;
      if (dE > 0 && rng.uniform() >= std::exp(-dE / T)) continue;
      t.left[ux] = a;
      t.right[ux] = c;
      t.parent[static_cast<std::size_t>(a)] = x;
      t.parent[static_cast<std::size_t>(c)] = x;
      if (t.left[up] == x) t.right[up] = b;
      else t.left[up] = b;
      t.parent[static_cast<std::size_t>(b)] = p;
      std::swap(t.legs[ux], nx);
      t.cost[ux] = fx;
      t.size[ux] = sx;
      t.cost[up] = fp;
      F += dF;
    }
  }
  if (best_score.better_than(score_of(t, cap))) t = std::move(best);
}

// One pass of subtree re-optimisation; returns true when anything improved.
bool reconfigure(Tree& t, const Network& net, double cap, const Deadline& deadline) {
  std::vector<int> order;
  for (int v = t.n; v < static_cast<int>(t.left.size()); ++v) order.push_back(v);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return t.cost[static_cast<std::size_t>(a)] > t.cost[static_cast<std::size_t>(b)];
  });
  std::vector<char> keep(static_cast<std::size_t>(net.num_labels()), 0);
  bool improved = false;
  std::vector<int> frontier, region;
  std::vector<std::vector<int>> terms;
  for (int v : order) {
    if (deadline.passed()) break;
    const std::size_t uv = static_cast<std::size_t>(v);
    frontier = {t.left[uv], t.right[uv]};
    region = {v};
    while (static_cast<int>(frontier.size()) < kReconfLeaves) {
      // Expand intermediates above the cap first, then the costliest.
      int best = -1;
      auto key = [&](int f) {
        const std::size_t u = static_cast<std::size_t>(f);
        return std::make_pair(excess(t.size[u], cap), t.cost[u]);
      };
      for (std::size_t i = 0; i < frontier.size(); ++i) {
        int f = frontier[i];
        if (f >= t.n && (best < 0 || key(f) > key(frontier[static_cast<std::size_t>(best)])))
          best = static_cast<int>(i);
      }
      if (best < 0) break;
      const int f = frontier[static_cast<std::size_t>(best)];
      frontier[static_cast<std::size_t>(best)] = t.left[static_cast<std::size_t>(f)];
      frontier.push_back(t.right[static_cast<std::size_t>(f)]);
      region.push_back(f);
    }
    if (frontier.size() < 3) continue;
    double old_cost = 0, old_excess = 0;
    for (int r : region) {
      old_cost += t.cost[static_cast<std::size_t>(r)];
      if (r != v) old_excess += excess(t.size[static_cast<std::size_t>(r)], cap);
    }
    terms.clear();
    for (int f : frontier) {
      std::vector<int> labels;
      for (const Leg& g : t.legs[static_cast<std::size_t>(f)]) labels.push_back(g.label);
      terms.push_back(std::move(labels));
    }
    for (const Leg& g : t.legs[uv]) keep[static_cast<std::size_t>(g.label)] = 1;
    DpResult dp = optimal_order(terms, keep, net.size, cap, net.traffic_weight);
    for (const Leg& g : t.legs[uv]) keep[static_cast<std::size_t>(g.label)] = 0;
    if (!dp.feasible) continue;
    const bool better = (old_excess > 0) || dp.cost < old_cost * (1 - 1e-9);
    if (!better) continue;
    // Rebuild the region: the last step is v itself, the others reuse the
    // region's other nodes.
    const int k = static_cast<int>(frontier.size());
    std::vector<int> node_of_step(dp.ssa.size());
    for (std::size_t s = 0; s + 1 < dp.ssa.size(); ++s) node_of_step[s] = region[s + 1];
    node_of_step.back() = v;
    auto resolve = [&](int id) {
      return id < k ? frontier[static_cast<std::size_t>(id)] : node_of_step[static_cast<std::size_t>(id - k)];
    };
    for (std::size_t s = 0; s < dp.ssa.size(); ++s) {
      const int m = node_of_step[s];
      const std::size_t um = static_cast<std::size_t>(m);
      const int a = resolve(dp.ssa[s].first), b = resolve(dp.ssa[s].second);
      t.left[um] = a;
      t.right[um] = b;
      t.parent[static_cast<std::size_t>(a)] = m;
      t.parent[static_cast<std::size_t>(b)] = m;
      set_step(t, net, um);
    }
    improved = true;
  }
  return improved;
}

}  // namespace

SsaPath anneal_path(const Network& net, const AnnealOptions& options) {
  const int n = net.num_terms();
  if (n <= 2) return greedy_path(net);
  Deadline deadline;
  if (options.time_limit_seconds > 0) {
    deadline.active = true;
    deadline.end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(options.time_limit_seconds));
  }
  const double effort = std::max(options.effort, 0.0);
  const int restarts = 3 * std::max(1, static_cast<int>(std::ceil(effort)));
  const double sweeps = kSweepsPerUnit * effort / std::max(1.0, std::ceil(effort));
  Network flops_net = net;
  flops_net.traffic_weight = 0;
  Rng rng(options.seed);
  SsaPath best_ssa;
  Score best;
  for (int r = 0; r < restarts; ++r) {
    if (r > 0 && deadline.passed()) break;
    Rng local(rng.next());
    // The best of several starting trees of one kind (Note [Tree annealing]).
    const int kind = r % 3;
    const bool plain = r < 3;  // the first of each kind: the deterministic heuristic
    const int count = kind == 2 && options.cap > 0 ? kCandidates * kBisectionCapFactor : kCandidates;
    SsaPath start;
    Score start_score;
    for (int c = 0; c < count; ++c) {
      SsaPath cand;
      if (kind == 0) cand = plain && c == 0 ? elimination_path(net) : elimination_path(net, &local, kEliminationNoise);
      else if (kind == 1) cand = plain && c == 0 ? greedy_path(net) : greedy_path(net, &local, kGreedyNoise);
      else cand = bisection_path(net, local);
      const Score cs = score_of(build_tree(net, cand), options.cap);
      if (c == 0 || cs.better_than(start_score)) {
        start = std::move(cand);
        start_score = cs;
      }
    }
    // Annealing sees flops alone (Note [Tree annealing]); the polish and the
    // choice between restarts see the objective.
    Tree t = build_tree(flops_net, start);
    if (sweeps > 0) anneal(t, flops_net, local, sweeps, options.cap, deadline, kT0[(r / 3) % 3]);
    if (net.traffic_weight > 0) {
      for (int pass = 0; pass < kReconfPasses && reconfigure(t, flops_net, options.cap, deadline); ++pass) {
      }
      t = build_tree(net, tree_ssa(t));
    }
    for (int pass = 0; pass < kReconfPasses && reconfigure(t, net, options.cap, deadline); ++pass) {
    }
    const Score s = score_of(t, options.cap);
    if (best_ssa.empty() || s.better_than(best)) {
      best = s;
      best_ssa = tree_ssa(t);
    }
  }
  return best_ssa;
}

}  // namespace tenferro::detail
