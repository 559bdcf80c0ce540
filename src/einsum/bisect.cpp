// Recursive hypergraph bisection: a contraction tree whose intermediates are
// the boundaries of nested operand sets, each split found by
// Fiduccia-Mattheyses refinement.
//
// Note [Bisection trees]: operands are vertices, labels are nets. The legs
// of an operand set are the labels it shares with the rest of the network
// (or with the output), so a split of a set S into A and B costs
// sum over labels l of log2(extent l) * (sides of l - 1), where the sides of
// l are A and B when l has operands there, plus "outside" when l is needed
// beyond S: the sum of the log-sizes of legs(A) and legs(B) minus those of
// legs(S). Each split tries kTrials starting halves under a random imbalance
// bound, grown breadth-first either over operands or over labels (an
// operand joins once all its labels are in), refines each by FM passes (move
// the unlocked operand of largest gain, keep the best prefix of a pass), and
// keeps the trial whose larger side has the fewest legs (ties: the FM cost),
// since the largest intermediate is what bisection is for. Sets of at most
// kDpLeaves operands are ordered exactly (optimal_order).
#include <algorithm>
#include <cmath>
#include <limits>

#include "network.hpp"

namespace tenferro::detail {
namespace {

constexpr int kDpLeaves = 8;
constexpr int kTrials = 6;
constexpr int kMaxPasses = 8;


struct Bisector {
  const Network& net;
  Rng& rng;
  SsaPath ssa;
  int next_id;
  std::vector<int> count;  // scratch: operands of the current set holding each label

  Bisector(const Network& n, Rng& r) : net(n), rng(r), next_id(n.num_terms()) {
    count.assign(static_cast<std::size_t>(n.num_labels()), 0);
  }

  // Labels needed beyond the set S (flags by label id, for optimal_order).
  std::vector<char> outside(const std::vector<int>& S) {
    std::vector<char> keep(static_cast<std::size_t>(net.num_labels()), 0);
    for (int t : S)
      for (int l : net.terms[static_cast<std::size_t>(t)]) ++count[static_cast<std::size_t>(l)];
    for (int t : S)
      for (int l : net.terms[static_cast<std::size_t>(t)]) {
        const std::size_t ul = static_cast<std::size_t>(l);
        keep[ul] = net.output[ul] || count[ul] < net.total[ul];
      }
    for (int t : S)
      for (int l : net.terms[static_cast<std::size_t>(t)]) count[static_cast<std::size_t>(l)] = 0;
    return keep;
  }

  int build(const std::vector<int>& S) {
    if (S.size() == 1) return S[0];
    if (S.size() <= static_cast<std::size_t>(kDpLeaves)) {
      std::vector<std::vector<int>> terms;
      for (int t : S) terms.push_back(net.terms[static_cast<std::size_t>(t)]);
      DpResult dp = optimal_order(terms, outside(S), net.size, 0, net.traffic_weight);
      const int k = static_cast<int>(S.size());
      std::vector<int> id(static_cast<std::size_t>(2 * k - 1));
      for (int i = 0; i < k; ++i) id[static_cast<std::size_t>(i)] = S[static_cast<std::size_t>(i)];
      for (std::size_t s = 0; s < dp.ssa.size(); ++s) {
        ssa.emplace_back(id[static_cast<std::size_t>(dp.ssa[s].first)], id[static_cast<std::size_t>(dp.ssa[s].second)]);
        id[static_cast<std::size_t>(k) + s] = next_id++;
      }
      return id.back();
    }
    std::vector<int> A, B;
    split(S, A, B);
    const int a = build(A);
    const int b = build(B);
    ssa.emplace_back(a, b);
    return next_id++;
  }

