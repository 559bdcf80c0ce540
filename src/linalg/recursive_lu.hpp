#pragma once
// LU with partial pivoting for real matrices of moderate order, by recursion
// on column halves with AVX-512 leaves and the trailing updates in BLAS GEMM.
// Private to src/linalg; getrf_auto (small.hpp) chooses it.
//
// Note [Recursive LU]: OpenBLAS 0.3.21's getrf spends much of its time in a
// triangular-solve kernel that runs far below its GEMM (perf at order 256
// on an AVX-512 core: dtrsm_kernel_LT the hottest symbol, above dgemm's
// kernel), so at orders 64 to 1024 it reaches 9 to 34 GFLOP/s on one core
// where its dgemm of the panel shapes runs at 50 to 57. Here (Toledo's
// recursive LU):
//   lu(A, m x n): if n <= kLeafColumns: leaf(A), else with A = [A1 A2],
//   A1 the first n1 columns (n1 about n / 2, a multiple of 8):
//     lu(A1); swap A2's rows as A1's pivots say;
//     A12 := L11^-1 A12 (trsm below); A22 -= A21 A12 (GEMM);
//     lu(A22); swap A21's rows as A22's pivots say.
// - leaf: the columns one by one (getf2): the pivot is the first entry of
//   largest magnitude (LAPACK's i?amax), its row swapped within the leaf,
//   the column below scaled by 1 / pivot (divided by the pivot where that
//   reciprocal would overflow, getf2's rule), the leaf's later columns
//   updated, all in 512-bit registers over the rows.
// - trsm: X := L^-1 B for unit lower L by the same recursion on L's halves
//   (B2 -= L21 X1 in GEMM); blocks of order up to 8 multiply B's columns by
//   L's inverse (formed in 8 x 8 registers' worth of memory).
// - A wide matrix (m < n) is factored on its first m columns, then the
//   rest is swapped and solved as U12 = L11^-1 A12, as getrf does.
// A zero pivot leaves its column unscaled and is reported as LAPACK's info
// (the first such column, 1-based); the factorisation goes on, as getrf's.
// Pivots equal LAPACK's where no two candidates tie to the last bit after
// different rounding; the factors agree to rounding.
// Right-block updates large enough (kSplitUpdateWork) are split by columns
// across the calling thread's OpenMP threads, BLAS on one thread in each;
// the leaves run on one thread.
// Measured (one pinned core of a 2-vCPU AMD EPYC with AVX-512, OpenBLAS
// 0.3.21, random normal matrices, best of 100 calls, us, LAPACK getrf /
// this): f64 order 40 7.5 / 5.6, 64 19.7 / 13.7, 128 89.4 / 60.0, 256 472 /
// 359, 512 2925 / 2631, 1024 21074 / 18780; f32 40 5.9 / 4.8, 128 59.1 /
// 45.0, 256 284 / 220, 512 1595 / 1373, 1024 10512 / 10804, so f32 keeps
// LAPACK above order 512. bench_peer --mode=linalg, 256 x 256 f64, ms, old
// / new, one pinned core: solve 0.472 / 0.369, lu 0.523 / 0.399, det 0.485
// / 0.364, inv 1.427 / 1.293; two (LAPACK on two threads before): solve
// 0.364 / 0.311, lu 0.446 / 0.366, det 0.418 / 0.331, inv 1.196 / 1.114.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "common.hpp"  // OneLapackThread
#include "lapack.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tenferro::linalg::detail::recursive_lu {

/// Columns factored one by one in a leaf; also the largest order of a
/// triangular block solved through its inverse.
inline constexpr int kLeafColumns = 8;
/// Orders this LU takes: more than kMinOrder columns and rows (below, the
/// small-matrix loops of Note [Small matrices]), at most kMaxOrder<T>.
inline constexpr std::int64_t kMinOrder = 32;
template <class T>
inline constexpr std::int64_t kMaxOrder = sizeof(T) == 4 ? 512 : 1024;

inline bool has_avx512_fma() {
#if defined(__x86_64__)
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  return yes;
#else
  return false;
#endif
}

