#pragma once
/// \file
/// User-facing tensor functions on `Tensor` (eager, on an explicit backend):
/// broadcasting arithmetic, comparisons, where, clamp, elementwise math,
/// matmul, reductions, norm, trace. Each lowers to primitives
/// (tenferro/ops/primitives.hpp) with explicit `broadcast_in_dim` and
/// `convert`. The same functions, under the same names and with the same
/// promotion rules, exist for `EagerTensor` and `TracedTensor`
/// (tenferro/runtime/tensor_handle.hpp) and for graph values (`vops::`): all
/// of them are one implementation (src/ops/op_layer.hpp); docs/ops_surface.md
/// lists the surface.
///
/// ```cpp
/// using namespace tenferro;
/// CpuBackend cpu;
/// auto x = Tensor::from_vec_col_major<double>({3, 1}, {1, 2, 3});
/// auto y = Tensor::from_vec_col_major<float>({1, 2}, {10, 20});
/// Tensor z = add(x, y, cpu);         // f64 [3, 2]: x broadcast along axis 1, y along 0
/// Tensor m = mean(z, {0}, cpu);      // f64 [2]: 12, 22
/// Tensor big = gt(z, Scalar(15.0), cpu);   // bool [3, 2]
/// Tensor w = where(big, z, x, cpu);  // f64 [3, 2]
/// ```
/// Broadcasting follows NumPy: shapes are aligned at their trailing axes,
/// and an axis of extent 1 (or a missing leading axis) stretches to match.
/// dtypes promote along bool < integers < floats < complex (promote_types).
/// A Scalar operand takes the tensor's dtype, except that a float Scalar
/// next to an integer or bool tensor gives the Scalar's float dtype
/// (`i32 * 2.0f` is f32, `i32 * 2.0` is f64), and a complex Scalar makes a
/// real tensor complex. Reduction axes may be negative (counted from the end).
/// `TypedTensor<T>` operands get typed results (overloads at the end).

#include <cstdint>
#include <utility>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/dim.hpp"
#include "tenferro/tensor/tensor.hpp"
#include "tenferro/tensor/typed_tensor.hpp"

namespace tenferro {

/// NumPy broadcast of two shapes; ShapeError naming `op` when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op = "broadcast_shapes");
/// The same over symbolic extents: an axis broadcasts when one side is the
/// constant 1; otherwise both extents must be the same expression.
SymShape broadcast_sym_shapes(const SymShape& a, const SymShape& b, const char* op = "broadcast_shapes");

// ---- binary arithmetic (broadcast and promote) -------------------------------------
Tensor add(const Tensor& a, const Tensor& b, Backend& backend);
Tensor sub(const Tensor& a, const Tensor& b, Backend& backend);
Tensor mul(const Tensor& a, const Tensor& b, Backend& backend);
Tensor div(const Tensor& a, const Tensor& b, Backend& backend);
Tensor pow(const Tensor& a, const Tensor& b, Backend& backend);
Tensor maximum(const Tensor& a, const Tensor& b, Backend& backend);
Tensor minimum(const Tensor& a, const Tensor& b, Backend& backend);
/// Arithmetic with a Scalar operand (dtype rule in the file comment).
Tensor add(const Tensor& a, Scalar b, Backend& backend);
Tensor sub(const Tensor& a, Scalar b, Backend& backend);
Tensor mul(const Tensor& a, Scalar b, Backend& backend);
Tensor div(const Tensor& a, Scalar b, Backend& backend);
Tensor pow(const Tensor& a, Scalar b, Backend& backend);
Tensor maximum(const Tensor& a, Scalar b, Backend& backend);
Tensor minimum(const Tensor& a, Scalar b, Backend& backend);
/// `a - b` and `a / b` with the Scalar on the left.
Tensor sub(Scalar a, const Tensor& b, Backend& backend);
Tensor div(Scalar a, const Tensor& b, Backend& backend);
/// re + i im (real operands; promoted to one dtype).
Tensor complex(const Tensor& re, const Tensor& im, Backend& backend);

// ---- comparisons (broadcast and promote; bool result) ------------------------------
Tensor compare(const Tensor& a, const Tensor& b, ComparisonDirection direction, Backend& backend);
Tensor compare(const Tensor& a, Scalar b, ComparisonDirection direction, Backend& backend);
Tensor eq(const Tensor& a, const Tensor& b, Backend& backend);
Tensor ne(const Tensor& a, const Tensor& b, Backend& backend);
Tensor lt(const Tensor& a, const Tensor& b, Backend& backend);
Tensor le(const Tensor& a, const Tensor& b, Backend& backend);
Tensor gt(const Tensor& a, const Tensor& b, Backend& backend);
Tensor ge(const Tensor& a, const Tensor& b, Backend& backend);
Tensor eq(const Tensor& a, Scalar b, Backend& backend);
Tensor ne(const Tensor& a, Scalar b, Backend& backend);
Tensor lt(const Tensor& a, Scalar b, Backend& backend);
Tensor le(const Tensor& a, Scalar b, Backend& backend);
Tensor gt(const Tensor& a, Scalar b, Backend& backend);
Tensor ge(const Tensor& a, Scalar b, Backend& backend);

/// select with broadcasting: `cond ? a : b` elementwise (`cond` bool).
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, Backend& backend);
/// clamp(lo, x, hi) (StableHLO argument order): bounds take x's dtype and are
/// rank 0 or broadcast to x's shape.
Tensor clamp(const Tensor& lo, const Tensor& x, const Tensor& hi, Backend& backend);
Tensor clamp(Scalar lo, const Tensor& x, Scalar hi, Backend& backend);

