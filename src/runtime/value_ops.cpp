// Graph-level operations lowered to primitives.
#include "tenferro/runtime/value_ops.hpp"

#include <algorithm>

#include "tenferro/ops/sugar.hpp"

namespace tenferro::vops {
namespace {

Value prim(OpKind k, SymAttrs attrs, std::vector<Value> in) {
  return graph::apply(k, std::move(attrs), std::move(in));
}

Value unary(OpKind k, const Value& x) { return prim(k, NoAttrs{}, {x}); }

// Promotes and broadcasts two operands to a common dtype and shape.
std::pair<Value, Value> align(const Value& a, const Value& b, const char* op) {
  DType d = promote_types(a.dtype(), b.dtype());
  SymShape s = broadcast_sym_shapes(a.shape(), b.shape(), op);
  Value x = a.dtype() == d ? a : convert(a, d);
  Value y = b.dtype() == d ? b : convert(b, d);
  return {broadcast_to(x, s), broadcast_to(y, s)};
}

Value binary(OpKind k, const Value& a, const Value& b, SymAttrs attrs = NoAttrs{}) {
  auto [x, y] = align(a, b, op_name(k));
  return prim(k, std::move(attrs), {x, y});
}

DType scalar_dtype(const Value& a, const Scalar& s) {
  if (s.is_complex() && !is_complex(a.dtype())) return complex_dtype(a.dtype());
  if (is_float(s.dtype()) && !is_float(a.dtype())) return DType::f64;
  return a.dtype();
}

DimVec normalized(const Value& x, const DimVec& axes, const char* op) {
  DimVec out;
  for (auto a : axes) out.push_back(normalize_axis(a, x.ndim(), op));
  return out;
}

DimVec all_axes(const Value& x) {
  DimVec a;
  for (std::int64_t i = 0; i < x.ndim(); ++i) a.push_back(i);
  return a;
}

Value as_float(const Value& x) { return is_float(x.dtype()) ? x : convert(x, DType::f64); }

Value reduce(OpKind k, const Value& x, const DimVec& axes) {
  DimVec ax = normalized(x, axes, op_name(k));
  Value v = x;
  if ((k == OpKind::reduce_sum || k == OpKind::reduce_prod) && x.dtype() == DType::bool_)
    v = convert(x, DType::i64);
  return prim(k, AxesAttrs{ax}, {v});
}

}  // namespace

Value scalar(Scalar v, DType d) { return graph::constant(Tensor::full({}, v, d)); }

Value full(const SymShape& shape, Scalar v, DType d) { return broadcast_in_dim(scalar(v, d), shape, {}); }

Value zeros_like(const Value& x) { return full(x.shape(), Scalar(0), x.dtype()); }
Value ones_like(const Value& x) { return full(x.shape(), Scalar(1), x.dtype()); }

Value convert(const Value& x, DType d) {
  if (x.dtype() == d) return x;
  return prim(OpKind::convert, ConvertAttrs{d}, {x});
}

Value broadcast_in_dim(const Value& x, const SymShape& shape, const DimVec& dims) {
  return prim(OpKind::broadcast_in_dim, BasicBroadcastInDimAttrs<Dim>{shape, dims}, {x});
}

Value broadcast_to(const Value& x, const SymShape& shape) {
  if (x.shape() == shape) return x;
  std::int64_t r = x.ndim(), R = static_cast<std::int64_t>(shape.size());
  TF_CHECK(R >= r, ShapeError, "broadcast_to", "cannot broadcast ", x.shape(), " to ", shape);
  DimVec dims;
  for (std::int64_t i = 0; i < r; ++i) dims.push_back(R - r + i);
  return broadcast_in_dim(x, shape, dims);
}

Value add(const Value& a, const Value& b) { return binary(OpKind::add, a, b); }
Value sub(const Value& a, const Value& b) { return binary(OpKind::subtract, a, b); }
Value mul(const Value& a, const Value& b) { return binary(OpKind::multiply, a, b); }
Value div(const Value& a, const Value& b) { return binary(OpKind::divide, a, b); }
Value pow(const Value& a, const Value& b) { return binary(OpKind::power, a, b); }
Value maximum(const Value& a, const Value& b) { return binary(OpKind::maximum, a, b); }
Value minimum(const Value& a, const Value& b) { return binary(OpKind::minimum, a, b); }
Value compare(const Value& a, const Value& b, ComparisonDirection dir) {
  return binary(OpKind::compare, a, b, CompareAttrs{dir});
}
Value complex(const Value& re, const Value& im) { return binary(OpKind::complex, re, im); }

Value where(const Value& cond, const Value& a, const Value& b) {
  TF_CHECK(cond.dtype() == DType::bool_, DTypeError, "where", "condition must be bool, got ",
           cond.dtype());
  DType d = promote_types(a.dtype(), b.dtype());
  SymShape s = broadcast_sym_shapes(broadcast_sym_shapes(cond.shape(), a.shape(), "where"), b.shape(), "where");
  return prim(OpKind::select, NoAttrs{},
              {broadcast_to(cond, s), broadcast_to(convert(a, d), s), broadcast_to(convert(b, d), s)});
}

Value clamp(const Value& lo, const Value& x, const Value& hi) {
  return prim(OpKind::clamp, NoAttrs{}, {convert(lo, x.dtype()), x, convert(hi, x.dtype())});
}

Value add(const Value& a, Scalar b) { return add(a, scalar(b, scalar_dtype(a, b))); }
Value mul(const Value& a, Scalar b) { return mul(a, scalar(b, scalar_dtype(a, b))); }

Value neg(const Value& x) { return unary(OpKind::negate, x); }
Value conj(const Value& x) { return is_complex(x.dtype()) ? unary(OpKind::conj, x) : x; }
Value abs(const Value& x) { return unary(OpKind::abs, x); }
Value sign(const Value& x) { return unary(OpKind::sign, x); }
Value exp(const Value& x) { return unary(OpKind::exp, as_float(x)); }
Value log(const Value& x) { return unary(OpKind::log, as_float(x)); }
Value sin(const Value& x) { return unary(OpKind::sin, as_float(x)); }
Value cos(const Value& x) { return unary(OpKind::cos, as_float(x)); }
Value tanh(const Value& x) { return unary(OpKind::tanh, as_float(x)); }
Value sqrt(const Value& x) { return unary(OpKind::sqrt, as_float(x)); }
Value rsqrt(const Value& x) { return unary(OpKind::rsqrt, as_float(x)); }
Value expm1(const Value& x) { return unary(OpKind::expm1, as_float(x)); }
Value log1p(const Value& x) { return unary(OpKind::log1p, as_float(x)); }
Value real(const Value& x) { return is_complex(x.dtype()) ? unary(OpKind::real, x) : x; }
Value imag(const Value& x) { return is_complex(x.dtype()) ? unary(OpKind::imag, x) : zeros_like(x); }
Value is_finite(const Value& x) { return unary(OpKind::is_finite, x); }
Value square(const Value& x) { return prim(OpKind::multiply, NoAttrs{}, {x, x}); }

Value sum(const Value& x, const DimVec& axes) { return reduce(OpKind::reduce_sum, x, axes); }
Value sum(const Value& x) { return sum(x, all_axes(x)); }
Value prod(const Value& x, const DimVec& axes) { return reduce(OpKind::reduce_prod, x, axes); }
Value prod(const Value& x) { return prod(x, all_axes(x)); }
Value max(const Value& x, const DimVec& axes) { return reduce(OpKind::reduce_max, x, axes); }
Value max(const Value& x) { return max(x, all_axes(x)); }
Value min(const Value& x, const DimVec& axes) { return reduce(OpKind::reduce_min, x, axes); }
Value min(const Value& x) { return min(x, all_axes(x)); }

Value mean(const Value& x, const DimVec& axes) {
  DimVec ax = normalized(x, axes, "mean");
  Dim count(1);
  for (auto a : ax) count = count * x.shape()[static_cast<std::size_t>(a)];
  Value s = reduce(OpKind::reduce_sum, as_float(x), ax);
  if (auto c = count.try_value()) return div(s, scalar(Scalar(static_cast<double>(*c)), s.dtype()));
  TF_THROW(UnimplementedError, "mean", "over axes of symbolic extent ", count,
           " (divide a sum by the count instead)");
}
Value mean(const Value& x) { return mean(x, all_axes(x)); }

Value transpose(const Value& x, const DimVec& perm) {
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == std::int64_t(i);
  if (identity && std::int64_t(perm.size()) == x.ndim()) return x;
  return prim(OpKind::transpose, PermutationAttrs{perm}, {x});
}

Value reshape(const Value& x, const SymShape& shape) {
  SymShape target = shape;
  int infer_at = -1;
  Dim known(1), total(1);
  for (const Dim& d : x.shape()) total = total * d;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == Dim(-1)) {
      TF_CHECK(infer_at < 0, ShapeError, "reshape", "shape ", shape, " has more than one -1");
      infer_at = static_cast<int>(i);
    } else {
      known = known * target[i];
    }
  }
  if (infer_at >= 0) {
    auto k = known.try_value();
    TF_CHECK(k.has_value() && *k > 0, UnimplementedError, "reshape",
             "cannot infer -1 next to symbolic extents in ", shape);
    target[static_cast<std::size_t>(infer_at)] = total / *k;
  }
  if (target == x.shape()) return x;
  return prim(OpKind::reshape, BasicReshapeAttrs<Dim>{target}, {x});
}

