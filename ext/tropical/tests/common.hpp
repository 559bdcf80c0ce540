#pragma once
// Test helpers: random tensors and an independent reference for the
// tropical dot_general (odometer loops over the index space with
// Tensor::at, sharing nothing with the library's kernels).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include <tenferro/cpu.hpp>
#include <tenferro/tensor.hpp>
#include <tropical/tropical.hpp>

namespace tropical_test {

using namespace tenferro;

// Entries drawn uniformly: integers in [-50, 50], floats in [-10, 10).
template <class T>
Tensor random_tensor(const Shape& shape, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) {
    if constexpr (std::is_integral_v<T>) x = static_cast<T>(std::uniform_int_distribution<int>(-50, 50)(gen));
    else x = static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(gen));
  }
  return Tensor::from_vec_col_major<T>(shape, v);
}

// Steps `idx` through the box `ext` (first index fastest); false at the end.
inline bool next_index(std::vector<std::int64_t>& idx, const std::vector<std::int64_t>& ext) {
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (++idx[i] < ext[i]) return true;
    idx[i] = 0;
  }
  return false;
}

inline bool contains(const DimVec& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Reference tropical dot_general with StableHLO dimension numbers.
template <class T>
Tensor reference_dot(const Tensor& a, const Tensor& b, const tropical::DotAttrs& attrs) {
  const auto& d = attrs.dims;
  DimVec af, bf;
  for (std::int64_t i = 0; i < a.ndim(); ++i)
    if (!contains(d.lhs_batching_dimensions, i) && !contains(d.lhs_contracting_dimensions, i)) af.push_back(i);
  for (std::int64_t i = 0; i < b.ndim(); ++i)
    if (!contains(d.rhs_batching_dimensions, i) && !contains(d.rhs_contracting_dimensions, i)) bf.push_back(i);
  Shape out_shape;
  for (auto x : d.lhs_batching_dimensions) out_shape.push_back(a.shape()[static_cast<std::size_t>(x)]);
  for (auto x : af) out_shape.push_back(a.shape()[static_cast<std::size_t>(x)]);
  for (auto x : bf) out_shape.push_back(b.shape()[static_cast<std::size_t>(x)]);
  Tensor c = Tensor::zeros(out_shape, a.dtype());
  std::vector<std::int64_t> kext;
  for (auto x : d.lhs_contracting_dimensions) kext.push_back(a.shape()[static_cast<std::size_t>(x)]);
  const bool max = attrs.semiring == tropical::Semiring::max_plus;
  std::vector<std::int64_t> oext(out_shape.begin(), out_shape.end()), o(oext.size(), 0);
  bool empty_out = false;
  for (auto e : oext) empty_out = empty_out || e == 0;
  if (empty_out) return c;
  do {
    DimVec ai(static_cast<std::size_t>(a.ndim()), 0), bi(static_cast<std::size_t>(b.ndim()), 0);
    std::size_t pos = 0;
    for (std::size_t q = 0; q < d.lhs_batching_dimensions.size(); ++q, ++pos) {
      ai[static_cast<std::size_t>(d.lhs_batching_dimensions[q])] = o[pos];
      bi[static_cast<std::size_t>(d.rhs_batching_dimensions[q])] = o[pos];
    }
    for (auto x : af) ai[static_cast<std::size_t>(x)] = o[pos++];
    for (auto x : bf) bi[static_cast<std::size_t>(x)] = o[pos++];
    T best;
    if constexpr (std::is_floating_point_v<T>)
      best = max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    else
      best = max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    bool any_k = true;
    for (auto e : kext) any_k = any_k && e > 0;
    std::vector<std::int64_t> k(kext.size(), 0);
    if (any_k) do {
        for (std::size_t q = 0; q < kext.size(); ++q) {
          ai[static_cast<std::size_t>(d.lhs_contracting_dimensions[q])] = k[q];
          bi[static_cast<std::size_t>(d.rhs_contracting_dimensions[q])] = k[q];
        }
        const T s = static_cast<T>(a.at<T>(ai) + b.at<T>(bi));
        best = max ? std::max(best, s) : std::min(best, s);
      } while (next_index(k, kext));
    c.set<T>(DimVec(o.begin(), o.end()), best);
  } while (next_index(o, oext));
  return c;
}

// Largest |x - y| over all entries (equal shapes required); inf entries must match.
inline double max_diff(const Tensor& x, const Tensor& y) {
  if (x.shape() != y.shape()) return std::numeric_limits<double>::infinity();
  std::vector<double> a, b;
  visit_dtype<kRealDTypes>(x.dtype(), "max_diff", [&]<class T>() {
    for (T v : x.to_vec_col_major<T>()) a.push_back(static_cast<double>(v));
    for (T v : y.to_vec_col_major<T>()) b.push_back(static_cast<double>(v));
  });
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isinf(a[i]) || std::isinf(b[i])) {
      if (a[i] != b[i]) return std::numeric_limits<double>::infinity();
      continue;
    }
    m = std::max(m, std::abs(a[i] - b[i]));
  }
  return m;
}

}  // namespace tropical_test
