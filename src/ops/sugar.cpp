// User-facing sugar lowered to primitives, and the Tensor methods that call it.
#include "tenferro/ops/sugar.hpp"

#include <algorithm>
#include <cmath>

#include "tenferro/ops/primitives.hpp"

namespace tenferro {

namespace {
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
}  // namespace

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  return broadcast_extents<std::int64_t>(a, b, op);
}

SymShape broadcast_sym_shapes(const SymShape& a, const SymShape& b, const char* op) {
  return broadcast_extents<Dim>(a, b, op);
}

namespace {

// Converts and broadcasts `x` (trailing axes aligned) to dtype `d` and `shape`.
Tensor to_meta(const Tensor& x, DType d, const Shape& shape, Backend& be) {
  Tensor t = x.dtype() == d ? x : ops::convert(x, d, be);
  if (t.shape() == shape) return t;
  DimVec dims;
  for (std::size_t i = 0; i < t.shape().size(); ++i)
    dims.push_back(static_cast<std::int64_t>(shape.size() - t.shape().size() + i));
  return ops::broadcast_in_dim(t, shape, dims, be);
}

Tensor binary(OpKind kind, const Tensor& a, const Tensor& b, Backend& be) {
  const char* op = op_name(kind);
  TF_CHECK(a.defined() && b.defined(), ValueError, op, "operand is an undefined tensor");
  if (a.dtype() == b.dtype() && a.shape() == b.shape()) {
    const Tensor in[] = {a, b};
    return ops::call(kind, NoAttrs{}, in, be);
  }
  DType d = promote_types(a.dtype(), b.dtype());
  Shape s = broadcast_shapes(a.shape(), b.shape(), op);
  const Tensor in[] = {to_meta(a, d, s, be), to_meta(b, d, s, be)};
  return ops::call(kind, NoAttrs{}, in, be);
}

// A rank-0 tensor holding `v`, on the backend's device.
Tensor scalar_like(Scalar v, DType d, Backend& be) { return be.from_host(Tensor::full({}, v, d)); }

DType scalar_dtype(const Tensor& a, const Scalar& s) {
  if (s.is_complex() && !is_complex(a.dtype())) return complex_dtype(a.dtype());
  if (is_float(s.dtype()) && !is_float(a.dtype())) return s.dtype() == DType::f32 ? DType::f32 : DType::f64;
  return a.dtype();
}

DimVec normalized_axes(const Tensor& a, const DimVec& axes, const char* op) {
  DimVec out;
  for (std::int64_t ax : axes) out.push_back(normalize_axis(ax, a.ndim(), op));
  return out;
}

DimVec all_axes(const Tensor& a) {
  DimVec out;
  for (std::int64_t i = 0; i < a.ndim(); ++i) out.push_back(i);
  return out;
}

// Integers and bool become f64 for functions that need a float.
Tensor as_float(const Tensor& a, Backend& be) {
  return is_float(a.dtype()) ? a : ops::convert(a, DType::f64, be);
}

Tensor reduce(OpKind kind, const Tensor& a, const DimVec& axes, Backend& be) {
  const char* op = op_name(kind);
  DimVec ax = normalized_axes(a, axes, op);
  if (kind == OpKind::reduce_max || kind == OpKind::reduce_min) {
    for (std::int64_t x : ax)
      TF_CHECK(a.shape()[static_cast<std::size_t>(x)] > 0, ValueError,
               kind == OpKind::reduce_max ? "max" : "min", "axis ", x,
               " of shape ", a.shape(), " is empty; the reduction has no identity");
  }
  Tensor x = a;
  if ((kind == OpKind::reduce_sum || kind == OpKind::reduce_prod) && a.dtype() == DType::bool_)
    x = ops::convert(a, DType::i64, be);
  const Tensor in[] = {x};
  return ops::call(kind, AxesAttrs{ax}, in, be);
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, Backend& be) { return binary(OpKind::add, a, b, be); }
Tensor sub(const Tensor& a, const Tensor& b, Backend& be) {
  return binary(OpKind::subtract, a, b, be);
}
Tensor mul(const Tensor& a, const Tensor& b, Backend& be) {
  return binary(OpKind::multiply, a, b, be);
}
Tensor div(const Tensor& a, const Tensor& b, Backend& be) {
  return binary(OpKind::divide, a, b, be);
}
Tensor add(const Tensor& a, Scalar b, Backend& be) {
  return binary(OpKind::add, a, scalar_like(b, scalar_dtype(a, b), be), be);
}
Tensor mul(const Tensor& a, Scalar b, Backend& be) {
  return binary(OpKind::multiply, a, scalar_like(b, scalar_dtype(a, b), be), be);
}
Tensor neg(const Tensor& a, Backend& be) { return ops::negate(a, be); }
Tensor square(const Tensor& a, Backend& be) { return ops::multiply(a, a, be); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, Backend& be) {
  TF_CHECK(cond.dtype() == DType::bool_, DTypeError, "where", "condition must be bool, got ",
           cond.dtype());
  DType d = promote_types(a.dtype(), b.dtype());
  Shape s = broadcast_shapes(broadcast_shapes(cond.shape(), a.shape(), "where"), b.shape(), "where");
  return ops::select(to_meta(cond, DType::bool_, s, be), to_meta(a, d, s, be),
                     to_meta(b, d, s, be), be);
}

Tensor matmul(const Tensor& a, const Tensor& b, Backend& be) {
  const char* op = "matmul";
  TF_CHECK(a.defined() && b.defined(), ValueError, op, "operand is an undefined tensor");
  TF_CHECK(a.ndim() >= 1 && b.ndim() >= 1, ShapeError, op, "operands must have rank >= 1, got ",
           a.shape(), " and ", b.shape());
  DType d = promote_types(a.dtype(), b.dtype());
  Tensor x = a.dtype() == d ? a : ops::convert(a, d, be);
  Tensor y = b.dtype() == d ? b : ops::convert(b, d, be);
  // Vectors become [1, k] (lhs) or [k, 1] (rhs); the unit axis is dropped at the end.
  bool xvec = x.ndim() == 1, yvec = y.ndim() == 1;
  if (xvec) x = x.expand_dims(0);
  if (yvec) y = y.expand_dims(1);
  TF_CHECK(x.shape()[1] == y.shape()[0], ShapeError, op, "inner extents differ: ", a.shape(),
           " x ", b.shape());
  Shape xb(x.shape().begin() + 2, x.shape().end());
  Shape yb(y.shape().begin() + 2, y.shape().end());
  Shape batch = broadcast_shapes(xb, yb, op);
  std::int64_t nb = static_cast<std::int64_t>(batch.size());
  auto expand = [&](const Tensor& t) {
    Shape full{t.shape()[0], t.shape()[1]};
    for (auto e : batch) full.push_back(e);
    if (full == t.shape()) return t;
    DimVec dims{0, 1};
    for (std::int64_t i = 2; i < t.ndim(); ++i) dims.push_back(i + nb - t.ndim() + 2);
    return ops::broadcast_in_dim(t, full, dims, be);
  };
  x = expand(x);
  y = expand(y);
  DotGeneralAttrs dims{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
  for (std::int64_t i = 0; i < nb; ++i) {
    dims.lhs_batching_dimensions.push_back(2 + i);
    dims.rhs_batching_dimensions.push_back(2 + i);
  }
  Tensor out = ops::dot_general(x, y, dims, be);  // [batch..., m, n]
  DimVec perm{nb, nb + 1};
  for (std::int64_t i = 0; i < nb; ++i) perm.push_back(i);
  out = out.permute(perm);  // [m, n, batch...]; column-major by Note [dot_general layout]
  if (yvec) out = out.select(1, 0);
  if (xvec) out = out.select(0, 0);
  return out;
}

Tensor sum(const Tensor& a, const DimVec& axes, Backend& be) {
  return reduce(OpKind::reduce_sum, a, axes, be);
}
Tensor sum(const Tensor& a, Backend& be) { return sum(a, all_axes(a), be); }
Tensor prod(const Tensor& a, const DimVec& axes, Backend& be) {
  return reduce(OpKind::reduce_prod, a, axes, be);
}
Tensor prod(const Tensor& a, Backend& be) { return prod(a, all_axes(a), be); }
Tensor max(const Tensor& a, const DimVec& axes, Backend& be) {
  return reduce(OpKind::reduce_max, a, axes, be);
}
Tensor max(const Tensor& a, Backend& be) { return max(a, all_axes(a), be); }
Tensor min(const Tensor& a, const DimVec& axes, Backend& be) {
  return reduce(OpKind::reduce_min, a, axes, be);
}
Tensor min(const Tensor& a, Backend& be) { return min(a, all_axes(a), be); }

Tensor mean(const Tensor& a, const DimVec& axes, Backend& be) {
  DimVec ax = normalized_axes(a, axes, "mean");
  std::int64_t count = 1;
  for (auto x : ax) count *= a.shape()[static_cast<std::size_t>(x)];
  Tensor s = reduce(OpKind::reduce_sum, as_float(a, be), ax, be);
  Tensor n = scalar_like(Scalar(static_cast<double>(count)), s.dtype(), be);
  return binary(OpKind::divide, s, n, be);
}
Tensor mean(const Tensor& a, Backend& be) { return mean(a, all_axes(a), be); }

Tensor exp(const Tensor& a, Backend& be) { return ops::exp(as_float(a, be), be); }
Tensor log(const Tensor& a, Backend& be) { return ops::log(as_float(a, be), be); }
Tensor sqrt(const Tensor& a, Backend& be) { return ops::sqrt(as_float(a, be), be); }
Tensor abs(const Tensor& a, Backend& be) { return ops::abs(a, be); }
Tensor conj(const Tensor& a, Backend& be) { return is_complex(a.dtype()) ? ops::conj(a, be) : a; }
Tensor real(const Tensor& a, Backend& be) { return is_complex(a.dtype()) ? ops::real(a, be) : a; }
Tensor imag(const Tensor& a, Backend& be) {
  if (is_complex(a.dtype())) return ops::imag(a, be);
  return to_meta(scalar_like(Scalar(0), a.dtype(), be), a.dtype(), a.shape(), be);
}

Tensor norm(const Tensor& a, Backend& be) {
  // Scaled by the largest magnitude so that squares neither overflow nor underflow.
  Tensor mag = ops::abs(as_float(a, be), be);
  if (mag.numel() == 0) return scalar_like(Scalar(0.0), mag.dtype(), be);
  Tensor m = ops::reduce_max(mag, all_axes(mag), be);
  double mv = m.item().to<double>();
  if (mv == 0.0 || !std::isfinite(mv)) return m;
  Tensor scaled = binary(OpKind::divide, mag, m, be);
  Tensor ss = ops::reduce_sum(ops::multiply(scaled, scaled, be), all_axes(mag), be);
  return ops::multiply(ops::sqrt(ss, be), m, be);
}

Tensor trace(const Tensor& a, Backend& be) {
  TF_CHECK(a.ndim() >= 2, ShapeError, "trace", "needs rank >= 2, got shape ", a.shape());
  Tensor d = a.diagonal(0, 1);  // diagonal as the last axis
  return reduce(OpKind::reduce_sum, d, {d.ndim() - 1}, be);
}

// ---- Tensor methods ----------------------------------------------------------

Tensor Tensor::add(const Tensor& o, Backend& b) const { return tenferro::add(*this, o, b); }
Tensor Tensor::sub(const Tensor& o, Backend& b) const { return tenferro::sub(*this, o, b); }
Tensor Tensor::mul(const Tensor& o, Backend& b) const { return tenferro::mul(*this, o, b); }
Tensor Tensor::div(const Tensor& o, Backend& b) const { return tenferro::div(*this, o, b); }
Tensor Tensor::matmul(const Tensor& o, Backend& b) const { return tenferro::matmul(*this, o, b); }
Tensor Tensor::sum(const DimVec& ax, Backend& b) const { return tenferro::sum(*this, ax, b); }
Tensor Tensor::sum(Backend& b) const { return tenferro::sum(*this, b); }
Tensor Tensor::mean(const DimVec& ax, Backend& b) const { return tenferro::mean(*this, ax, b); }
Tensor Tensor::mean(Backend& b) const { return tenferro::mean(*this, b); }
Tensor Tensor::max(const DimVec& ax, Backend& b) const { return tenferro::max(*this, ax, b); }
Tensor Tensor::max(Backend& b) const { return tenferro::max(*this, b); }
Tensor Tensor::min(const DimVec& ax, Backend& b) const { return tenferro::min(*this, ax, b); }
Tensor Tensor::min(Backend& b) const { return tenferro::min(*this, b); }
Tensor Tensor::prod(const DimVec& ax, Backend& b) const { return tenferro::prod(*this, ax, b); }
Tensor Tensor::prod(Backend& b) const { return tenferro::prod(*this, b); }
Tensor Tensor::exp(Backend& b) const { return tenferro::exp(*this, b); }
Tensor Tensor::log(Backend& b) const { return tenferro::log(*this, b); }
Tensor Tensor::sqrt(Backend& b) const { return tenferro::sqrt(*this, b); }
Tensor Tensor::abs(Backend& b) const { return tenferro::abs(*this, b); }
Tensor Tensor::conj(Backend& b) const { return tenferro::conj(*this, b); }
Tensor Tensor::real(Backend& b) const { return tenferro::real(*this, b); }
Tensor Tensor::imag(Backend& b) const { return tenferro::imag(*this, b); }
Tensor Tensor::norm(Backend& b) const { return tenferro::norm(*this, b); }
Tensor Tensor::trace(Backend& b) const { return tenferro::trace(*this, b); }

}  // namespace tenferro
