// The derivative rules of the primitives: a JVP rule for every op and a
// transpose rule for every linear one, written with graph operations so that
// they run traced and eager alike and are themselves differentiable.
//
// Conventions: an undefined Value is a zero tangent/cotangent. Transposes are
// adjoints for Re<u, v> (Note [Complex gradients] in tenferro/ad.hpp): the
// constant factor of a linear map enters conjugated.
#include "rules.hpp"

#include <algorithm>
#include <numbers>
#include <numeric>
#include <optional>

#include "tenferro/runtime/value_ops.hpp"

// A new row in ops.def must get its rules here: no default case.
#pragma GCC diagnostic push  // popped at the end: a unity build includes the next file after this one
#pragma GCC diagnostic error "-Wswitch-enum"

namespace tenferro::ad::detail {
namespace {

constexpr double kTwoOverSqrtPi = 1.12837916709551257390;  // 2 / sqrt(pi)
constexpr double kSqrtPi = 1.77245385090551602730;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;     // 1 / sqrt(2 pi)
constexpr double kSqrt2Pi = 2.50662827463100050242;

using namespace tenferro::vops;

Value prim(OpKind k, SymAttrs attrs, std::vector<Value> in) { return graph::apply(k, std::move(attrs), std::move(in)); }

// Sum of possibly-zero terms.
Value plus(const Value& a, const Value& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return prim(OpKind::add, NoAttrs{}, {a, b});
}

// t * c for a tangent t and a primal factor c (same shape and dtype).
Value times(const Value& t, const Value& c) {
  if (!t.defined()) return {};
  return prim(OpKind::multiply, NoAttrs{}, {t, c});
}

// Zero of `like`'s dtype and shape when `v` is undefined.
Value or_zeros(const Value& v, const Value& like) { return v.defined() ? v : zeros_like(like); }

Value as_dtype(const Value& v, DType d) { return convert(v, d); }

// A real mask (1 where `pred`) in dtype d.
Value mask(const Value& pred, DType d) { return convert(pred, d); }

Value half_ties(const Value& a, const Value& b, ComparisonDirection strict, DType d) {
  // 1 where a wins strictly, 1/2 on ties (JAX splits ties equally), else 0.
  Value win = mask(prim(OpKind::compare, CompareAttrs{strict}, {a, b}), d);
  Value tie = mask(prim(OpKind::compare, CompareAttrs{ComparisonDirection::EQ}, {a, b}), d);
  return prim(OpKind::add, NoAttrs{}, {win, mul(tie, Scalar(0.5))});
}

DimVec inverse(const DimVec& perm) {
  DimVec inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
  return inv;
}

DimVec free_axes(std::int64_t rank, const DimVec& batch, const DimVec& contract) {
  DimVec out;
  for (std::int64_t i = 0; i < rank; ++i)
    if (std::find(batch.begin(), batch.end(), i) == batch.end() &&
        std::find(contract.begin(), contract.end(), i) == contract.end())
      out.push_back(i);
  return out;
}

// Cotangent of the lhs of dot_general(A, B) (or of the rhs with sides
// swapped): contract ct with conj(other) over the other side's free axes,
// then order the axes as the operand's.
Value dot_transpose(const Value& ct, const Value& other, const DotGeneralAttrs& a, bool lhs, std::int64_t rank) {
  const DimVec& my_batch = lhs ? a.lhs_batching_dimensions : a.rhs_batching_dimensions;
  const DimVec& my_con = lhs ? a.lhs_contracting_dimensions : a.rhs_contracting_dimensions;
  const DimVec& ot_batch = lhs ? a.rhs_batching_dimensions : a.lhs_batching_dimensions;
  const DimVec& ot_con = lhs ? a.rhs_contracting_dimensions : a.lhs_contracting_dimensions;
  std::int64_t nb = static_cast<std::int64_t>(my_batch.size());
  DimVec my_free = free_axes(rank, my_batch, my_con);
  DimVec ot_free = free_axes(other.ndim(), ot_batch, ot_con);
  std::int64_t nlf = static_cast<std::int64_t>((lhs ? my_free : ot_free).size());
  // Positions of the other side's free axes in ct: after batch (and after the lhs free axes when we are the lhs).
  std::int64_t ot_free_start = lhs ? nb + nlf : nb;
  std::int64_t my_free_start = lhs ? nb : nb + static_cast<std::int64_t>(ot_free.size());
  DotGeneralAttrs d;
  for (std::int64_t i = 0; i < nb; ++i) d.lhs_batching_dimensions.push_back(i);
  d.rhs_batching_dimensions = ot_batch;
  for (std::size_t i = 0; i < ot_free.size(); ++i) {
    d.lhs_contracting_dimensions.push_back(ot_free_start + static_cast<std::int64_t>(i));
    d.rhs_contracting_dimensions.push_back(ot_free[i]);
  }
  Value r = prim(OpKind::dot_general, d, {ct, conj(other)});
  // r axes: [batch (my_batch order), my free (ascending), other's contracting axes ascending].
  (void)my_free_start;
  DimVec ot_con_sorted = ot_con;
  std::sort(ot_con_sorted.begin(), ot_con_sorted.end());
  DimVec pos(static_cast<std::size_t>(rank));  // pos[operand axis] = axis of r
  for (std::int64_t i = 0; i < nb; ++i) pos[static_cast<std::size_t>(my_batch[static_cast<std::size_t>(i)])] = i;
  for (std::size_t i = 0; i < my_free.size(); ++i) pos[static_cast<std::size_t>(my_free[i])] = nb + static_cast<std::int64_t>(i);
  for (std::size_t i = 0; i < ot_con.size(); ++i) {
    // my_con[i] pairs with ot_con[i]; ot_con[i] sits at its rank among the sorted ones.
    std::int64_t k = std::find(ot_con_sorted.begin(), ot_con_sorted.end(), ot_con[i]) - ot_con_sorted.begin();
    pos[static_cast<std::size_t>(my_con[i])] = nb + static_cast<std::int64_t>(my_free.size()) + k;
  }
  return transpose(r, pos);
}

// gather's transpose: scatter-add into zeros with the starts clamped the way gather clamps them.
Value gather_transpose(const Value& ct, const Value& x, const Value& idx, const BasicGatherAttrs<Dim>& g) {
  // Clamp: 0 <= start[k] <= n[d] - slice[d] for d = start_index_map[k].
  std::int64_t ir = idx.ndim();
  std::int64_t ivd = g.index_vector_dim;
  std::vector<std::int64_t> hi;
  for (auto d : g.start_index_map) {
    auto n = x.shape()[static_cast<std::size_t>(d)].try_value();
    auto s = g.slice_sizes[static_cast<std::size_t>(d)].try_value();
    TF_CHECK(n && s, UnimplementedError, "gather", "derivative with symbolic operand extents");
    hi.push_back(*n - *s);
  }
  Value limits;
  if (ivd < ir) {
    Tensor h = Tensor::from_vec_col_major<std::int64_t>({static_cast<std::int64_t>(hi.size())}, hi);
    Value hv = convert(graph::constant(h), idx.dtype());
    limits = broadcast_in_dim(hv, idx.shape(), {ivd});
  } else {
    limits = broadcast_in_dim(convert(graph::constant(Tensor::scalar<std::int64_t>(hi[0])), idx.dtype()), idx.shape(), {});
  }
  Value zero = broadcast_in_dim(convert(graph::constant(Tensor::scalar<std::int64_t>(0)), idx.dtype()), idx.shape(), {});
  Value clamped = prim(OpKind::clamp, NoAttrs{}, {zero, idx, limits});
  ScatterAttrs s;
  s.update_window_dims = g.offset_dims;
  s.inserted_window_dims = g.collapsed_slice_dims;
  s.scatter_dims_to_operand_dims = g.start_index_map;
  s.index_vector_dim = g.index_vector_dim;
  s.mode = ScatterMode::add;
  return prim(OpKind::scatter, s, {zeros_like(x), clamped, ct});
}

// An extent as a scalar value of an integer dtype; a symbolic extent as the
// sum of that many ones (bound when the program runs).
Value extent_scalar(const Dim& e, DType dtype) {
  if (auto v = e.try_value()) return convert(graph::constant(Tensor::scalar<std::int64_t>(*v)), dtype);
  Value one = convert(graph::constant(Tensor::scalar<std::int64_t>(1)), dtype);
  return prim(OpKind::reduce_sum, AxesAttrs{{0}}, {broadcast_in_dim(one, SymShape{e}, {})});
}

// The gather that reads what scatter(x, idx, u) wrote (updates' cotangent).
// Note [Scatter skips windows outside]: scatter drops an update whose
// window does not lie wholly inside the operand, while gather clamps its
// starts into range; so the gathered cotangent is zeroed for the updates
// whose window starts outside 0 <= start[k] <= n[d] - window[d]
// (found by the random-program derivative checks, tests/fuzz).
Value scatter_updates_cotangent(const Value& ct, const Value& idx, const Value& u, const ScatterAttrs& s) {
  BasicGatherAttrs<Dim> g;
  g.offset_dims = s.update_window_dims;
  g.collapsed_slice_dims = s.inserted_window_dims;
  g.start_index_map = s.scatter_dims_to_operand_dims;
  g.index_vector_dim = s.index_vector_dim;
  std::size_t w = 0;
  for (std::int64_t d = 0; d < ct.ndim(); ++d) {
    bool inserted = std::find(s.inserted_window_dims.begin(), s.inserted_window_dims.end(), d) != s.inserted_window_dims.end();
    g.slice_sizes.push_back(inserted ? Dim(1) : u.shape()[static_cast<std::size_t>(s.update_window_dims[w++])]);
  }
  Value gathered = prim(OpKind::gather, g, {ct, idx});

  // limits[.., k, ..] = n[d] - window[d] for d = scatter_dims_to_operand_dims[k].
  const std::int64_t ir = idx.ndim(), ivd = s.index_vector_dim;
  const DType it = idx.dtype();
  SymShape one_slice = idx.shape();
  if (ivd < ir) one_slice[static_cast<std::size_t>(ivd)] = Dim(1);
  std::vector<Value> parts;
  for (auto d : s.scatter_dims_to_operand_dims) {
    Value lim = prim(OpKind::subtract, NoAttrs{},
                     {extent_scalar(ct.shape()[static_cast<std::size_t>(d)], it),
                      extent_scalar(g.slice_sizes[static_cast<std::size_t>(d)], it)});
    parts.push_back(broadcast_in_dim(lim, one_slice, {}));
  }
  Value limits = parts.size() == 1 ? parts[0] : prim(OpKind::concatenate, ConcatenateAttrs{ivd}, parts);
  Value zero = broadcast_in_dim(convert(graph::constant(Tensor::scalar<std::int64_t>(0)), it), idx.shape(), {});
  const DType dt = gathered.dtype();
  Value inside = prim(OpKind::multiply, NoAttrs{},
                      {mask(prim(OpKind::compare, CompareAttrs{ComparisonDirection::GE}, {idx, zero}), dt),
                       mask(prim(OpKind::compare, CompareAttrs{ComparisonDirection::LE}, {idx, limits}), dt)});
  if (ivd < ir) inside = prim(OpKind::reduce_prod, AxesAttrs{{ivd}}, {inside});
  // inside has the scatter batch axes, the update axes that are not window axes.
  DimVec batch_axes;
  for (std::int64_t k = 0; k < u.ndim(); ++k)
    if (std::find(s.update_window_dims.begin(), s.update_window_dims.end(), k) == s.update_window_dims.end())
      batch_axes.push_back(k);
  return prim(OpKind::multiply, NoAttrs{}, {gathered, broadcast_in_dim(inside, u.shape(), batch_axes)});
}

// Tangent of reduce_prod(x, ax) when the reduced extent is symbolic (the
// scans of prod_tangent need its value): sum_i t_i prod_{j != i} x_j from
// the product p of the nonzero x_j and the number z of zeros, without
// dividing by a zero: prod_{j != i} x_j = p / x_i when z = 0, p at the zero
// when z = 1, else 0. (The rule was sum(t out / x), NaN where x has a zero;
// found by the random-program fuzzer.) Every intermediate is finite, so
// its own derivatives are too.
Value prod_tangent_symbolic(const Value& x, const Value& t, const SymAttrs& attrs, const DimVec& kept) {
  const DType d = x.dtype();
  auto fill = [&](double v) { return broadcast_in_dim(as_dtype(graph::constant(Tensor::scalar(v)), d), x.shape(), {}); };
  auto eq = [&](const Value& a, const Value& b) { return prim(OpKind::compare, CompareAttrs{ComparisonDirection::EQ}, {a, b}); };
  Value zero = fill(0.0), one = fill(1.0);
  Value is_zero = eq(x, zero);
  Value safe = prim(OpKind::select, NoAttrs{}, {is_zero, one, x});
  Value p = broadcast_in_dim(prim(OpKind::reduce_prod, attrs, {safe}), x.shape(), kept);
  Value z = broadcast_in_dim(prim(OpKind::reduce_sum, attrs, {mask(is_zero, d)}), x.shape(), kept);
  Value at_zero = prim(OpKind::select, NoAttrs{}, {eq(z, one), prim(OpKind::select, NoAttrs{}, {is_zero, p, zero}), zero});
  Value others = prim(OpKind::select, NoAttrs{}, {eq(z, zero), prim(OpKind::divide, NoAttrs{}, {p, safe}), at_zero});
  return prim(OpKind::reduce_sum, attrs, {times(t, others)});
}

// Tangent of reduce_prod(x, ax): sum_i t_i prod_{j != i} x_j over the
// reduced elements. The products of the other elements come from an
// exclusive prefix and suffix product (log-step scans of pads and
// multiplies), so the rule is exact where x has zeros (out / x is not) and
// is itself differentiable (found by the PyTorch oracle replay).
Value prod_tangent(const Value& x, const Value& t, const DimVec& ax, const DimVec& kept, std::int64_t count) {
  SymShape flat{Dim(count)};
  DimVec perm = ax;
  for (auto k : kept) {
    perm.push_back(k);
    flat.push_back(x.shape()[static_cast<std::size_t>(k)]);
  }
  Value xf = reshape(transpose(x, perm), flat);
  Value tf = reshape(transpose(t, perm), flat);
  if (count == 0) return prim(OpKind::reduce_sum, AxesAttrs{{0}}, {tf});
  // v shifted by s along axis 0, ones in front: v[i - s].
  auto shift = [&](const Value& v, std::int64_t s) {
    SymShape low(flat.size(), Dim(0)), high(flat.size(), Dim(0));
    low[0] = Dim(s);
    Value head = slice_axis(v, 0, Dim(0), Dim(count - s));
    return pad(head, scalar(Scalar(1.0), v.dtype()), low, high, DimVec(flat.size(), 0));
  };
  auto exclusive = [&](const Value& v) {
    Value inc = v;
    for (std::int64_t s = 1; s < count; s *= 2) inc = prim(OpKind::multiply, NoAttrs{}, {inc, shift(inc, s)});
    return shift(inc, 1);
  };
  Value before = exclusive(xf);
  Value after = reverse(exclusive(reverse(xf, {0})), {0});
  Value others = prim(OpKind::multiply, NoAttrs{}, {before, after});
  return prim(OpKind::reduce_sum, AxesAttrs{{0}}, {times(tf, others)});
}

}  // namespace

bool has_jvp(OpKind kind) {
  switch (kind) {
    // Piecewise constant (integer, bool or sign results): the tangent is zero.
    case OpKind::sign:
    case OpKind::compare:
    case OpKind::is_finite:
    // Rounding (Note [Rounding derivatives] in ops.def).
    case OpKind::floor:
    case OpKind::ceil:
    case OpKind::round_nearest_even:
    case OpKind::trunc:
    case OpKind::frexp_exponent:
      return false;
    case OpKind::fmod:
    case OpKind::remainder:
    case OpKind::ldexp:
    case OpKind::erf:
    case OpKind::erfc:
    case OpKind::erfinv:
    case OpKind::erfcx:
    case OpKind::lgamma:
    case OpKind::digamma:
    case OpKind::polygamma:
    case OpKind::i0:
    case OpKind::i0e:
    case OpKind::i1:
    case OpKind::i1e:
    case OpKind::ndtr:
    case OpKind::ndtri:
    case OpKind::log_ndtr:
    case OpKind::add:
    case OpKind::subtract:
    case OpKind::multiply:
    case OpKind::negate:
    case OpKind::conj:
    case OpKind::dot_general:
    case OpKind::reduce_sum:
    case OpKind::transpose:
    case OpKind::reshape:
    case OpKind::broadcast_in_dim:
    case OpKind::gather:
    case OpKind::scatter:
    case OpKind::slice:
    case OpKind::dynamic_slice:
    case OpKind::dynamic_update_slice:
    case OpKind::pad:
    case OpKind::concatenate:
    case OpKind::reverse:
    case OpKind::divide:
    case OpKind::abs:
    case OpKind::maximum:
    case OpKind::minimum:
    case OpKind::select:
    case OpKind::clamp:
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::tanh:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::power:
    case OpKind::expm1:
    case OpKind::log1p:
    case OpKind::real:
    case OpKind::imag:
    case OpKind::complex:
    case OpKind::convert:
    case OpKind::reduce_prod:
    case OpKind::reduce_max:
    case OpKind::reduce_min:
      return true;
  }
  return true;
}

Value jvp_rule(const Node& n, const Value& out, std::span<const Value> t) {
  const std::vector<Value>& x = n.inputs;
  auto any = [&] { return std::any_of(t.begin(), t.end(), [](const Value& v) { return v.defined(); }); };
  if (!any() || !has_jvp(n.op)) return {};
  const DType d = out.dtype();
  switch (n.op) {
    case OpKind::add:
      return plus(t[0], t[1]);
    case OpKind::subtract:
      return plus(t[0], t[1].defined() ? neg(t[1]) : Value{});
    case OpKind::multiply:
      return plus(times(t[0], x[1]), t[1].defined() ? prim(OpKind::multiply, NoAttrs{}, {x[0], t[1]}) : Value{});
    case OpKind::negate:
      return neg(t[0]);
    case OpKind::conj:
      return conj(t[0]);
    case OpKind::dot_general: {
      const auto& a = std::get<DotGeneralAttrs>(n.attrs);
      Value l = t[0].defined() ? prim(OpKind::dot_general, a, {t[0], x[1]}) : Value{};
      Value r = t[1].defined() ? prim(OpKind::dot_general, a, {x[0], t[1]}) : Value{};
      return plus(l, r);
    }
    case OpKind::reduce_sum:
    case OpKind::transpose:
    case OpKind::reshape:
    case OpKind::broadcast_in_dim:
    case OpKind::slice:
    case OpKind::reverse:
    case OpKind::real:
    case OpKind::imag:
      return prim(n.op, n.attrs, {t[0]});
    case OpKind::gather:
    case OpKind::dynamic_slice:
      return t[0].defined() ? prim(n.op, n.attrs, {t[0], x[1]}) : Value{};
    case OpKind::dynamic_update_slice:
      return prim(n.op, n.attrs, {or_zeros(t[0], x[0]), or_zeros(t[1], x[1]), x[2]});
    case OpKind::scatter:
      return prim(n.op, n.attrs, {or_zeros(t[0], x[0]), x[1], or_zeros(t[2], x[2])});
    case OpKind::pad:
      return prim(n.op, n.attrs, {or_zeros(t[0], x[0]), or_zeros(t[1], x[1])});
    case OpKind::concatenate: {
      std::vector<Value> parts;
      for (std::size_t i = 0; i < x.size(); ++i) parts.push_back(or_zeros(t[i], x[i]));
      return prim(n.op, n.attrs, parts);
    }
    case OpKind::divide:  // (ta - tb * out) / b
      return prim(OpKind::divide, NoAttrs{},
                  {plus(t[0], t[1].defined() ? neg(prim(OpKind::multiply, NoAttrs{}, {t[1], out})) : Value{}), x[1]});
    case OpKind::abs: {
      if (!is_complex(x[0].dtype())) return times(t[0], sign(x[0]));
      // d|z| = Re(conj(z) dz) / |z|, and 0 at z = 0.
      Value nz = prim(OpKind::compare, CompareAttrs{ComparisonDirection::GT}, {out, zeros_like(out)});
      Value safe = prim(OpKind::select, NoAttrs{}, {nz, out, ones_like(out)});
      Value num = real(prim(OpKind::multiply, NoAttrs{}, {conj(x[0]), t[0]}));
      return prim(OpKind::select, NoAttrs{}, {nz, prim(OpKind::divide, NoAttrs{}, {num, safe}), zeros_like(out)});
    }
    case OpKind::sign:
    case OpKind::compare:
    case OpKind::is_finite:
    case OpKind::floor:
    case OpKind::ceil:
    case OpKind::round_nearest_even:
    case OpKind::trunc:
    case OpKind::frexp_exponent:
      TF_THROW(InternalError, op_name(n.op), "has no JVP rule (has_jvp) but reached jvp_rule");
    case OpKind::maximum:
    case OpKind::minimum: {
      auto dir = n.op == OpKind::maximum ? ComparisonDirection::GT : ComparisonDirection::LT;
      Value wa = half_ties(x[0], x[1], dir, d);
      Value wb = prim(OpKind::subtract, NoAttrs{}, {ones_like(wa), wa});
      return plus(times(t[0], wa), times(t[1], wb));
    }
    case OpKind::select:
      return prim(OpKind::select, NoAttrs{}, {x[0], or_zeros(t[1], x[1]), or_zeros(t[2], x[2])});
    case OpKind::clamp: {
      // clamp(lo, x, hi): the tangent of whichever bound is active, else of x.
      Value lo = x[0].ndim() == 0 && x[1].ndim() > 0 ? broadcast_in_dim(x[0], x[1].shape(), {}) : x[0];
      Value hi = x[2].ndim() == 0 && x[1].ndim() > 0 ? broadcast_in_dim(x[2], x[1].shape(), {}) : x[2];
      auto bt = [&](const Value& tv, const Value& like) {
        Value z = or_zeros(tv, like);
        return z.ndim() == 0 && x[1].ndim() > 0 ? broadcast_in_dim(z, x[1].shape(), {}) : z;
      };
      Value below = prim(OpKind::compare, CompareAttrs{ComparisonDirection::LT}, {x[1], lo});
      Value above = prim(OpKind::compare, CompareAttrs{ComparisonDirection::GT}, {x[1], hi});
      Value inner = prim(OpKind::select, NoAttrs{}, {above, bt(t[2], x[2]), or_zeros(t[1], x[1])});
      return prim(OpKind::select, NoAttrs{}, {below, bt(t[0], x[0]), inner});
    }
    case OpKind::exp:
      return times(t[0], out);
    case OpKind::log:
      return prim(OpKind::divide, NoAttrs{}, {t[0], x[0]});
    case OpKind::sin:
      return times(t[0], prim(OpKind::cos, NoAttrs{}, {x[0]}));
    case OpKind::cos:
      return neg(times(t[0], prim(OpKind::sin, NoAttrs{}, {x[0]})));
    case OpKind::tanh:  // t (1 - out^2)
      return times(t[0], prim(OpKind::subtract, NoAttrs{}, {ones_like(out), square(out)}));
    case OpKind::sqrt:  // t / (2 out)
      return prim(OpKind::divide, NoAttrs{}, {t[0], mul(out, Scalar(2.0))});
    case OpKind::rsqrt:  // -t out / (2 x)
      return times(t[0], prim(OpKind::divide, NoAttrs{}, {mul(out, Scalar(-0.5)), x[0]}));
    case OpKind::power: {
      // d(a^b) = b a^(b-1) da + log(a) a^b db
      Value l, r;
      if (t[0].defined()) {
        Value bm1 = prim(OpKind::subtract, NoAttrs{}, {x[1], ones_like(x[1])});
        l = times(t[0], prim(OpKind::multiply, NoAttrs{}, {x[1], prim(OpKind::power, NoAttrs{}, {x[0], bm1})}));
      }
      if (t[1].defined()) r = times(t[1], prim(OpKind::multiply, NoAttrs{}, {prim(OpKind::log, NoAttrs{}, {x[0]}), out}));
      return plus(l, r);
    }
    case OpKind::expm1:  // t (out + 1)
      return times(t[0], prim(OpKind::add, NoAttrs{}, {out, ones_like(out)}));
    case OpKind::log1p:  // t / (1 + x)
      return prim(OpKind::divide, NoAttrs{}, {t[0], prim(OpKind::add, NoAttrs{}, {x[0], ones_like(x[0])})});
    case OpKind::complex:
      return prim(OpKind::complex, NoAttrs{}, {or_zeros(t[0], x[0]), or_zeros(t[1], x[1])});
    case OpKind::fmod:       // x - trunc(x / y) y: t_x - t_y trunc(x / y)
    case OpKind::remainder: {  // x - floor(x / y) y: t_x - t_y floor(x / y)
      Value r = t[0];
      if (t[1].defined()) {
        OpKind round = n.op == OpKind::fmod ? OpKind::trunc : OpKind::floor;
        Value q = prim(round, NoAttrs{}, {prim(OpKind::divide, NoAttrs{}, {x[0], x[1]})});
        r = plus(r, neg(times(t[1], q)));
      }
      return r;
    }
    // ---- special functions (docs/special_functions.md) ----
    case OpKind::erf:   // 2/sqrt(pi) exp(-x^2)
      return times(t[0], mul(exp(neg(square(x[0]))), Scalar(kTwoOverSqrtPi)));
    case OpKind::erfc:  // -2/sqrt(pi) exp(-x^2)
      return times(t[0], mul(exp(neg(square(x[0]))), Scalar(-kTwoOverSqrtPi)));
    case OpKind::erfinv:  // sqrt(pi)/2 exp(out^2)
      return times(t[0], mul(exp(square(out)), Scalar(0.5 * kSqrtPi)));
    case OpKind::erfcx:  // 2 x out - 2/sqrt(pi)
      return times(t[0], sub(mul(prim(OpKind::multiply, NoAttrs{}, {x[0], out}), Scalar(2.0)), Scalar(kTwoOverSqrtPi)));
    case OpKind::lgamma:
      return times(t[0], prim(OpKind::digamma, NoAttrs{}, {x[0]}));
    case OpKind::digamma:
      return times(t[0], prim(OpKind::polygamma, PolygammaAttrs{1}, {x[0]}));
    case OpKind::polygamma: {
      std::int64_t order = std::get<PolygammaAttrs>(n.attrs).n;
      return times(t[0], prim(OpKind::polygamma, PolygammaAttrs{order + 1}, {x[0]}));
    }
    case OpKind::i0:
      return times(t[0], prim(OpKind::i1, NoAttrs{}, {x[0]}));
    case OpKind::i0e:  // i1e(x) - sign(x) i0e(x)
      return times(t[0], sub(prim(OpKind::i1e, NoAttrs{}, {x[0]}), prim(OpKind::multiply, NoAttrs{}, {sign(x[0]), out})));
    case OpKind::i1:    // i0(x) - i1(x)/x, 1/2 at 0
    case OpKind::i1e: {  // i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 at 0
      Value zero = eq(x[0], Scalar(0.0));
      Value safe = where(zero, ones_like(x[0]), x[0]);
      Value over_x = div(out, safe);
      Value d = n.op == OpKind::i1
                    ? sub(prim(OpKind::i0, NoAttrs{}, {x[0]}), over_x)
                    : sub(prim(OpKind::i0e, NoAttrs{}, {x[0]}),
                          add(over_x, prim(OpKind::multiply, NoAttrs{}, {sign(x[0]), out})));
      return times(t[0], where(zero, full(x[0].shape(), Scalar(0.5), x[0].dtype()), d));
    }
    case OpKind::ndtr:  // exp(-x^2/2) / sqrt(2 pi)
      return times(t[0], mul(exp(mul(square(x[0]), Scalar(-0.5))), Scalar(kInvSqrt2Pi)));
    case OpKind::ndtri:  // sqrt(2 pi) exp(out^2/2)
      return times(t[0], mul(exp(mul(square(out), Scalar(0.5))), Scalar(kSqrt2Pi)));
    case OpKind::log_ndtr:  // exp(-x^2/2 - out) / sqrt(2 pi)
      return times(t[0], mul(exp(sub(mul(square(x[0]), Scalar(-0.5)), out)), Scalar(kInvSqrt2Pi)));
    case OpKind::ldexp: {  // x 2^e: t_x 2^e + t_e ln(2) out
      Value l = t[0].defined() ? times(t[0], prim(OpKind::ldexp, NoAttrs{}, {ones_like(x[0]), x[1]})) : Value{};
      Value r = t[1].defined() ? times(t[1], mul(out, Scalar(std::numbers::ln2))) : Value{};
      return plus(l, r);
    }
    case OpKind::convert: {
      DType to = std::get<ConvertAttrs>(n.attrs).dtype;
      if (!is_float(to) || !is_float(x[0].dtype())) return {};
      return as_dtype(t[0], to);
    }
    case OpKind::reduce_prod: {
      const auto& ax = std::get<AxesAttrs>(n.attrs).dimensions;
      DimVec kept;
      for (std::int64_t i = 0; i < x[0].ndim(); ++i)
        if (std::find(ax.begin(), ax.end(), i) == ax.end()) kept.push_back(i);
      std::optional<std::int64_t> count = 1;
      for (auto a : ax) {
        auto e = x[0].shape()[static_cast<std::size_t>(a)].try_value();
        count = e && count ? std::optional<std::int64_t>(*count * *e) : std::nullopt;
      }
      if (!count) return prod_tangent_symbolic(x[0], t[0], n.attrs, kept);
      return prod_tangent(x[0], t[0], ax, kept, *count);
    }
    case OpKind::reduce_max:
    case OpKind::reduce_min: {
      // The mean of the tangents at the extremal elements (ties split equally).
      const auto& ax = std::get<AxesAttrs>(n.attrs).dimensions;
      DimVec kept;
      for (std::int64_t i = 0; i < x[0].ndim(); ++i)
        if (std::find(ax.begin(), ax.end(), i) == ax.end()) kept.push_back(i);
      Value ob = broadcast_in_dim(out, x[0].shape(), kept);
      Value m = mask(prim(OpKind::compare, CompareAttrs{ComparisonDirection::EQ}, {x[0], ob}), d);
      Value count = prim(OpKind::reduce_sum, n.attrs, {m});
      return prim(OpKind::divide, NoAttrs{}, {prim(OpKind::reduce_sum, n.attrs, {times(t[0], m)}), count});
    }
  }
  TF_INTERNAL_ASSERT(false, "jvp_rule: unknown op");
}

std::vector<Value> transpose_rule(const Node& n, const Value& ct, std::span<const bool> lin) {
  const std::vector<Value>& x = n.inputs;
  std::vector<Value> g(x.size());
  const char* op = op_name(n.op);
  TF_CHECK(has_transpose(n.op), InternalError, op, "has no transpose rule (has_transpose)");
  auto only_first = [&] {
    for (std::size_t i = 1; i < lin.size(); ++i)
      TF_CHECK(!lin[i], InternalError, op, "is not linear in operand ", i);
  };
  switch (n.op) {
    case OpKind::add:
      for (std::size_t i = 0; i < 2; ++i)
        if (lin[i]) g[i] = ct;
      return g;
    case OpKind::subtract:
      if (lin[0]) g[0] = ct;
      if (lin[1]) g[1] = neg(ct);
      return g;
    case OpKind::negate:
      g[0] = neg(ct);
      return g;
    case OpKind::conj:
      g[0] = conj(ct);
      return g;
    case OpKind::multiply:
      TF_CHECK(!(lin[0] && lin[1]), InternalError, op, "of two tangents is not linear");
      if (lin[0]) g[0] = prim(OpKind::multiply, NoAttrs{}, {ct, conj(x[1])});
      if (lin[1]) g[1] = prim(OpKind::multiply, NoAttrs{}, {conj(x[0]), ct});
      return g;
    case OpKind::divide:
      only_first();
      g[0] = prim(OpKind::divide, NoAttrs{}, {ct, conj(x[1])});
      return g;
    case OpKind::dot_general: {
      TF_CHECK(!(lin[0] && lin[1]), InternalError, op, "of two tangents is not linear");
      const auto& a = std::get<DotGeneralAttrs>(n.attrs);
      if (lin[0]) g[0] = dot_transpose(ct, x[1], a, true, x[0].ndim());
      if (lin[1]) g[1] = dot_transpose(ct, x[0], a, false, x[1].ndim());
      return g;
    }
    case OpKind::reduce_sum: {
      const auto& ax = std::get<AxesAttrs>(n.attrs).dimensions;
      DimVec kept;
      for (std::int64_t i = 0; i < x[0].ndim(); ++i)
        if (std::find(ax.begin(), ax.end(), i) == ax.end()) kept.push_back(i);
      g[0] = broadcast_in_dim(ct, x[0].shape(), kept);
      return g;
    }
    case OpKind::transpose:
      g[0] = transpose(ct, inverse(std::get<PermutationAttrs>(n.attrs).permutation));
      return g;
    case OpKind::reshape:
      g[0] = reshape(ct, x[0].shape());
      return g;
    case OpKind::broadcast_in_dim: {
      const auto& a = std::get<BasicBroadcastInDimAttrs<Dim>>(n.attrs);
      DimVec sum_axes;
      for (std::int64_t k = 0; k < ct.ndim(); ++k) {
        auto it = std::find(a.broadcast_dimensions.begin(), a.broadcast_dimensions.end(), k);
        if (it == a.broadcast_dimensions.end()) {
          sum_axes.push_back(k);
          continue;
        }
        std::size_t i = static_cast<std::size_t>(it - a.broadcast_dimensions.begin());
        if (x[0].shape()[i] == Dim(1) && !(a.shape[static_cast<std::size_t>(k)] == Dim(1))) sum_axes.push_back(k);
      }
      Value s = sum_axes.empty() ? ct : prim(OpKind::reduce_sum, AxesAttrs{sum_axes}, {ct});
      // The kept axes are in output order; the operand may list them permuted.
      DimVec kept;
      for (std::int64_t k = 0; k < ct.ndim(); ++k)
        if (std::find(sum_axes.begin(), sum_axes.end(), k) == sum_axes.end()) kept.push_back(k);
      // Order of operand axes among the kept ones.
      std::vector<std::size_t> order(a.broadcast_dimensions.size());
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) {
        return a.broadcast_dimensions[p] < a.broadcast_dimensions[q];
      });
      // s has axes = operand axes sorted by their output position, minus summed unit axes.
      DimVec operand_axes;  // operand axis of each axis of s
      for (std::size_t i : order) {
        std::int64_t k = a.broadcast_dimensions[i];
        if (std::find(sum_axes.begin(), sum_axes.end(), k) == sum_axes.end()) operand_axes.push_back(static_cast<std::int64_t>(i));
      }
      // Bring them into operand order, then restore the summed unit axes by reshape.
      DimVec perm(operand_axes.size());
      std::vector<std::int64_t> sorted(operand_axes.begin(), operand_axes.end());
      std::sort(sorted.begin(), sorted.end());
      for (std::size_t j = 0; j < sorted.size(); ++j)
        perm[j] = std::find(operand_axes.begin(), operand_axes.end(), sorted[j]) - operand_axes.begin();
      g[0] = reshape(transpose(s, perm), x[0].shape());
      return g;
    }
    case OpKind::slice: {
      const auto& a = std::get<BasicSliceAttrs<Dim>>(n.attrs);
      SymShape low, high;
      DimVec interior;
      for (std::size_t i = 0; i < a.strides.size(); ++i) {
        std::int64_t st = a.strides[i];
        const Dim& len = ct.shape()[i];
        low.push_back(a.start_indices[i]);
        // The last element read is start + (len - 1) * stride; the rest up to n is padding.
        Dim last = len == Dim(0) ? a.start_indices[i] - 1 : a.start_indices[i] + (len - 1) * st;
        high.push_back(x[0].shape()[i] - last - 1);
        interior.push_back(st - 1);
      }
      g[0] = pad(ct, scalar(Scalar(0), ct.dtype()), low, high, interior);
      return g;
    }
    case OpKind::pad: {
      const auto& a = std::get<BasicPadAttrs<Dim>>(n.attrs);
      std::size_t r = a.interior_padding.size();
      // Undo cropping (negative edges) with zeros, then read every (interior+1)-th element.
      SymShape lo0(r, Dim(0)), hi0(r, Dim(0)), start(r), limit(r);
      DimVec strides;
      bool crop = false;
      Value c = ct;
      for (std::size_t i = 0; i < r; ++i) {
        auto lo = a.edge_padding_low[i].try_value(), hi = a.edge_padding_high[i].try_value();
        if (lo && *lo < 0) {
          lo0[i] = Dim(-*lo);
          crop = true;
        }
        if (hi && *hi < 0) {
          hi0[i] = Dim(-*hi);
          crop = true;
        }
      }
      if (crop) c = pad(ct, scalar(Scalar(0), ct.dtype()), lo0, hi0, DimVec(r, 0));
      for (std::size_t i = 0; i < r; ++i) {
        Dim lo = lo0[i] == Dim(0) ? a.edge_padding_low[i] : Dim(0);
        start[i] = lo;
        std::int64_t st = a.interior_padding[i] + 1;
        const Dim& n_in = x[0].shape()[i];
        limit[i] = n_in == Dim(0) ? lo : lo + (n_in - 1) * st + 1;
        strides.push_back(st);
      }
      Value gx = slice(c, start, limit, strides);
      if (lin[0]) g[0] = gx;
      if (lin[1]) g[1] = prim(OpKind::subtract, NoAttrs{}, {sum(ct), sum(gx)});
      return g;
    }
    case OpKind::concatenate: {
      std::int64_t dim = std::get<ConcatenateAttrs>(n.attrs).dimension;
      Dim at(0);
      for (std::size_t i = 0; i < x.size(); ++i) {
        Dim len = x[i].shape()[static_cast<std::size_t>(dim)];
        if (lin[i]) g[i] = slice_axis(ct, dim, at, at + len);
        at = at + len;
      }
      return g;
    }
    case OpKind::reverse:
      g[0] = prim(OpKind::reverse, n.attrs, {ct});
      return g;
    case OpKind::gather:
      only_first();
      g[0] = gather_transpose(ct, x[0], x[1], std::get<BasicGatherAttrs<Dim>>(n.attrs));
      return g;
    case OpKind::scatter: {
      const auto& s = std::get<ScatterAttrs>(n.attrs);
      if (lin[0]) {
        g[0] = s.mode == ScatterMode::add
                   ? ct
                   : prim(OpKind::scatter, s, {ct, x[1], zeros_like(x[2])});  // overwritten positions get nothing
      }
      if (lin[2]) g[2] = scatter_updates_cotangent(ct, x[1], x[2], s);
      return g;
    }
    case OpKind::dynamic_slice:
      only_first();
      g[0] = dynamic_update_slice(zeros_like(x[0]), ct, x[1]);
      return g;
    case OpKind::dynamic_update_slice:
      if (lin[0]) g[0] = dynamic_update_slice(ct, zeros_like(x[1]), x[2]);
      if (lin[1]) g[1] = dynamic_slice(ct, x[2], x[1].shape());
      return g;
    case OpKind::select:
      TF_CHECK(!lin[0], InternalError, op, "is not linear in its predicate");
      if (lin[1]) g[1] = prim(OpKind::select, NoAttrs{}, {x[0], ct, zeros_like(ct)});
      if (lin[2]) g[2] = prim(OpKind::select, NoAttrs{}, {x[0], zeros_like(ct), ct});
      return g;
    case OpKind::real:
      g[0] = prim(OpKind::complex, NoAttrs{}, {ct, zeros_like(ct)});
      return g;
    case OpKind::imag:
      g[0] = prim(OpKind::complex, NoAttrs{}, {zeros_like(ct), ct});
      return g;
    case OpKind::complex:
      if (lin[0]) g[0] = real(ct);
      if (lin[1]) g[1] = imag(ct);
      return g;
    case OpKind::convert: {
      DType from = x[0].dtype();
      if (is_complex(from) || !is_complex(ct.dtype())) g[0] = convert(ct, from);  // same kind, or c -> r embedding
      else g[0] = convert(real(ct), from);                                       // r -> c: the real part
      return g;
    }
    case OpKind::sign:
    case OpKind::maximum:
    case OpKind::minimum:
    case OpKind::compare:
    case OpKind::clamp:
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::tanh:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::power:
    case OpKind::expm1:
    case OpKind::log1p:
    case OpKind::is_finite:
    case OpKind::abs:
    case OpKind::reduce_prod:
    case OpKind::reduce_max:
    case OpKind::reduce_min:
    case OpKind::floor:
    case OpKind::ceil:
    case OpKind::round_nearest_even:
    case OpKind::trunc:
    case OpKind::frexp_exponent:
    case OpKind::fmod:
    case OpKind::remainder:
    case OpKind::ldexp:
    case OpKind::erf:
    case OpKind::erfc:
    case OpKind::erfinv:
    case OpKind::erfcx:
    case OpKind::lgamma:
    case OpKind::digamma:
    case OpKind::polygamma:
    case OpKind::i0:
    case OpKind::i0e:
    case OpKind::i1:
    case OpKind::i1e:
    case OpKind::ndtr:
    case OpKind::ndtri:
    case OpKind::log_ndtr:
      break;
  }
  TF_THROW(InternalError, op, "is not linear: no transpose rule (a JVP rule produced a nonlinear tangent)");
}

