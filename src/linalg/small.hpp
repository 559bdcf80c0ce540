#pragma once
// Kernels for small matrices, where LAPACK's per-call cost (argument checks,
// ilaenv/lamch queries, blocked code paths) dominates the arithmetic.
// Private to src/linalg.
//
// Note [Small matrices]: for matrices up to a few dozen rows and columns the
// linalg kernels call these plain loops instead of LAPACK. They follow the
// classical dense algorithms, in LAPACK's conventions where there is one:
// - QR: unblocked Householder (geqr2/ung2r), reflectors as in larfg, so that
//   R's diagonal has LAPACK's signs.
// - LU with partial pivoting (getf2) and the triangular solves (getrs).
// - Cholesky (potf2) and triangular solves with a triangular matrix (trsm).
// - Hermitian eigenproblem: Householder tridiagonalisation and implicit QL
//   with Wilkinson shifts (the tred2/tql2 scheme).
// - SVD: Householder bidiagonalisation and implicit-shift QR on the
//   bidiagonal (Golub-Kahan-Reinsch), zero diagonal entries deflated by
//   plane rotations (Golub & Van Loan, Matrix Computations, 8.6).
// The iterative two scale their matrix by a power of two first (exact) so
// that squares of entries cannot overflow, and cap their sweeps: on
// non-convergence they return false and the caller uses LAPACK for that
// matrix instead.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "tenferro/tensor/dtype.hpp"

namespace tenferro::linalg::detail::small {

template <class T>
T conj_of(const T& v) {
  if constexpr (is_complex_v<T>)
    return std::conj(v);
  else
    return v;
}

template <class T>
real_t<T> abs2(const T& v) {
  if constexpr (is_complex_v<T>)
    return v.real() * v.real() + v.imag() * v.imag();
  else
    return v * v;
}

/// Largest |re| or |im| of n values (a cheap scale estimate).
template <class T>
real_t<T> max_part(const T* p, std::int64_t n) {
  real_t<T> m(0);
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (is_complex_v<T>)
      m = std::max({m, std::abs(p[i].real()), std::abs(p[i].imag())});
    else
      m = std::max(m, std::abs(p[i]));
  }
  return m;
}

/// order[0..n) sorted so that key[order[i]] is ascending (descending when
/// `descending`); insertion sort, no allocation.
template <class R>
void sort_order(std::int64_t* order, std::int64_t n, const R* key, bool descending) {
  for (std::int64_t i = 0; i < n; ++i) order[i] = i;
  for (std::int64_t i = 1; i < n; ++i) {
    const std::int64_t o = order[i];
    std::int64_t j = i;
    while (j > 0 && (descending ? key[order[j - 1]] < key[o] : key[order[j - 1]] > key[o])) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = o;
  }
}

/// Scales a[0..n) by a power of two (exact) so that the largest |re| or |im|
/// lies in [0.5, 1); returns the exponent e to undo it (multiply by 2^e).
template <class T>
int scale_to_unit(T* a, std::int64_t n) {
  int exponent = 0;
  const real_t<T> amax = max_part(a, n);
  if (amax > real_t<T>(0) && std::isfinite(amax)) {
    std::frexp(amax, &exponent);
    const real_t<T> scale = std::ldexp(real_t<T>(1), -exponent);
    for (std::int64_t i = 0; i < n; ++i) a[i] *= scale;
  }
  return exponent;
}

/// (c, s, r) with [c s; -s c] [y; z] = [r; 0] (r = 0: c = 1, s = 0); y and z
/// are small enough that y^2 + z^2 does not overflow.
template <class R>
void plane_rotation(R y, R z, R& c, R& s, R& r) {
  r = std::sqrt(y * y + z * z);
  const R inv = r == R(0) ? R(0) : R(1) / r;
  c = r == R(0) ? R(1) : y * inv;
  s = z * inv;
}

/// tan of the angle of a Jacobi rotation: the root of t^2 + 2 zeta t - 1 = 0
/// of smaller magnitude (sqrt(1 + zeta^2) would overflow for huge |zeta|).
template <class R>
R jacobi_tangent(R zeta) {
  const R az = std::abs(zeta);
  const R t = az > R(1e15) ? R(1) / (R(2) * az) : R(1) / (az + std::sqrt(R(1) + az * az));
  return zeta >= R(0) ? t : -t;
}

/// x <- c x + s y, y <- -s x + c y for two columns of length n.
template <class T, class R>
void rotate_columns(T* x, T* y, std::int64_t n, R c, R s) {
  for (std::int64_t i = 0; i < n; ++i) {
    const T xi = x[i];
    x[i] = c * xi + s * y[i];
    y[i] = c * y[i] - s * xi;
  }
}

/// Plain loops replace LAPACK's geqrf/ungqr and getrf/getrs when both
/// extents are at most this.
inline constexpr std::int64_t kSmallFactorMax = 32;
inline bool use_small_factor(std::int64_t m, std::int64_t n) {
  return m <= kSmallFactorMax && n <= kSmallFactorMax;
}

/// Note [Vector trsm]: real triangular solves of order up to kVectorTrsmMax
/// with at least a block of rows (kVectorTrsmRows registers) to solve run
/// here (trsm below) rather than in BLAS where the CPU has AVX-512F; others
/// up to order kSmallFactorMax.
inline constexpr std::int64_t kVectorTrsmMax = 128;
inline bool has_vector_trsm() {
#if defined(__x86_64__)
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
#else
  return false;
#endif
}
inline constexpr std::int64_t kVectorTrsmRows = 4;
template <class T>
constexpr std::int64_t vector_trsm_rows() {
  return kVectorTrsmRows * 64 / static_cast<std::int64_t>(sizeof(T));
}
/// Whether trsm (side 'L' or 'R', B m x n) runs here.
template <class T>
bool use_small_trsm(char side, std::int64_t m, std::int64_t n) {
  const std::int64_t k = side == 'L' ? m : n, rows = side == 'L' ? n : m;
  if (k <= kSmallFactorMax) return true;
  return std::is_floating_point_v<T> && k <= kVectorTrsmMax && rows >= vector_trsm_rows<T>() &&
         has_vector_trsm();
}

