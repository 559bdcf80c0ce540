// Array kernels of Note [Vector exp]: SSE2 (always on x86-64), AVX2 and
// AVX-512 when the CPU has them (chosen at run time), a scalar loop elsewhere.
#include "vector_math.hpp"

#if defined(__x86_64__)
// GCC 12 warns about the intentionally undefined upper lanes inside its own
// AVX-512 cast intrinsics (-Wmaybe-uninitialized in avx512fintrin.h).
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace tenferro::cpu {
namespace {

#if defined(__x86_64__)

void exp_sse2(const double* x, double* y, std::int64_t n) {
  using namespace vexp;
  const __m128d lo = _mm_set1_pd(kLo), hi = _mm_set1_pd(kHi), log2e = _mm_set1_pd(kLog2e);
  const __m128d ln2hi = _mm_set1_pd(kLn2Hi), ln2lo = _mm_set1_pd(kLn2Lo), magic = _mm_set1_pd(kMagic);
  const __m128d half = _mm_set1_pd(0.5);
  const __m128i mbits = _mm_castpd_si128(magic), bias = _mm_set1_epi64x(1023);
  std::int64_t i = 0;
  for (; i + 2 <= n; i += 2) {
    __m128d v = _mm_loadu_pd(x + i);
    __m128d xc = _mm_min_pd(hi, _mm_max_pd(lo, v));
    __m128d t = _mm_add_pd(_mm_mul_pd(xc, log2e), magic);
    __m128d kd = _mm_sub_pd(t, magic);
    __m128d r = _mm_sub_pd(_mm_sub_pd(xc, _mm_mul_pd(kd, ln2hi)), _mm_mul_pd(kd, ln2lo));
    __m128d p = _mm_set1_pd(kC[0]);
    for (int c = 1; c < 14; ++c) p = _mm_add_pd(_mm_mul_pd(p, r), _mm_set1_pd(kC[c]));
    __m128d kd1 = _mm_sub_pd(_mm_add_pd(_mm_mul_pd(kd, half), magic), magic);
    __m128d kd2 = _mm_sub_pd(kd, kd1);
    __m128i k1 = _mm_sub_epi64(_mm_castpd_si128(_mm_add_pd(kd1, magic)), mbits);
    __m128i k2 = _mm_sub_epi64(_mm_castpd_si128(_mm_add_pd(kd2, magic)), mbits);
    __m128d s1 = _mm_castsi128_pd(_mm_slli_epi64(_mm_add_epi64(k1, bias), 52));
    __m128d s2 = _mm_castsi128_pd(_mm_slli_epi64(_mm_add_epi64(k2, bias), 52));
    _mm_storeu_pd(y + i, _mm_mul_pd(_mm_mul_pd(p, s1), s2));
  }
  for (; i < n; ++i) y[i] = exp_f64(x[i]);
}

__attribute__((target("avx2"))) void exp_avx2(const double* x, double* y, std::int64_t n) {
  using namespace vexp;
  const __m256d lo = _mm256_set1_pd(kLo), hi = _mm256_set1_pd(kHi), log2e = _mm256_set1_pd(kLog2e);
  const __m256d ln2hi = _mm256_set1_pd(kLn2Hi), ln2lo = _mm256_set1_pd(kLn2Lo), magic = _mm256_set1_pd(kMagic);
  const __m256d half = _mm256_set1_pd(0.5);
  const __m256i mbits = _mm256_castpd_si256(magic), bias = _mm256_set1_epi64x(1023);
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d v = _mm256_loadu_pd(x + i);
    __m256d xc = _mm256_min_pd(hi, _mm256_max_pd(lo, v));
    __m256d t = _mm256_add_pd(_mm256_mul_pd(xc, log2e), magic);
    __m256d kd = _mm256_sub_pd(t, magic);
    __m256d r = _mm256_sub_pd(_mm256_sub_pd(xc, _mm256_mul_pd(kd, ln2hi)), _mm256_mul_pd(kd, ln2lo));
    __m256d p = _mm256_set1_pd(kC[0]);
    for (int c = 1; c < 14; ++c) p = _mm256_add_pd(_mm256_mul_pd(p, r), _mm256_set1_pd(kC[c]));
    __m256d kd1 = _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(kd, half), magic), magic);
    __m256d kd2 = _mm256_sub_pd(kd, kd1);
    __m256i k1 = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(kd1, magic)), mbits);
    __m256i k2 = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(kd2, magic)), mbits);
    __m256d s1 = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(k1, bias), 52));
    __m256d s2 = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(k2, bias), 52));
    _mm256_storeu_pd(y + i, _mm256_mul_pd(_mm256_mul_pd(p, s1), s2));
  }
  exp_sse2(x + i, y + i, n - i);
}

