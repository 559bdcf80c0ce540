// Exact path search by dynamic programming over subsets of the terms.
//
// Labels that sit in exactly the same terms and are equally needed beyond
// them behave as one label whose extent is their product, so they are fused
// first; every subset's legs are then a bit set over the fused labels.
// Subsets are visited in increasing order (a subset's proper subsets are
// smaller numbers), each split once (the half with the lowest term), and a
// split is skipped as soon as its two halves alone cost more than the best
// split found so far (step costs are never negative).
#include <bit>
#include <limits>
#include <map>
#include <unordered_map>

#include "network.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro::detail {

DpResult optimal_order(const std::vector<std::vector<int>>& terms, const std::vector<char>& keep,
                       const std::vector<double>& size, double cap, double traffic_weight) {
  const int k = static_cast<int>(terms.size());
  TF_INTERNAL_ASSERT(k >= 1 && k <= kMaxOptimalTerms, "optimal_order: ", k, " terms");
  DpResult res;
  if (k == 1) {
    res.feasible = true;
    return res;
  }
  // Fuse labels by (terms containing them, needed beyond).
  std::unordered_map<int, std::uint32_t> mask_of;
  for (int t = 0; t < k; ++t)
    for (int l : terms[static_cast<std::size_t>(t)]) mask_of[l] |= 1u << t;
  std::map<std::pair<std::uint32_t, char>, int> class_of;
  std::vector<std::uint32_t> lmask;
  std::vector<char> lkeep;
  std::vector<double> lsz;
  for (const auto& [l, m] : mask_of) {
    char kp = keep[static_cast<std::size_t>(l)];
    auto [it, inserted] = class_of.emplace(std::make_pair(m, kp), static_cast<int>(lmask.size()));
    if (inserted) {
      lmask.push_back(m);
      lkeep.push_back(kp);
      lsz.push_back(1);
    }
    lsz[static_cast<std::size_t>(it->second)] *= size[static_cast<std::size_t>(l)];
  }
  const int L = static_cast<int>(lmask.size());
  const int W = std::max(1, (L + 63) / 64);
  const std::uint32_t full = (k == 32) ? ~0u : ((1u << k) - 1);
  const std::size_t N = static_cast<std::size_t>(full) + 1;
  std::vector<std::uint64_t> bits(N * static_cast<std::size_t>(W), 0);
  std::vector<double> ssize(N, 1);
  for (std::uint32_t S = 1; S <= full; ++S) {
    const bool single = std::popcount(S) == 1;
    std::uint64_t* b = &bits[S * static_cast<std::size_t>(W)];
    double p = 1;
    for (int l = 0; l < L; ++l) {
      std::uint32_t m = lmask[static_cast<std::size_t>(l)];
      if (!(m & S)) continue;
      if (single || (m & ~S) || lkeep[static_cast<std::size_t>(l)]) {
        b[l / 64] |= std::uint64_t{1} << (l % 64);
        p *= lsz[static_cast<std::size_t>(l)];
      }
    }
    ssize[S] = p;
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> cost(N, kInf), big(N, kInf);
  std::vector<std::uint32_t> split(N, 0);
  for (int t = 0; t < k; ++t) {
    cost[std::size_t{1} << t] = 0;
    big[std::size_t{1} << t] = 0;
  }
  for (std::uint32_t S = 1; S <= full; ++S) {
    if (std::popcount(S) < 2) continue;
    if (S != full && cap > 0 && ssize[S] > cap) continue;
    const std::uint32_t low = S & (~S + 1);
    const std::uint32_t rest = S ^ low;
    const std::uint64_t* bs = &bits[S * static_cast<std::size_t>(W)];
    double best = kInf, best_big = kInf;
    std::uint32_t best_t = 0;
    for (std::uint32_t sub = rest;; sub = (sub - 1) & rest) {
      const std::uint32_t T = sub | low;
      if (T != S) {
        const std::uint32_t U = S ^ T;
        const double base = cost[T] + cost[U];
        if (base <= best) {
          const std::uint64_t* bt = &bits[T * static_cast<std::size_t>(W)];
          const std::uint64_t* bu = &bits[U * static_cast<std::size_t>(W)];
          double prod = 1;
          bool inner = false;
          for (int w = 0; w < W; ++w) {
            std::uint64_t x = bt[w] | bu[w];
            inner = inner || x != bs[w];
            while (x) {
              prod *= lsz[static_cast<std::size_t>(w * 64 + std::countr_zero(x))];
              x &= x - 1;
            }
          }
          const double f = base + step_cost(inner ? 2 * prod : prod, ssize[T], ssize[U], ssize[S], traffic_weight);
          const double b = std::max({big[T], big[U], S == full ? 0.0 : ssize[S]});
          if (f < best || (f == best && b < best_big)) {
            best = f;
            best_big = b;
            best_t = T;
          }
        }
      }
      if (sub == 0) break;
    }
    cost[S] = best;
    big[S] = best_big;
    split[S] = best_t;
  }
  if (cost[full] == kInf) return res;
  res.feasible = true;
  res.cost = cost[full];
  res.largest = big[full];
  auto build = [&](auto&& self, std::uint32_t S) -> int {
    if (std::popcount(S) == 1) return std::countr_zero(S);
    int a = self(self, split[S]);
    int b = self(self, S ^ split[S]);
    res.ssa.emplace_back(a, b);
    return k + static_cast<int>(res.ssa.size()) - 1;
  };
  build(build, full);
  return res;
}

}  // namespace tenferro::detail