/// Householder vector of x (length len, x[0] = alpha), LAPACK larfg's
/// convention: H^H x = beta e_1 with beta real, H = I - tau v v^H, v[0] = 1;
/// x[1:] becomes v[1:], x[0] becomes beta.
template <class T>
T householder(T* x, std::int64_t len) {
  using R = real_t<T>;
  // Norms are summed on x / max|x| so that no square under- or overflows.
  const R amax = max_part(x, len);
  if (amax == R(0)) return T(0);
  R xnorm2(0);
  for (std::int64_t i = 1; i < len; ++i) xnorm2 += abs2(x[i] / amax);
  const T alpha = x[0];
  R alphi(0);
  if constexpr (is_complex_v<T>) alphi = alpha.imag();
  if (xnorm2 == R(0) && alphi == R(0)) return T(0);
  const R alphr = std::real(alpha);
  R beta = amax * std::sqrt(abs2(alpha / amax) + xnorm2);
  if (alphr >= R(0)) beta = -beta;
  const T tau = (T(beta) - alpha) / beta;
  const T scale = T(1) / (alpha - T(beta));
  for (std::int64_t i = 1; i < len; ++i) x[i] *= scale;
  x[0] = T(beta);
  return tau;
}

/// geqrf without blocking: reflectors below the diagonal, R on and above.
template <class T>
void geqrf(std::int64_t m, std::int64_t n, T* a, std::int64_t lda, T* tau) {
  const std::int64_t k = std::min(m, n);
  for (std::int64_t j = 0; j < k; ++j) {
    T* x = a + j + j * lda;
    const std::int64_t len = m - j;
    tau[j] = householder(x, len);
    if (tau[j] == T(0)) continue;
    // Apply H^H = I - conj(tau) v v^H to the trailing columns.
    const T saved = x[0];
    x[0] = T(1);
    for (std::int64_t c = j + 1; c < n; ++c) {
      T* y = a + j + c * lda;
      T d(0);
      for (std::int64_t i = 0; i < len; ++i) d += conj_of(x[i]) * y[i];
      d *= conj_of(tau[j]);
      for (std::int64_t i = 0; i < len; ++i) y[i] -= d * x[i];
    }
    x[0] = saved;
  }
}

/// ungqr without blocking: overwrites the m x n matrix a (whose first k
/// columns hold reflectors from geqrf) with the first n columns of
/// Q = H_0 H_1 ... H_{k-1}.
template <class T>
void ungqr(std::int64_t m, std::int64_t n, std::int64_t k, T* a, std::int64_t lda, const T* tau) {
  // Columns k..n-1 start as unit vectors.
  for (std::int64_t c = k; c < n; ++c) {
    T* y = a + c * lda;
    std::fill(y, y + m, T(0));
    if (c < m) y[c] = T(1);
  }
  for (std::int64_t j = k - 1; j >= 0; --j) {
    T* v = a + j + j * lda;  // v[0] is implicitly 1
    const std::int64_t len = m - j;
    // Columns j+1..n-1: y = H_j y = y - tau v (v^H y).
    for (std::int64_t c = j + 1; c < n; ++c) {
      T* y = a + j + c * lda;
      T d = y[0];
      for (std::int64_t i = 1; i < len; ++i) d += conj_of(v[i]) * y[i];
      d *= tau[j];
      y[0] -= d;
      for (std::int64_t i = 1; i < len; ++i) y[i] -= d * v[i];
    }
    // Column j: H_j e_j = e_j - tau v.
    for (std::int64_t i = 1; i < len; ++i) v[i] *= -tau[j];
    v[0] = T(1) - tau[j];
    for (std::int64_t i = 0; i < j; ++i) a[i + j * lda] = T(0);
  }
}

/// potrf without blocking: the Cholesky factor of the Hermitian positive
/// definite n x n matrix a, in its lower (uplo 'L': a = L L^H, right-looking,
/// every update a unit-stride column loop) or upper ('U': a = U^H U, dot
/// products down columns) triangle; the other triangle is not touched and
/// the imaginary parts of the diagonal are ignored, as in LAPACK. Returns
/// LAPACK's info: 0, or j + 1 when the leading minor of order j + 1 is not
/// positive definite (the factorisation stops there).
template <class T>
int potrf(char uplo, std::int64_t n, T* a, std::int64_t lda) {
  using R = real_t<T>;
  auto diag = [](const T& v) -> R {
    if constexpr (is_complex_v<T>)
      return v.real();
    else
      return v;
  };
  if (uplo == 'L') {
    for (std::int64_t j = 0; j < n; ++j) {
      T* cj = a + j * lda;
      const R d = diag(cj[j]);
      if (!(d > R(0))) return static_cast<int>(j + 1);
      const R ljj = std::sqrt(d), inv = R(1) / ljj;
      cj[j] = T(ljj);
      for (std::int64_t i = j + 1; i < n; ++i) cj[i] *= inv;
      for (std::int64_t k = j + 1; k < n; ++k) {
        const T c = conj_of(cj[k]);
        T* ck = a + k * lda;
        for (std::int64_t i = k; i < n; ++i) ck[i] -= cj[i] * c;
      }
    }
    return 0;
  }
  for (std::int64_t j = 0; j < n; ++j) {
    T* cj = a + j * lda;
    for (std::int64_t i = 0; i < j; ++i) {  // U[i, j] = (a[i, j] - U[:i, i]^H U[:i, j]) / U[i, i]
      const T* ci = a + i * lda;
      T acc = cj[i];
      for (std::int64_t k = 0; k < i; ++k) acc -= conj_of(ci[k]) * cj[k];
      cj[i] = acc / ci[i];
    }
    R d = diag(cj[j]);
    for (std::int64_t k = 0; k < j; ++k) d -= abs2(cj[k]);
    if (!(d > R(0))) return static_cast<int>(j + 1);
    cj[j] = T(std::sqrt(d));
  }
  return 0;
}

