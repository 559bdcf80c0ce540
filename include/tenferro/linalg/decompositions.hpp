#pragma once
/// \file
/// Matrix decompositions: SVD (full, values only, truncated), QR, LU,
/// Cholesky, Hermitian and general eigendecompositions.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/linalg.hpp>
/// using namespace tenferro;
/// CpuBackend cpu;
/// auto a = TypedTensor<double>::from_vec_col_major({2, 2}, {3, 0, 0, 1});
/// auto [u, s, vh] = linalg::svd(a, cpu);        // s = {3, 1}
/// auto [q, r] = linalg::qr(a, cpu);             // a = q r
/// auto [w, v] = linalg::eigh(a, cpu);           // w = {1, 3}, ascending
/// ```
/// Every function takes a `Tensor` (results are `Tensor`s) or a
/// `TypedTensor<T>` (results are typed: real parts as `TypedTensor<real_t<T>>`,
/// indices as `TypedTensor<std::int64_t>`). Matrices are axes (0, 1) and
/// trailing axes are batch axes: an [m, n, b1, b2] operand is b1 * b2
/// independent matrices, and every output carries the same batch axes.
/// Inputs may have any strides; outputs are fresh column-major tensors.
/// See tenferro/linalg/family.hpp for the op table and shared conventions.
///
/// On the CPU, matrices up to 32 x 32 go through built-in unblocked kernels
/// that follow LAPACK's conventions (Householder QR and LU, tridiagonal QL
/// for `eigh`, Golub-Kahan SVD); larger ones through LAPACK (docs/linalg.md).
///
/// Sign and phase conventions (Note [Linalg gauges]): singular vectors and
/// eigenvectors are those the kernels return, defined up to a sign (real) or a
/// phase (complex) per vector, or a unitary mixing within a degenerate
/// subspace. `eig` vectors have unit 2-norm and their largest component
/// real (LAPACK's normalisation). Test invariants (reconstruction,
/// orthogonality), not the vectors themselves.

#include <cstdint>

#include "tenferro/linalg/family.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/tensor/typed_tensor.hpp"

