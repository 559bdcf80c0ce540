#pragma once
// Test helpers: random COO triples and an independent reference for the
// sparse ops (loops over every output entry with nothing shared with the
// family's kernels: no transposes, no scatter).
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include <tenferro/cpu.hpp>
#include <tenferro/tensor.hpp>
#include <sparse/sparse.hpp>

namespace sparse_test {

using namespace tenferro;

template <class T>
struct is_complex_t : std::false_type {};
template <class T>
struct is_complex_t<std::complex<T>> : std::true_type {};

// Entries uniform in [-1, 1) (real and imaginary parts).
template <class T>
Tensor random_tensor(const Shape& shape, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) {
    if constexpr (is_complex_t<T>::value) {
      const double re = u(gen), im = u(gen);
      x = T(static_cast<typename T::value_type>(re), static_cast<typename T::value_type>(im));
    } else {
      x = static_cast<T>(u(gen));
    }
  }
  return Tensor::from_vec_col_major<T>(shape, v);
}

// A random COO pattern of nnz coordinates in [0, m) x [0, k), unsorted, with
// some coordinates repeated (when nnz > 3).
struct Coo {
  Tensor rows, cols;
};
template <class I>
Coo random_coo(std::int64_t nnz, std::int64_t m, std::int64_t k, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<I> r(static_cast<std::size_t>(nnz)), c(static_cast<std::size_t>(nnz));
  for (std::int64_t p = 0; p < nnz; ++p) {
    r[static_cast<std::size_t>(p)] = static_cast<I>(std::uniform_int_distribution<std::int64_t>(0, m - 1)(gen));
    c[static_cast<std::size_t>(p)] = static_cast<I>(std::uniform_int_distribution<std::int64_t>(0, k - 1)(gen));
  }
  if (nnz > 3) {   // duplicates: position 3 repeats position 0
    r[3] = r[0];
    c[3] = c[0];
  }
  return {Tensor::from_vec_col_major<I>({nnz}, r), Tensor::from_vec_col_major<I>({nnz}, c)};
}

inline std::vector<std::int64_t> indices(const Tensor& t) {
  std::vector<std::int64_t> out;
  visit_dtype<kIntegerDTypes>(t.dtype(), "indices", [&]<class I>() {
    for (I x : t.to_vec_col_major<I>()) out.push_back(static_cast<std::int64_t>(x));
  });
  return out;
}

// out[i, j] = sum over p with rows[p] = i of values[p] * dense[cols[p], j], entry by entry.
template <class T>
Tensor reference_coo(const Tensor& values, const Tensor& rows, const Tensor& cols, const Tensor& dense,
                     std::int64_t m) {
  const auto v = values.to_vec_col_major<T>(), d = dense.to_vec_col_major<T>();
  const auto r = indices(rows), c = indices(cols);
  const std::int64_t k = dense.shape()[0];
  Shape shape = dense.shape();
  shape[0] = m;
  std::int64_t total = 1;
  for (auto e : shape) total *= e;
  const std::int64_t cols_out = m == 0 ? 0 : total / m;
  std::vector<T> out(static_cast<std::size_t>(total), T(0));
  for (std::int64_t j = 0; j < cols_out; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      T s(0);
      for (std::size_t p = 0; p < v.size(); ++p)
        if (r[p] == i) s += v[p] * d[static_cast<std::size_t>(c[p] + k * j)];
      out[static_cast<std::size_t>(i + m * j)] = s;
    }
  return Tensor::from_vec_col_major<T>(shape, out);
}

// out[p] = sum_j a[rows[p], j] * b[cols[p], j].
template <class T>
Tensor reference_sddmm(const Tensor& a, const Tensor& b, const Tensor& rows, const Tensor& cols) {
  const auto av = a.to_vec_col_major<T>(), bv = b.to_vec_col_major<T>();
  const auto r = indices(rows), c = indices(cols);
  const std::int64_t m = a.shape()[0], k = b.shape()[0], n = m == 0 ? 1 : a.numel() / m;
  std::vector<T> out(r.size(), T(0));
  for (std::size_t p = 0; p < r.size(); ++p)
    for (std::int64_t j = 0; j < n; ++j)
      out[p] += av[static_cast<std::size_t>(r[p] + m * j)] * bv[static_cast<std::size_t>(c[p] + k * j)];
  return Tensor::from_vec_col_major<T>({static_cast<std::int64_t>(r.size())}, out);
}

// Largest |x - y| over all entries (shapes and dtypes must agree).
inline double max_diff(const Tensor& x, const Tensor& y) {
  if (x.shape() != y.shape() || x.dtype() != y.dtype()) return std::numeric_limits<double>::infinity();
  double m = 0;
  visit_dtype<kFloatDTypes>(x.dtype(), "max_diff", [&]<class T>() {
    const auto a = x.to_vec_col_major<T>(), b = y.to_vec_col_major<T>();
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, static_cast<double>(std::abs(a[i] - b[i])));
  });
  return m;
}

// Re sum(conj(x) * y) of two equally shaped tensors.
inline double real_inner(const Tensor& x, const Tensor& y) {
  double s = 0;
  visit_dtype<kFloatDTypes>(x.dtype(), "real_inner", [&]<class T>() {
    const auto a = x.to_vec_col_major<T>(), b = y.to_vec_col_major<T>();
    for (std::size_t i = 0; i < a.size(); ++i) {
      if constexpr (is_complex_t<T>::value) s += static_cast<double>(std::real(std::conj(a[i]) * b[i]));
      else s += static_cast<double>(a[i] * b[i]);
    }
  });
  return s;
}

}  // namespace sparse_test
