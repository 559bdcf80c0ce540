#pragma once
/// \file
/// Graph-level building blocks: the user-facing operations (broadcasting,
/// promotion, reductions with negative axes, matmul, ...) on graph `Value`s,
/// lowered to primitives. `TracedTensor` and `EagerTensor` are thin handles
/// over these, and the AD rules are written with them, so a rule runs in
/// traced and in eager mode alike (Note [Eager evaluation] in ops/graph.hpp).
/// The user-facing functions are the same implementation as the `Tensor`
/// free functions of tenferro/ops/sugar.hpp (src/ops/op_layer.hpp), with the
/// same names, promotion and scalar rules.
///
/// ```cpp
/// using namespace tenferro;
/// Value x = graph::input("x", DType::f64, {Dim("n"), Dim(3)});
/// Value y = vops::sum(vops::mul(x, x), {0});   // f64[3]
/// ```

#include <utility>
#include <vector>

#include "tenferro/ops/graph.hpp"

namespace tenferro::vops {

// ---- constants ------------------------------------------------------------------
/// A rank-0 constant of dtype `d`.
Value scalar(Scalar v, DType d);
/// `v` broadcast to `shape` (no memory beyond one element).
Value full(const SymShape& shape, Scalar v, DType d);
Value zeros_like(const Value& x);
Value ones_like(const Value& x);

// ---- dtype and broadcasting -------------------------------------------------------
Value convert(const Value& x, DType d);
/// NumPy broadcasting (trailing axes aligned) to `shape`.
Value broadcast_to(const Value& x, const SymShape& shape);
Value broadcast_in_dim(const Value& x, const SymShape& shape, const DimVec& dims);

// ---- elementwise (binary ops broadcast and promote) ------------------------------
Value add(const Value& a, const Value& b);
Value sub(const Value& a, const Value& b);
Value mul(const Value& a, const Value& b);
Value div(const Value& a, const Value& b);
Value pow(const Value& a, const Value& b);
Value maximum(const Value& a, const Value& b);
Value minimum(const Value& a, const Value& b);
Value compare(const Value& a, const Value& b, ComparisonDirection dir);
/// `cond ? a : b` with broadcasting (`cond` bool).
Value where(const Value& cond, const Value& a, const Value& b);
/// clamp(lo, x, hi) with rank-0 or x-shaped bounds.
Value clamp(const Value& lo, const Value& x, const Value& hi);
/// re + i im (real operands of one dtype).
Value complex(const Value& re, const Value& im);
/// clamp(lo, x, hi) with Scalar bounds (in x's dtype).
Value clamp(Scalar lo, const Value& x, Scalar hi);
/// Scalar operands: the tensor's dtype, except that a float Scalar with an
/// integer or bool tensor gives the Scalar's float dtype and a complex Scalar
/// makes a real tensor complex (as tenferro::add(Tensor, Scalar, backend)).
Value add(const Value& a, Scalar b);
Value sub(const Value& a, Scalar b);
Value mul(const Value& a, Scalar b);
Value div(const Value& a, Scalar b);
Value pow(const Value& a, Scalar b);
Value maximum(const Value& a, Scalar b);
Value minimum(const Value& a, Scalar b);
Value compare(const Value& a, Scalar b, ComparisonDirection dir);
/// The Scalar on the left: `a - b`, `a / b`.
Value sub(Scalar a, const Value& b);
Value div(Scalar a, const Value& b);
/// compare with a fixed direction (bool result).
Value eq(const Value& a, const Value& b);
Value ne(const Value& a, const Value& b);
Value lt(const Value& a, const Value& b);
Value le(const Value& a, const Value& b);
Value gt(const Value& a, const Value& b);
Value ge(const Value& a, const Value& b);
Value eq(const Value& a, Scalar b);
Value ne(const Value& a, Scalar b);
Value lt(const Value& a, Scalar b);
Value le(const Value& a, Scalar b);
Value gt(const Value& a, Scalar b);
Value ge(const Value& a, Scalar b);
Value neg(const Value& x);
/// Identity for real dtypes.
Value conj(const Value& x);
Value abs(const Value& x);
Value sign(const Value& x);
Value exp(const Value& x);
Value log(const Value& x);
Value sin(const Value& x);
Value cos(const Value& x);
Value tanh(const Value& x);
Value sqrt(const Value& x);
Value rsqrt(const Value& x);
Value expm1(const Value& x);
Value log1p(const Value& x);
/// Real part (real input: itself).
Value real(const Value& x);
/// Imaginary part (real input: zeros).
Value imag(const Value& x);
Value is_finite(const Value& x);
/// Rounding, remainders and binary exponents: the functions of
/// tenferro/ops/sugar.hpp of the same names (same dtype rules).
Value floor(const Value& x);
Value ceil(const Value& x);
Value trunc(const Value& x);
Value round(const Value& x);
Value round(const Value& x, std::int64_t decimals);
Value fmod(const Value& a, const Value& b);
Value remainder(const Value& a, const Value& b);
Value ldexp(const Value& a, const Value& b);
Value fmod(const Value& a, Scalar b);
Value remainder(const Value& a, Scalar b);
Value ldexp(const Value& a, Scalar b);
/// (mantissa, i32 exponent).
std::pair<Value, Value> frexp(const Value& x);
/// Special functions (tenferro/ops/sugar.hpp; docs/special_functions.md).
Value erf(const Value& x);
Value erfc(const Value& x);
Value erfinv(const Value& x);
Value erfcx(const Value& x);
Value lgamma(const Value& x);
Value digamma(const Value& x);
Value i0(const Value& x);
Value i0e(const Value& x);
Value i1(const Value& x);
Value i1e(const Value& x);
Value ndtr(const Value& x);
Value ndtri(const Value& x);
Value log_ndtr(const Value& x);
Value polygamma(std::int64_t n, const Value& x);
Value mvlgamma(const Value& x, std::int64_t p);
Value square(const Value& x);

// ---- reductions (negative axes count from the end; max / min over an empty
// constant axis: ValueError) ----------------------------------------------------------
Value sum(const Value& x, const DimVec& axes);
Value sum(const Value& x);
Value mean(const Value& x, const DimVec& axes);
Value mean(const Value& x);
Value max(const Value& x, const DimVec& axes);
Value max(const Value& x);
Value min(const Value& x, const DimVec& axes);
Value min(const Value& x);
Value prod(const Value& x, const DimVec& axes);
Value prod(const Value& x);
/// The reduce_max / reduce_min primitives without the user-facing check: an
/// empty axis gives the identity (-inf / +inf). For derivative rules whose
/// operands may be empty (e.g. the spectrum of a 0 x 0 matrix).
Value reduce_max(const Value& x, const DimVec& axes);
Value reduce_min(const Value& x, const DimVec& axes);
/// Frobenius norm sqrt(sum |x|^2), scaled against overflow (real, rank 0).
Value norm(const Value& x);

// ---- structural -------------------------------------------------------------------
Value transpose(const Value& x, const DimVec& perm);
/// Column-major element order; one extent may be -1.
Value reshape(const Value& x, const SymShape& shape);
Value slice(const Value& x, const SymShape& start, const SymShape& limit, const DimVec& strides);
/// [start, stop) of one axis, step 1.
Value slice_axis(const Value& x, std::int64_t axis, const Dim& start, const Dim& stop);
Value pad(const Value& x, const Value& padding_value, const SymShape& low, const SymShape& high,
          const DimVec& interior);
Value concatenate(const std::vector<Value>& xs, std::int64_t dimension);
Value reverse(const Value& x, const DimVec& dims);
Value dynamic_slice(const Value& x, const Value& starts, const SymShape& sizes);
Value dynamic_update_slice(const Value& x, const Value& update, const Value& starts);
Value gather(const Value& x, const Value& indices, const BasicGatherAttrs<Dim>& attrs);
Value scatter(const Value& x, const Value& indices, const Value& updates, const ScatterAttrs& attrs);
/// The diagonal of axes (a1, a2) as a new last axis (a gather; the two
/// extents must be constants; rectangular: min of the two, as Tensor::diagonal).
Value diagonal(const Value& x, std::int64_t a1 = 0, std::int64_t a2 = 1);
/// Sum of the diagonal of axes (0, 1).
Value trace(const Value& x);

// ---- contraction ----------------------------------------------------------------------
Value dot_general(const Value& a, const Value& b, const DotGeneralAttrs& dims);
/// As tenferro::matmul: axes (0, 1) are the matrix, trailing axes batch.
Value matmul(const Value& a, const Value& b);

}  // namespace tenferro::vops