__attribute__((target("avx512f"))) void exp_avx512(const double* x, double* y, std::int64_t n) {
  using namespace vexp;
  const __m512d lo = _mm512_set1_pd(kLo), hi = _mm512_set1_pd(kHi), log2e = _mm512_set1_pd(kLog2e);
  const __m512d ln2hi = _mm512_set1_pd(kLn2Hi), ln2lo = _mm512_set1_pd(kLn2Lo), magic = _mm512_set1_pd(kMagic);
  const __m512d half = _mm512_set1_pd(0.5);
  const __m512i mbits = _mm512_castpd_si512(magic), bias = _mm512_set1_epi64(1023);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m512d v = _mm512_loadu_pd(x + i);
    __m512d xc = _mm512_min_pd(hi, _mm512_max_pd(lo, v));
    __m512d t = _mm512_add_pd(_mm512_mul_pd(xc, log2e), magic);
    __m512d kd = _mm512_sub_pd(t, magic);
    __m512d r = _mm512_sub_pd(_mm512_sub_pd(xc, _mm512_mul_pd(kd, ln2hi)), _mm512_mul_pd(kd, ln2lo));
    __m512d p = _mm512_set1_pd(kC[0]);
    for (int c = 1; c < 14; ++c) p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(kC[c]));
    __m512d kd1 = _mm512_sub_pd(_mm512_add_pd(_mm512_mul_pd(kd, half), magic), magic);
    __m512d kd2 = _mm512_sub_pd(kd, kd1);
    __m512i k1 = _mm512_sub_epi64(_mm512_castpd_si512(_mm512_add_pd(kd1, magic)), mbits);
    __m512i k2 = _mm512_sub_epi64(_mm512_castpd_si512(_mm512_add_pd(kd2, magic)), mbits);
    __m512d s1 = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(k1, bias), 52));
    __m512d s2 = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(k2, bias), 52));
    _mm512_storeu_pd(y + i, _mm512_mul_pd(_mm512_mul_pd(p, s1), s2));
  }
  exp_avx2(x + i, y + i, n - i);
}

bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

template <int kMode, class T>
void round_loop(const T* x, T* y, std::int64_t n) {
  constexpr RoundMode m = static_cast<RoundMode>(kMode);
  for (std::int64_t i = 0; i < n; ++i) y[i] = round_scalar<m>(x[i]);
}

// Note [Vector rounding]: kMode is the immediate's rounding field (0 nearest
// even, 1 down, 2 up, 3 toward zero); 8 suppresses the inexact exception.
template <int kMode>
__attribute__((target("sse4.1"))) void round_sse41(const double* x, double* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 2 <= n; i += 2) _mm_storeu_pd(y + i, _mm_round_pd(_mm_loadu_pd(x + i), kMode | 8));
  round_loop<kMode>(x + i, y + i, n - i);
}
template <int kMode>
__attribute__((target("sse4.1"))) void round_sse41(const float* x, float* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, _mm_round_ps(_mm_loadu_ps(x + i), kMode | 8));
  round_loop<kMode>(x + i, y + i, n - i);
}
template <int kMode>
__attribute__((target("avx"))) void round_avx(const double* x, double* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(y + i, _mm256_round_pd(_mm256_loadu_pd(x + i), kMode | 8));
  round_loop<kMode>(x + i, y + i, n - i);
}
template <int kMode>
__attribute__((target("avx"))) void round_avx(const float* x, float* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_round_ps(_mm256_loadu_ps(x + i), kMode | 8));
  round_loop<kMode>(x + i, y + i, n - i);
}
template <int kMode>
__attribute__((target("avx512f"))) void round_avx512(const double* x, double* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm512_storeu_pd(y + i, _mm512_roundscale_pd(_mm512_loadu_pd(x + i), kMode | 8));
  round_loop<kMode>(x + i, y + i, n - i);
}
template <int kMode>
__attribute__((target("avx512f"))) void round_avx512(const float* x, float* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, _mm512_roundscale_ps(_mm512_loadu_ps(x + i), kMode | 8));
  round_loop<kMode>(x + i, y + i, n - i);
}

