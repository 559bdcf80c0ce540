// Greedy path search: opt_einsum's rule (contract the connected pair whose
// result is smallest compared with its inputs), optionally randomised to
// seed the annealing optimizer with varied trees.
#include <algorithm>
#include <cmath>
#include <queue>

#include "network.hpp"

namespace tenferro::detail {
namespace {

struct Candidate {
  double score;
  int a, b;
  bool operator>(const Candidate& o) const {
    if (score != o.score) return score > o.score;
    if (a != o.a) return a > o.a;
    return b > o.b;
  }
};

}  // namespace

SsaPath greedy_path(const Network& net, Rng* rng, double temperature) {
  const int n = net.num_terms();
  SsaPath ssa;
  if (n <= 1) return ssa;
  const std::size_t nodes = static_cast<std::size_t>(2 * n - 1);
  std::vector<Legs> legs(nodes);
  std::vector<double> size(nodes, 0);
  std::vector<char> alive(nodes, 0);
  std::vector<std::vector<int>> holders(static_cast<std::size_t>(net.num_labels()));
  for (int t = 0; t < n; ++t) {
    legs[static_cast<std::size_t>(t)] = leaf_legs(net, t);
    size[static_cast<std::size_t>(t)] = legs_size(net, legs[static_cast<std::size_t>(t)]);
    alive[static_cast<std::size_t>(t)] = 1;
    for (const Leg& g : legs[static_cast<std::size_t>(t)])
      holders[static_cast<std::size_t>(g.label)].push_back(t);
  }
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  Legs scratch;
  auto push = [&](int a, int b) {
    if (a > b) std::swap(a, b);
    double s = 0;
    contract_legs(net, legs[static_cast<std::size_t>(a)], legs[static_cast<std::size_t>(b)], scratch, s);
    const double in = size[static_cast<std::size_t>(a)] + size[static_cast<std::size_t>(b)];
    double score = s - in;
    if (rng != nullptr && temperature > 0) {
      double u = std::max(rng->uniform(), 1e-300);
      score -= temperature * -std::log(-std::log(u) + 1e-300) * in;
    }
    heap.push({score, a, b});
  };
  // Every connected pair once.
  std::vector<int> stamp(nodes, -1);
  for (int a = 0; a < n; ++a) {
    for (const Leg& g : legs[static_cast<std::size_t>(a)])
      for (int b : holders[static_cast<std::size_t>(g.label)])
        if (b > a && stamp[static_cast<std::size_t>(b)] != a) {
          stamp[static_cast<std::size_t>(b)] = a;
          push(a, b);
        }
  }
  int next = n;
  while (!heap.empty()) {
    Candidate c = heap.top();
    heap.pop();
    if (!alive[static_cast<std::size_t>(c.a)] || !alive[static_cast<std::size_t>(c.b)]) continue;
    const std::size_t m = static_cast<std::size_t>(next);
    contract_legs(net, legs[static_cast<std::size_t>(c.a)], legs[static_cast<std::size_t>(c.b)], legs[m],
                  size[m]);
    alive[static_cast<std::size_t>(c.a)] = alive[static_cast<std::size_t>(c.b)] = 0;
    alive[m] = 1;
    ssa.emplace_back(c.a, c.b);
    for (const Leg& g : legs[m]) {
      auto& h = holders[static_cast<std::size_t>(g.label)];
      h.erase(std::remove_if(h.begin(), h.end(), [&](int x) { return !alive[static_cast<std::size_t>(x)]; }),
              h.end());
      for (int b : h)
        if (stamp[static_cast<std::size_t>(b)] != next) {
          stamp[static_cast<std::size_t>(b)] = next;
          push(b, next);
        }
      h.push_back(next);
    }
    ++next;
  }
  // Disconnected parts: outer products, smallest first.
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> rest;
  for (int i = 0; i < next; ++i)
    if (alive[static_cast<std::size_t>(i)]) rest.push({size[static_cast<std::size_t>(i)], i});
  while (rest.size() > 1) {
    int a = rest.top().second;
    rest.pop();
    int b = rest.top().second;
    rest.pop();
    const std::size_t m = static_cast<std::size_t>(next);
    contract_legs(net, legs[static_cast<std::size_t>(a)], legs[static_cast<std::size_t>(b)], legs[m], size[m]);
    ssa.emplace_back(a, b);
    rest.push({size[m], next++});
  }
  return ssa;
}

}  // namespace tenferro::detail