// ---- elementwise unary (exp .. log1p turn integers and bool into f64) -------------
Tensor neg(const Tensor& a, Backend& backend);
Tensor square(const Tensor& a, Backend& backend);
Tensor abs(const Tensor& a, Backend& backend);
Tensor sign(const Tensor& a, Backend& backend);
Tensor exp(const Tensor& a, Backend& backend);
Tensor log(const Tensor& a, Backend& backend);
Tensor sin(const Tensor& a, Backend& backend);
Tensor cos(const Tensor& a, Backend& backend);
Tensor tanh(const Tensor& a, Backend& backend);
Tensor sqrt(const Tensor& a, Backend& backend);
Tensor rsqrt(const Tensor& a, Backend& backend);
Tensor expm1(const Tensor& a, Backend& backend);
Tensor log1p(const Tensor& a, Backend& backend);
/// Identity for real tensors.
Tensor conj(const Tensor& a, Backend& backend);
/// Real part (real tensors: themselves).
Tensor real(const Tensor& a, Backend& backend);
/// Imaginary part (real tensors: zeros).
Tensor imag(const Tensor& a, Backend& backend);
/// Elementwise "neither infinite nor NaN" (float dtypes), bool.
Tensor is_finite(const Tensor& a, Backend& backend);
/// Converts to `dtype` (the same tensor when it already has it).
Tensor convert(const Tensor& a, DType dtype, Backend& backend);