/// Solves X t = B in place of the m x k matrix B (leading dimension ldb) for
/// the k x k column-major triangular t (`lower` or upper; inv[j] = 1 /
/// t[j, j]): column j of X needs the columns solved before it (after it in
/// t's order when t is lower), and every update is a unit-stride loop down a
/// column of B.
template <class T>
void trsm_right(const T* t, const T* inv, bool lower, std::int64_t m, std::int64_t k, T* b, std::int64_t ldb) {
  constexpr std::int64_t kRows = 8;  // rows of X kept in registers across the updates
  for (std::int64_t s = 0; s < k; ++s) {
    const std::int64_t j = lower ? k - 1 - s : s;
    T* xj = b + j * ldb;
    const T* tj = t + j * k;
    const std::int64_t lo = lower ? j + 1 : 0, hi = lower ? k : j;
    std::int64_t i0 = 0;
    for (; i0 + kRows <= m; i0 += kRows) {
      T acc[kRows];
      for (std::int64_t u = 0; u < kRows; ++u) acc[u] = xj[i0 + u];
      for (std::int64_t l = lo; l < hi; ++l) {
        const T f = tj[l];
        const T* xl = b + l * ldb + i0;
        for (std::int64_t u = 0; u < kRows; ++u) acc[u] -= xl[u] * f;
      }
      for (std::int64_t u = 0; u < kRows; ++u) xj[i0 + u] = acc[u] * inv[j];
    }
    for (std::int64_t i = i0; i < m; ++i) {
      T acc = xj[i];
      for (std::int64_t l = lo; l < hi; ++l) acc -= b[i + l * ldb] * tj[l];
      xj[i] = acc * inv[j];
    }
  }
}

#if defined(__x86_64__)
// Note [Vector trsm]: trsm_right for float and double with AVX-512F, chosen
// at run time. Columns of X are solved two at a time (j1, then j2 after it):
// each column x_l solved before both is loaded once for both updates,
// rows in blocks of four 512-bit registers, then of one, then one by one.
// x_j2's update by x_j1 comes last (the scalar loop adds the terms in t's
// order). Measured (one pinned core of a 2-vCPU AMD EPYC with AVX-512,
// OpenBLAS 0.3.21 on one thread, f64, B of order k, best of 2000 calls,
// microseconds, BLAS dtrsm / this): side 'L' lower unit k = 32 5.7 / 2.3,
// 64 26.8 / 13.5, 96 68.8 / 39.2, 128 137.9 / 78.9, 192 378 / 196; side 'R'
// upper k = 32 2.2 / 1.2, 64 13.4 / 8.8, 96 37.8 / 29.6, 128 83.8 / 74.0,
// 192 256 / 234. The scalar trsm_right took 4.8 and 4.0 at 32, 36 and 31
// at 64, but less than this kernel where B has fewer rows than four
// registers (k = m = 16: 0.76 / 0.92 and 0.57 / 0.67), which keep it.
template <class T, int R>
__attribute__((target("avx512f"), always_inline)) inline void trsm_pair_rows(
    const T* t1, const T* t2, T inv1, T inv2, T c, std::int64_t lo, std::int64_t hi, const T* b,
    std::int64_t ldb, T* x1, T* x2) {
  typedef T V __attribute__((vector_size(64), aligned(sizeof(T)), may_alias));
  constexpr std::int64_t W = 64 / static_cast<std::int64_t>(sizeof(T));
  V a1[R], a2[R];
  for (int u = 0; u < R; ++u) {
    a1[u] = *reinterpret_cast<const V*>(x1 + u * W);
    a2[u] = *reinterpret_cast<const V*>(x2 + u * W);
  }
  for (std::int64_t l = lo; l < hi; ++l) {
    const T f1 = t1[l], f2 = t2[l];
    const T* xl = b + l * ldb;
    for (int u = 0; u < R; ++u) {
      const V xv = *reinterpret_cast<const V*>(xl + u * W);
      a1[u] -= xv * f1;
      a2[u] -= xv * f2;
    }
  }
  for (int u = 0; u < R; ++u) {
    a1[u] *= inv1;
    *reinterpret_cast<V*>(x1 + u * W) = a1[u];
    *reinterpret_cast<V*>(x2 + u * W) = (a2[u] - a1[u] * c) * inv2;
  }
}

template <class T>
__attribute__((target("avx512f"))) void trsm_right_avx512(const T* t, const T* inv, bool lower,
                                                          std::int64_t m, std::int64_t k, T* b,
                                                          std::int64_t ldb) {
  constexpr std::int64_t W = 64 / static_cast<std::int64_t>(sizeof(T));
  std::int64_t s = 0;
  if (k % 2 == 1) {  // the first column alone: it needs no other
    const std::int64_t j = lower ? k - 1 : 0;
    for (std::int64_t i = 0; i < m; ++i) b[i + j * ldb] *= inv[j];
    s = 1;
  }
  for (; s < k; s += 2) {
    const std::int64_t j1 = lower ? k - 1 - s : s, j2 = lower ? j1 - 1 : j1 + 1;
    T* x1 = b + j1 * ldb;
    T* x2 = b + j2 * ldb;
    const T* t1 = t + j1 * k;
    const T* t2 = t + j2 * k;
    const std::int64_t lo = lower ? j1 + 1 : 0, hi = lower ? k : j1;  // columns solved before both
    const T c = t2[j1];
    std::int64_t i = 0;
    for (; i + kVectorTrsmRows * W <= m; i += kVectorTrsmRows * W)
      trsm_pair_rows<T, kVectorTrsmRows>(t1, t2, inv[j1], inv[j2], c, lo, hi, b + i, ldb, x1 + i,
                                         x2 + i);
    for (; i + W <= m; i += W)
      trsm_pair_rows<T, 1>(t1, t2, inv[j1], inv[j2], c, lo, hi, b + i, ldb, x1 + i, x2 + i);
    for (; i < m; ++i) {
      T acc1 = x1[i], acc2 = x2[i];
      for (std::int64_t l = lo; l < hi; ++l) {
        acc1 -= b[i + l * ldb] * t1[l];
        acc2 -= b[i + l * ldb] * t2[l];
      }
      acc1 *= inv[j1];
      x1[i] = acc1;
      x2[i] = (acc2 - acc1 * c) * inv[j2];
    }
  }
}
#endif

/// trsm_right on the vector kernel where it runs and B has a block of four
/// registers of rows (Note [Vector trsm]).
template <class T>
void trsm_right_any(const T* t, const T* inv, bool lower, std::int64_t m, std::int64_t k, T* b,
                    std::int64_t ldb) {
#if defined(__x86_64__)
  if constexpr (std::is_floating_point_v<T>)
    if (has_vector_trsm() && m >= vector_trsm_rows<T>())
      return trsm_right_avx512(t, inv, lower, m, k, b, ldb);
#endif
  trsm_right(t, inv, lower, m, k, b, ldb);
}