namespace tenferro::detail {

SsaPath elimination_path(const Network& net, Rng* rng, double noise) {
  const int n = net.num_terms();
  SsaPath ssa;
  if (n <= 1) return ssa;
  const std::size_t nodes = static_cast<std::size_t>(2 * n - 1);
  std::vector<Legs> legs(nodes);
  std::vector<double> size(nodes, 0);
  std::vector<char> alive(nodes, 0);
  const int L = net.num_labels();
  std::vector<std::vector<int>> holders(static_cast<std::size_t>(L));
  for (int t = 0; t < n; ++t) {
    legs[static_cast<std::size_t>(t)] = leaf_legs(net, t);
    size[static_cast<std::size_t>(t)] = legs_size(net, legs[static_cast<std::size_t>(t)]);
    alive[static_cast<std::size_t>(t)] = 1;
    for (const Leg& g : legs[static_cast<std::size_t>(t)]) holders[static_cast<std::size_t>(g.label)].push_back(t);
  }
  int next = n;
  Legs scratch;
  auto contract = [&](int a, int b) {
    const std::size_t m = static_cast<std::size_t>(next);
    contract_legs(net, legs[static_cast<std::size_t>(a)], legs[static_cast<std::size_t>(b)], legs[m], size[m]);
    alive[static_cast<std::size_t>(a)] = alive[static_cast<std::size_t>(b)] = 0;
    alive[m] = 1;
    ssa.emplace_back(a, b);
    for (const Leg& g : legs[m]) holders[static_cast<std::size_t>(g.label)].push_back(next);
    return next++;
  };
  auto live_holders = [&](int l) -> std::vector<int>& {
    auto& h = holders[static_cast<std::size_t>(l)];
    h.erase(std::remove_if(h.begin(), h.end(), [&](int x) { return !alive[static_cast<std::size_t>(x)]; }), h.end());
    return h;
  };
  std::vector<char> done(static_cast<std::size_t>(L), 0);
  std::vector<int> mark(static_cast<std::size_t>(L), -1);
  for (int step = 0;; ++step) {
    // The label whose bucket gives the smallest result.
    int best = -1;
    double best_score = 0;
    for (int l = 0; l < L; ++l) {
      if (done[static_cast<std::size_t>(l)] || net.output[static_cast<std::size_t>(l)]) continue;
      auto& h = live_holders(l);
      if (h.empty()) {
        done[static_cast<std::size_t>(l)] = 1;
        continue;
      }
      double s = 1;
      for (int t : h)
        for (const Leg& g : legs[static_cast<std::size_t>(t)])
          if (mark[static_cast<std::size_t>(g.label)] != step * L + l) {
            mark[static_cast<std::size_t>(g.label)] = step * L + l;
            if (g.label != l) s *= net.size[static_cast<std::size_t>(g.label)];
          }
      double score = std::log2(s);
      if (rng != nullptr && noise > 0) score -= noise * -std::log(-std::log(std::max(rng->uniform(), 1e-300)));
      if (best < 0 || score < best_score) {
        best = l;
        best_score = score;
      }
    }
    if (best < 0) break;
    done[static_cast<std::size_t>(best)] = 1;
    std::vector<int> group = live_holders(best);
    // Within the bucket: the pair with the smallest result first.
    while (group.size() > 1) {
      std::size_t bi = 0, bj = 1;
      double bs = -1;
      for (std::size_t i = 0; i < group.size(); ++i)
        for (std::size_t j = i + 1; j < group.size(); ++j) {
          double s = 0;
          contract_legs(net, legs[static_cast<std::size_t>(group[i])], legs[static_cast<std::size_t>(group[j])], scratch, s);
          if (bs < 0 || s < bs) {
            bs = s;
            bi = i;
            bj = j;
          }
        }
      int m = contract(group[bi], group[bj]);
      group.erase(group.begin() + static_cast<std::ptrdiff_t>(bj));
      group[bi] = m;
    }
  }
  // What is left shares only output labels (or nothing): smallest first.
  std::vector<int> rest;
  for (int i = 0; i < next; ++i)
    if (alive[static_cast<std::size_t>(i)]) rest.push_back(i);
  while (rest.size() > 1) {
    std::sort(rest.begin(), rest.end(), [&](int a, int b) {
      return size[static_cast<std::size_t>(a)] < size[static_cast<std::size_t>(b)];
    });
    int m = contract(rest[0], rest[1]);
    rest.erase(rest.begin());
    rest[0] = m;
  }
  return ssa;
}

}  // namespace tenferro::detail