namespace tenferro::linalg {

// ---- result types ----------------------------------------------------------------
// Templates over the handle types so that the typed overloads return typed
// tensors; the `Tensor` versions are the aliases without "Typed".

/// a = u diag(s) vh.
template <class Mat, class Real>
struct BasicSvdResult {
  Mat u;
  Real s;
  Mat vh;
};
using SvdResult = BasicSvdResult<Tensor, Tensor>;
template <class T>
using TypedSvdResult = BasicSvdResult<TypedTensor<T>, TypedTensor<real_t<T>>>;

/// a = q r.
template <class Mat>
struct BasicQrResult {
  Mat q;
  Mat r;
};
using QrResult = BasicQrResult<Tensor>;
template <class T>
using TypedQrResult = BasicQrResult<TypedTensor<T>>;

/// p a = l u, with (p a)[i, :] = a[perm[i], :].
template <class Mat, class Index>
struct BasicLuResult {
  Index perm;  ///< i64 [m, batch...]: row i of l u is row perm[i] of a
  Mat l;       ///< [m, k], unit lower trapezoidal
  Mat u;       ///< [k, n], upper trapezoidal
  Mat p;       ///< [m, m] permutation matrix, or [0, 0] when not requested
};
using LuResult = BasicLuResult<Tensor, Tensor>;
template <class T>
using TypedLuResult = BasicLuResult<TypedTensor<T>, TypedTensor<std::int64_t>>;

/// LAPACK's packed LU factors and 0-based row interchanges: for i = 0..k-1,
/// row i was swapped with row pivots[i] (>= i).
template <class Mat, class Index>
struct BasicLuFactorResult {
  Mat lu;
  Index pivots;
};
using LuFactorResult = BasicLuFactorResult<Tensor, Tensor>;
template <class T>
using TypedLuFactorResult = BasicLuFactorResult<TypedTensor<T>, TypedTensor<std::int64_t>>;

/// a v = v diag(eigenvalues).
template <class Vals, class Vecs>
struct BasicEigResult {
  Vals eigenvalues;
  Vecs eigenvectors;
};
using EighResult = BasicEigResult<Tensor, Tensor>;
using EigResult = BasicEigResult<Tensor, Tensor>;
template <class T>
using TypedEighResult = BasicEigResult<TypedTensor<real_t<T>>, TypedTensor<T>>;
template <class T>
using TypedEigResult =
    BasicEigResult<TypedTensor<std::complex<real_t<T>>>, TypedTensor<std::complex<real_t<T>>>>;

// Options (SvdOptions, SvdTruncatedOptions, QrMode, LuOptions, TriangleOptions)
// are the ops' attribute types: tenferro/linalg/attrs.hpp.

// ---- SVD -------------------------------------------------------------------------------

/// Singular value decomposition a = u diag(s) vh, s real and descending
/// (LAPACK gesdd, falling back to gesvd for a matrix where gesdd does not
/// converge).
/// ```cpp
/// auto [u, s, vh] = linalg::svd(a, cpu);                          // reduced
/// auto full = linalg::svd(a, cpu, {.full_matrices = true});       // u [m, m], vh [n, n]
/// ```
SvdResult svd(const Tensor& a, Backend& backend, SvdOptions options = {});
/// The singular values only (descending), real [k, batch...].
/// ```cpp
/// Tensor s = linalg::svdvals(a, cpu);
/// ```
Tensor svdvals(const Tensor& a, Backend& backend);
/// Truncated SVD: the leading r singular triplets with s_i > rtol * s_0,
/// r <= max_rank. r depends on the data (inference reports kDynamicDim).
/// For a batch, r is the largest count over the batch, and entries of s
/// past a matrix's own count are set to 0 (their vectors are kept, so u
/// and vh stay orthonormal and u diag(s) vh is that matrix's truncation).
/// ```cpp
/// auto [u, s, vh] = linalg::svd_truncated(a, cpu, {.max_rank = 16, .rtol = 1e-10});
/// ```
SvdResult svd_truncated(const Tensor& a, Backend& backend, SvdTruncatedOptions options = {});

// ---- QR, LU, Cholesky --------------------------------------------------------------------

/// Householder QR a = q r (geqrf + orgqr/ungqr); q has orthonormal columns,
/// r is upper trapezoidal (its diagonal is not normalised to be positive).
/// ```cpp
/// auto [q, r] = linalg::qr(a, cpu, linalg::QrMode::complete);   // q [m, m]
/// ```
QrResult qr(const Tensor& a, Backend& backend, QrMode mode = QrMode::reduced);
/// LU with partial pivoting (getrf): p a = l u. An exactly singular matrix
/// is factorised without error (u then has a zero on its diagonal).
/// ```cpp
/// auto [perm, l, u, p] = linalg::lu(a, cpu);   // matmul(p, a) == matmul(l, u)
/// ```
LuResult lu(const Tensor& a, Backend& backend, LuOptions options = {});
/// LAPACK-style packed factors for `lu_solve`.
/// ```cpp
/// auto [lu, piv] = linalg::lu_factor(a, cpu);
/// Tensor x = linalg::lu_solve(lu, piv, b, cpu);
/// ```
LuFactorResult lu_factor(const Tensor& a, Backend& backend);
/// The unitary (orthogonal) matrix of k Householder reflectors, LAPACK's
/// orgqr/ungqr: q = (H_0 H_1 ... H_{k-1})[:, :n] with H_i = I - tau_i v_i v_i^H
/// and v_i = (0, ..., 0, 1, a[i+1:, i]) (column i of a below the diagonal).
/// a is [m, n, batch...] with m >= n, tau [k, batch...] with k <= n (its
/// first extent a constant); q is [m, n, batch...]. Written with matrix
/// products, so it is differentiable in a and tau (the handle overloads,
/// tenferro/linalg/traced.hpp).
/// ```cpp
/// // reflectors [m, n] and tau [k] as LAPACK's geqrf returns them
/// Tensor q = linalg::householder_product(reflectors, tau, cpu);   // [m, n]
/// ```
Tensor householder_product(const Tensor& a, const Tensor& tau, Backend& backend);
/// Cholesky factor of a Hermitian positive definite matrix: a = l l^H
/// (lower, the default) or a = u^H u; only that triangle of `a` is read and
/// the other triangle of the result is zero. LinalgError (with the order of
/// the failing leading minor as info) when `a` is not positive definite.
/// ```cpp
/// Tensor l = linalg::cholesky(spd, cpu);
/// Tensor u = linalg::cholesky(spd, cpu, {.lower = false});
/// ```
Tensor cholesky(const Tensor& a, Backend& backend, TriangleOptions options = {});

// ---- eigenproblems --------------------------------------------------------------------------

/// Eigendecomposition of a Hermitian matrix (syevd/heevd) read from one
/// triangle: real eigenvalues ascending, orthonormal eigenvectors as columns.
/// ```cpp
/// auto [w, v] = linalg::eigh(h, cpu);
/// ```
EighResult eigh(const Tensor& a, Backend& backend, TriangleOptions options = {});
/// Eigendecomposition of a general square matrix (geev): complex
/// eigenvalues (in LAPACK's order; conjugate pairs of a real matrix are
/// adjacent, positive imaginary part first) and right eigenvectors with
/// unit 2-norm and largest component real.
/// ```cpp
/// auto [w, v] = linalg::eig(a, cpu);   // complex even for real a
/// ```
EigResult eig(const Tensor& a, Backend& backend);
/// The eigenvalues of `eig` only.
/// ```cpp
/// Tensor w = linalg::eigvals(a, cpu);
/// ```
Tensor eigvals(const Tensor& a, Backend& backend);

// ---- typed overloads --------------------------------------------------------------------------

template <class T>
TypedSvdResult<T> svd(const TypedTensor<T>& a, Backend& backend, SvdOptions options = {}) {
  auto r = linalg::svd(static_cast<const Tensor&>(a), backend, options);
  return {TypedTensor<T>(r.u), TypedTensor<real_t<T>>(r.s), TypedTensor<T>(r.vh)};
}
template <class T>
TypedTensor<real_t<T>> svdvals(const TypedTensor<T>& a, Backend& backend) {
  return TypedTensor<real_t<T>>(linalg::svdvals(static_cast<const Tensor&>(a), backend));
}
template <class T>
TypedSvdResult<T> svd_truncated(const TypedTensor<T>& a, Backend& backend,
                                SvdTruncatedOptions options = {}) {
  auto r = linalg::svd_truncated(static_cast<const Tensor&>(a), backend, options);
  return {TypedTensor<T>(r.u), TypedTensor<real_t<T>>(r.s), TypedTensor<T>(r.vh)};
}
template <class T>
TypedQrResult<T> qr(const TypedTensor<T>& a, Backend& backend, QrMode mode = QrMode::reduced) {
  auto r = linalg::qr(static_cast<const Tensor&>(a), backend, mode);
  return {TypedTensor<T>(r.q), TypedTensor<T>(r.r)};
}
template <class T>
TypedLuResult<T> lu(const TypedTensor<T>& a, Backend& backend, LuOptions options = {}) {
  auto r = linalg::lu(static_cast<const Tensor&>(a), backend, options);
  return {TypedTensor<std::int64_t>(r.perm), TypedTensor<T>(r.l), TypedTensor<T>(r.u),
          TypedTensor<T>(r.p)};
}
template <class T>
TypedLuFactorResult<T> lu_factor(const TypedTensor<T>& a, Backend& backend) {
  auto r = linalg::lu_factor(static_cast<const Tensor&>(a), backend);
  return {TypedTensor<T>(r.lu), TypedTensor<std::int64_t>(r.pivots)};
}
template <class T>
TypedTensor<T> householder_product(const TypedTensor<T>& a, const TypedTensor<T>& tau,
                                   Backend& backend) {
  return TypedTensor<T>(linalg::householder_product(static_cast<const Tensor&>(a), tau, backend));
}
template <class T>
TypedTensor<T> cholesky(const TypedTensor<T>& a, Backend& backend, TriangleOptions options = {}) {
  return TypedTensor<T>(linalg::cholesky(static_cast<const Tensor&>(a), backend, options));
}
template <class T>
TypedEighResult<T> eigh(const TypedTensor<T>& a, Backend& backend, TriangleOptions options = {}) {
  auto r = linalg::eigh(static_cast<const Tensor&>(a), backend, options);
  return {TypedTensor<real_t<T>>(r.eigenvalues), TypedTensor<T>(r.eigenvectors)};
}
template <class T>
TypedEigResult<T> eig(const TypedTensor<T>& a, Backend& backend) {
  using C = std::complex<real_t<T>>;
  auto r = linalg::eig(static_cast<const Tensor&>(a), backend);
  return {TypedTensor<C>(r.eigenvalues), TypedTensor<C>(r.eigenvectors)};
}
template <class T>
TypedTensor<std::complex<real_t<T>>> eigvals(const TypedTensor<T>& a, Backend& backend) {
  return TypedTensor<std::complex<real_t<T>>>(
      linalg::eigvals(static_cast<const Tensor&>(a), backend));
}

}  // namespace tenferro::linalg