/// trsm with alpha = 1 where use_small_trsm<T>(side, m, n):
/// solves op(a) X = B (side 'L') or X op(a) = B (side 'R') in place of the
/// m x n matrix B, op(a) = a (transa 'N') or a^T ('T'), a's triangle `uplo`,
/// unit diagonal when diag is 'U'. The side 'R' solve runs down the columns
/// of B (trsm_right); the side 'L' one is the same solve on the transpose,
/// X^T op(a)^T = B^T, with blocks of B's columns transposed into a local
/// panel (as in getrs_panel).
template <class T>
void trsm(char side, char uplo, char transa, char diag, std::int64_t m, std::int64_t n, const T* a,
          std::int64_t lda, T* b, std::int64_t ldb) {
  const bool left = side == 'L';
  const std::int64_t k = left ? m : n;  // the order of a
  // t = op(a) (side 'R') or op(a)^T (side 'L'), its other triangle unset.
  const bool flip = (transa != 'N') != left;
  const bool lower = (uplo == 'L') != flip;  // t's triangle
  constexpr std::int64_t kChunk = 64;
  // t (k x k), 1 / its diagonal (k) and, for side 'L', a panel (kc x k:
  // column i holds row i of a block of B's columns).
  thread_local std::vector<T> work;
  work.resize(static_cast<std::size_t>(k * k + k + (left ? kChunk * k : 0)));
  T* t = work.data();
  T* inv = t + k * k;
  T* panel = inv + k;
  for (std::int64_t j = 0; j < k; ++j) {
    const std::int64_t lo = lower ? j : 0, hi = lower ? k : j + 1;
    for (std::int64_t i = lo; i < hi; ++i) t[i + j * k] = flip ? a[j + i * lda] : a[i + j * lda];
    inv[j] = diag == 'U' ? T(1) : T(1) / t[j + j * k];
  }
  if (!left) return trsm_right_any(t, inv, lower, m, k, b, ldb);
  for (std::int64_t c0 = 0; c0 < n; c0 += kChunk) {
    const std::int64_t kc = std::min(kChunk, n - c0);
    T* bb = b + c0 * ldb;
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t c = 0; c < kc; ++c) panel[c + i * kc] = bb[i + c * ldb];
    trsm_right_any(t, inv, lower, kc, k, panel, kc);
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t c = 0; c < kc; ++c) bb[i + c * ldb] = panel[c + i * kc];
  }
}

/// getrf with partial pivoting (row i swapped with ipiv[i], 1-based as in
/// LAPACK). Returns LAPACK's info: 0, or j + 1 for the first exactly zero
/// pivot U[j, j] (the factorisation is completed anyway).
template <class T>
int getrf(std::int64_t m, std::int64_t n, T* a, std::int64_t lda, int* ipiv) {
  using R = real_t<T>;
  int info = 0;
  const std::int64_t k = std::min(m, n);
  for (std::int64_t j = 0; j < k; ++j) {
    std::int64_t piv = j;
    R best(-1);
    for (std::int64_t i = j; i < m; ++i) {
      // LAPACK's pivot choice: largest |re| + |im| (i?amax).
      R mag;
      if constexpr (is_complex_v<T>)
        mag = std::abs(a[i + j * lda].real()) + std::abs(a[i + j * lda].imag());
      else
        mag = std::abs(a[i + j * lda]);
      if (mag > best) {
        best = mag;
        piv = i;
      }
    }
    ipiv[j] = static_cast<int>(piv + 1);
    if (a[piv + j * lda] == T(0)) {
      if (info == 0) info = static_cast<int>(j + 1);
      continue;
    }
    if (piv != j)
      for (std::int64_t c = 0; c < n; ++c) std::swap(a[j + c * lda], a[piv + c * lda]);
    const T pivot = a[j + j * lda];
    if (std::abs(pivot) >= std::numeric_limits<R>::min()) {
      const T inv_pivot = T(1) / pivot;
      for (std::int64_t i = j + 1; i < m; ++i) a[i + j * lda] *= inv_pivot;
    } else {  // as getf2: 1 / pivot would overflow
      for (std::int64_t i = j + 1; i < m; ++i) a[i + j * lda] /= pivot;
    }
    for (std::int64_t c = j + 1; c < n; ++c) {
      const T f = a[j + c * lda];
      if (f == T(0)) continue;
      for (std::int64_t i = j + 1; i < m; ++i) a[i + c * lda] -= a[i + j * lda] * f;
    }
  }
  return info;
}

/// getrs with trans 'N' for several right-hand sides: blocks of B are
/// transposed into a local panel so that every update is a unit-stride
/// loop over the right-hand sides.
template <class T>
void getrs_panel(std::int64_t n, std::int64_t nrhs, const T* a, std::int64_t lda, const int* ipiv,
                 T* b, std::int64_t ldb) {
  constexpr std::int64_t kChunk = 64;
  T panel[kSmallFactorMax * kChunk];  // kc x n: column i holds row i of the block
  for (std::int64_t c0 = 0; c0 < nrhs; c0 += kChunk) {
    const std::int64_t kc = std::min(kChunk, nrhs - c0);
    T* bb = b + c0 * ldb;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t c = 0; c < kc; ++c) panel[c + i * kc] = bb[i + c * ldb];
    for (std::int64_t i = 0; i < n; ++i)
      if (ipiv[i] - 1 != i)
        std::swap_ranges(panel + i * kc, panel + (i + 1) * kc, panel + (ipiv[i] - 1) * kc);
    for (std::int64_t j = 0; j < n; ++j) {  // unit lower L
      const T* xj = panel + j * kc;
      for (std::int64_t i = j + 1; i < n; ++i) {
        const T l = a[i + j * lda];
        T* xi = panel + i * kc;
        for (std::int64_t c = 0; c < kc; ++c) xi[c] -= l * xj[c];
      }
    }
    for (std::int64_t j = n - 1; j >= 0; --j) {  // upper U
      T* xj = panel + j * kc;
      const T inv = T(1) / a[j + j * lda];
      for (std::int64_t c = 0; c < kc; ++c) xj[c] *= inv;
      for (std::int64_t i = 0; i < j; ++i) {
        const T u = a[i + j * lda];
        T* xi = panel + i * kc;
        for (std::int64_t c = 0; c < kc; ++c) xi[c] -= u * xj[c];
      }
    }
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t c = 0; c < kc; ++c) bb[i + c * ldb] = panel[c + i * kc];
  }
}