bool has_transpose(OpKind kind) {
  // The cases of transpose_rule that return: the linear ops, and the ops that
  // are linear in one operand when the other is held fixed.
  switch (kind) {
    case OpKind::add:
    case OpKind::subtract:
    case OpKind::negate:
    case OpKind::conj:
    case OpKind::multiply:
    case OpKind::divide:
    case OpKind::dot_general:
    case OpKind::reduce_sum:
    case OpKind::transpose:
    case OpKind::reshape:
    case OpKind::broadcast_in_dim:
    case OpKind::slice:
    case OpKind::pad:
    case OpKind::concatenate:
    case OpKind::reverse:
    case OpKind::gather:
    case OpKind::scatter:
    case OpKind::dynamic_slice:
    case OpKind::dynamic_update_slice:
    case OpKind::select:
    case OpKind::real:
    case OpKind::imag:
    case OpKind::complex:
    case OpKind::convert:
      return true;
    case OpKind::abs:
    case OpKind::sign:
    case OpKind::maximum:
    case OpKind::minimum:
    case OpKind::compare:
    case OpKind::clamp:
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::tanh:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::power:
    case OpKind::expm1:
    case OpKind::log1p:
    case OpKind::is_finite:
    case OpKind::reduce_prod:
    case OpKind::reduce_max:
    case OpKind::reduce_min:
    case OpKind::floor:
    case OpKind::ceil:
    case OpKind::round_nearest_even:
    case OpKind::trunc:
    case OpKind::frexp_exponent:
    case OpKind::fmod:
    case OpKind::remainder:
    case OpKind::ldexp:
    case OpKind::erf:
    case OpKind::erfc:
    case OpKind::erfinv:
    case OpKind::erfcx:
    case OpKind::lgamma:
    case OpKind::digamma:
    case OpKind::polygamma:
    case OpKind::i0:
    case OpKind::i0e:
    case OpKind::i1:
    case OpKind::i1e:
    case OpKind::ndtr:
    case OpKind::ndtri:
    case OpKind::log_ndtr:
      return false;
  }
  return false;
}

}  // namespace tenferro::ad::detail

#pragma GCC diagnostic pop
