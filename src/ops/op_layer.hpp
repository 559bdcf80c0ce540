#pragma once
// The user-facing op layer, written once over an emitter.
//
// Note [Op layer]: broadcasting, dtype promotion, scalar dtypes, axis
// normalisation, matmul, reductions, where, clamp, norm, trace ... are
// implemented here, once, as templates over an emitter `E` (the pattern of
// einsum's `run_plan<Emitter>`). Two emitters instantiate them:
//   - sugar.cpp's `TensorEmitter` (Tensor + Backend: the eager free functions
//     `tenferro::add(a, b, backend)`, ...), and
//   - value_ops.cpp's `ValueEmitter` (graph `Value`s: `vops::*`, which
//     `TracedTensor` and `EagerTensor` forward to, and the AD rules use).
// So the three user-facing modes share one set of rules; tests/ops/test_parity.cpp
// checks that they agree. An emitter provides
//   using Handle = ...;            // Tensor or Value
//   using Extent = ...;            // std::int64_t (Shape) or Dim (SymShape)
//   static DType dtype(const Handle&);
//   static const ExtentList<Extent>& shape(const Handle&);
//   Handle apply(OpKind, const BasicAttrs<Extent>&, std::span<const Handle>);  // one primitive
//   Handle constant(Scalar, DType, const Handle& like);  // a rank-0 constant used
//                                                        // next to `like` (same device / mode)
//   Handle permute(const Handle&, const DimVec& perm);   // view (eager) or transpose
//   Handle diagonal(const Handle&, std::int64_t a1, std::int64_t a2);  // as a new last axis
// Promotion rules (one place): binary operands promote with `promote_types`;
// a Scalar operand takes the tensor's dtype, except that a float Scalar with a
// non-float tensor gives the Scalar's float dtype (f32 for a float, else f64)
// and a complex Scalar makes a real tensor complex (`scalar_dtype`).
// Functions that need a float (exp, log, sqrt, mean, norm, ...) convert
// integers and bool to f64.

// The op surface, listed once: sugar.cpp (Tensor + Backend) and
// value_ops.cpp (graph values) expand each list with their own signature,
// so a function added here exists in every mode under the same name.
// clang-format off
#define TENFERRO_OP_LAYER_BINARY(X)  /* name(a, b), name(a, Scalar): X(name, OpKind) */ \
  X(add, add) X(sub, subtract) X(mul, multiply) X(div, divide) X(pow, power)           \
  X(maximum, maximum) X(minimum, minimum)
#define TENFERRO_OP_LAYER_COMPARE(X)  /* X(name, ComparisonDirection) */ \
  X(eq, EQ) X(ne, NE) X(lt, LT) X(le, LE) X(gt, GT) X(ge, GE)
#define TENFERRO_OP_LAYER_UNARY(X)  /* op_layer::unary: X(name, OpKind) */ \
  X(neg, negate) X(abs, abs) X(sign, sign) X(is_finite, is_finite)
#define TENFERRO_OP_LAYER_FLOAT_UNARY(X)  /* op_layer::float_unary: X(OpKind name) */ \
  X(exp) X(log) X(sin) X(cos) X(tanh) X(sqrt) X(rsqrt) X(expm1) X(log1p) \
  X(erf) X(erfc) X(erfinv) X(erfcx) X(lgamma) X(digamma) X(i0) X(i0e) X(i1) X(i1e)         \
  X(ndtr) X(ndtri) X(log_ndtr)
#define TENFERRO_OP_LAYER_ROUNDING(X)  /* op_layer::rounding: X(name, OpKind) */ \
  X(floor, floor) X(ceil, ceil) X(trunc, trunc) X(round, round_nearest_even)
#define TENFERRO_OP_LAYER_FLOAT_BINARY(X)  /* op_layer::float_binary: X(OpKind name) */ \
  X(fmod) X(remainder) X(ldexp)
