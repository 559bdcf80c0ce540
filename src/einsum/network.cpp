// The path-search network, path formats and the cost model.
#include "network.hpp"

#include <algorithm>

#include "tenferro/tensor/error.hpp"

namespace tenferro::detail {

Network make_network(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                     const std::vector<std::int64_t>& sizes, const DimVec& sliced, PathObjective objective) {
  Network net;
  net.traffic_weight = traffic_weight_of(objective);
  const std::size_t nl = sizes.size();
  net.size.resize(nl);
  for (std::size_t l = 0; l < nl; ++l) net.size[l] = static_cast<double>(sizes[l]);
  for (auto l : sliced) net.size[static_cast<std::size_t>(l)] = 1;
  net.total.assign(nl, 0);
  net.output.assign(nl, 0);
  for (auto l : spec.output) net.output[static_cast<std::size_t>(l)] = 1;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    std::vector<int> t;
    const DimVec& labels = spec.inputs[k];
    for (std::size_t i = 0; i < labels.size(); ++i) {
      std::size_t l = static_cast<std::size_t>(labels[i]);
      if (shapes[k][i] == 1 && sizes[l] != 1) continue;  // broadcast axis
      t.push_back(static_cast<int>(l));
    }
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    for (int l : t) ++net.total[static_cast<std::size_t>(l)];
    net.terms.push_back(std::move(t));
  }
  return net;
}

SsaPath ssa_from_linear(const std::vector<std::pair<int, int>>& pairs, int n) {
  TF_CHECK(static_cast<int>(pairs.size()) == std::max(n - 1, 0), ValueError, "einsum_path",
           "the path has ", pairs.size(), " steps but ", n, " operands need ", std::max(n - 1, 0));
  std::vector<int> ids(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i;
  SsaPath ssa;
  int next = n;
  for (std::size_t s = 0; s < pairs.size(); ++s) {
    auto [i, j] = pairs[s];
    int m = static_cast<int>(ids.size());
    TF_CHECK(i >= 0 && j >= 0 && i < m && j < m && i != j, ValueError, "einsum_path", "step ", s,
             " (", i, ", ", j, ") must name two different positions in [0, ", m,
             ") of the operand list");
    int a = ids[static_cast<std::size_t>(i)], b = ids[static_cast<std::size_t>(j)];
    ids.erase(ids.begin() + std::max(i, j));
    ids.erase(ids.begin() + std::min(i, j));
    ids.push_back(next++);
    ssa.emplace_back(a, b);
  }
  return ssa;
}

std::vector<std::pair<int, int>> linear_from_ssa(const SsaPath& ssa, int n) {
  std::vector<int> ids(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i;
  std::vector<std::pair<int, int>> out;
  int next = n;
  for (auto [a, b] : ssa) {
    auto pa = std::find(ids.begin(), ids.end(), a) - ids.begin();
    auto pb = std::find(ids.begin(), ids.end(), b) - ids.begin();
    TF_INTERNAL_ASSERT(pa < static_cast<std::ptrdiff_t>(ids.size()) &&
                       pb < static_cast<std::ptrdiff_t>(ids.size()) && pa != pb);
    out.emplace_back(static_cast<int>(std::min(pa, pb)), static_cast<int>(std::max(pa, pb)));
    ids.erase(ids.begin() + std::max(pa, pb));
    ids.erase(ids.begin() + std::min(pa, pb));
    ids.push_back(next++);
  }
  return out;
}

Legs leaf_legs(const Network& net, int term) {
  Legs legs;
  for (int l : net.terms[static_cast<std::size_t>(term)]) legs.push_back({l, 1});
  return legs;
}

double legs_size(const Network& net, const Legs& legs) {
  double s = 1;
  for (const Leg& g : legs) s *= net.size[static_cast<std::size_t>(g.label)];
  return s;
}

double contract_legs(const Network& net, const Legs& a, const Legs& b, Legs& out, double& size) {
  out.clear();
  double all = 1, kept = 1;
  bool summed = false;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    Leg g;
    if (j == b.size() || (i < a.size() && a[i].label < b[j].label)) {
      g = a[i++];
    } else if (i == a.size() || b[j].label < a[i].label) {
      g = b[j++];
    } else {
      g = {a[i].label, a[i].count + b[j].count};
      ++i;
      ++j;
    }
    const std::size_t l = static_cast<std::size_t>(g.label);
    all *= net.size[l];
    if (g.count == net.total[l] && !net.output[l]) {
      summed = true;
    } else {
      out.push_back(g);
      kept *= net.size[l];
    }
  }
  size = kept;
  return summed ? 2 * all : all;
}

ContractionCost path_cost(const Network& net, const SsaPath& ssa, double* largest_inner) {
  const int n = net.num_terms();
  std::vector<Legs> legs(static_cast<std::size_t>(n) + ssa.size());
  for (int t = 0; t < n; ++t) legs[static_cast<std::size_t>(t)] = leaf_legs(net, t);
  ContractionCost c;
  double inner = 0;
  for (std::size_t s = 0; s < ssa.size(); ++s) {
    double size = 0;
    const Legs& a = legs[static_cast<std::size_t>(ssa[s].first)];
    const Legs& b = legs[static_cast<std::size_t>(ssa[s].second)];
    c.flops += contract_legs(net, a, b, legs[static_cast<std::size_t>(n) + s], size);
    c.traffic += legs_size(net, a) + legs_size(net, b) + size;
    c.largest_intermediate = std::max(c.largest_intermediate, size);
    c.total_intermediate += size;
    if (s + 1 < ssa.size()) inner = std::max(inner, size);
  }
  if (largest_inner) *largest_inner = inner;
  return c;
}

}  // namespace tenferro::detail
