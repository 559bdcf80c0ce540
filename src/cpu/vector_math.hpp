#pragma once
// Vectorised real exp for the CPU kernels.
//
// Note [Vector exp]: exp(x) = 2^k exp(r) with k = round(x / ln 2) and
// r = x - k ln 2 (Cody-Waite split of ln 2), |r| <= ln(2)/2, exp(r) by its
// Taylor polynomial to degree 13 (truncation below 1e-17), and 2^k applied
// as two exact powers of two so that overflow gives inf and the subnormal
// range is reached. Max error 1 ulp against glibc over [-745, 709.7]; NaN,
// +-inf, overflow and underflow behave like std::exp. The scalar function
// and the SSE2/AVX2 array kernels perform the same IEEE operations in the
// same order (no FMA), so every layout and every fused or unfused program
// gives bit-identical results.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "../ops/special_math.hpp"

namespace tenferro::cpu {

namespace vexp {
inline constexpr double kLog2e = 1.4426950408889634074;
inline constexpr double kLn2Hi = 6.93147180369123816490e-01;
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;
inline constexpr double kMagic = 6755399441055744.0;  // 1.5 * 2^52: rounds to an integer in the low bits
inline constexpr double kHi = 710.0, kLo = -746.0;
inline constexpr double kC[14] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                                  1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,      1.0 / 720.0,
                                  1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0,         0.5,
                                  1.0,                1.0};
}  // namespace vexp

inline double exp_f64(double x) {
  using namespace vexp;
  // max(lo, x) and min(hi, .) in this operand order keep NaN (as maxpd/minpd do).
  double xc = x < kLo ? kLo : x;
  xc = kHi < xc ? kHi : xc;
  double t = xc * kLog2e + kMagic;
  double kd = t - kMagic;
  double r = (xc - kd * kLn2Hi) - kd * kLn2Lo;
  double p = kC[0];
  for (int i = 1; i < 14; ++i) p = p * r + kC[i];
  double kd1 = (kd * 0.5 + kMagic) - kMagic;
  double kd2 = kd - kd1;
  std::int64_t k1 = std::bit_cast<std::int64_t>(kd1 + kMagic) - std::bit_cast<std::int64_t>(kMagic);
  std::int64_t k2 = std::bit_cast<std::int64_t>(kd2 + kMagic) - std::bit_cast<std::int64_t>(kMagic);
  double s1 = std::bit_cast<double>(static_cast<std::int64_t>(static_cast<std::uint64_t>(k1 + 1023) << 52));
  double s2 = std::bit_cast<double>(static_cast<std::int64_t>(static_cast<std::uint64_t>(k2 + 1023) << 52));
  return p * s1 * s2;
}

/// exp in float: the double kernel, rounded once.
inline float exp_f32(float x) { return static_cast<float>(exp_f64(static_cast<double>(x))); }

/// y[i] = exp(x[i]) (identical to exp_f64 element by element).
void exp_array(const double* x, double* y, std::int64_t n);
void exp_array(const float* x, float* y, std::int64_t n);

/// The real exp as a functor with an array form, for the elementwise kernels.
template <class T>
struct RealExp {
  T operator()(T x) const {
    if constexpr (std::is_same_v<T, float>) return exp_f32(x);
    else return exp_f64(x);
  }
  static void array(const T* x, T* y, std::int64_t n) { exp_array(x, y, n); }
};

// Note [Vector rounding]: floor, ceil, trunc and round-half-even are exact
// functions; the array kernels use the rounding instruction of SSE4.1, AVX or
// AVX-512 (roundpd / vroundpd / vrndscalepd with the mode in the immediate,
// independent of MXCSR), chosen at run time, and a scalar loop otherwise.
// Every path gives the same bits (signed zeros, inf and NaN included).
enum class RoundMode : int { nearest_even = 0, floor = 1, ceil = 2, trunc = 3 };

/// y[i] = x[i] rounded by `mode`.
void round_array(RoundMode mode, const double* x, double* y, std::int64_t n);
void round_array(RoundMode mode, const float* x, float* y, std::int64_t n);

/// The scalar rounding of `mode` (what round_array computes per element).
template <RoundMode M, class T>
T round_scalar(T x) {
  if constexpr (M == RoundMode::floor) return std::floor(x);
  else if constexpr (M == RoundMode::ceil) return std::ceil(x);
  else if constexpr (M == RoundMode::trunc) return std::trunc(x);
  else return math::round_half_even(x);
}

/// A rounding op as a functor with an array form, for the elementwise kernels.
template <class T, RoundMode M>
struct RealRound {
  T operator()(T x) const { return round_scalar<M>(x); }
  static void array(const T* x, T* y, std::int64_t n) { round_array(M, x, y, n); }
};