// ---- rounding, remainders, binary exponents (docs/special_functions.md) ------------
/// Rounding toward -inf, +inf and zero, and to nearest with ties to even
/// (`round`). Real floats; integers and bool come back unchanged; complex is
/// a DTypeError. The derivative is zero (Note [Rounding derivatives]).
/// ```cpp
/// auto x = Tensor::from_vec_col_major<double>({4}, {-1.5, -0.5, 0.5, 2.5});
/// floor(x, cpu);   // -2, -1, 0, 2
/// round(x, cpu);   // -2, -0, 0, 2 (ties to even)
/// round(Tensor::scalar(1.2345), 2, cpu);   // 1.23
/// ```
Tensor floor(const Tensor& a, Backend& backend);
Tensor ceil(const Tensor& a, Backend& backend);
Tensor trunc(const Tensor& a, Backend& backend);
Tensor round(const Tensor& a, Backend& backend);
/// Half to even at 10^-decimals: round(a 10^decimals) / 10^decimals
/// (decimals in [-308, 308], else ValueError).
Tensor round(const Tensor& a, std::int64_t decimals, Backend& backend);
/// fmod(a, b) = a - trunc(a / b) b (C fmod: the sign of a); remainder(a, b)
/// = a - floor(a / b) b (Python and NumPy `%`: the sign of b); ldexp(a, b) =
/// a 2^b. Operands broadcast and promote; integer and bool results are
/// computed in f64. Derivatives: d fmod = da - trunc(a / b) db, d remainder
/// = da - floor(a / b) db, d ldexp = 2^b da + ln(2) a 2^b db.
/// ```cpp
/// auto a = Tensor::from_vec_col_major<double>({2}, {-7, 7});
/// fmod(a, Scalar(3.0), cpu);        // -1, 1
/// remainder(a, Scalar(3.0), cpu);   // 2, 1
/// ldexp(a, Scalar(2), cpu);         // -28, 28
/// ```
Tensor fmod(const Tensor& a, const Tensor& b, Backend& backend);
Tensor remainder(const Tensor& a, const Tensor& b, Backend& backend);
Tensor ldexp(const Tensor& a, const Tensor& b, Backend& backend);
Tensor fmod(const Tensor& a, Scalar b, Backend& backend);
Tensor remainder(const Tensor& a, Scalar b, Backend& backend);
Tensor ldexp(const Tensor& a, Scalar b, Backend& backend);
/// (mantissa, exponent) with a = mantissa 2^exponent, 0.5 <= |mantissa| < 1
/// and an i32 exponent; zero, inf and NaN give (a, 0). Integers become f64.
/// ```cpp
/// auto [m, k] = frexp(Tensor::scalar(12.0), cpu);   // 0.75, 4
/// ```
std::pair<Tensor, Tensor> frexp(const Tensor& a, Backend& backend);

// ---- special functions (real floats; docs/special_functions.md) --------------------
/// Integers and bool become f64; complex operands are a DTypeError. Each has
/// its derivative rule (higher orders too), and its accuracy against SciPy
/// is measured (docs/special_functions.md).
/// ```cpp
/// auto x = Tensor::from_vec_col_major<double>({3}, {-1.0, 0.5, 2.0});
/// erf(x, cpu);              // -0.8427, 0.5205, 0.9953
/// lgamma(x, cpu);           // inf, 0.5724, 0
/// polygamma(1, x, cpu);     // trigamma: inf, 4.9348, 0.6449
/// ndtri(ndtr(x, cpu), cpu); // x again
/// mvlgamma(x, 2, cpu);      // NaN, NaN, 0.4516 (NaN where x <= (p - 1)/2)
/// ```
/// erf, erfc, erfinv (the inverse of erf on [-1, 1]), erfcx(x) = exp(x^2) erfc(x).
Tensor erf(const Tensor& a, Backend& backend);
Tensor erfc(const Tensor& a, Backend& backend);
Tensor erfinv(const Tensor& a, Backend& backend);
Tensor erfcx(const Tensor& a, Backend& backend);
/// log |Gamma(x)|, digamma psi(x) = d/dx lgamma(x) (0 gives -inf, negative
/// integers NaN), polygamma(n, x) = d^n/dx^n psi(x) (n >= 0, else ValueError).
Tensor lgamma(const Tensor& a, Backend& backend);
Tensor digamma(const Tensor& a, Backend& backend);
Tensor polygamma(std::int64_t n, const Tensor& a, Backend& backend);
/// Multivariate log-gamma of dimension p >= 1 (ValueError otherwise):
/// p(p-1)/4 log(pi) + sum_{j<p} lgamma(a - j/2); NaN where a <= (p - 1)/2.
Tensor mvlgamma(const Tensor& a, std::int64_t p, Backend& backend);
/// Modified Bessel functions of the first kind I0, I1 and the scaled
/// i0e(x) = exp(-|x|) I0(x), i1e(x) = exp(-|x|) I1(x).
Tensor i0(const Tensor& a, Backend& backend);
Tensor i0e(const Tensor& a, Backend& backend);
Tensor i1(const Tensor& a, Backend& backend);
Tensor i1e(const Tensor& a, Backend& backend);
/// The standard normal CDF, its inverse on [0, 1] and log(ndtr(x)) (accurate
/// in both tails).
Tensor ndtr(const Tensor& a, Backend& backend);
Tensor ndtri(const Tensor& a, Backend& backend);
Tensor log_ndtr(const Tensor& a, Backend& backend);