/// getrs: solves op(A) X = B with the factors of getrf (n x n), trans 'N',
/// 'T' or 'C'; B is n x nrhs with leading dimension ldb. The loops run down
/// the columns of the factors (unit stride).
template <class T>
void getrs(char trans, std::int64_t n, std::int64_t nrhs, const T* a, std::int64_t lda,
           const int* ipiv, T* b, std::int64_t ldb) {
  if (trans == 'N' && nrhs >= 4) return getrs_panel(n, nrhs, a, lda, ipiv, b, ldb);
  const bool conj = trans == 'C';
  auto cj = [conj](const T& v) { return conj ? conj_of(v) : v; };
  for (std::int64_t c = 0; c < nrhs; ++c) {
    T* x = b + c * ldb;
    if (trans == 'N') {
      // A = P L U: x = U^-1 L^-1 P^T b.
      for (std::int64_t i = 0; i < n; ++i) std::swap(x[i], x[ipiv[i] - 1]);
      for (std::int64_t j = 0; j < n; ++j) {
        const T xj = x[j];
        const T* l = a + j * lda;
        for (std::int64_t i = j + 1; i < n; ++i) x[i] -= l[i] * xj;
      }
      for (std::int64_t j = n - 1; j >= 0; --j) {
        const T* u = a + j * lda;
        x[j] /= u[j];
        const T xj = x[j];
        for (std::int64_t i = 0; i < j; ++i) x[i] -= u[i] * xj;
      }
    } else {
      // op(A) = op(U) op(L) P^T: solve with op(U) (lower), then op(L) (unit
      // upper), then undo the interchanges; column j of the factors is row j
      // of op(factors).
      for (std::int64_t i = 0; i < n; ++i) {
        const T* u = a + i * lda;
        T acc = x[i];
        for (std::int64_t j = 0; j < i; ++j) acc -= cj(u[j]) * x[j];
        x[i] = acc / cj(u[i]);
      }
      for (std::int64_t i = n - 1; i >= 0; --i) {
        const T* l = a + i * lda;
        T acc = x[i];
        for (std::int64_t j = i + 1; j < n; ++j) acc -= cj(l[j]) * x[j];
        x[i] = acc;
      }
      for (std::int64_t i = n - 1; i >= 0; --i) std::swap(x[i], x[ipiv[i] - 1]);
    }
  }
}

/// The tridiagonal eigensolver is used up to this order.
inline constexpr std::int64_t kSmallEighMax = 32;
inline bool use_small_eigh(std::int64_t n) { return n <= kSmallEighMax; }

template <class T>
struct EighWorkspace {
  std::int64_t n;
  std::vector<T> a, q, y, tau;
  std::vector<real_t<T>> d, e;
  std::vector<std::int64_t> order;
  explicit EighWorkspace(std::int64_t n_)
      : n(n_),
        a(static_cast<std::size_t>(n_ * n_)),
        q(static_cast<std::size_t>(n_ * n_)),
        y(static_cast<std::size_t>(n_)),
        tau(static_cast<std::size_t>(n_)),
        d(static_cast<std::size_t>(n_)),
        e(static_cast<std::size_t>(n_)),
        order(static_cast<std::size_t>(n_)) {}
};

/// Eigendecomposition of the Hermitian matrix whose `lower` (else upper)
/// triangle is in ws.a (n x n column-major): ascending eigenvalues to w_out,
/// eigenvectors to v_out (n x n). Householder reduction to a real
/// tridiagonal T = Q^H A Q (reflectors in LAPACK's convention, so the
/// off-diagonal comes out real), then implicit QL sweeps with Wilkinson
/// shifts whose rotations are accumulated into Q. Returns false when an
/// eigenvalue needed more than 30 sweeps (nothing is written then).
template <class T>
bool tridiagonal_eigh(EighWorkspace<T>& ws, bool lower, real_t<T>* w_out, T* v_out) {
  using R = real_t<T>;
  const std::int64_t n = ws.n;
  if (n == 0) return true;
  T* a = ws.a.data();
  // Complete the Hermitian matrix from the triangle that was given (the
  // imaginary part of the diagonal is ignored, as in LAPACK).
  for (std::int64_t j = 0; j < n; ++j) {
    a[j + j * n] = T(std::real(a[j + j * n]));
    for (std::int64_t i = j + 1; i < n; ++i) {
      if (lower)
        a[j + i * n] = conj_of(a[i + j * n]);
      else
        a[i + j * n] = conj_of(a[j + i * n]);
    }
  }
  const int exponent = scale_to_unit(a, n * n);
  R* d = ws.d.data();
  R* e = ws.e.data();
  T* tau = ws.tau.data();
  T* y = ws.y.data();
  // 1. A <- H^H A H for reflectors H = I - tau v v^H that zero column k
  //    below its subdiagonal. With y = B v and gamma = v^H y (real) on the
  //    trailing block B, H^H B H = B - v w^H - w v^H, w = tau y - |tau|^2
  //    gamma / 2 v.
  for (std::int64_t k = 0; k + 1 < n; ++k) {
    T* x = a + (k + 1) + k * n;
    const std::int64_t len = n - k - 1;
    tau[k] = householder(x, len);
    d[k] = std::real(a[k + k * n]);
    e[k] = std::real(x[0]);
    if (tau[k] == T(0)) continue;
    const T beta = x[0];
    x[0] = T(1);  // x is now v
    T* b = a + (k + 1) + (k + 1) * n;
    std::fill(y, y + len, T(0));
    for (std::int64_t c = 0; c < len; ++c) {
      const T vc = x[c];
      for (std::int64_t r = 0; r < len; ++r) y[r] += b[r + c * n] * vc;
    }
    R gamma(0);
    for (std::int64_t r = 0; r < len; ++r) gamma += std::real(conj_of(x[r]) * y[r]);
    const R half = abs2(tau[k]) * gamma / R(2);
    for (std::int64_t r = 0; r < len; ++r) y[r] = tau[k] * y[r] - half * x[r];  // y is now w
    for (std::int64_t c = 0; c < len; ++c) {
      const T wc = conj_of(y[c]), vc = conj_of(x[c]);
      for (std::int64_t r = 0; r < len; ++r) b[r + c * n] -= x[r] * wc + y[r] * vc;
    }
    x[0] = beta;
  }
  d[n - 1] = std::real(a[(n - 1) + (n - 1) * n]);
  e[n - 1] = R(0);
  // 2. Q = H_0 H_1 ... H_{n-2}, accumulated from the right end (each step
  //    only touches rows and columns k+1...).
  T* q = ws.q.data();
  std::fill(q, q + n * n, T(0));
  for (std::int64_t i = 0; i < n; ++i) q[i + i * n] = T(1);
  for (std::int64_t k = n - 2; k >= 0; --k) {
    if (tau[k] == T(0)) continue;
    const T* v = a + (k + 1) + k * n;  // v[0] is implicitly 1
    const std::int64_t len = n - k - 1;
    for (std::int64_t c = k + 1; c < n; ++c) {
      T* col = q + (k + 1) + c * n;
      T dot = col[0];
      for (std::int64_t i = 1; i < len; ++i) dot += conj_of(v[i]) * col[i];
      dot *= tau[k];
      col[0] -= dot;
      for (std::int64_t i = 1; i < len; ++i) col[i] -= dot * v[i];
    }
  }
  // 3. Implicit QL on (d, e): for the unreduced block l..m, a Wilkinson
  //    shift from its top 2 x 2 corner, then plane rotations chase the
  //    bulge from the bottom up; each rotation of rows (i, i+1) of T is
  //    applied to columns (i, i+1) of Q.
  const R eps = std::numeric_limits<R>::epsilon();
  for (std::int64_t l = 0; l < n; ++l) {
    int sweeps = 0;
    while (true) {
      std::int64_t m = l;
      while (m + 1 < n && std::abs(e[m]) > eps * (std::abs(d[m]) + std::abs(d[m + 1]))) ++m;
      if (m == l) break;
      if (++sweeps > 30) return false;
      R g = (d[l + 1] - d[l]) / (R(2) * e[l]);
      R r = std::sqrt(g * g + R(1));
      g = d[m] - d[l] + e[l] / (g + (g >= R(0) ? r : -r));
      R s = 1, c = 1, p = 0;
      bool underflow = false;
      for (std::int64_t i = m - 1; i >= l; --i) {
        const R f = s * e[i], b = c * e[i];
        r = std::sqrt(f * f + g * g);
        e[i + 1] = r;
        if (r == R(0)) {  // the rotation underflowed: deflate here and restart
          d[i + 1] -= p;
          e[m] = R(0);
          underflow = true;
          break;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1] - p;
        r = (d[i] - g) * s + R(2) * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        T* qi = q + i * n;
        T* qj = q + (i + 1) * n;
        for (std::int64_t k = 0; k < n; ++k) {
          const T t = qj[k];
          qj[k] = s * qi[k] + c * t;
          qi[k] = c * qi[k] - s * t;
        }
      }
      if (underflow) continue;
      d[l] -= p;
      e[l] = g;
      e[m] = R(0);
    }
  }
  std::int64_t* order = ws.order.data();
  sort_order(order, n, d, false);
  for (std::int64_t j = 0; j < n; ++j) {
    w_out[j] = std::ldexp(d[order[j]], exponent);
    std::copy_n(q + order[j] * n, n, v_out + j * n);
  }
  return true;
}