Value slice(const Value& x, const SymShape& start, const SymShape& limit, const DimVec& strides) {
  return prim(OpKind::slice, BasicSliceAttrs<Dim>{start, limit, strides}, {x});
}

Value slice_axis(const Value& x, std::int64_t axis, const Dim& start, const Dim& stop) {
  std::size_t a = static_cast<std::size_t>(normalize_axis(axis, x.ndim(), "slice"));
  SymShape s(x.shape().size(), Dim(0)), l = x.shape();
  s[a] = start;
  l[a] = stop;
  return slice(x, s, l, DimVec(x.shape().size(), 1));
}

Value pad(const Value& x, const Value& v, const SymShape& low, const SymShape& high, const DimVec& interior) {
  return prim(OpKind::pad, BasicPadAttrs<Dim>{low, high, interior}, {x, convert(v, x.dtype())});
}

Value concatenate(const std::vector<Value>& xs, std::int64_t dimension) {
  TF_CHECK(!xs.empty(), ValueError, "concatenate", "needs at least one operand");
  if (xs.size() == 1) return xs[0];
  std::int64_t d = normalize_axis(dimension, xs[0].ndim(), "concatenate");
  return prim(OpKind::concatenate, ConcatenateAttrs{d}, xs);
}

Value reverse(const Value& x, const DimVec& dims) {
  return prim(OpKind::reverse, AxesAttrs{normalized(x, dims, "reverse")}, {x});
}