// ---- contraction -----------------------------------------------------------------------
/// Matrix product. 1-D operands are vectors (a [k] . b [k] is a scalar); for
/// rank >= 2, axes (0, 1) are the matrix axes and trailing axes are batch
/// axes, broadcast against each other: [m, k, b...] x [k, n, b...] -> [m, n, b...].
Tensor matmul(const Tensor& a, const Tensor& b, Backend& backend);
/// ops::dot_general after promoting both operands to one dtype.
Tensor dot_general(const Tensor& a, const Tensor& b, const DotGeneralAttrs& dims, Backend& backend);

// ---- reductions (max / min over an empty axis: ValueError) ----------------------------
Tensor sum(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor sum(const Tensor& a, Backend& backend);
Tensor mean(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor mean(const Tensor& a, Backend& backend);
Tensor max(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor max(const Tensor& a, Backend& backend);
Tensor min(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor min(const Tensor& a, Backend& backend);
Tensor prod(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor prod(const Tensor& a, Backend& backend);

/// Frobenius norm sqrt(sum |a|^2), a real rank-0 tensor (scaled: no overflow).
Tensor norm(const Tensor& a, Backend& backend);
/// Sum of the diagonal of axes (0, 1); trailing axes are batch axes.
Tensor trace(const Tensor& a, Backend& backend);

// ---- TypedTensor<T> overloads: the same functions with typed results ------------------
// ```cpp
// auto a = TypedTensor<double>::eye(2);
// TypedTensor<double> p = matmul(a, a, cpu);
// double s = sum(p, cpu).item();   // 2
// ```
#define TF_TYPED_BINARY(name)                                                              \
  template <class T>                                                                       \
  TypedTensor<T> name(const TypedTensor<T>& a, const TypedTensor<T>& b, Backend& backend) { \
    return TypedTensor<T>(name(static_cast<const Tensor&>(a), b, backend));                \
  }
TF_TYPED_BINARY(add)
TF_TYPED_BINARY(sub)
TF_TYPED_BINARY(mul)
TF_TYPED_BINARY(div)
TF_TYPED_BINARY(matmul)
#undef TF_TYPED_BINARY

#define TF_TYPED_UNARY(name, Out)                                     \
  template <class T>                                                  \
  TypedTensor<Out> name(const TypedTensor<T>& a, Backend& backend) {  \
    return TypedTensor<Out>(name(static_cast<const Tensor&>(a), backend)); \
  }
TF_TYPED_UNARY(neg, T)
TF_TYPED_UNARY(square, T)
TF_TYPED_UNARY(exp, T)
TF_TYPED_UNARY(log, T)
TF_TYPED_UNARY(sqrt, T)
TF_TYPED_UNARY(conj, T)
TF_TYPED_UNARY(trace, T)
TF_TYPED_UNARY(sum, T)
TF_TYPED_UNARY(mean, T)
TF_TYPED_UNARY(max, T)
TF_TYPED_UNARY(min, T)
TF_TYPED_UNARY(prod, T)
/// Real-valued results for complex `T`.
TF_TYPED_UNARY(abs, real_t<T>)
TF_TYPED_UNARY(real, real_t<T>)
TF_TYPED_UNARY(imag, real_t<T>)
TF_TYPED_UNARY(norm, real_t<T>)
#undef TF_TYPED_UNARY

#define TF_TYPED_REDUCE(name)                                                             \
  template <class T>                                                                      \
  TypedTensor<T> name(const TypedTensor<T>& a, const DimVec& axes, Backend& backend) {    \
    return TypedTensor<T>(name(static_cast<const Tensor&>(a), axes, backend));            \
  }
TF_TYPED_REDUCE(sum)
TF_TYPED_REDUCE(mean)
TF_TYPED_REDUCE(max)
TF_TYPED_REDUCE(min)
TF_TYPED_REDUCE(prod)
#undef TF_TYPED_REDUCE

}  // namespace tenferro
