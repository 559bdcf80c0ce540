// Shape and dtype inference for every primitive (a pure function of metadata).
#include "tenferro/ops/infer.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "tenferro/tensor/checked.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro {

std::ostream& operator<<(std::ostream& os, const TensorMeta& m) {
  return os << m.dtype << m.shape;
}

std::ostream& operator<<(std::ostream& os, const SymMeta& m) {
  return os << m.dtype << m.shape;
}

namespace {

// Note [One inference for two extent types]: every rule below is a template
// over the extent type D. For std::int64_t all checks are exact; for Dim a
// check fails only when it is certain to fail (known_different, known_less),
// and the concrete inference at run time makes the rest.
template <class D>
struct Ext;

template <>
struct Ext<std::int64_t> {
  static bool differ(std::int64_t a, std::int64_t b) { return a != b; }
  static bool less(std::int64_t a, std::int64_t b) { return a < b; }
  static std::int64_t numel(const Shape& s, const char* op) { return shape_numel(s, op); }
  static std::int64_t ceil_div(std::int64_t a, std::int64_t b, const char*) { return tenferro::ceil_div(a, b); }
};

template <>
struct Ext<Dim> {
  static bool differ(const Dim& a, const Dim& b) { return known_different(a, b); }
  static bool less(const Dim& a, const Dim& b) { return known_less(a, b); }
  static Dim numel(const SymShape& s, const char*) {
    Dim n(1);
    for (const Dim& d : s) n = n * d;
    return n;
  }
  static Dim ceil_div(const Dim& a, std::int64_t b, const char* op) {
    if (b == 1) return a;
    if (auto v = a.try_value()) return Dim(tenferro::ceil_div(*v, b));
    TF_THROW(UnimplementedError, op, "stride ", b, " over the symbolic extent ", a,
             " (only stride 1 is supported for symbolic extents)");
  }
};

template <class D>
using Metas = std::span<const BasicTensorMeta<D>>;

template <class D>
std::string describe(Metas<D> in) {
  std::ostringstream os;
  os << "(";
  for (std::size_t i = 0; i < in.size(); ++i) os << (i ? ", " : "") << in[i];
  os << ")";
  return os.str();
}

template <class A, class V>
const A& get(OpKind kind, const V& attrs) {
  const A* a = std::get_if<A>(&attrs);
  TF_CHECK(a != nullptr, ValueError, op_name(kind), "wrong attribute kind (index ",
           attrs.index(), ", expected ", attrs_index(kind), ")");
  return *a;
}

template <class D>
void check_dtype(OpKind kind, DType d, DTypeSet allowed, Metas<D> in) {
  TF_CHECK(allowed.contains(d), DTypeError, op_name(kind), "dtype ", d,
           " is not supported (expected one of ", allowed, "); operands ", describe(in));
}

template <class D>
void check_same_dtype(OpKind kind, Metas<D> in, std::size_t a, std::size_t b) {
  TF_CHECK(in[a].dtype == in[b].dtype, DTypeError, op_name(kind), "operand dtypes differ (",
           in[a].dtype, " vs ", in[b].dtype, "); operands ", describe(in),
           "; convert explicitly");
}

template <class D>
bool shapes_differ(const ExtentList<D>& a, const ExtentList<D>& b) {
  if (a.size() != b.size()) return true;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (Ext<D>::differ(a[i], b[i])) return true;
  return false;
}

template <class D>
void check_same_shape(OpKind kind, Metas<D> in, std::size_t a, std::size_t b) {
  TF_CHECK(!shapes_differ<D>(in[a].shape, in[b].shape), ShapeError, op_name(kind),
           "operand shapes differ (", in[a].shape, " vs ", in[b].shape,
           "); primitives do not broadcast, use broadcast_in_dim or the broadcasting sugar");
}

// Checks that `axes` are distinct and in [0, rank).
void check_axes(OpKind kind, const DimVec& axes, std::int64_t rank, const char* what) {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    TF_CHECK(axes[i] >= 0 && axes[i] < rank, IndexError, op_name(kind), what, " ", axes,
             " has axis ", axes[i], " outside [0, ", rank, ")");
    for (std::size_t j = 0; j < i; ++j)
      TF_CHECK(axes[i] != axes[j], ValueError, op_name(kind), what, " ", axes, " repeats axis ",
               axes[i]);
  }
}

