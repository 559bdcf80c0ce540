// Graph-level operations lowered to primitives: the op layer (op_layer.hpp)
// instantiated on graph values, and the structural building blocks.
#include "tenferro/ops/value_ops.hpp"

#include <algorithm>

#include "op_layer.hpp"

namespace tenferro::vops {
namespace {

Value prim(OpKind k, SymAttrs attrs, std::vector<Value> in) {
  return graph::apply(k, std::move(attrs), std::move(in));
}

// Note [Op layer]: each primitive becomes a graph node (evaluated at once
// when its operands are eager, Note [Eager evaluation]).
struct ValueEmitter {
  using Handle = Value;
  using Extent = Dim;

  static DType dtype(const Value& v) { return v.dtype(); }
  static const SymShape& shape(const Value& v) { return v.shape(); }
  static Value apply(OpKind k, const SymAttrs& attrs, std::span<const Value> in) {
    return graph::apply(k, attrs, std::vector<Value>(in.begin(), in.end()));
  }
  // Next to an eager value, an eager leaf on its backend: a result that
  // depends only on constants (imag of a real tensor, the norm of an empty
  // one) is then still computed eagerly (Note [Eager evaluation]).
  static Value constant(Scalar v, DType d, const Value& like) {
    Backend* be = like.node ? like.node->eager : nullptr;
    if (be == nullptr) return scalar(v, d);
    return graph::eager_leaf(be->from_host(Tensor::full({}, v, d)), *be);
  }
  static Value permute(const Value& x, const DimVec& perm) { return transpose(x, perm); }
  static Value diagonal(const Value& x, std::int64_t a1, std::int64_t a2) {
    return vops::diagonal(x, a1, a2);
  }
};

ValueEmitter emitter;

}  // namespace

Value scalar(Scalar v, DType d) { return graph::constant(Tensor::full({}, v, d)); }

Value full(const SymShape& shape, Scalar v, DType d) { return broadcast_in_dim(scalar(v, d), shape, {}); }

Value zeros_like(const Value& x) { return full(x.shape(), Scalar(0), x.dtype()); }
Value ones_like(const Value& x) { return full(x.shape(), Scalar(1), x.dtype()); }

Value convert(const Value& x, DType d) { return op_layer::convert(emitter, x, d); }
Value broadcast_in_dim(const Value& x, const SymShape& shape, const DimVec& dims) {
  return op_layer::broadcast_in_dim(emitter, x, shape, dims);
}
Value broadcast_to(const Value& x, const SymShape& shape) { return op_layer::broadcast_to(emitter, x, shape); }

#define TF_BINARY(name, kind)                                                                        \
  Value name(const Value& a, const Value& b) { return op_layer::binary(emitter, OpKind::kind, a, b); } \
  Value name(const Value& a, Scalar b) { return op_layer::binary_scalar(emitter, OpKind::kind, a, b); }
TENFERRO_OP_LAYER_BINARY(TF_BINARY)
#undef TF_BINARY

Value sub(Scalar a, const Value& b) { return op_layer::binary_scalar(emitter, OpKind::subtract, b, a, true); }
Value div(Scalar a, const Value& b) { return op_layer::binary_scalar(emitter, OpKind::divide, b, a, true); }
Value complex(const Value& re, const Value& im) { return op_layer::binary(emitter, OpKind::complex, re, im); }

Value compare(const Value& a, const Value& b, ComparisonDirection dir) {
  return op_layer::binary(emitter, OpKind::compare, a, b, CompareAttrs{dir});
}
Value compare(const Value& a, Scalar b, ComparisonDirection dir) {
  return op_layer::binary_scalar(emitter, OpKind::compare, a, b, false, CompareAttrs{dir});
}
#define TF_COMPARE(name, dir)                                                                      \
  Value name(const Value& a, const Value& b) { return compare(a, b, ComparisonDirection::dir); } \
  Value name(const Value& a, Scalar b) { return compare(a, b, ComparisonDirection::dir); }
TENFERRO_OP_LAYER_COMPARE(TF_COMPARE)
#undef TF_COMPARE

Value where(const Value& cond, const Value& a, const Value& b) { return op_layer::where(emitter, cond, a, b); }
Value clamp(const Value& lo, const Value& x, const Value& hi) { return op_layer::clamp(emitter, lo, x, hi); }
Value clamp(Scalar lo, const Value& x, Scalar hi) { return op_layer::clamp(emitter, lo, x, hi); }

#define TF_UNARY(name, kind) \
  Value name(const Value& x) { return op_layer::unary(emitter, OpKind::kind, x); }
TENFERRO_OP_LAYER_UNARY(TF_UNARY)
#undef TF_UNARY
#define TF_FLOAT_UNARY(name) \
  Value name(const Value& x) { return op_layer::float_unary(emitter, OpKind::name, x); }
TENFERRO_OP_LAYER_FLOAT_UNARY(TF_FLOAT_UNARY)
#undef TF_FLOAT_UNARY
#define TF_ROUNDING(name, kind) \
  Value name(const Value& x) { return op_layer::rounding(emitter, OpKind::kind, x); }
TENFERRO_OP_LAYER_ROUNDING(TF_ROUNDING)
#undef TF_ROUNDING
Value round(const Value& x, std::int64_t decimals) { return op_layer::round_decimals(emitter, x, decimals); }
#define TF_FLOAT_BINARY(name)                                                                   \
  Value name(const Value& a, const Value& b) { return op_layer::float_binary(emitter, OpKind::name, a, b); } \
  Value name(const Value& a, Scalar b) { return op_layer::float_binary_scalar(emitter, OpKind::name, a, b); }
TENFERRO_OP_LAYER_FLOAT_BINARY(TF_FLOAT_BINARY)
#undef TF_FLOAT_BINARY
std::pair<Value, Value> frexp(const Value& x) { return op_layer::frexp(emitter, x); }
Value polygamma(std::int64_t n, const Value& x) { return op_layer::polygamma(emitter, n, x); }
Value mvlgamma(const Value& x, std::int64_t p) { return op_layer::mvlgamma(emitter, x, p); }
#define TF_LAYER_UNARY(name) \
  Value name(const Value& x) { return op_layer::name(emitter, x); }
TENFERRO_OP_LAYER_NAMED_UNARY(TF_LAYER_UNARY)
#undef TF_LAYER_UNARY

#define TF_REDUCE(name, kind)                                                                   \
  Value name(const Value& x, const DimVec& axes) { return op_layer::reduce(emitter, OpKind::kind, x, axes); } \
  Value name(const Value& x) { return op_layer::reduce(emitter, OpKind::kind, x, op_layer::all_axes(emitter, x)); }
TENFERRO_OP_LAYER_REDUCE(TF_REDUCE)
#undef TF_REDUCE

Value reduce_max(const Value& x, const DimVec& axes) {
  return prim(OpKind::reduce_max, AxesAttrs{op_layer::normalized_axes(emitter, x, axes, "reduce_max")}, {x});
}
Value reduce_min(const Value& x, const DimVec& axes) {
  return prim(OpKind::reduce_min, AxesAttrs{op_layer::normalized_axes(emitter, x, axes, "reduce_min")}, {x});
}

Value mean(const Value& x, const DimVec& axes) { return op_layer::mean(emitter, x, axes); }
Value mean(const Value& x) { return op_layer::mean(emitter, x, op_layer::all_axes(emitter, x)); }

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
  return prim(OpKind::reverse, AxesAttrs{op_layer::normalized_axes(emitter, x, dims, "reverse")}, {x});
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
  auto ni = x.shape()[i].try_value(), nj = x.shape()[j].try_value();
  TF_CHECK(ni.has_value() && nj.has_value(), UnimplementedError, "diagonal",
           "needs constant extents on axes ", i, " and ", j, ", got ", x.shape());
  auto n = std::optional<std::int64_t>(std::min(*ni, *nj));  // rectangular: the shorter side
  if (*n == 0) {  // an empty diagonal: no gather (its slices would not fit)
    SymShape out;
    for (std::int64_t d = 0; d < r; ++d)
      if (d != std::int64_t(i) && d != std::int64_t(j)) out.push_back(x.shape()[static_cast<std::size_t>(d)]);
    out.push_back(Dim(0));
    return broadcast_in_dim(ValueEmitter::constant(Scalar(0), x.dtype(), x), out, {});
  }
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

Value dot_general(const Value& a, const Value& b, const DotGeneralAttrs& dims) {
  return op_layer::dot_general(emitter, a, b, dims);
}

Value matmul(const Value& a, const Value& b) { return op_layer::matmul(emitter, a, b); }

}  // namespace tenferro::vops