/// The bidiagonal SVD is used when both extents are at most this.
inline constexpr std::int64_t kSmallSvdMax = 32;
inline bool use_small_svd(std::int64_t m, std::int64_t n) {
  return m <= kSmallSvdMax && n <= kSmallSvdMax;
}

template <class T>
struct SvdWorkspace {
  std::int64_t m, n;
  std::vector<T> a;  ///< the input, m x n column-major (loaded by the caller; overwritten)
  std::vector<T> w, u, v, tl, tr, row;
  std::vector<real_t<T>> d, e;
  std::vector<std::int64_t> order;
  SvdWorkspace(std::int64_t m_, std::int64_t n_) : m(m_), n(n_) {
    const auto p = static_cast<std::size_t>(std::max(m, n)),
               q = static_cast<std::size_t>(std::min(m, n));
    a.resize(static_cast<std::size_t>(m * n));
    if (m < n) w.resize(p * q);
    u.resize(p * p);
    v.resize(q * q);
    tl.resize(q);
    tr.resize(q);
    row.resize(q);
    d.resize(q);
    e.resize(q);
    order.resize(q);
  }
};

/// SVD of ws.a (Note [Small matrices]); jobz as gesdd ('N', 'S', 'A') and
/// outputs as svd_into in svd.cpp: u [m, ku], s [k] descending, vh [kv, n].
/// A wide matrix is decomposed through A^H. Returns false when the QR
/// sweeps did not converge (nothing is written then).
template <class T>
bool bidiagonal_svd(SvdWorkspace<T>& ws, char jobz, T* u_out, real_t<T>* s_out, T* vh_out) {
  using R = real_t<T>;
  const std::int64_t m = ws.m, n = ws.n;
  const bool tall = m >= n;
  const std::int64_t p = tall ? m : n, q = tall ? n : m;
  const bool vectors = jobz != 'N', full = jobz == 'A';
  if (q == 0) return true;
  // W (p x q, p >= q) is A itself (overwritten), or A^H for a wide matrix.
  T* w = tall ? ws.a.data() : ws.w.data();
  if (!tall)
    for (std::int64_t j = 0; j < q; ++j)
      for (std::int64_t i = 0; i < p; ++i) w[i + j * p] = conj_of(ws.a[j + i * m]);
  const int exponent = scale_to_unit(w, p * q);
  R* d = ws.d.data();
  R* e = ws.e.data();
  T* tl = ws.tl.data();
  T* tr = ws.tr.data();
  // 1. W = U B V^H with B real upper bidiagonal: for each k a reflector from
  //    the left zeroes column k below the diagonal (d[k] real), and one from
  //    the right zeroes row k right of the superdiagonal (e[k] real). The
  //    right reflector's vector is stored in row k.
  for (std::int64_t k = 0; k < q; ++k) {
    T* x = w + k + k * p;
    const std::int64_t len = p - k;
    tl[k] = householder(x, len);
    d[k] = std::real(x[0]);
    if (tl[k] != T(0)) {
      const T beta = x[0];
      x[0] = T(1);
      for (std::int64_t c = k + 1; c < q; ++c) {  // H^H = I - conj(tau) v v^H
        T* y = w + k + c * p;
        T dot(0);
        for (std::int64_t i = 0; i < len; ++i) dot += conj_of(x[i]) * y[i];
        dot *= conj_of(tl[k]);
        for (std::int64_t i = 0; i < len; ++i) y[i] -= dot * x[i];
      }
      x[0] = beta;
    }
    if (k + 1 >= q) {
      tr[k] = T(0);
      e[k] = R(0);
      continue;
    }
    // The row r = W[k, k+1:q]: with z = conj(r), H^H z = gamma e_1 gives
    // r H = gamma e_1^T, so W <- W H zeroes it past the superdiagonal.
    const std::int64_t rlen = q - k - 1;
    T* z = ws.row.data();
    for (std::int64_t j = 0; j < rlen; ++j) z[j] = conj_of(w[k + (k + 1 + j) * p]);
    tr[k] = householder(z, rlen);
    e[k] = std::real(z[0]);
    w[k + (k + 1) * p] = z[0];
    for (std::int64_t j = 1; j < rlen; ++j) w[k + (k + 1 + j) * p] = z[j];  // v[1:] in row k
    if (tr[k] == T(0)) continue;
    z[0] = T(1);
    // Rows k+1.. : W <- W (I - tau v v^H): y = W v, W -= tau y v^H.
    const std::int64_t rows = p - k - 1;
    T* y = ws.u.data();  // scratch (U is built later)
    std::fill(y, y + rows, T(0));
    for (std::int64_t j = 0; j < rlen; ++j) {
      const T vj = z[j];
      const T* col = w + (k + 1) + (k + 1 + j) * p;
      for (std::int64_t i = 0; i < rows; ++i) y[i] += col[i] * vj;
    }
    for (std::int64_t j = 0; j < rlen; ++j) {
      const T f = tr[k] * conj_of(z[j]);
      T* col = w + (k + 1) + (k + 1 + j) * p;
      for (std::int64_t i = 0; i < rows; ++i) col[i] -= y[i] * f;
    }
  }
  // 2. U = H_0 ... H_{q-1} (p x kl) and V = G_0 ... G_{q-2} (q x q),
  //    accumulated from the right end.
  const std::int64_t kl = full ? p : q;
  T* u = ws.u.data();
  T* v = ws.v.data();
  if (vectors) {
    std::fill(u, u + p * kl, T(0));
    for (std::int64_t i = 0; i < kl; ++i) u[i + i * p] = T(1);
    for (std::int64_t k = q - 1; k >= 0; --k) {
      if (tl[k] == T(0)) continue;
      const T* h = w + k + k * p;  // h[0] is implicitly 1
      const std::int64_t len = p - k;
      for (std::int64_t c = k; c < kl; ++c) {
        T* col = u + k + c * p;
        T dot = col[0];
        for (std::int64_t i = 1; i < len; ++i) dot += conj_of(h[i]) * col[i];
        dot *= tl[k];
        col[0] -= dot;
        for (std::int64_t i = 1; i < len; ++i) col[i] -= dot * h[i];
      }
    }
    std::fill(v, v + q * q, T(0));
    for (std::int64_t i = 0; i < q; ++i) v[i + i * q] = T(1);
    for (std::int64_t k = q - 2; k >= 0; --k) {
      if (tr[k] == T(0)) continue;
      const std::int64_t len = q - k - 1;
      for (std::int64_t c = k + 1; c < q; ++c) {
        T* col = v + (k + 1) + c * q;
        T dot = col[0];
        for (std::int64_t i = 1; i < len; ++i) dot += conj_of(w[k + (k + 1 + i) * p]) * col[i];
        dot *= tr[k];
        col[0] -= dot;
        for (std::int64_t i = 1; i < len; ++i) col[i] -= dot * w[k + (k + 1 + i) * p];
      }
    }
  }
  // 3. Diagonalise B by implicit-shift QR sweeps on its bottom unreduced
  //    block [l, h]. Each sweep starts with a Wilkinson shift from the
  //    trailing 2 x 2 block of B^T B and chases the bulge down with
  //    alternating column (V) and row (U) rotations.
  const R eps = std::numeric_limits<R>::epsilon();
  R bnorm(0);
  for (std::int64_t i = 0; i < q; ++i) bnorm = std::max({bnorm, std::abs(d[i]), std::abs(e[i])});
  const R dtol = eps * bnorm;
  auto negligible = [&](std::int64_t i) {
    return std::abs(e[i]) <= eps * (std::abs(d[i]) + std::abs(d[i + 1]));
  };
  int sweeps = 0;
  std::int64_t h = q - 1;
  while (h > 0) {
    if (negligible(h - 1)) {
      e[h - 1] = R(0);
      --h;
      continue;
    }
    std::int64_t l = h - 1;
    while (l > 0 && !negligible(l - 1)) --l;
    if (l > 0) e[l - 1] = R(0);
    if (++sweeps > 40 * static_cast<int>(q)) return false;
    for (std::int64_t i = l; i <= h; ++i)
      if (std::abs(d[i]) <= dtol) d[i] = R(0);
    std::int64_t zero = -1;
    for (std::int64_t i = l; i < h && zero < 0; ++i)
      if (d[i] == R(0)) zero = i;
    R c, s, r;
    if (zero >= 0) {
      // d[zero] = 0: rotate row `zero` against rows zero+1..h to clear it.
      R f = e[zero];
      e[zero] = R(0);
      for (std::int64_t j = zero + 1; j <= h && f != R(0); ++j) {
        plane_rotation(d[j], f, c, s, r);
        d[j] = r;
        if (j < h) {
          f = -s * e[j];
          e[j] *= c;
        }
        if (vectors) rotate_columns(u + j * p, u + zero * p, p, c, s);
      }
      continue;
    }
    if (d[h] == R(0)) {
      // d[h] = 0: rotate column h against columns h-1..l to clear it.
      R f = e[h - 1];
      e[h - 1] = R(0);
      for (std::int64_t j = h - 1; j >= l && f != R(0); --j) {
        plane_rotation(d[j], f, c, s, r);
        d[j] = r;
        if (j > l) {
          f = -s * e[j - 1];
          e[j - 1] *= c;
        }
        if (vectors) rotate_columns(v + j * q, v + h * q, q, c, s);
      }
      continue;
    }
    if (h == l + 1) {
      // A 2 x 2 block [[f, g], [0, hh]] in closed form: one Jacobi rotation R
      // makes the columns of B R orthogonal; the left factor is their
      // direction (the longer column fixes it, the other is its normal).
      const R f = d[l], g = e[l], hh = d[h];
      R cr = 1, sr = 0;
      if (f * g != R(0)) {
        const R t = jacobi_tangent((g * g + hh * hh - f * f) / (R(2) * f * g));
        cr = R(1) / std::sqrt(R(1) + t * t);
        sr = cr * t;
      }
      const R x0 = cr * f - sr * g, x1 = -sr * hh;  // B R column 1
      const R y0 = sr * f + cr * g, y1 = cr * hh;   // B R column 2
      const R nx = std::sqrt(x0 * x0 + x1 * x1), ny = std::sqrt(y0 * y0 + y1 * y1);
      R a0, a1, b0, b1;  // the left factor [a b], orthonormal
      if (nx >= ny) {
        a0 = nx == R(0) ? R(1) : x0 / nx;
        a1 = nx == R(0) ? R(0) : x1 / nx;
        b0 = -a1;
        b1 = a0;
      } else {
        b0 = y0 / ny;
        b1 = y1 / ny;
        a0 = b1;
        a1 = -b0;
      }
      d[l] = a0 * x0 + a1 * x1;
      d[h] = b0 * y0 + b1 * y1;
      e[l] = R(0);
      if (vectors) {
        rotate_columns(v + l * q, v + h * q, q, cr, -sr);
        T* ul = u + l * p;
        T* uh = u + h * p;
        for (std::int64_t i = 0; i < p; ++i) {
          const T x = ul[i], y = uh[i];
          ul[i] = a0 * x + a1 * y;
          uh[i] = b0 * x + b1 * y;
        }
      }
      continue;
    }
    // Wilkinson shift: the eigenvalue of the trailing 2 x 2 of B^T B nearer its last entry.
    const R dm = d[h - 1], dn = d[h], em = e[h - 1], fm = h - 1 > l ? e[h - 2] : R(0);
    const R t11 = dm * dm + fm * fm, t12 = dm * em, t22 = dn * dn + em * em;
    const R delta = (t11 - t22) / R(2);
    const R root = std::sqrt(delta * delta + t12 * t12);
    const R mu = root == R(0) ? t22 : t22 - t12 * t12 / (delta + (delta >= R(0) ? root : -root));
    R y = d[l] * d[l] - mu, z = d[l] * e[l], bulge(0);
    for (std::int64_t k = l; k < h; ++k) {
      // Columns (k, k+1): clear z (the shift, then the bulge in row k-1).
      if (k > l) {
        y = e[k - 1];
        z = bulge;
      }
      plane_rotation(y, z, c, s, r);
      if (k > l) e[k - 1] = r;
      const R dk = d[k], ek = e[k], dk1 = d[k + 1];
      d[k] = c * dk + s * ek;
      e[k] = c * ek - s * dk;
      const R below = s * dk1;  // B[k+1, k]
      d[k + 1] = c * dk1;
      if (vectors) rotate_columns(v + k * q, v + (k + 1) * q, q, c, s);
      // Rows (k, k+1): clear B[k+1, k].
      plane_rotation(d[k], below, c, s, r);
      d[k] = r;
      const R ek2 = e[k], dk2 = d[k + 1];
      e[k] = c * ek2 + s * dk2;
      d[k + 1] = c * dk2 - s * ek2;
      if (k + 1 < h) {
        bulge = s * e[k + 1];  // B[k, k+2]
        e[k + 1] *= c;
      }
      if (vectors) rotate_columns(u + k * p, u + (k + 1) * p, p, c, s);
    }
  }
  // 4. Non-negative values (a sign moves into V), descending order.
  for (std::int64_t i = 0; i < q; ++i)
    if (d[i] < R(0)) {
      d[i] = -d[i];
      if (vectors)
        for (std::int64_t k = 0; k < q; ++k) v[k + i * q] = -v[k + i * q];
    }
  std::int64_t* order = ws.order.data();
  sort_order(order, q, d, true);
  for (std::int64_t j = 0; j < q; ++j) s_out[j] = std::ldexp(d[order[j]], exponent);
  if (!vectors) return true;
  // Column j < q of the left factor is U[:, order[j]]; columns q..kl-1 are
  // the completion the Householder product gives.
  auto left = [&](std::int64_t j) { return u + (j < q ? order[j] : j) * p; };
  if (tall) {
    // A = U B V^H: u_out = U (sorted), vh_out = V^H (rows sorted).
    for (std::int64_t j = 0; j < kl; ++j) std::copy_n(left(j), p, u_out + j * p);
    for (std::int64_t i = 0; i < q; ++i)
      for (std::int64_t j = 0; j < q; ++j) vh_out[i + j * q] = conj_of(v[j + order[i] * q]);
  } else {
    // A^H = U B V^H, so A = V B U^H: u_out = V (sorted), vh_out = U^H.
    for (std::int64_t j = 0; j < q; ++j) std::copy_n(v + order[j] * q, q, u_out + j * q);
    for (std::int64_t i = 0; i < kl; ++i) {
      const T* col = left(i);
      for (std::int64_t j = 0; j < p; ++j) vh_out[i + j * kl] = conj_of(col[j]);
    }
  }
  return true;
}

}  // namespace tenferro::linalg::detail::small