Value dynamic_slice(const Value& x, const Value& starts, const SymShape& sizes) {
  return prim(OpKind::dynamic_slice, BasicDynamicSliceAttrs<Dim>{sizes}, {x, starts});
}

Value dynamic_update_slice(const Value& x, const Value& update, const Value& starts) {
  return prim(OpKind::dynamic_update_slice, NoAttrs{}, {x, update, starts});
}

Value gather(const Value& x, const Value& indices, const BasicGatherAttrs<Dim>& attrs) {
  return prim(OpKind::gather, attrs, {x, indices});
}

Value scatter(const Value& x, const Value& indices, const Value& updates, const ScatterAttrs& attrs) {
  return prim(OpKind::scatter, attrs, {x, indices, updates});
}

Value diagonal(const Value& x, std::int64_t a1, std::int64_t a2) {
  std::int64_t r = x.ndim();
  std::size_t i = static_cast<std::size_t>(normalize_axis(a1, r, "diagonal"));
  std::size_t j = static_cast<std::size_t>(normalize_axis(a2, r, "diagonal"));
  TF_CHECK(i != j, ValueError, "diagonal", "axes must differ, got ", a1, " and ", a2);
  auto n = x.shape()[i].try_value();
  TF_CHECK(n.has_value() && x.shape()[i] == x.shape()[j], UnimplementedError, "diagonal",
           "needs equal constant extents on axes ", i, " and ", j, ", got ", x.shape());
  // indices[k] = (k, k): gather one element of axes (i, j) per k, keep the others.
  std::vector<std::int64_t> idx;
  for (std::int64_t k = 0; k < *n; ++k) {
    idx.push_back(k);
    idx.push_back(k);
  }
  Tensor t = Tensor::from_vec_row_major<std::int64_t>({*n, 2}, idx).contiguous();
  BasicGatherAttrs<Dim> g;
  g.collapsed_slice_dims = {std::int64_t(std::min(i, j)), std::int64_t(std::max(i, j))};
  g.start_index_map = {std::int64_t(i), std::int64_t(j)};
  g.index_vector_dim = 1;
  for (std::int64_t d = 0; d < r; ++d) {
    bool c = d == std::int64_t(i) || d == std::int64_t(j);
    g.slice_sizes.push_back(c ? Dim(1) : x.shape()[static_cast<std::size_t>(d)]);
  }
  // Output: kept axes in order (offset dims 0..r-3), then the diagonal (batch) axis.
  for (std::int64_t d = 0; d < r - 2; ++d) g.offset_dims.push_back(d);
  return gather(x, graph::constant(t), g);
}