#define TENFERRO_OP_LAYER_NAMED_UNARY(X)  /* op_layer::name: X(name) */ \
  X(square) X(conj) X(real) X(imag) X(norm) X(trace)
#define TENFERRO_OP_LAYER_REDUCE(X)  /* name(x, axes), name(x): X(name, OpKind) */ \
  X(sum, reduce_sum) X(prod, reduce_prod) X(max, reduce_max) X(min, reduce_min)
// clang-format on

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/dim.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/error.hpp"
#include "tenferro/tensor/scalar.hpp"
#include "tenferro/tensor/shape.hpp"

namespace tenferro::op_layer {

template <class E>
using H = typename E::Handle;
template <class E>
using X = typename E::Extent;
template <class E>
using ShapeOf = ExtentList<X<E>>;

/// NumPy broadcast of two extent lists (trailing axes aligned; an extent-1
/// axis stretches). Symbolic extents broadcast when one side is the constant 1.
template <class D>
ExtentList<D> broadcast_extents(const ExtentList<D>& a, const ExtentList<D>& b, const char* op) {
  std::size_t r = std::max(a.size(), b.size());
  ExtentList<D> out(r);
  const D one(1);
  for (std::size_t i = 0; i < r; ++i) {
    D x = i < r - a.size() ? one : a[i - (r - a.size())];
    D y = i < r - b.size() ? one : b[i - (r - b.size())];
    TF_CHECK(x == y || x == one || y == one, ShapeError, op, "shapes ", a, " and ", b,
             " cannot be broadcast together (axis ", i, " of the result: ", x, " vs ", y, ")");
    out[i] = x == one ? y : x;
  }
  return out;
}

/// The dtype a Scalar operand takes next to a tensor of dtype `t` (Note [Op layer]).
inline DType scalar_dtype(DType t, const Scalar& s) {
  if (s.is_complex() && !is_complex(t)) return complex_dtype(t);
  if (is_float(s.dtype()) && !is_float(t)) return s.dtype() == DType::f32 ? DType::f32 : DType::f64;
  return t;
}

inline std::optional<std::int64_t> constant_extent(std::int64_t d) { return d; }
inline std::optional<std::int64_t> constant_extent(const Dim& d) { return d.try_value(); }

template <class E>
H<E> prim(E& e, OpKind k, const BasicAttrs<X<E>>& attrs, std::initializer_list<H<E>> in) {
  return e.apply(k, attrs, std::span<const H<E>>(in.begin(), in.size()));
}

template <class E>
DimVec all_axes(E& e, const H<E>& x) {
  DimVec out;
  for (std::size_t i = 0; i < e.shape(x).size(); ++i) out.push_back(static_cast<std::int64_t>(i));
  return out;
}

template <class E>
DimVec normalized_axes(E& e, const H<E>& x, const DimVec& axes, const char* op) {
  DimVec out;
  std::int64_t r = static_cast<std::int64_t>(e.shape(x).size());
  for (std::int64_t a : axes) out.push_back(normalize_axis(a, r, op));
  return out;
}

// ---- dtype and broadcasting ------------------------------------------------------

template <class E>
H<E> convert(E& e, const H<E>& x, DType d) {
  if (e.dtype(x) == d) return x;
  return prim(e, OpKind::convert, ConvertAttrs{d}, {x});
}

template <class E>
H<E> broadcast_in_dim(E& e, const H<E>& x, const ShapeOf<E>& shape, const DimVec& dims) {
  return prim(e, OpKind::broadcast_in_dim, BasicBroadcastInDimAttrs<X<E>>{shape, dims}, {x});
}

/// NumPy broadcasting (trailing axes aligned) to `shape`.
template <class E>
H<E> broadcast_to(E& e, const H<E>& x, const ShapeOf<E>& shape) {
  const ShapeOf<E>& s = e.shape(x);
  if (s == shape) return x;
  std::int64_t r = static_cast<std::int64_t>(s.size()), R = static_cast<std::int64_t>(shape.size());
  TF_CHECK(R >= r, ShapeError, "broadcast_to", "cannot broadcast ", s, " to ", shape);
  DimVec dims;
  for (std::int64_t i = 0; i < r; ++i) dims.push_back(R - r + i);
  return broadcast_in_dim(e, x, shape, dims);
}

template <class E>
H<E> reshape(E& e, const H<E>& x, const ShapeOf<E>& shape) {
  if (e.shape(x) == shape) return x;
  return prim(e, OpKind::reshape, BasicReshapeAttrs<X<E>>{shape}, {x});
}

template <class E>
H<E> as_float(E& e, const H<E>& x) {
  return is_float(e.dtype(x)) ? x : convert(e, x, DType::f64);
}

// ---- elementwise -------------------------------------------------------------------

/// A binary primitive after promotion and broadcasting.
template <class E>
H<E> binary(E& e, OpKind k, const H<E>& a, const H<E>& b, const BasicAttrs<X<E>>& attrs = NoAttrs{}) {
  const char* op = op_name(k);
  TF_CHECK(a.defined() && b.defined(), ValueError, op, "operand is an undefined tensor");
  DType da = e.dtype(a), db = e.dtype(b);
  if (da == db && e.shape(a) == e.shape(b)) return prim(e, k, attrs, {a, b});
  DType d = promote_types(da, db);
  ShapeOf<E> s = broadcast_extents<X<E>>(e.shape(a), e.shape(b), op);
  return prim(e, k, attrs, {broadcast_to(e, convert(e, a, d), s), broadcast_to(e, convert(e, b, d), s)});
}

/// The rank-0 constant a Scalar operand of `a` becomes.
template <class E>
H<E> scalar_operand(E& e, const H<E>& a, const Scalar& s) {
  TF_CHECK(a.defined(), ValueError, "scalar operand", "operand is an undefined tensor");
  return e.constant(s, scalar_dtype(e.dtype(a), s), a);
}

/// `a (op) s`, or `s (op) a` when `scalar_first`.
template <class E>
H<E> binary_scalar(E& e, OpKind k, const H<E>& a, const Scalar& s, bool scalar_first = false,
                   const BasicAttrs<X<E>>& attrs = NoAttrs{}) {
  H<E> c = scalar_operand(e, a, s);
  return scalar_first ? binary(e, k, c, a, attrs) : binary(e, k, a, c, attrs);
}

template <class E>
H<E> where(E& e, const H<E>& cond, const H<E>& a, const H<E>& b) {
  TF_CHECK(cond.defined() && a.defined() && b.defined(), ValueError, "where",
           "operand is an undefined tensor");
  TF_CHECK(e.dtype(cond) == DType::bool_, DTypeError, "where", "condition must be bool, got ",
           e.dtype(cond));
  DType d = promote_types(e.dtype(a), e.dtype(b));
  ShapeOf<E> s = broadcast_extents<X<E>>(
      broadcast_extents<X<E>>(e.shape(cond), e.shape(a), "where"), e.shape(b), "where");
  return prim(e, OpKind::select, NoAttrs{},
              {broadcast_to(e, cond, s), broadcast_to(e, convert(e, a, d), s),
               broadcast_to(e, convert(e, b, d), s)});
}

/// clamp(lo, x, hi) (StableHLO order): the bounds take x's dtype and
/// broadcast to x's shape unless they are rank 0.
template <class E>
H<E> clamp(E& e, const H<E>& lo, const H<E>& x, const H<E>& hi) {
  TF_CHECK(lo.defined() && x.defined() && hi.defined(), ValueError, "clamp",
           "operand is an undefined tensor");
  auto bound = [&](const H<E>& b, const char* which) {
    H<E> c = convert(e, b, e.dtype(x));
    if (e.shape(c).empty()) return c;
    // A bound may broadcast to x's shape, never widen x.
    ShapeOf<E> s = broadcast_extents<X<E>>(e.shape(c), e.shape(x), "clamp");
    TF_CHECK(s == e.shape(x), ShapeError, "clamp", "bound ", which, " of shape ", e.shape(c),
             " would widen x of shape ", e.shape(x), " to ", s);
    return broadcast_to(e, c, e.shape(x));
  };
  return prim(e, OpKind::clamp, NoAttrs{}, {bound(lo, "lo"), x, bound(hi, "hi")});
}

template <class E>
H<E> clamp(E& e, const Scalar& lo, const H<E>& x, const Scalar& hi) {
  TF_CHECK(x.defined(), ValueError, "clamp", "operand is an undefined tensor");
  return prim(e, OpKind::clamp, NoAttrs{},
              {e.constant(lo, e.dtype(x), x), x, e.constant(hi, e.dtype(x), x)});
}

template <class E>
H<E> unary(E& e, OpKind k, const H<E>& x) {
  return prim(e, k, NoAttrs{}, {x});
}

/// Unary functions that need a float: integers and bool become f64 first.
template <class E>
H<E> float_unary(E& e, OpKind k, const H<E>& x) {
  return unary(e, k, as_float(e, x));
}

/// floor, ceil, trunc, round_nearest_even: integers and bool are already
/// integral and come back unchanged; complex operands are a DTypeError.
template <class E>
H<E> rounding(E& e, OpKind k, const H<E>& x) {
  TF_CHECK(x.defined(), ValueError, op_name(k), "operand is an undefined tensor");
  DType d = e.dtype(x);
  if (is_integer(d) || d == DType::bool_) return x;
  return unary(e, k, x);
}

/// round(x, decimals): half to even at 10^-decimals, as round(x 10^decimals)
/// / 10^decimals (decimals < 0: round(x / 10^-decimals) 10^-decimals), so
/// the result is the double nearest to the rounded decimal (as NumPy and
/// PyTorch compute it). Integers and bool come back unchanged for
/// decimals >= 0 and are rounded in f64 for decimals < 0.
template <class E>
H<E> round_decimals(E& e, const H<E>& x, std::int64_t decimals) {
  TF_CHECK(x.defined(), ValueError, "round", "operand is an undefined tensor");
  TF_CHECK(decimals >= -308 && decimals <= 308, ValueError, "round", "decimals ", decimals,
           " outside [-308, 308]");
  if (decimals == 0) return rounding(e, OpKind::round_nearest_even, x);
  DType d = e.dtype(x);
  if ((is_integer(d) || d == DType::bool_) && decimals > 0) return x;
  H<E> v = as_float(e, x);
  double scale = 1;
  for (std::int64_t i = 0; i < (decimals > 0 ? decimals : -decimals); ++i) scale *= 10;
  H<E> s = e.constant(Scalar(scale), e.dtype(v), v);
  OpKind in = decimals > 0 ? OpKind::multiply : OpKind::divide;
  OpKind back = decimals > 0 ? OpKind::divide : OpKind::multiply;
  H<E> r = unary(e, OpKind::round_nearest_even, binary(e, in, v, s));
  return binary(e, back, r, s);
}

/// fmod, remainder, ldexp: promote and broadcast as `binary`; integer and
/// bool results become f64 (the primitives take real floats).
template <class E>
H<E> float_binary(E& e, OpKind k, const H<E>& a, const H<E>& b) {
  const char* op = op_name(k);
  TF_CHECK(a.defined() && b.defined(), ValueError, op, "operand is an undefined tensor");
  DType d = promote_types(e.dtype(a), e.dtype(b));
  if (!is_float(d)) d = DType::f64;
  ShapeOf<E> s = broadcast_extents<X<E>>(e.shape(a), e.shape(b), op);
  return prim(e, k, NoAttrs{}, {broadcast_to(e, convert(e, a, d), s), broadcast_to(e, convert(e, b, d), s)});
}

/// `a (op) s` for fmod, remainder, ldexp.
template <class E>
H<E> float_binary_scalar(E& e, OpKind k, const H<E>& a, const Scalar& s) {
  return float_binary(e, k, a, scalar_operand(e, a, s));
}

/// frexp(x) = (mantissa, exponent): x = mantissa 2^exponent with
/// 0.5 <= |mantissa| < 1, exponent i32 (0 for zero, inf and NaN, whose
/// mantissa is x itself). The mantissa is ldexp(x, -exponent), exact.
template <class E>
std::pair<H<E>, H<E>> frexp(E& e, const H<E>& x) {
  TF_CHECK(x.defined(), ValueError, "frexp", "operand is an undefined tensor");
  H<E> v = as_float(e, x);
  H<E> k = unary(e, OpKind::frexp_exponent, v);
  H<E> minus_k = unary(e, OpKind::negate, convert(e, k, e.dtype(v)));
  return {prim(e, OpKind::ldexp, NoAttrs{}, {v, minus_k}), k};
}

/// polygamma(n, x) = d^n/dx^n digamma(x), n >= 0; integers become f64.
template <class E>
H<E> polygamma(E& e, std::int64_t n, const H<E>& x) {
  TF_CHECK(x.defined(), ValueError, "polygamma", "operand is an undefined tensor");
  TF_CHECK(n >= 0, ValueError, "polygamma", "order n must be >= 0, got ", n);
  return prim(e, OpKind::polygamma, PolygammaAttrs{n}, {as_float(e, x)});
}

/// The multivariate log-gamma function of dimension p >= 1:
/// mvlgamma(x, p) = p (p - 1)/4 log(pi) + sum_{j=0}^{p-1} lgamma(x - j/2),
/// defined for x > (p - 1)/2; elements outside the domain give NaN.
template <class E>
H<E> mvlgamma(E& e, const H<E>& x, std::int64_t p) {
  TF_CHECK(x.defined(), ValueError, "mvlgamma", "operand is an undefined tensor");
  TF_CHECK(p >= 1, ValueError, "mvlgamma", "dimension p must be >= 1, got ", p);
  H<E> v = as_float(e, x);
  DType d = e.dtype(v);
  H<E> sum = unary(e, OpKind::lgamma, v);
  for (std::int64_t j = 1; j < p; ++j)
    sum = binary(e, OpKind::add, sum,
                 unary(e, OpKind::lgamma, binary(e, OpKind::subtract, v, e.constant(Scalar(0.5 * double(j)), d, v))));
  const double log_pi = 1.14472988584940017414;
  H<E> r = binary(e, OpKind::add, sum, e.constant(Scalar(double(p) * double(p - 1) / 4 * log_pi), d, v));
  H<E> inside = binary(e, OpKind::compare, v, e.constant(Scalar(0.5 * double(p - 1)), d, v),
                       CompareAttrs{ComparisonDirection::GT});
  H<E> nan = broadcast_in_dim(e, e.constant(Scalar(std::numeric_limits<double>::quiet_NaN()), d, v), e.shape(v), {});
  return prim(e, OpKind::select, NoAttrs{}, {inside, r, nan});
}

template <class E>
H<E> conj(E& e, const H<E>& x) {
  return is_complex(e.dtype(x)) ? unary(e, OpKind::conj, x) : x;
}

template <class E>
H<E> real(E& e, const H<E>& x) {
  return is_complex(e.dtype(x)) ? unary(e, OpKind::real, x) : x;
}

template <class E>
H<E> imag(E& e, const H<E>& x) {
  if (is_complex(e.dtype(x))) return unary(e, OpKind::imag, x);
  // Zeros of x's shape, computed from x (select with a false predicate), so
  // that a traced program keeps x as an input and binds its symbolic extents.
  auto fill = [&](const Scalar& v, DType d) { return broadcast_in_dim(e, e.constant(v, d, x), e.shape(x), {}); };
  return prim(e, OpKind::select, NoAttrs{}, {fill(Scalar(false), DType::bool_), x, fill(Scalar(0), e.dtype(x))});
}

template <class E>
H<E> square(E& e, const H<E>& x) {
  return prim(e, OpKind::multiply, NoAttrs{}, {x, x});
}

// ---- reductions (negative axes count from the end) --------------------------------

template <class E>
H<E> reduce(E& e, OpKind k, const H<E>& x, const DimVec& axes) {
  // max/min over an empty axis have no identity: `nonempty` makes the shape
  // rule refuse it (now, or when a program runs with a symbolic extent 0).
  DimVec ax = normalized_axes(e, x, axes, op_name(k));
  H<E> v = x;
  if ((k == OpKind::reduce_sum || k == OpKind::reduce_prod) && e.dtype(x) == DType::bool_)
    v = convert(e, x, DType::i64);
  return prim(e, k, AxesAttrs{ax, k == OpKind::reduce_max || k == OpKind::reduce_min}, {v});
}

template <class E>
H<E> mean(E& e, const H<E>& x, const DimVec& axes) {
  DimVec ax = normalized_axes(e, x, axes, "mean");
  X<E> count(1);
  for (auto a : ax) count = count * e.shape(x)[static_cast<std::size_t>(a)];
  auto c = constant_extent(count);
  TF_CHECK(c.has_value(), UnimplementedError, "mean", "over axes of symbolic extent ", count,
           " (divide a sum by the count instead)");
  H<E> s = reduce(e, OpKind::reduce_sum, as_float(e, x), ax);
  return binary(e, OpKind::divide, s, e.constant(Scalar(static_cast<double>(*c)), e.dtype(s), s));
}

/// Frobenius norm sqrt(sum |x|^2), scaled by the largest magnitude so that the
/// squares neither overflow nor underflow (the scale falls back to 1 when the
/// maximum is 0 or not finite). Real, rank 0.
template <class E>
H<E> norm(E& e, const H<E>& x) {
  H<E> mag = unary(e, OpKind::abs, as_float(e, x));
  DType d = e.dtype(mag);
  for (const auto& ext : e.shape(mag))
    if (ext == X<E>(0)) return e.constant(Scalar(0.0), d, mag);
  DimVec all = all_axes(e, mag);
  // Without `nonempty`: a symbolic extent that is 0 at run time gives
  // -inf, so the scale falls back to 1 and the norm is 0.
  H<E> m = prim(e, OpKind::reduce_max, AxesAttrs{all}, {mag});
  H<E> one = e.constant(Scalar(1.0), d, m);
  H<E> finite = prim(e, OpKind::select, NoAttrs{}, {unary(e, OpKind::is_finite, m), m, one});
  H<E> positive = prim(e, OpKind::compare, CompareAttrs{ComparisonDirection::GT},
                       {finite, e.constant(Scalar(0.0), d, m)});
  H<E> scale = prim(e, OpKind::select, NoAttrs{}, {positive, finite, one});
  H<E> scaled = binary(e, OpKind::divide, mag, scale);
  H<E> ss = prim(e, OpKind::reduce_sum, AxesAttrs{all}, {square(e, scaled)});
  return prim(e, OpKind::multiply, NoAttrs{}, {unary(e, OpKind::sqrt, ss), scale});
}

template <class E>
H<E> trace(E& e, const H<E>& x) {
  TF_CHECK(x.defined(), ValueError, "trace", "operand is an undefined tensor");
  TF_CHECK(e.shape(x).size() >= 2, ShapeError, "trace", "needs rank >= 2, got shape ", e.shape(x));
  H<E> d = e.diagonal(x, 0, 1);  // the diagonal as the last axis
  return reduce(e, OpKind::reduce_sum, d, {static_cast<std::int64_t>(e.shape(d).size()) - 1});
}

// ---- contraction ----------------------------------------------------------------------

template <class E>
H<E> dot_general(E& e, const H<E>& a, const H<E>& b, const DotGeneralAttrs& dims) {
  TF_CHECK(a.defined() && b.defined(), ValueError, "dot_general", "operand is an undefined tensor");
  DType d = promote_types(e.dtype(a), e.dtype(b));
  return prim(e, OpKind::dot_general, dims, {convert(e, a, d), convert(e, b, d)});
}

/// 1-D operands are vectors; for rank >= 2, axes (0, 1) are the matrix and
/// trailing axes are batch axes, broadcast against each other.
template <class E>
H<E> matmul(E& e, const H<E>& a, const H<E>& b) {
  const char* op = "matmul";
  TF_CHECK(a.defined() && b.defined(), ValueError, op, "operand is an undefined tensor");
  const ShapeOf<E>&as = e.shape(a), &bs = e.shape(b);
  TF_CHECK(as.size() >= 1 && bs.size() >= 1, ShapeError, op, "operands must have rank >= 1, got ",
           as, " and ", bs);
  DType d = promote_types(e.dtype(a), e.dtype(b));
  // Two matrices of one dtype: the dot_general itself, without the handle
  // copies of the general path below (which it equals).
  if (as.size() == 2 && bs.size() == 2 && e.dtype(a) == e.dtype(b)) {
    TF_CHECK(as[1] == bs[0], ShapeError, op, "inner extents differ: ", as, " x ", bs);
    return prim(e, OpKind::dot_general,
                DotGeneralAttrs{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}, {a, b});
  }
  // Vectors become [1, k] (lhs) or [k, 1] (rhs); the unit axis is dropped at the end.
  bool avec = as.size() == 1, bvec = bs.size() == 1;
  H<E> x = convert(e, avec ? reshape(e, a, ShapeOf<E>{X<E>(1), as[0]}) : a, d);
  H<E> y = convert(e, bvec ? reshape(e, b, ShapeOf<E>{bs[0], X<E>(1)}) : b, d);
  const ShapeOf<E>&xs = e.shape(x), &ys = e.shape(y);
  TF_CHECK(xs[1] == ys[0], ShapeError, op, "inner extents differ: ", as, " x ", bs);
  ShapeOf<E> xb(xs.begin() + 2, xs.end()), yb(ys.begin() + 2, ys.end());
  ShapeOf<E> batch = broadcast_extents<X<E>>(xb, yb, op);
  std::int64_t nb = static_cast<std::int64_t>(batch.size());
  auto expand = [&](const H<E>& t) {
    const ShapeOf<E>& ts = e.shape(t);
    ShapeOf<E> full{ts[0], ts[1]};
    for (const auto& ext : batch) full.push_back(ext);
    if (full == ts) return t;
    std::int64_t r = static_cast<std::int64_t>(ts.size());
    DimVec dims{0, 1};
    for (std::int64_t i = 2; i < r; ++i) dims.push_back(i + nb - r + 2);
    return broadcast_in_dim(e, t, full, dims);
  };
  x = expand(x);
  y = expand(y);
  DotGeneralAttrs dg{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
  for (std::int64_t i = 0; i < nb; ++i) {
    dg.lhs_batching_dimensions.push_back(2 + i);
    dg.rhs_batching_dimensions.push_back(2 + i);
  }
  H<E> out = prim(e, OpKind::dot_general, dg, {x, y});  // [batch..., m, n]
  if (nb > 0) {
    DimVec perm{nb, nb + 1};
    for (std::int64_t i = 0; i < nb; ++i) perm.push_back(i);
    out = e.permute(out, perm);  // [m, n, batch...]
  }
  if (!avec && !bvec) return out;
  ShapeOf<E> s = e.shape(out);
  if (bvec) s.erase(s.begin() + 1);
  if (avec) s.erase(s.begin());
  return reshape(e, out, s);
}

}  // namespace tenferro::op_layer