template <class D>
std::int64_t rank_of(const BasicTensorMeta<D>& m) { return static_cast<std::int64_t>(m.shape.size()); }

bool contains(const DimVec& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

void check_index_dtype(OpKind kind, DType d, const char* what) {
  TF_CHECK(d == DType::i32 || d == DType::i64, DTypeError, op_name(kind), what,
           " must be i32 or i64, got ", d);
}

template <class D>
BasicTensorMeta<D> infer_unary(OpKind kind, const BasicAttrs<D>& attrs, Metas<D> in) {
  DType d = in[0].dtype;
  switch (kind) {
    case OpKind::abs:
    case OpKind::real:
    case OpKind::imag:
      return {real_dtype(d), in[0].shape};
    case OpKind::is_finite:
      return {DType::bool_, in[0].shape};
    case OpKind::frexp_exponent:
      return {DType::i32, in[0].shape};
    case OpKind::polygamma: {
      const std::int64_t n = get<PolygammaAttrs>(kind, attrs).n;
      TF_CHECK(n >= 0 && n <= 1000, ValueError, op_name(kind), "order n = ", n,
               " is outside [0, 1000]; operands ", describe(in));
      return in[0];
    }
    case OpKind::convert:
      return {get<ConvertAttrs>(kind, attrs).dtype, in[0].shape};
    default:
      return in[0];
  }
}

template <class D>
BasicTensorMeta<D> infer_binary(OpKind kind, const BasicAttrs<D>& attrs, Metas<D> in) {
  check_same_dtype(kind, in, 0, 1);
  check_same_shape(kind, in, 0, 1);
  if (kind == OpKind::compare) {
    auto dir = get<CompareAttrs>(kind, attrs).direction;
    TF_CHECK(!is_complex(in[0].dtype) || dir == ComparisonDirection::EQ ||
                 dir == ComparisonDirection::NE,
             DTypeError, op_name(kind), "direction ", comparison_name(dir),
             " is not defined for complex operands ", describe(in));
    return {DType::bool_, in[0].shape};
  }
  if (kind == OpKind::complex) return {complex_dtype(in[0].dtype), in[0].shape};
  return in[0];
}

template <class D>
BasicTensorMeta<D> infer_ternary(OpKind kind, Metas<D> in) {
  if (kind == OpKind::select) {
    TF_CHECK(in[0].dtype == DType::bool_, DTypeError, op_name(kind),
             "predicate must be bool, got ", in[0].dtype);
    check_same_dtype(kind, in, 1, 2);
    check_same_shape(kind, in, 1, 2);
    TF_CHECK(in[0].shape.empty() || !shapes_differ<D>(in[0].shape, in[1].shape), ShapeError,
             op_name(kind), "predicate shape ", in[0].shape, " must be [] or ", in[1].shape);
    return in[1];
  }
  // clamp(min, operand, max): min and max are scalars or operand-shaped.
  check_same_dtype(kind, in, 0, 1);
  check_same_dtype(kind, in, 2, 1);
  check_dtype(kind, in[1].dtype, op_info(kind).dtypes, in);
  for (std::size_t i : {std::size_t{0}, std::size_t{2}})
    TF_CHECK(in[i].shape.empty() || !shapes_differ<D>(in[i].shape, in[1].shape), ShapeError,
             op_name(kind), i == 0 ? "min" : "max", " shape ", in[i].shape, " must be [] or ",
             in[1].shape);
  return in[1];
}

template <class D>
BasicTensorMeta<D> infer_reduction(OpKind kind, const BasicAttrs<D>& attrs, Metas<D> in) {
  const auto& a = get<AxesAttrs>(kind, attrs);
  check_axes(kind, a.dimensions, rank_of(in[0]), "dimensions");
  // AxesAttrs::nonempty: checked here for eager calls, for constant extents
  // when tracing, and for symbolic extents when a compiled program plans its
  // steps for the bound shapes.
  if (a.nonempty && (kind == OpKind::reduce_max || kind == OpKind::reduce_min))
    for (std::int64_t ax : a.dimensions)
      TF_CHECK(!(in[0].shape[static_cast<std::size_t>(ax)] == D(0)), ValueError, op_name(kind), "axis ", ax,
               " of shape ", in[0].shape, " is empty; the reduction has no identity");
  ExtentList<D> out;
  for (std::int64_t i = 0; i < rank_of(in[0]); ++i)
    if (!contains(a.dimensions, i)) out.push_back(in[0].shape[static_cast<std::size_t>(i)]);
  return {in[0].dtype, out};
}

template <class D>
BasicTensorMeta<D> infer_dot_general(OpKind kind, const BasicAttrs<D>& attrs, Metas<D> in) {
  const auto& a = get<DotGeneralAttrs>(kind, attrs);
  const char* op = op_name(kind);
  check_same_dtype(kind, in, 0, 1);
  const ExtentList<D>& ls = in[0].shape;
  const ExtentList<D>& rs = in[1].shape;
  TF_CHECK(a.lhs_batching_dimensions.size() == a.rhs_batching_dimensions.size(), ValueError, op,
           "lhs_batch ", a.lhs_batching_dimensions, " and rhs_batch ", a.rhs_batching_dimensions,
           " differ in length");
  TF_CHECK(a.lhs_contracting_dimensions.size() == a.rhs_contracting_dimensions.size(), ValueError,
           op, "lhs_contract ", a.lhs_contracting_dimensions, " and rhs_contract ",
           a.rhs_contracting_dimensions, " differ in length");
  DimVec lused = a.lhs_batching_dimensions, rused = a.rhs_batching_dimensions;
  for (auto d : a.lhs_contracting_dimensions) lused.push_back(d);
  for (auto d : a.rhs_contracting_dimensions) rused.push_back(d);
  check_axes(kind, lused, rank_of(in[0]), "lhs batch+contracting dimensions");
  check_axes(kind, rused, rank_of(in[1]), "rhs batch+contracting dimensions");
  auto check_pairs = [&](const DimVec& l, const DimVec& r, const char* what) {
    for (std::size_t i = 0; i < l.size(); ++i) {
      const D& ln = ls[static_cast<std::size_t>(l[i])];
      const D& rn = rs[static_cast<std::size_t>(r[i])];
      TF_CHECK(!Ext<D>::differ(ln, rn), ShapeError, op, what, " dimension sizes differ: lhs axis ", l[i], " (",
               ln, ") vs rhs axis ", r[i], " (", rn, "); lhs shape ", ls, ", rhs shape ", rs);
    }
  };
  check_pairs(a.lhs_batching_dimensions, a.rhs_batching_dimensions, "batch");
  check_pairs(a.lhs_contracting_dimensions, a.rhs_contracting_dimensions, "contracting");
  ExtentList<D> out;
  for (auto d : a.lhs_batching_dimensions) out.push_back(ls[static_cast<std::size_t>(d)]);
  for (std::int64_t i = 0; i < rank_of(in[0]); ++i)
    if (!contains(lused, i)) out.push_back(ls[static_cast<std::size_t>(i)]);
  for (std::int64_t i = 0; i < rank_of(in[1]); ++i)
    if (!contains(rused, i)) out.push_back(rs[static_cast<std::size_t>(i)]);
  return {in[0].dtype, out};
}

template <class D>
BasicTensorMeta<D> infer_gather(OpKind kind, const BasicAttrs<D>& attrs, Metas<D> in) {
  const auto& a = get<BasicGatherAttrs<D>>(kind, attrs);
  const char* op = op_name(kind);
  const ExtentList<D>& os = in[0].shape;
  const ExtentList<D>& is = in[1].shape;
  check_index_dtype(kind, in[1].dtype, "start_indices");
  std::int64_t r = rank_of(in[0]);
  TF_CHECK(static_cast<std::int64_t>(a.slice_sizes.size()) == r, ValueError, op, "slice_sizes ",
           a.slice_sizes, " must have one entry per operand axis (shape ", os, ")");
  TF_CHECK(a.index_vector_dim >= 0 && a.index_vector_dim <= rank_of(in[1]), IndexError, op,
           "index_vector_dim ", a.index_vector_dim, " is out of range for indices of shape ", is);
  D nvec = a.index_vector_dim < rank_of(in[1]) ? is[static_cast<std::size_t>(a.index_vector_dim)]
                                               : D(1);
  TF_CHECK(!Ext<D>::differ(D(static_cast<std::int64_t>(a.start_index_map.size())), nvec), ValueError, op,
           "start_index_map ", a.start_index_map, " must have ", nvec,
           " entries (the index vector length)");
  check_axes(kind, a.start_index_map, r, "start_index_map");
  check_axes(kind, a.collapsed_slice_dims, r, "collapsed_slice_dims");
  for (std::int64_t i = 0; i < r; ++i) {
    const D& s = a.slice_sizes[static_cast<std::size_t>(i)];
    TF_CHECK(!Ext<D>::less(s, D(0)) && !Ext<D>::less(os[static_cast<std::size_t>(i)], s), IndexError,
             op, "slice size ", s, " on axis ", i, " does not fit operand shape ", os);
    // StableHLO also allows 0, but such a slice has no element to read.
    TF_CHECK(!contains(a.collapsed_slice_dims, i) || !Ext<D>::differ(s, D(1)), ValueError, op,
             "collapsed axis ", i, " must have slice size 1, got ", s);
  }
  std::int64_t batch_rank = rank_of(in[1]) - (a.index_vector_dim < rank_of(in[1]) ? 1 : 0);
  std::int64_t offset_rank = r - static_cast<std::int64_t>(a.collapsed_slice_dims.size());
  TF_CHECK(static_cast<std::int64_t>(a.offset_dims.size()) == offset_rank, ValueError, op,
           "offset_dims ", a.offset_dims, " must have ", offset_rank, " entries");
  std::int64_t out_rank = batch_rank + offset_rank;
  check_axes(kind, a.offset_dims, out_rank, "offset_dims");
  TF_CHECK(std::is_sorted(a.offset_dims.begin(), a.offset_dims.end()), ValueError, op,
           "offset_dims ", a.offset_dims, " must be sorted");
  ExtentList<D> out;
  std::int64_t next_batch = 0, next_offset = 0;
  for (std::int64_t d = 0; d < out_rank; ++d) {
    if (contains(a.offset_dims, d)) {
      while (contains(a.collapsed_slice_dims, next_offset)) ++next_offset;
      out.push_back(a.slice_sizes[static_cast<std::size_t>(next_offset++)]);
    } else {
      if (next_batch == a.index_vector_dim) ++next_batch;
      out.push_back(is[static_cast<std::size_t>(next_batch++)]);
    }
  }
  return {in[0].dtype, out};
}

template <class D>
BasicTensorMeta<D> infer_scatter(OpKind kind, const BasicAttrs<D>& attrs, Metas<D> in) {
  const auto& a = get<ScatterAttrs>(kind, attrs);
  const char* op = op_name(kind);
  const ExtentList<D>& os = in[0].shape;
  const ExtentList<D>& is = in[1].shape;
  const ExtentList<D>& us = in[2].shape;
  check_index_dtype(kind, in[1].dtype, "scatter_indices");
  check_same_dtype(kind, in, 0, 2);
  if (a.mode == ScatterMode::add) check_dtype(kind, in[0].dtype, kNumericDTypes, in);
  std::int64_t r = rank_of(in[0]);
  std::int64_t ir = rank_of(in[1]);
  TF_CHECK(a.index_vector_dim >= 0 && a.index_vector_dim <= ir, IndexError, op,
           "index_vector_dim ", a.index_vector_dim, " is out of range for indices of shape ", is);
  D nvec = a.index_vector_dim < ir ? is[static_cast<std::size_t>(a.index_vector_dim)] : D(1);
  TF_CHECK(!Ext<D>::differ(D(static_cast<std::int64_t>(a.scatter_dims_to_operand_dims.size())), nvec), ValueError,
           op, "scatter_dims_to_operand_dims ", a.scatter_dims_to_operand_dims, " must have ", nvec,
           " entries");
  check_axes(kind, a.scatter_dims_to_operand_dims, r, "scatter_dims_to_operand_dims");
  check_axes(kind, a.inserted_window_dims, r, "inserted_window_dims");
  check_axes(kind, a.update_window_dims, rank_of(in[2]), "update_window_dims");
  TF_CHECK(std::is_sorted(a.update_window_dims.begin(), a.update_window_dims.end()), ValueError,
           op, "update_window_dims must be sorted, got ", a.update_window_dims);
  TF_CHECK(static_cast<std::int64_t>(a.update_window_dims.size() + a.inserted_window_dims.size()) ==
               r,
           ValueError, op, "update_window_dims ", a.update_window_dims, " and inserted_window_dims ",
           a.inserted_window_dims, " must together cover the operand rank ", r);
  std::int64_t batch_rank = ir - (a.index_vector_dim < ir ? 1 : 0);
  TF_CHECK(rank_of(in[2]) == batch_rank + static_cast<std::int64_t>(a.update_window_dims.size()),
           ShapeError, op, "updates shape ", us, " must have rank ",
           batch_rank + static_cast<std::int64_t>(a.update_window_dims.size()));
  std::int64_t next_batch = 0, next_window = 0;
  for (std::int64_t d = 0; d < rank_of(in[2]); ++d) {
    const D& n = us[static_cast<std::size_t>(d)];
    if (contains(a.update_window_dims, d)) {
      while (contains(a.inserted_window_dims, next_window)) ++next_window;
      const D& lim = os[static_cast<std::size_t>(next_window++)];
      TF_CHECK(!Ext<D>::less(lim, n), ShapeError, op, "update window axis ", d, " (", n,
               ") exceeds operand shape ", os);
    } else {
      if (next_batch == a.index_vector_dim) ++next_batch;
      const D& want = is[static_cast<std::size_t>(next_batch++)];
      TF_CHECK(!Ext<D>::differ(n, want), ShapeError, op, "updates axis ", d, " (", n,
               ") must match the scatter indices batch extent ", want, "; indices shape ", is);
    }
  }
  return in[0];
}

template <class D>
BasicTensorMeta<D> infer_structural(OpKind kind, const BasicAttrs<D>& attrs, Metas<D> in) {
  const char* op = op_name(kind);
  TF_CHECK(!in.empty(), ValueError, op, "needs at least one operand");
  const BasicTensorMeta<D>& x = in[0];
  std::int64_t r = rank_of(x);
  switch (kind) {
    case OpKind::transpose: {
      const auto& a = get<PermutationAttrs>(kind, attrs);
      check_permutation(a.permutation, r, op);
      ExtentList<D> out;
      for (auto p : a.permutation) out.push_back(x.shape[static_cast<std::size_t>(p)]);
      return {x.dtype, out};
    }
    case OpKind::reshape: {
      const auto& a = get<BasicReshapeAttrs<D>>(kind, attrs);
      D n = Ext<D>::numel(a.shape, op);
      D nx = Ext<D>::numel(x.shape, op);
      TF_CHECK(!Ext<D>::differ(n, nx), ShapeError, op, "cannot reshape ", x.shape, " (", nx,
               " elements) to ", a.shape, " (", n, " elements)");
      return {x.dtype, a.shape};
    }
    case OpKind::broadcast_in_dim: {
      const auto& a = get<BasicBroadcastInDimAttrs<D>>(kind, attrs);
      Ext<D>::numel(a.shape, op);
      std::int64_t R = static_cast<std::int64_t>(a.shape.size());
      TF_CHECK(static_cast<std::int64_t>(a.broadcast_dimensions.size()) == r, ValueError, op,
               "broadcast_dimensions ", a.broadcast_dimensions, " needs one entry per operand axis (",
               "operand shape ", x.shape, ")");
      check_axes(kind, a.broadcast_dimensions, R, "broadcast_dimensions");
      for (std::int64_t i = 0; i < r; ++i) {
        const D& from = x.shape[static_cast<std::size_t>(i)];
        const D& to = a.shape[static_cast<std::size_t>(a.broadcast_dimensions[static_cast<std::size_t>(i)])];
        TF_CHECK(!(Ext<D>::differ(from, D(1)) && Ext<D>::differ(from, to)), ShapeError, op, "operand axis ", i, " of extent ", from,
                 " cannot broadcast to output axis ", a.broadcast_dimensions[static_cast<std::size_t>(i)],
                 " of extent ", to, "; operand shape ", x.shape, ", output shape ", a.shape);
      }
      return {x.dtype, a.shape};
    }
    case OpKind::gather:
      return infer_gather<D>(kind, attrs, in);
    case OpKind::scatter:
      return infer_scatter<D>(kind, attrs, in);
    case OpKind::slice: {
      const auto& a = get<BasicSliceAttrs<D>>(kind, attrs);
      TF_CHECK(static_cast<std::int64_t>(a.start_indices.size()) == r &&
                   static_cast<std::int64_t>(a.limit_indices.size()) == r &&
                   static_cast<std::int64_t>(a.strides.size()) == r,
               ValueError, op, "start ", a.start_indices, ", limit ", a.limit_indices,
               " and strides ", a.strides, " need one entry per axis of ", x.shape);
      ExtentList<D> out;
      for (std::size_t i = 0; i < x.shape.size(); ++i) {
        const D& s = a.start_indices[i];
        const D& l = a.limit_indices[i];
        std::int64_t st = a.strides[i];
        TF_CHECK(st > 0, ValueError, op, "strides ", a.strides, " must be positive");
        TF_CHECK(!Ext<D>::less(s, D(0)) && !Ext<D>::less(l, s) && !Ext<D>::less(x.shape[i], l),
                 IndexError, op, "range [", s, ", ", l, ") is out of bounds for axis ", i,
                 " of shape ", x.shape);
        out.push_back(Ext<D>::ceil_div(l - s, st, op));
      }
      return {x.dtype, out};
    }
    case OpKind::dynamic_slice: {
      const auto& a = get<BasicDynamicSliceAttrs<D>>(kind, attrs);
      check_index_dtype(kind, in[1].dtype, "start indices");
      TF_CHECK(in[1].shape.size() == 1 && !Ext<D>::differ(in[1].shape[0], D(r)), ShapeError, op,
               "start indices must have shape [", r, "], got ", in[1].shape);
      TF_CHECK(static_cast<std::int64_t>(a.slice_sizes.size()) == r, ValueError, op,
               "slice_sizes ", a.slice_sizes, " needs one entry per axis of ", x.shape);
      for (std::size_t i = 0; i < x.shape.size(); ++i)
        TF_CHECK(!Ext<D>::less(a.slice_sizes[i], D(0)) && !Ext<D>::less(x.shape[i], a.slice_sizes[i]),
                 IndexError, op,
                 "slice_sizes ", a.slice_sizes, " do not fit in operand shape ", x.shape);
      return {x.dtype, a.slice_sizes};
    }
    case OpKind::dynamic_update_slice: {
      check_same_dtype(kind, in, 0, 1);
      check_index_dtype(kind, in[2].dtype, "start indices");
      TF_CHECK(in[2].shape.size() == 1 && !Ext<D>::differ(in[2].shape[0], D(r)), ShapeError, op,
               "start indices must have shape [", r, "], got ", in[2].shape);
      TF_CHECK(rank_of(in[1]) == r, ShapeError, op, "update rank ", rank_of(in[1]),
               " differs from operand rank ", r);
      for (std::size_t i = 0; i < x.shape.size(); ++i)
        TF_CHECK(!Ext<D>::less(x.shape[i], in[1].shape[i]), ShapeError, op, "update shape ", in[1].shape,
                 " does not fit in operand shape ", x.shape);
      return x;
    }
    case OpKind::pad: {
      const auto& a = get<BasicPadAttrs<D>>(kind, attrs);
      check_same_dtype(kind, in, 0, 1);
      TF_CHECK(in[1].shape.empty(), ShapeError, op, "padding value must be a scalar, got shape ",
               in[1].shape);
      TF_CHECK(static_cast<std::int64_t>(a.edge_padding_low.size()) == r &&
                   static_cast<std::int64_t>(a.edge_padding_high.size()) == r &&
                   static_cast<std::int64_t>(a.interior_padding.size()) == r,
               ValueError, op, "padding lists need one entry per axis of ", x.shape);
      ExtentList<D> out;
      for (std::size_t i = 0; i < x.shape.size(); ++i) {
        const D& n = x.shape[i];
        std::int64_t it = a.interior_padding[i];
        TF_CHECK(it >= 0, ValueError, op, "interior padding ", a.interior_padding,
                 " must be non-negative");
        // Interior padding adds (n - 1) * it; an empty axis gets none.
        D m;
        if constexpr (std::is_same_v<D, std::int64_t>) {
          // Overflow-checked, in the terms the kernel computes with: the
          // operand's positions span body = (n - 1) * (it + 1) + 1 elements,
          // followed by the high padding, preceded by the low padding.
          std::int64_t step = checked_add(it, 1, op, "interior padding ");
          std::int64_t body =
              n > 0 ? checked_add(checked_mul(n - 1, step, op, "interior-padded extent "), 1, op,
                                  "interior-padded extent ")
                    : 0;
          m = checked_add(a.edge_padding_low[i], checked_add(a.edge_padding_high[i], body, op, "padded extent "),
                          op, "padded extent ");
        } else {
          D interior = (it == 0 || !Ext<D>::less(D(0), n)) ? D(0) : (n - D(1)) * D(it);
          m = a.edge_padding_low[i] + a.edge_padding_high[i] + n + interior;
        }
        TF_CHECK(!Ext<D>::less(m, D(0)), ShapeError, op, "padding (low ", a.edge_padding_low, ", high ",
                 a.edge_padding_high, ") crops axis ", i, " of ", x.shape, " below zero");
        out.push_back(m);
      }
      return {x.dtype, out};
    }
    case OpKind::concatenate: {
      const auto& a = get<ConcatenateAttrs>(kind, attrs);
      TF_CHECK(!in.empty(), ValueError, op, "needs at least one operand");
      TF_CHECK(a.dimension >= 0 && a.dimension < r, IndexError, op, "dimension ", a.dimension,
               " is out of range for rank ", r);
      ExtentList<D> out = x.shape;
      out[static_cast<std::size_t>(a.dimension)] = D(0);
      for (std::size_t k = 0; k < in.size(); ++k) {
        check_same_dtype(kind, in, 0, k);
        bool ok = rank_of(in[k]) == r;
        for (std::int64_t i = 0; ok && i < r; ++i)
          ok = i == a.dimension || !Ext<D>::differ(in[k].shape[static_cast<std::size_t>(i)],
                                                   x.shape[static_cast<std::size_t>(i)]);
        TF_CHECK(ok, ShapeError, op, "operand ", k, " has shape ", in[k].shape,
                 ", which differs from ", x.shape, " outside dimension ", a.dimension);
        out[static_cast<std::size_t>(a.dimension)] =
            out[static_cast<std::size_t>(a.dimension)] + in[k].shape[static_cast<std::size_t>(a.dimension)];
      }
      return {x.dtype, out};
    }
    case OpKind::reverse: {
      check_axes(kind, get<AxesAttrs>(kind, attrs).dimensions, r, "dimensions");
      return x;
    }
    default:
      TF_INTERNAL_ASSERT(false, "infer_structural: ", op);
  }
}


template <class D>
BasicTensorMeta<D> infer_any(OpKind kind, const BasicAttrs<D>& attrs, Metas<D> in) {
  const OpInfo& info = op_info(kind);
  if (info.arity >= 0) {
    TF_CHECK(static_cast<int>(in.size()) == info.arity, ValueError, info.name, "takes ",
             info.arity, " operands, got ", in.size());
  }
  TF_CHECK(attrs.index() == attrs_index(kind), ValueError, info.name,
           "wrong attribute kind (index ", attrs.index(), ", expected ", attrs_index(kind), ")");
  // The select predicate and clamp bounds are checked by infer_ternary.
  std::size_t first = kind == OpKind::select ? 1 : 0;
  if (!in.empty()) check_dtype<D>(kind, in[first].dtype, info.dtypes, in);
  switch (info.category) {
    case OpCategory::unary:
      return infer_unary<D>(kind, attrs, in);
    case OpCategory::binary:
      return infer_binary<D>(kind, attrs, in);
    case OpCategory::ternary:
      return infer_ternary<D>(kind, in);
    case OpCategory::reduction:
      return infer_reduction<D>(kind, attrs, in);
    case OpCategory::contraction:
      return infer_dot_general<D>(kind, attrs, in);
    case OpCategory::structural:
      return infer_structural<D>(kind, attrs, in);
  }
  TF_INTERNAL_ASSERT(false, "infer: unknown category");
}

}  // namespace

TensorMeta infer(OpKind kind, const Attrs& attrs, std::span<const TensorMeta> in) {
  return infer_any<std::int64_t>(kind, attrs, in);
}

SymMeta infer(OpKind kind, const SymAttrs& attrs, std::span<const SymMeta> in) {
  return infer_any<Dim>(kind, attrs, in);
}

}  // namespace tenferro