/// Whether getrf of an m x n matrix of T runs here.
template <class T>
bool use(std::int64_t m, std::int64_t n) {
  return std::is_floating_point_v<T> && std::min(m, n) > kMinOrder &&
         std::max(m, n) <= kMaxOrder<T> && has_avx512_fma();
}

#if defined(__x86_64__)
#define TF_RLU_INLINE __attribute__((target("avx512f,fma"), always_inline)) static inline
#define TF_RLU __attribute__((target("avx512f,fma")))

// One 512-bit register of T and its lane mask. (The masked forms of max and
// no _mm512_reduce_*: GCC 12 warns of the unmasked ones' undefined inputs.)
template <class T>
struct Vec;
template <>
struct Vec<double> {
  using V = __m512d;
  using M = __mmask8;
  static constexpr int W = 8;
  TF_RLU_INLINE M head(std::int64_t n) { return n >= W ? M(0xFF) : M((1u << n) - 1u); }
  TF_RLU_INLINE V load(M m, const double* p) { return _mm512_maskz_loadu_pd(m, p); }
  TF_RLU_INLINE void store(double* p, M m, V v) { _mm512_mask_storeu_pd(p, m, v); }
  TF_RLU_INLINE V set1(double v) { return _mm512_set1_pd(v); }
  TF_RLU_INLINE V zero() { return _mm512_setzero_pd(); }
  TF_RLU_INLINE V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  TF_RLU_INLINE V fmadd(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  TF_RLU_INLINE V fnmadd(V a, V b, V c) { return _mm512_fnmadd_pd(a, b, c); }
  TF_RLU_INLINE V abs(V a) { return _mm512_abs_pd(a); }
  TF_RLU_INLINE V max(V a, V b) { return _mm512_maskz_max_pd(M(0xFF), a, b); }
  TF_RLU_INLINE unsigned equal(M m, V a, V b) {
    return _mm512_mask_cmp_pd_mask(m, a, b, _CMP_EQ_OQ);
  }
};
template <>
struct Vec<float> {
  using V = __m512;
  using M = __mmask16;
  static constexpr int W = 16;
  TF_RLU_INLINE M head(std::int64_t n) { return n >= W ? M(0xFFFF) : M((1u << n) - 1u); }
  TF_RLU_INLINE V load(M m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
  TF_RLU_INLINE void store(float* p, M m, V v) { _mm512_mask_storeu_ps(p, m, v); }
  TF_RLU_INLINE V set1(float v) { return _mm512_set1_ps(v); }
  TF_RLU_INLINE V zero() { return _mm512_setzero_ps(); }
  TF_RLU_INLINE V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  TF_RLU_INLINE V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  TF_RLU_INLINE V fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
  TF_RLU_INLINE V abs(V a) { return _mm512_abs_ps(a); }
  TF_RLU_INLINE V max(V a, V b) { return _mm512_maskz_max_ps(M(0xFFFF), a, b); }
  TF_RLU_INLINE unsigned equal(M m, V a, V b) {
    return _mm512_mask_cmp_ps_mask(m, a, b, _CMP_EQ_OQ);
  }
};

// The first index of the largest |x[i]|, i < n (n >= 1); NaNs are passed
// over (index 0 when every entry is NaN).
template <class T>
TF_RLU std::int64_t iamax(std::int64_t n, const T* x) {
  using X = Vec<T>;
  typename X::V best = X::zero();
  for (std::int64_t i = 0; i < n; i += X::W)
    best = X::max(X::abs(X::load(X::head(n - i), x + i)), best);  // a NaN lane keeps best
  alignas(64) T lanes[X::W];
  X::store(lanes, X::head(X::W), best);
  const typename X::V top = X::set1(*std::max_element(lanes, lanes + X::W));
  for (std::int64_t i = 0; i < n; i += X::W) {
    const unsigned hit = X::equal(X::head(n - i), X::abs(X::load(X::head(n - i), x + i)), top);
    if (hit != 0) return i + __builtin_ctz(hit);
  }
  return 0;
}

// getf2 on the m x n panel a (n <= 16): pivots 0-based from the panel's
// first row; returns the first zero pivot's column + 1, or 0.
template <class T>
TF_RLU int leaf(T* a, std::int64_t m, std::int64_t n, std::int64_t lda, int* ipiv) {
  using X = Vec<T>;
  int info = 0;
  for (std::int64_t j = 0; j < std::min(m, n); ++j) {
    T* cj = a + j * lda;
    const std::int64_t p = j + iamax(m - j, cj + j);
    ipiv[j] = static_cast<int>(p);
    const T pivot = cj[p];
    if (pivot == T(0)) {
      if (info == 0) info = static_cast<int>(j + 1);
      continue;
    }
    if (p != j)
      for (std::int64_t c = 0; c < n; ++c) std::swap(a[j + c * lda], a[p + c * lda]);
    // getf2: multiply by the reciprocal unless it would overflow.
    const bool divide = std::abs(pivot) < std::numeric_limits<T>::min();
    if (divide)
      for (std::int64_t i = j + 1; i < m; ++i) cj[i] /= pivot;
    const typename X::V r = X::set1(T(1) / pivot);
    const std::int64_t nc = n - j - 1;
    T* y[16];
    typename X::V f[16];
    for (std::int64_t c = 0; c < nc; ++c) {
      y[c] = a + (j + 1 + c) * lda;
      f[c] = X::set1(y[c][j]);
    }
    for (std::int64_t i = j + 1; i < m; i += X::W) {
      const auto mk = X::head(m - i);
      typename X::V x = X::load(mk, cj + i);
      if (!divide) {
        x = X::mul(x, r);
        X::store(cj + i, mk, x);
      }
      for (std::int64_t c = 0; c < nc; ++c)
        X::store(y[c] + i, mk, X::fnmadd(x, f[c], X::load(mk, y[c] + i)));
    }
  }
  return info;
}

// B := L^-1 B for the unit lower m x m block l (m <= kLeafColumns), B m x n:
// each column of B times L's inverse.
template <class T>
TF_RLU void trsm_leaf(const T* l, std::int64_t ldl, T* b, std::int64_t m, std::int64_t n,
                      std::int64_t ldb) {
  using X = Vec<T>;
  constexpr int K = kLeafColumns;
  alignas(64) T w[K * X::W] = {};  // column k of L^-1 at w + k * W
  for (std::int64_t k = 0; k < m; ++k) {
    T* x = w + k * X::W;
    x[k] = T(1);
    for (std::int64_t i = k + 1; i < m; ++i) {
      T s(0);
      for (std::int64_t t = k; t < i; ++t) s += l[i + t * ldl] * x[t];
      x[i] = -s;
    }
  }
  const auto mk = X::head(m);
  for (std::int64_t j = 0; j < n; ++j) {
    T* c = b + j * ldb;
    typename X::V s = X::zero();
    for (std::int64_t k = 0; k < m; ++k) s = X::fmadd(X::load(mk, w + k * X::W), X::set1(c[k]), s);
    X::store(c, mk, s);
  }
}
#undef TF_RLU_INLINE
#undef TF_RLU

// Half of n rounded up to a multiple of kLeafColumns.
inline std::int64_t split_of(std::int64_t n) {
  return (n / 2 + kLeafColumns - 1) / kLeafColumns * kLeafColumns;
}

// Rows k1..k2-1 of the ncols columns at a swapped with rows ipiv[k] (0-based).
template <class T>
void swap_rows(T* a, std::int64_t lda, std::int64_t ncols, const int* ipiv, std::int64_t k1,
               std::int64_t k2) {
  for (std::int64_t j = 0; j < ncols; ++j) {
    T* c = a + j * lda;
    for (std::int64_t i = k1; i < k2; ++i)
      if (ipiv[i] != i) std::swap(c[i], c[ipiv[i]]);
  }
}

// B (m x n) := L^-1 B, L the unit lower triangle of the m x m block l.
template <class T>
void trsm(const T* l, std::int64_t ldl, T* b, std::int64_t m, std::int64_t n, std::int64_t ldb) {
  if (m <= kLeafColumns) return trsm_leaf(l, ldl, b, m, n, ldb);
  const std::int64_t m1 = split_of(m), m2 = m - m1;
  trsm(l, ldl, b, m1, n, ldb);
  using lapack::lapack_int;
  lapack::gemm<T>('N', 'N', static_cast<lapack_int>(m2), static_cast<lapack_int>(n),
                  static_cast<lapack_int>(m1), T(-1), l + m1, static_cast<lapack_int>(ldl), b,
                  static_cast<lapack_int>(ldb), T(1), b + m1, static_cast<lapack_int>(ldb));
  trsm(l + m1 + m1 * ldl, ldl, b + m1, m2, n, ldb);
}

// The right block's update after its left n1 columns are factored (a the
// whole m x n matrix): swap the rows of columns [c0, c1), solve for U12,
// subtract L21 U12. Columns are independent of each other.
template <class T>
void update_right(T* a, std::int64_t m, std::int64_t n1, std::int64_t lda, const int* ipiv,
                  std::int64_t c0, std::int64_t c1) {
  T* b = a + c0 * lda;
  swap_rows(b, lda, c1 - c0, ipiv, 0, n1);
  trsm(a, lda, b, n1, c1 - c0, lda);
  using lapack::lapack_int;
  lapack::gemm<T>('N', 'N', static_cast<lapack_int>(m - n1), static_cast<lapack_int>(c1 - c0),
                  static_cast<lapack_int>(n1), T(-1), a + n1, static_cast<lapack_int>(lda), b,
                  static_cast<lapack_int>(lda), T(1), b + n1, static_cast<lapack_int>(lda));
}

/// Right-block updates of at least this many multiply-adds (rows * n1 *
/// n2) are split by columns across the threads, BLAS on one thread in each.
inline constexpr double kSplitUpdateWork = 64.0 * 64.0 * 64.0;

// The recursion on an m x n matrix, m >= n; pivots 0-based from its first
// row. `threads`: how many threads the right-block updates may split over.
template <class T>
int factor(T* a, std::int64_t m, std::int64_t n, std::int64_t lda, int* ipiv, int threads) {
  if (n <= kLeafColumns) return leaf(a, m, n, lda, ipiv);
  const std::int64_t n1 = split_of(n), n2 = n - n1, m2 = m - n1;
  int info = factor(a, m, n1, lda, ipiv, threads);
  const int parts = static_cast<int>(std::min<std::int64_t>(threads, n2 / kLeafColumns));
  if (parts > 1 && static_cast<double>(m) * static_cast<double>(n1) * static_cast<double>(n2) >=
                       kSplitUpdateWork) {
    OneLapackThread one(true);
#pragma omp parallel for num_threads(parts) schedule(static, 1)
    for (int t = 0; t < parts; ++t)
      update_right(a, m, n1, lda, ipiv, n1 + n2 * t / parts, n1 + n2 * (t + 1) / parts);
  } else {
    update_right(a, m, n1, lda, ipiv, n1, n);
  }
  T* a12 = a + n1 * lda;
  const int info2 = factor(a12 + n1, m2, n2, lda, ipiv + n1, threads);
  if (info == 0 && info2 != 0) info = info2 + static_cast<int>(n1);
  for (std::int64_t i = n1; i < n; ++i) ipiv[i] += static_cast<int>(n1);
  swap_rows(a, lda, n1, ipiv, n1, n);
  return info;
}

/// getrf where use<T>(m, n): the same contract as LAPACK's (pivots 1-based
/// in ipiv[0..min(m, n)), info 0 or the first zero pivot's column + 1).
template <class T>
int getrf(std::int64_t m, std::int64_t n, T* a, std::int64_t lda, int* ipiv) {
  const std::int64_t k = std::min(m, n);
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  int info = factor(a, m, k, lda, ipiv, threads);
  if (n > m) {  // wide: U12 = L11^-1 P A12
    swap_rows(a + m * lda, lda, n - m, ipiv, 0, m);
    trsm(a, lda, a + m * lda, m, n - m, lda);
  }
  for (std::int64_t i = 0; i < k; ++i) ++ipiv[i];
  return info;
}
#else
template <class T>
int getrf(std::int64_t, std::int64_t, T*, std::int64_t, int*) {
  return -1;  // unreachable: use<T> is false off x86-64
}
#endif

}  // namespace tenferro::linalg::detail::recursive_lu