bool has_avx() {
  static const bool yes = __builtin_cpu_supports("avx");
  return yes;
}

bool has_sse41() {
  static const bool yes = __builtin_cpu_supports("sse4.1");
  return yes;
}

template <int kMode, class T>
void round_dispatch(const T* x, T* y, std::int64_t n) {
  if (has_avx512()) return round_avx512<kMode>(x, y, n);
  if (has_avx()) return round_avx<kMode>(x, y, n);
  if (has_sse41()) return round_sse41<kMode>(x, y, n);
  round_loop<kMode>(x, y, n);
}

#else

template <int kMode, class T>
void round_dispatch(const T* x, T* y, std::int64_t n) {
  constexpr RoundMode m = static_cast<RoundMode>(kMode);
  for (std::int64_t i = 0; i < n; ++i) y[i] = round_scalar<m>(x[i]);
}

#endif

template <class T>
void round_any(RoundMode mode, const T* x, T* y, std::int64_t n) {
  switch (mode) {
    case RoundMode::nearest_even: return round_dispatch<0>(x, y, n);
    case RoundMode::floor: return round_dispatch<1>(x, y, n);
    case RoundMode::ceil: return round_dispatch<2>(x, y, n);
    case RoundMode::trunc: return round_dispatch<3>(x, y, n);
  }
}