// Note [Vector arithmetic]: add, subtract, multiply and divide of float and
// double arrays, each operand contiguous or a broadcast scalar (stride 1 or
// 0), the innermost runs of the elementwise kernels. The compiler's baseline
// for x86-64 is SSE2, whose 16-byte stores bound these loops when the output
// is larger than L2: the 8 MiB batched outer product of bench/peer,
// C[j,k,o,t] = A[j,k,t] B[o,t], took 0.30 ms with them and 0.11 ms with the
// 32-byte stores of AVX2 (one core of an AMD EPYC with AVX-512). So the
// kernels use AVX2 where the CPU has it (chosen at run time) and a scalar
// loop elsewhere. AVX-512 was no faster on that product (a standalone loop:
// 0.089 vs 0.087 ms) and slower on products streamed from memory (2048^2
// f64 multiply: 4.5-5.5 vs 3.7-4.0 ms). Each lane is one IEEE operation
// (no FMA), so every path gives the scalar loop's bits.
enum class Arith : int { add, subtract, multiply, divide };

/// The scalar operation (what arith_array computes per element).
template <Arith A, class T>
T arith_scalar(T x, T y) {
  if constexpr (A == Arith::add) return x + y;
  else if constexpr (A == Arith::subtract) return x - y;
  else if constexpr (A == Arith::multiply) return x * y;
  else return x / y;
}

/// o[i] = a[i sa] op b[i sb] for i < n, with sa and sb each 0 or 1, not both 0.
void arith_array(Arith op, const double* a, std::int64_t sa, const double* b, std::int64_t sb, double* o,
                 std::int64_t n);
void arith_array(Arith op, const float* a, std::int64_t sa, const float* b, std::int64_t sb, float* o,
                 std::int64_t n);

/// An arithmetic op as a functor with an array form, for the elementwise kernels.
template <class T, Arith A>
struct RealArith {
  T operator()(T x, T y) const { return arith_scalar<A>(x, y); }
  static void array2(const T* a, std::int64_t sa, const T* b, std::int64_t sb, T* o, std::int64_t n) {
    arith_array(A, a, sa, b, sb, o, n);
  }
};

// Note [Small column-major GEMM]: C = A B for operands that fit the cache,
// with A and C column-major (unit row stride) and B of any strides: blocks of
// 8 (double) or 16 (float) rows by 4 columns of C are held in AVX2 registers
// while p runs over k, so A and B are read once per block and C is written
// once. Each element is the sum 0 + A(i,0) B(0,j) + A(i,1) B(1,j) + ... in
// the order of p with a rounded product and a rounded sum per term (no FMA),
// exactly what the scalar column update computes: every path gives the same
// bits.

/// Whether gemm_colmajor runs here (the CPU has AVX2).
bool has_gemm_colmajor();

/// c[i + j ldc] = sum_p a[i + p lda] b[p sbk + j sbn] for i < m, j < n.
/// Returns false (nothing written) where the CPU lacks AVX2.
bool gemm_colmajor(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda,
                   const double* b, std::int64_t sbk, std::int64_t sbn, double* c, std::int64_t ldc);
bool gemm_colmajor(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                   const float* b, std::int64_t sbk, std::int64_t sbn, float* c, std::int64_t ldc);

// Note [FMA GEMM]: C = A B for products small enough that packing operands
// costs more than it saves (dot_general uses it up to kFmaGemmWork
// multiply-adds), with A and C column-major and B of any strides, on
// AVX-512F with FMA: panels of 24 rows (double) or 48 (float) by 8 columns
// of C held in 24 registers while p runs over k, one FMA per term in the
// order of p (as BLAS kernels sum), masked loads and stores for the last
// rows. Unlike Note [Small column-major GEMM] it does not reproduce the
// scalar loop's bits. Measured (32 products of 128 x 128 x 128, one pinned
// core, 2-vCPU AMD EPYC with AVX-512, standalone): 2.9-3.4 ms against
// OpenBLAS 0.3.21's 3.6-4.2 ms, whose packing of both operands is a fifth
// of its time there.

/// Whether gemm_fma runs here (the CPU has AVX-512F and FMA).
bool has_gemm_fma();

/// c[i + j ldc] = sum_p a[i + p lda] b[p sbk + j sbn] for i < m, j < n.
/// Returns false (nothing written) where the CPU lacks AVX-512F or FMA.
bool gemm_fma(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda, const double* b,
              std::int64_t sbk, std::int64_t sbn, double* c, std::int64_t ldc);
bool gemm_fma(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda, const float* b,
              std::int64_t sbk, std::int64_t sbn, float* c, std::int64_t ldc);

}  // namespace tenferro::cpu
