#pragma once
/// \file
/// Linear solvers: `solve`, `triangular_solve`, `lu_solve`, `inv`, `lstsq`,
/// `pinv`.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/linalg.hpp>
/// using namespace tenferro;
/// CpuBackend cpu;
/// auto a = TypedTensor<double>::from_vec_col_major({2, 2}, {2, 1, 1, 3});
/// auto b = TypedTensor<double>::from_vec_col_major({2}, {3, 5});
/// auto x = linalg::solve(a, b, cpu);                  // {0.8, 1.4}
/// auto [sol, res, rank, sv] = linalg::lstsq(a, b, cpu);
/// ```
/// Right-hand sides are [n, r, batch...] matrices with the batch axes of
/// `a`, or a vector [n] when `a` is a single matrix [n, n]; the solution
/// has the shape of `b`. A row-major `a` is passed to LAPACK as its
/// transpose (TRANS = 'T') without a copy where the routine does not
/// overwrite it (`triangular_solve`) and with a plain copy otherwise.
/// Exactly singular matrices throw `LinalgError` naming the batch element.

#include <cstdint>

#include "tenferro/linalg/family.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/tensor/typed_tensor.hpp"

namespace tenferro::linalg {

/// Solution of a least-squares problem min ||a x - b||_2 (minimum norm when
/// rank-deficient).
template <class Mat, class Real, class Index>
struct BasicLstsqResult {
  Mat solution;          ///< [n, r, batch...] (or [n])
  Real residuals;        ///< ||b - a x||^2 per column, [r, batch...] ([1] for vector b) when
                         ///< m > n; [0, batch...] otherwise
  Index rank;            ///< effective rank of a, i64 [batch...]
  Real singular_values;  ///< [k, batch...], descending
};
using LstsqResult = BasicLstsqResult<Tensor, Tensor, Tensor>;
template <class T>
using TypedLstsqResult =
    BasicLstsqResult<TypedTensor<T>, TypedTensor<real_t<T>>, TypedTensor<std::int64_t>>;

// Options (TriangularSolveOptions, Transpose, LstsqOptions, RankTolerance) are
// the ops' attribute types: tenferro/linalg/attrs.hpp.

/// x with a x = b, by LU with partial pivoting (getrf + getrs).
/// ```cpp
/// Tensor x = linalg::solve(a, b, cpu);   // a [n, n, batch...], b [n, r, batch...] or [n]
/// ```
Tensor solve(const Tensor& a, const Tensor& b, Backend& backend);
/// Triangular solve (BLAS trsm) with one triangle of `a`. An exactly zero
/// diagonal element (when not `unit_diagonal`) throws LinalgError.
/// ```cpp
/// Tensor x = linalg::triangular_solve(l, b, cpu);                                  // l x = b
/// Tensor y = linalg::triangular_solve(u, c, cpu, {.lower = false, .left = false});  // y u = c
/// ```
Tensor triangular_solve(const Tensor& a, const Tensor& b, Backend& backend,
                        TriangularSolveOptions options = {});
/// Solves with the factors of `lu_factor` (getrs). Pivots are validated
/// (0 <= i <= pivots[i] < n) before use.
/// ```cpp
/// auto [lu, piv] = linalg::lu_factor(a, cpu);
/// Tensor x = linalg::lu_solve(lu, piv, b, cpu);
/// Tensor y = linalg::lu_solve(lu, piv, b, cpu, linalg::Transpose::adjoint);   // a^H y = b
/// ```
Tensor lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, Backend& backend,
                Transpose trans = Transpose::none);
/// Inverse of a square matrix (getrf + getri).
/// ```cpp
/// Tensor ainv = linalg::inv(a, cpu);
/// ```
Tensor inv(const Tensor& a, Backend& backend);
/// Least squares through the SVD (gelsd): minimum-norm solution, residual
/// sums of squares, effective rank and singular values of `a`.
/// ```cpp
/// auto [x, residuals, rank, s] = linalg::lstsq(a, b, cpu, {.rcond = 1e-12});
/// ```
LstsqResult lstsq(const Tensor& a, const Tensor& b, Backend& backend, LstsqOptions options = {});
/// Moore-Penrose pseudo-inverse [n, m] from the SVD, dropping singular
/// values s_i <= max(atol, rtol * s_0).
/// ```cpp
/// Tensor p = linalg::pinv(a, cpu, {.rtol = 1e-10});
/// ```
Tensor pinv(const Tensor& a, Backend& backend, RankTolerance tolerance = {});

// ---- typed overloads --------------------------------------------------------------------------

template <class T>
TypedTensor<T> solve(const TypedTensor<T>& a, const TypedTensor<T>& b, Backend& backend) {
  return TypedTensor<T>(linalg::solve(static_cast<const Tensor&>(a), b, backend));
}
template <class T>
TypedTensor<T> triangular_solve(const TypedTensor<T>& a, const TypedTensor<T>& b, Backend& backend,
                                TriangularSolveOptions options = {}) {
  return TypedTensor<T>(
      linalg::triangular_solve(static_cast<const Tensor&>(a), b, backend, options));
}
template <class T>
TypedTensor<T> lu_solve(const TypedTensor<T>& lu, const TypedTensor<std::int64_t>& pivots,
                        const TypedTensor<T>& b, Backend& backend,
                        Transpose trans = Transpose::none) {
  return TypedTensor<T>(
      linalg::lu_solve(static_cast<const Tensor&>(lu), pivots, b, backend, trans));
}
template <class T>
TypedTensor<T> inv(const TypedTensor<T>& a, Backend& backend) {
  return TypedTensor<T>(linalg::inv(static_cast<const Tensor&>(a), backend));
}
template <class T>
TypedLstsqResult<T> lstsq(const TypedTensor<T>& a, const TypedTensor<T>& b, Backend& backend,
                          LstsqOptions options = {}) {
  auto r = linalg::lstsq(static_cast<const Tensor&>(a), b, backend, options);
  return {TypedTensor<T>(r.solution), TypedTensor<real_t<T>>(r.residuals),
          TypedTensor<std::int64_t>(r.rank), TypedTensor<real_t<T>>(r.singular_values)};
}
template <class T>
TypedTensor<T> pinv(const TypedTensor<T>& a, Backend& backend, RankTolerance tolerance = {}) {
  return TypedTensor<T>(linalg::pinv(static_cast<const Tensor&>(a), backend, tolerance));
}

}  // namespace tenferro::linalg