#if defined(__x86_64__)
// Note [Small column-major GEMM] (vector_math.hpp). V is one AVX2 register
// of W elements; the accumulators of a block are named so that they stay in
// registers.
template <class T>
__attribute__((target("avx2"))) void gemm_colmajor_avx2(std::int64_t m, std::int64_t n, std::int64_t k,
                                                        const T* a, std::int64_t lda, const T* b,
                                                        std::int64_t sbk, std::int64_t sbn, T* c,
                                                        std::int64_t ldc) {
  typedef T V __attribute__((vector_size(32), aligned(sizeof(T))));
  constexpr std::int64_t W = 32 / sizeof(T);
  std::int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const T* b0 = b + j * sbn;
    const T* b1 = b0 + sbn;
    const T* b2 = b1 + sbn;
    const T* b3 = b2 + sbn;
    T* c0 = c + j * ldc;
    std::int64_t i = 0;
    for (; i + 2 * W <= m; i += 2 * W) {
      V x00 = {}, x01 = {}, x10 = {}, x11 = {}, x20 = {}, x21 = {}, x30 = {}, x31 = {};
      for (std::int64_t p = 0; p < k; ++p) {
        const V a0 = *reinterpret_cast<const V*>(a + i + p * lda);
        const V a1 = *reinterpret_cast<const V*>(a + i + W + p * lda);
        const T s0 = b0[p * sbk], s1 = b1[p * sbk], s2 = b2[p * sbk], s3 = b3[p * sbk];
        x00 = x00 + a0 * s0;
        x01 = x01 + a1 * s0;
        x10 = x10 + a0 * s1;
        x11 = x11 + a1 * s1;
        x20 = x20 + a0 * s2;
        x21 = x21 + a1 * s2;
        x30 = x30 + a0 * s3;
        x31 = x31 + a1 * s3;
      }
      *reinterpret_cast<V*>(c0 + i) = x00;
      *reinterpret_cast<V*>(c0 + i + W) = x01;
      *reinterpret_cast<V*>(c0 + ldc + i) = x10;
      *reinterpret_cast<V*>(c0 + ldc + i + W) = x11;
      *reinterpret_cast<V*>(c0 + 2 * ldc + i) = x20;
      *reinterpret_cast<V*>(c0 + 2 * ldc + i + W) = x21;
      *reinterpret_cast<V*>(c0 + 3 * ldc + i) = x30;
      *reinterpret_cast<V*>(c0 + 3 * ldc + i + W) = x31;
    }
    for (; i + W <= m; i += W) {
      V x0 = {}, x1 = {}, x2 = {}, x3 = {};
      for (std::int64_t p = 0; p < k; ++p) {
        const V a0 = *reinterpret_cast<const V*>(a + i + p * lda);
        x0 = x0 + a0 * b0[p * sbk];
        x1 = x1 + a0 * b1[p * sbk];
        x2 = x2 + a0 * b2[p * sbk];
        x3 = x3 + a0 * b3[p * sbk];
      }
      *reinterpret_cast<V*>(c0 + i) = x0;
      *reinterpret_cast<V*>(c0 + ldc + i) = x1;
      *reinterpret_cast<V*>(c0 + 2 * ldc + i) = x2;
      *reinterpret_cast<V*>(c0 + 3 * ldc + i) = x3;
    }
    for (; i < m; ++i) {
      T x0 = 0, x1 = 0, x2 = 0, x3 = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        const T ai = a[i + p * lda];
        x0 = x0 + ai * b0[p * sbk];
        x1 = x1 + ai * b1[p * sbk];
        x2 = x2 + ai * b2[p * sbk];
        x3 = x3 + ai * b3[p * sbk];
      }
      c0[i] = x0;
      c0[ldc + i] = x1;
      c0[2 * ldc + i] = x2;
      c0[3 * ldc + i] = x3;
    }
  }
  for (; j < n; ++j) {
    const T* b0 = b + j * sbn;
    T* c0 = c + j * ldc;
    std::int64_t i = 0;
    for (; i + W <= m; i += W) {
      V x0 = {};
      for (std::int64_t p = 0; p < k; ++p) x0 = x0 + *reinterpret_cast<const V*>(a + i + p * lda) * b0[p * sbk];
      *reinterpret_cast<V*>(c0 + i) = x0;
    }
    for (; i < m; ++i) {
      T x0 = 0;
      for (std::int64_t p = 0; p < k; ++p) x0 = x0 + a[i + p * lda] * b0[p * sbk];
      c0[i] = x0;
    }
  }
}
#endif

// gemm_colmajor for either element type: the AVX2 kernel, or false.
template <class T>
bool gemm_colmajor_any(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda, const T* b,
                       std::int64_t sbk, std::int64_t sbn, T* c, std::int64_t ldc) {
#if defined(__x86_64__)
  if (!has_avx2()) return false;
  gemm_colmajor_avx2(m, n, k, a, lda, b, sbk, sbn, c, ldc);
  return true;
#else
  return false;
#endif
}

