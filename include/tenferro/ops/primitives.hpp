#pragma once
/// \file
/// Eager execution of primitives: `tenferro::ops::<name>(operands..., backend)`.
///
/// ```cpp
/// using namespace tenferro;
/// CpuBackend cpu;
/// auto a = Tensor::ones({2, 3}, DType::f64);
/// auto b = Tensor::ones({3, 4}, DType::f64);
/// Tensor c = ops::dot_general(a, b, {.lhs_contracting_dimensions = {1},
///                                    .rhs_contracting_dimensions = {0}}, cpu);   // [2, 4], all 3
/// Tensor s = ops::reduce_sum(c, {0, 1}, cpu);                                     // 24
/// ```
/// Each function runs `infer` (all checks happen before any memory is
/// written), allocates the output on the backend and runs the kernel.
/// Primitives never broadcast or promote: use the sugar in
/// tenferro/ops/sugar.hpp for that.
///
/// Note [Eager views]: in eager mode, `broadcast_in_dim`, `reshape` (when
/// the layout allows), `slice`, `reverse` and same-dtype `convert` return a
/// view of their operand instead of a copy; the values are the same. Call
/// `contiguous()` or `duplicate()` for separate memory. `transpose` always
/// materialises the permuted copy (use `Tensor::permute` for a view).
/// Note [dot_general layout]: the output of `dot_general` has logical axes
/// (batch..., lhs free..., rhs free...) as in StableHLO, stored with the
/// batch axes slowest in memory (each batch element a column-major matrix),
/// so its strides are a permutation of column-major strides.

#include <span>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/infer.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::ops {

/// Runs any primitive. Operands must be defined and on `backend.device()`.
Tensor call(OpKind kind, const Attrs& attrs, std::span<const Tensor> inputs, Backend& backend);

/// The strides the eager runtime gives the output of `kind` (column-major,
/// except for dot_general: see Note [dot_general layout]).
Strides preferred_strides(OpKind kind, const Attrs& attrs, const Shape& out_shape);

// ---- elementwise -------------------------------------------------------------
Tensor add(const Tensor& a, const Tensor& b, Backend& backend);
Tensor subtract(const Tensor& a, const Tensor& b, Backend& backend);
Tensor multiply(const Tensor& a, const Tensor& b, Backend& backend);
Tensor divide(const Tensor& a, const Tensor& b, Backend& backend);
Tensor maximum(const Tensor& a, const Tensor& b, Backend& backend);
Tensor minimum(const Tensor& a, const Tensor& b, Backend& backend);
Tensor power(const Tensor& a, const Tensor& b, Backend& backend);
/// complex(re, im) from two real tensors of one dtype.
Tensor complex(const Tensor& re, const Tensor& im, Backend& backend);
Tensor compare(const Tensor& a, const Tensor& b, ComparisonDirection direction, Backend& backend);
Tensor negate(const Tensor& a, Backend& backend);
Tensor conj(const Tensor& a, Backend& backend);
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
Tensor real(const Tensor& a, Backend& backend);
Tensor imag(const Tensor& a, Backend& backend);
Tensor is_finite(const Tensor& a, Backend& backend);
/// Rounding (real floats; zero derivative, Note [Rounding derivatives]):
/// toward -inf, +inf, zero, and to nearest with ties to even.
Tensor floor(const Tensor& a, Backend& backend);
Tensor ceil(const Tensor& a, Backend& backend);
Tensor trunc(const Tensor& a, Backend& backend);
Tensor round_nearest_even(const Tensor& a, Backend& backend);
/// fmod(x, y) = x - trunc(x / y) y (sign of x); remainder(x, y) = x - floor(x / y) y (sign of y).
Tensor fmod(const Tensor& x, const Tensor& y, Backend& backend);
Tensor remainder(const Tensor& x, const Tensor& y, Backend& backend);
/// ldexp(x, e) = x 2^e, e of x's dtype.
Tensor ldexp(const Tensor& x, const Tensor& e, Backend& backend);
/// The i32 exponent k of x = m 2^k, 0.5 <= |m| < 1 (0 for zero, inf, NaN).
Tensor frexp_exponent(const Tensor& a, Backend& backend);
/// Special functions of real floats (docs/special_functions.md).
Tensor erf(const Tensor& a, Backend& backend);
Tensor erfc(const Tensor& a, Backend& backend);
Tensor erfinv(const Tensor& a, Backend& backend);
Tensor erfcx(const Tensor& a, Backend& backend);
Tensor lgamma(const Tensor& a, Backend& backend);
Tensor digamma(const Tensor& a, Backend& backend);
Tensor i0(const Tensor& a, Backend& backend);
Tensor i0e(const Tensor& a, Backend& backend);
Tensor i1(const Tensor& a, Backend& backend);
Tensor i1e(const Tensor& a, Backend& backend);
Tensor ndtr(const Tensor& a, Backend& backend);
Tensor ndtri(const Tensor& a, Backend& backend);
Tensor log_ndtr(const Tensor& a, Backend& backend);
/// polygamma(n, x), n >= 0 (n = 0: digamma).
Tensor polygamma(std::int64_t n, const Tensor& a, Backend& backend);
Tensor convert(const Tensor& a, DType dtype, Backend& backend);
/// select(pred, on_true, on_false); `pred` is bool, of the operands' shape or rank 0.
Tensor select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false, Backend& backend);
/// clamp(min, x, max); `min`/`max` are x-shaped or rank 0.
Tensor clamp(const Tensor& min, const Tensor& x, const Tensor& max, Backend& backend);

// ---- contraction and reductions -----------------------------------------------
Tensor dot_general(const Tensor& lhs, const Tensor& rhs, const DotGeneralAttrs& dims,
                   Backend& backend);
Tensor reduce_sum(const Tensor& a, const DimVec& dimensions, Backend& backend);
Tensor reduce_prod(const Tensor& a, const DimVec& dimensions, Backend& backend);
Tensor reduce_max(const Tensor& a, const DimVec& dimensions, Backend& backend);
Tensor reduce_min(const Tensor& a, const DimVec& dimensions, Backend& backend);

// ---- structural ------------------------------------------------------------------
Tensor transpose(const Tensor& a, const DimVec& permutation, Backend& backend);
Tensor reshape(const Tensor& a, const Shape& shape, Backend& backend);
Tensor broadcast_in_dim(const Tensor& a, const Shape& shape, const DimVec& broadcast_dimensions,
                        Backend& backend);
Tensor gather(const Tensor& operand, const Tensor& start_indices, const GatherAttrs& attrs,
              Backend& backend);
Tensor scatter(const Tensor& operand, const Tensor& scatter_indices, const Tensor& updates,
               const ScatterAttrs& attrs, Backend& backend);
Tensor slice(const Tensor& a, const DimVec& start_indices, const DimVec& limit_indices,
             const DimVec& strides, Backend& backend);
/// `starts`: 1-D i32/i64 tensor with one (clamped) start per axis.
Tensor dynamic_slice(const Tensor& a, const Tensor& starts, const Shape& slice_sizes,
                     Backend& backend);
Tensor dynamic_update_slice(const Tensor& a, const Tensor& update, const Tensor& starts,
                            Backend& backend);
Tensor pad(const Tensor& a, const Tensor& padding_value, const PadAttrs& attrs, Backend& backend);
Tensor concatenate(std::span<const Tensor> operands, std::int64_t dimension, Backend& backend);
Tensor reverse(const Tensor& a, const DimVec& dimensions, Backend& backend);

}  // namespace tenferro::ops