Value trace(const Value& x) {
  TF_CHECK(x.ndim() >= 2, ShapeError, "trace", "needs rank >= 2, got ", x.shape());
  Value d = diagonal(x, 0, 1);
  return sum(d, {d.ndim() - 1});
}

Value dot_general(const Value& a, const Value& b, const DotGeneralAttrs& dims) {
  DType d = promote_types(a.dtype(), b.dtype());
  return prim(OpKind::dot_general, dims, {convert(a, d), convert(b, d)});
}

Value matmul(const Value& a, const Value& b) {
  TF_CHECK(a.ndim() >= 1 && b.ndim() >= 1, ShapeError, "matmul", "operands must have rank >= 1, got ",
           a.shape(), " and ", b.shape());
  bool avec = a.ndim() == 1, bvec = b.ndim() == 1;
  Value x = avec ? reshape(a, {Dim(1), a.shape()[0]}) : a;
  Value y = bvec ? reshape(b, {b.shape()[0], Dim(1)}) : b;
  TF_CHECK(x.shape()[1] == y.shape()[0], ShapeError, "matmul", "inner extents differ: ", a.shape(),
           " x ", b.shape());
  SymShape xb(x.shape().begin() + 2, x.shape().end()), yb(y.shape().begin() + 2, y.shape().end());
  SymShape batch = broadcast_sym_shapes(xb, yb, "matmul");
  std::int64_t nb = static_cast<std::int64_t>(batch.size());
  auto expand = [&](const Value& t) {
    SymShape full{t.shape()[0], t.shape()[1]};
    full.insert(full.end(), batch.begin(), batch.end());
    if (full == t.shape()) return t;
    DimVec dims{0, 1};
    for (std::int64_t i = 2; i < t.ndim(); ++i) dims.push_back(i + nb - t.ndim() + 2);
    return broadcast_in_dim(t, full, dims);
  };
  x = expand(x);
  y = expand(y);
  DotGeneralAttrs dg{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
  for (std::int64_t i = 0; i < nb; ++i) {
    dg.lhs_batching_dimensions.push_back(2 + i);
    dg.rhs_batching_dimensions.push_back(2 + i);
  }
  Value out = dot_general(x, y, dg);  // [batch..., m, n]
  DimVec perm{nb, nb + 1};
  for (std::int64_t i = 0; i < nb; ++i) perm.push_back(i);
  out = transpose(out, perm);
  SymShape s = out.shape();
  if (bvec) s.erase(s.begin() + 1);
  if (avec) s.erase(s.begin());
  return reshape(out, s);
}

}  // namespace tenferro::vops