#if defined(__x86_64__)
// Note [FMA GEMM] (vector_math.hpp). Lanes of one 512-bit register, with
// the intrinsics the kernel needs; every function is compiled for AVX-512F
// and FMA and always inlined into the kernel, so no vector crosses a call.
#define TF_AVX512_FMA __attribute__((target("avx512f,fma"), always_inline)) static inline
template <class T>
struct Zmm;
template <>
struct Zmm<double> {
  using V = __m512d;
  using Mask = __mmask8;
  static constexpr std::int64_t W = 8;
  TF_AVX512_FMA V zero() { return _mm512_setzero_pd(); }
  TF_AVX512_FMA V load(const double* p) { return _mm512_loadu_pd(p); }
  TF_AVX512_FMA V load(const double* p, Mask m) { return _mm512_maskz_loadu_pd(m, p); }
  TF_AVX512_FMA void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  TF_AVX512_FMA void store(double* p, V v, Mask m) { _mm512_mask_storeu_pd(p, m, v); }
  TF_AVX512_FMA V fma(V a, double s, V c) { return _mm512_fmadd_pd(a, _mm512_set1_pd(s), c); }
};
template <>
struct Zmm<float> {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr std::int64_t W = 16;
  TF_AVX512_FMA V zero() { return _mm512_setzero_ps(); }
  TF_AVX512_FMA V load(const float* p) { return _mm512_loadu_ps(p); }
  TF_AVX512_FMA V load(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  TF_AVX512_FMA void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  TF_AVX512_FMA void store(float* p, V v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
  TF_AVX512_FMA V fma(V a, float s, V c) { return _mm512_fmadd_ps(a, _mm512_set1_ps(s), c); }
};

// One block of C: MR registers of rows (the last one masked by `tail`)
// by NR columns, summed over p in order with one FMA per term.
template <class T, int MR, int NR>
TF_AVX512_FMA void fma_block(std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t sbk,
                             std::int64_t sbn, T* c, std::int64_t ldc, typename Zmm<T>::Mask tail) {
  using Z = Zmm<T>;
  typename Z::V acc[MR][NR];
#pragma GCC unroll 16
  for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
    for (int r = 0; r < MR; ++r) acc[r][j] = Z::zero();
  for (std::int64_t p = 0; p < k; ++p) {
    typename Z::V av[MR];
#pragma GCC unroll 4
    for (int r = 0; r < MR; ++r)
      av[r] = r + 1 < MR ? Z::load(a + r * Z::W + p * lda) : Z::load(a + r * Z::W + p * lda, tail);
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
      const T s = b[p * sbk + j * sbn];
#pragma GCC unroll 4
      for (int r = 0; r < MR; ++r) acc[r][j] = Z::fma(av[r], s, acc[r][j]);
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
    for (int r = 0; r < MR; ++r) {
      if (r + 1 < MR) Z::store(c + r * Z::W + j * ldc, acc[r][j]);
      else Z::store(c + r * Z::W + j * ldc, acc[r][j], tail);
    }
}

// Rows [0, MR W) of C (the last register masked by `tail`), every column:
// blocks of kFmaCols columns, then one narrower block.
constexpr int kFmaCols = 8;
template <class T, int MR>
__attribute__((target("avx512f,fma"))) void fma_rows(std::int64_t n, std::int64_t k, const T* a, std::int64_t lda,
                                                     const T* b, std::int64_t sbk, std::int64_t sbn, T* c,
                                                     std::int64_t ldc, typename Zmm<T>::Mask tail) {
  std::int64_t j = 0;
  for (; j + kFmaCols <= n; j += kFmaCols) fma_block<T, MR, kFmaCols>(k, a, lda, b + j * sbn, sbk, sbn, c + j * ldc, ldc, tail);
  const T* bj = b + j * sbn;
  T* cj = c + j * ldc;
  switch (n - j) {
    case 7: fma_block<T, MR, 7>(k, a, lda, bj, sbk, sbn, cj, ldc, tail); break;
    case 6: fma_block<T, MR, 6>(k, a, lda, bj, sbk, sbn, cj, ldc, tail); break;
    case 5: fma_block<T, MR, 5>(k, a, lda, bj, sbk, sbn, cj, ldc, tail); break;
    case 4: fma_block<T, MR, 4>(k, a, lda, bj, sbk, sbn, cj, ldc, tail); break;
    case 3: fma_block<T, MR, 3>(k, a, lda, bj, sbk, sbn, cj, ldc, tail); break;
    case 2: fma_block<T, MR, 2>(k, a, lda, bj, sbk, sbn, cj, ldc, tail); break;
    case 1: fma_block<T, MR, 1>(k, a, lda, bj, sbk, sbn, cj, ldc, tail); break;
    default: break;
  }
}

// Panels of 3 registers of rows (24 doubles or 48 floats) by 8 columns:
// 24 accumulators, 3 row loads and 8 broadcasts per step of p; the A panel
// stays in L1 while B's columns go by. The last rows take 1-3 registers, the
// last one masked.
template <class T>
void gemm_fma_avx512(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda, const T* b,
                     std::int64_t sbk, std::int64_t sbn, T* c, std::int64_t ldc) {
  using Z = Zmm<T>;
  using Mask = typename Z::Mask;
  const Mask all = static_cast<Mask>(~Mask{0});
  std::int64_t i = 0;
  for (; i + 3 * Z::W <= m; i += 3 * Z::W) fma_rows<T, 3>(n, k, a + i, lda, b, sbk, sbn, c + i, ldc, all);
  const std::int64_t rest = m - i;
  if (rest == 0) return;
  const std::int64_t regs = (rest + Z::W - 1) / Z::W;
  const std::int64_t last = rest - (regs - 1) * Z::W;  // rows in the last register, 1..W
  const Mask tail = static_cast<Mask>(last == Z::W ? all : static_cast<Mask>((Mask{1} << last) - 1));
  if (regs == 3) fma_rows<T, 3>(n, k, a + i, lda, b, sbk, sbn, c + i, ldc, tail);
  else if (regs == 2) fma_rows<T, 2>(n, k, a + i, lda, b, sbk, sbn, c + i, ldc, tail);
  else fma_rows<T, 1>(n, k, a + i, lda, b, sbk, sbn, c + i, ldc, tail);
}
#undef TF_AVX512_FMA
#endif

#if defined(__x86_64__)
// Note [Vector arithmetic]: the loop is written on GCC/Clang vector types of
// `Bytes` bytes and always inlined into the AVX2 function, which compiles it
// to its registers; no vector crosses a call. SA and SB are the operands'
// strides (1, or 0 for a broadcast scalar); two vectors per step.
template <Arith A, class T, int Bytes, int SA, int SB>
__attribute__((always_inline)) inline void arith_vec(const T* a, const T* b, T* o, std::int64_t n) {
  typedef T V __attribute__((vector_size(Bytes), aligned(sizeof(T)), may_alias));
  constexpr std::int64_t W = Bytes / static_cast<std::int64_t>(sizeof(T));
  if (n <= 0) return;
  V as{}, bs{};  // the broadcast forms, read only for a broadcast operand
  if constexpr (SA == 0) as = V{} + *a;
  if constexpr (SB == 0) bs = V{} + *b;
  std::int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    V x[2], y[2], r[2];
    for (int u = 0; u < 2; ++u) {
      x[u] = SA == 1 ? *reinterpret_cast<const V*>(a + i + u * W) : as;
      y[u] = SB == 1 ? *reinterpret_cast<const V*>(b + i + u * W) : bs;
      if constexpr (A == Arith::add) r[u] = x[u] + y[u];
      else if constexpr (A == Arith::subtract) r[u] = x[u] - y[u];
      else if constexpr (A == Arith::multiply) r[u] = x[u] * y[u];
      else r[u] = x[u] / y[u];
    }
    *reinterpret_cast<V*>(o + i) = r[0];
    *reinterpret_cast<V*>(o + i + W) = r[1];
  }
  for (; i < n; ++i) o[i] = arith_scalar<A>(a[i * SA], b[i * SB]);
}

template <Arith A, class T>
__attribute__((target("avx2"))) void arith_avx2(const T* a, std::int64_t sa, const T* b, std::int64_t sb, T* o,
                                                std::int64_t n) {
  if (sa == 1 && sb == 1) arith_vec<A, T, 32, 1, 1>(a, b, o, n);
  else if (sa == 1) arith_vec<A, T, 32, 1, 0>(a, b, o, n);
  else arith_vec<A, T, 32, 0, 1>(a, b, o, n);
}
#endif

template <Arith A, class T>
void arith_dispatch(const T* a, std::int64_t sa, const T* b, std::int64_t sb, T* o, std::int64_t n) {
#if defined(__x86_64__)
  if (has_avx2()) return arith_avx2<A>(a, sa, b, sb, o, n);
#endif
  for (std::int64_t i = 0; i < n; ++i) o[i] = arith_scalar<A>(a[i * sa], b[i * sb]);
}

template <class T>
void arith_any(Arith op, const T* a, std::int64_t sa, const T* b, std::int64_t sb, T* o, std::int64_t n) {
  switch (op) {
    case Arith::add: return arith_dispatch<Arith::add>(a, sa, b, sb, o, n);
    case Arith::subtract: return arith_dispatch<Arith::subtract>(a, sa, b, sb, o, n);
    case Arith::multiply: return arith_dispatch<Arith::multiply>(a, sa, b, sb, o, n);
    case Arith::divide: return arith_dispatch<Arith::divide>(a, sa, b, sb, o, n);
  }
}

}  // namespace

bool has_gemm_colmajor() {
#if defined(__x86_64__)
  return has_avx2();
#else
  return false;
#endif
}

bool gemm_colmajor(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda,
                   const double* b, std::int64_t sbk, std::int64_t sbn, double* c, std::int64_t ldc) {
  return gemm_colmajor_any(m, n, k, a, lda, b, sbk, sbn, c, ldc);
}

bool gemm_colmajor(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                   const float* b, std::int64_t sbk, std::int64_t sbn, float* c, std::int64_t ldc) {
  return gemm_colmajor_any(m, n, k, a, lda, b, sbk, sbn, c, ldc);
}

bool has_gemm_fma() {
#if defined(__x86_64__)
  static const bool yes = has_avx512() && __builtin_cpu_supports("fma");
  return yes;
#else
  return false;
#endif
}

namespace {
template <class T>
bool gemm_fma_any(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda, const T* b,
                  std::int64_t sbk, std::int64_t sbn, T* c, std::int64_t ldc) {
#if defined(__x86_64__)
  if (!has_gemm_fma()) return false;
  gemm_fma_avx512(m, n, k, a, lda, b, sbk, sbn, c, ldc);
  return true;
#else
  (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)sbk, (void)sbn, (void)c, (void)ldc;
  return false;
#endif
}
}  // namespace

bool gemm_fma(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda, const double* b,
              std::int64_t sbk, std::int64_t sbn, double* c, std::int64_t ldc) {
  return gemm_fma_any(m, n, k, a, lda, b, sbk, sbn, c, ldc);
}

bool gemm_fma(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda, const float* b,
              std::int64_t sbk, std::int64_t sbn, float* c, std::int64_t ldc) {
  return gemm_fma_any(m, n, k, a, lda, b, sbk, sbn, c, ldc);
}

void arith_array(Arith op, const double* a, std::int64_t sa, const double* b, std::int64_t sb, double* o,
                 std::int64_t n) {
  arith_any(op, a, sa, b, sb, o, n);
}
void arith_array(Arith op, const float* a, std::int64_t sa, const float* b, std::int64_t sb, float* o,
                 std::int64_t n) {
  arith_any(op, a, sa, b, sb, o, n);
}

void round_array(RoundMode mode, const double* x, double* y, std::int64_t n) { round_any(mode, x, y, n); }
void round_array(RoundMode mode, const float* x, float* y, std::int64_t n) { round_any(mode, x, y, n); }

void exp_array(const double* x, double* y, std::int64_t n) {
#if defined(__x86_64__)
  if (has_avx512()) return exp_avx512(x, y, n);
  if (has_avx2()) return exp_avx2(x, y, n);
  return exp_sse2(x, y, n);
#else
  for (std::int64_t i = 0; i < n; ++i) y[i] = exp_f64(x[i]);
#endif
}

void exp_array(const float* x, float* y, std::int64_t n) {
  double buf[256];
  for (std::int64_t i = 0; i < n; i += 256) {
    std::int64_t m = std::min<std::int64_t>(256, n - i);
    for (std::int64_t j = 0; j < m; ++j) buf[j] = static_cast<double>(x[i + j]);
    exp_array(buf, buf, m);
    for (std::int64_t j = 0; j < m; ++j) y[i + j] = static_cast<float>(buf[j]);
  }
}

}  // namespace tenferro::cpu

#if defined(__x86_64__)
#pragma GCC diagnostic pop
#endif