  void split(const std::vector<int>& S, std::vector<int>& A, std::vector<int>& B) {
    const int m = static_cast<int>(S.size());
    // Nets of S: labels with their pins (local vertex indices), weight and
    // whether they are needed outside S.
    std::vector<char> keep = outside(S);
    std::vector<int> net_of(static_cast<std::size_t>(net.num_labels()), -1);
    std::vector<std::vector<int>> pins;
    std::vector<double> weight;
    std::vector<char> ext;
    std::vector<std::vector<int>> nets_of(static_cast<std::size_t>(m));
    for (int v = 0; v < m; ++v)
      for (int l : net.terms[static_cast<std::size_t>(S[static_cast<std::size_t>(v)])]) {
        const std::size_t ul = static_cast<std::size_t>(l);
        if (net.size[ul] <= 1) continue;
        if (net_of[ul] < 0) {
          net_of[ul] = static_cast<int>(pins.size());
          pins.emplace_back();
          weight.push_back(std::log2(net.size[ul]));
          ext.push_back(keep[ul]);
        }
        pins[static_cast<std::size_t>(net_of[ul])].push_back(v);
        nets_of[static_cast<std::size_t>(v)].push_back(net_of[ul]);
      }
    const std::size_t nn = pins.size();
    std::vector<int> best_side;
    double best_cost = std::numeric_limits<double>::infinity();
    std::vector<int> side(static_cast<std::size_t>(m)), cnt0(nn), cnt1(nn);
    auto cost_of = [&] {
      double c = 0;
      for (std::size_t e = 0; e < nn; ++e)
        c += weight[e] * ((cnt0[e] > 0) + (cnt1[e] > 0) + ext[e] - 1);
      return c;
    };
    for (int trial = 0; trial < kTrials; ++trial) {
      const double eps = 0.05 + 0.45 * rng.uniform();
      const int lo = std::max(1, static_cast<int>(std::ceil(m * (0.5 - eps / 2))));
      const int hi = m - lo;
      std::fill(side.begin(), side.end(), 1);
      int in0 = 0;
      if (trial % 2 == 0) {
        // Grow side 0 breadth-first over operands from a random one.
        std::vector<int> queue{static_cast<int>(rng.below(static_cast<std::uint64_t>(m)))};
        side[static_cast<std::size_t>(queue[0])] = 0;
        in0 = 1;
        for (std::size_t q = 0; q < queue.size() && in0 < m / 2; ++q)
          for (int e : nets_of[static_cast<std::size_t>(queue[q])])
            for (int u : pins[static_cast<std::size_t>(e)])
              if (side[static_cast<std::size_t>(u)] == 1 && in0 < m / 2) {
                side[static_cast<std::size_t>(u)] = 0;
                ++in0;
                queue.push_back(u);
              }
      } else if (nn > 0) {
        // Grow a set of labels breadth-first from a random one; an operand
        // joins side 0 once all its labels are in the set.
        std::vector<int> missing(static_cast<std::size_t>(m));
        for (int v = 0; v < m; ++v) missing[static_cast<std::size_t>(v)] = static_cast<int>(nets_of[static_cast<std::size_t>(v)].size());
        std::vector<char> taken(nn, 0);
        std::vector<int> queue{static_cast<int>(rng.below(nn))};
        taken[static_cast<std::size_t>(queue[0])] = 1;
        for (std::size_t q = 0; q < queue.size() && in0 < m / 2; ++q)
          for (int u : pins[static_cast<std::size_t>(queue[q])]) {
            if (--missing[static_cast<std::size_t>(u)] == 0 && in0 < m / 2) {
              side[static_cast<std::size_t>(u)] = 0;
              ++in0;
            }
            for (int e : nets_of[static_cast<std::size_t>(u)])
              if (!taken[static_cast<std::size_t>(e)]) {
                taken[static_cast<std::size_t>(e)] = 1;
                queue.push_back(e);
              }
          }
      }
      while (in0 < m / 2) {  // disconnected: fill with random operands
        int u = static_cast<int>(rng.below(static_cast<std::uint64_t>(m)));
        if (side[static_cast<std::size_t>(u)] == 1) {
          side[static_cast<std::size_t>(u)] = 0;
          ++in0;
        }
      }
      std::fill(cnt0.begin(), cnt0.end(), 0);
      std::fill(cnt1.begin(), cnt1.end(), 0);
      for (int v = 0; v < m; ++v)
        for (int e : nets_of[static_cast<std::size_t>(v)]) ++(side[static_cast<std::size_t>(v)] ? cnt1 : cnt0)[static_cast<std::size_t>(e)];
      auto gain = [&](int v) {
        double g = 0;
        const bool s0 = side[static_cast<std::size_t>(v)] == 0;
        for (int e : nets_of[static_cast<std::size_t>(v)]) {
          const std::size_t ue = static_cast<std::size_t>(e);
          const int from = s0 ? cnt0[ue] : cnt1[ue], to = s0 ? cnt1[ue] : cnt0[ue];
          g += weight[ue] * ((from == 1) - (to == 0));
        }
        return g;
      };
      double cost = cost_of();
      for (int pass = 0; pass < kMaxPasses; ++pass) {
        std::vector<char> locked(static_cast<std::size_t>(m), 0);
        std::vector<int> moves;
        double run = cost, best_run = cost;
        std::size_t best_len = 0;
        for (int step = 0; step < m; ++step) {
          int pick = -1;
          double pick_gain = 0;
          for (int v = 0; v < m; ++v) {
            if (locked[static_cast<std::size_t>(v)]) continue;
            const int size0 = side[static_cast<std::size_t>(v)] == 0 ? in0 - 1 : in0 + 1;
            if (size0 < lo || size0 > hi) continue;
            const double g = gain(v);
            if (pick < 0 || g > pick_gain) {
              pick = v;
              pick_gain = g;
            }
          }
          if (pick < 0) break;
          const std::size_t up = static_cast<std::size_t>(pick);
          for (int e : nets_of[up]) {
            if (side[up] == 0) {
              --cnt0[static_cast<std::size_t>(e)];
              ++cnt1[static_cast<std::size_t>(e)];
            } else {
              ++cnt0[static_cast<std::size_t>(e)];
              --cnt1[static_cast<std::size_t>(e)];
            }
          }
          in0 += side[up] == 0 ? -1 : 1;
          side[up] ^= 1;
          locked[up] = 1;
          moves.push_back(pick);
          run -= pick_gain;
          if (run < best_run - 1e-12) {
            best_run = run;
            best_len = moves.size();
          }
        }
        // Undo the moves after the best prefix.
        for (std::size_t i = moves.size(); i > best_len; --i) {
          const std::size_t up = static_cast<std::size_t>(moves[i - 1]);
          for (int e : nets_of[up]) {
            if (side[up] == 0) {
              --cnt0[static_cast<std::size_t>(e)];
              ++cnt1[static_cast<std::size_t>(e)];
            } else {
              ++cnt0[static_cast<std::size_t>(e)];
              --cnt1[static_cast<std::size_t>(e)];
            }
          }
          in0 += side[up] == 0 ? -1 : 1;
          side[up] ^= 1;
        }
        if (best_len == 0) break;
        cost = best_run;
      }
      // Trials compete on the larger side's legs, then on the FM cost.
      double legs0 = 0, legs1 = 0;
      for (std::size_t e = 0; e < nn; ++e) {
        const bool both = cnt0[e] > 0 && cnt1[e] > 0;
        if (cnt0[e] > 0 && (both || ext[e])) legs0 += weight[e];
        if (cnt1[e] > 0 && (both || ext[e])) legs1 += weight[e];
      }
      const double key = std::max(legs0, legs1) * 1e6 + cost;
      if (key < best_cost) {
        best_cost = key;
        best_side = side;
      }
    }
    A.clear();
    B.clear();
    for (int v = 0; v < m; ++v) (best_side[static_cast<std::size_t>(v)] == 0 ? A : B).push_back(S[static_cast<std::size_t>(v)]);
  }
};

}  // namespace

SsaPath bisection_path(const Network& net, Rng& rng) {
  const int n = net.num_terms();
  if (n <= 1) return {};
  Bisector b(net, rng);
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  b.build(all);
  return std::move(b.ssa);
}

}  // namespace tenferro::detail