#include "lapack.hpp"
#include "recursive_lu.hpp"

namespace tenferro::linalg::detail {

/// getrf through the small loops, the recursive LU (Note [Recursive LU]) or
/// LAPACK (Note [Small matrices]).
template <class T>
int getrf_auto(lapack::lapack_int m, lapack::lapack_int n, T* a, lapack::lapack_int lda,
               lapack::lapack_int* ipiv) {
  if (small::use_small_factor(m, n)) return small::getrf(m, n, a, lda, ipiv);
  if constexpr (std::is_floating_point_v<T>)
    if (recursive_lu::use<T>(m, n)) return recursive_lu::getrf<T>(m, n, a, lda, ipiv);
  return lapack::getrf<T>(m, n, a, lda, ipiv);
}

/// getrs through the small loops or LAPACK.
template <class T>
void getrs_auto(char trans, lapack::lapack_int n, lapack::lapack_int nrhs, const T* a,
                lapack::lapack_int lda, const lapack::lapack_int* ipiv, T* b,
                lapack::lapack_int ldb) {
  if (small::use_small_factor(n, n)) return small::getrs(trans, n, nrhs, a, lda, ipiv, b, ldb);
  lapack::getrs<T>(trans, n, nrhs, a, lda, ipiv, b, ldb);
}

}  // namespace tenferro::linalg::detail
