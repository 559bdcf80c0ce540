// The "tropical" operation family: three ops declared through tenferro's
// family seam (tenferro/ops/family.hpp), their shape rule, AD rules and
// CPU kernels.
//
// Note [Tropical family]
// - tropical.dot_general(a, b) -> c: c = max (min) over the contracted
//   multi-index of a + b, with DotGeneralAttrs' dimension numbers; output
//   axes (batch..., lhs free..., rhs free...). AdKind nonlinear.
// - tropical.winner_tangent(t, a, b, c) -> like c: the directional
//   derivative of c along a tangent t of one operand (attribute `side`),
//   for c = tropical.dot_general(a, b). Linear in t; piecewise constant in
//   a, b, c (their tangents contribute nothing).
// - tropical.winner_cotangent(ct, a, b, c) -> like the `side` operand: the
//   transpose of winner_tangent in t, linear in ct.
// winner_tangent and winner_cotangent are each other's transpose, so grad
// of any order and hvp (forward over reverse) close over the family.
//
// Note [Tropical derivative]
// For one product entry c = max_k (x_k + y_k) (x from the differentiated
// operand, y from the other), let W = {k : x_k + y_k == c} be the winning
// terms. Where W has one element, c is differentiable and dc = dx_k + dy_k
// for that k: the indicator of the winner. Where several terms tie, c is
// not differentiable; we take dc = mean over k in W of (dx_k + dy_k), the
// rule tenferro's maximum and reduce_max use, so that a network mixing the
// tropical contraction with those primitives follows one rule. Where c is
// +-inf (every term is infinite, or the contraction is empty) dc = 0. The
// winner test recomputes x_k + y_k exactly as the forward kernel does
// (one IEEE addition, no contraction into FMA), so equality is exact.
#include <ostream>

#include <tenferro/ops/graph.hpp>
#include <tenferro/ops/kernels.hpp>
#include <tenferro/ops/value_ops.hpp>
#include <tenferro/tensor/error.hpp>

#include "internal.hpp"

namespace tropical {

using tenferro::AdKind;
using tenferro::BasicTensorMeta;
using tenferro::Dim;
using tenferro::DimVec;
using tenferro::FamilyAttrs;
using tenferro::Tensor;
using tenferro::TensorMeta;
using tenferro::Value;

const char* semiring_name(Semiring s) { return s == Semiring::max_plus ? "max_plus" : "min_plus"; }

std::ostream& operator<<(std::ostream& os, const DotAttrs& a) {
  return os << "semiring=" << semiring_name(a.semiring) << " lhs_batch=" << a.dims.lhs_batching_dimensions
            << " rhs_batch=" << a.dims.rhs_batching_dimensions
            << " lhs_contracting=" << a.dims.lhs_contracting_dimensions
            << " rhs_contracting=" << a.dims.rhs_contracting_dimensions;
}

std::ostream& operator<<(std::ostream& os, const WinnerAttrs& a) {
  return os << a.dot << " side=" << (a.side == Side::lhs ? "lhs" : "rhs");
}

namespace {

bool differs(std::int64_t x, std::int64_t y) { return x != y; }
bool differs(const Dim& x, const Dim& y) { return tenferro::known_different(x, y); }

// Checks the dimension numbers of one operand: axes in range, each used once.
template <class D>
void check_axes(const char* op, const DotAttrs& a, const char* which, const BasicTensorMeta<D>& x,
                const DimVec& batch, const DimVec& contracting) {
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  std::vector<int> used(static_cast<std::size_t>(rank), 0);
  for (const DimVec* list : {&batch, &contracting})
    for (auto ax : *list) {
      TF_CHECK(ax >= 0 && ax < rank, IndexError, op, which, " axis ", ax, " is out of range for ", which,
               " operand ", x, " (", a, ")");
      TF_CHECK(used[static_cast<std::size_t>(ax)]++ == 0, ValueError, op, which, " axis ", ax,
               " is named twice in the dimension numbers (", a, ")");
    }
}

// The one shape rule of tropical.dot_general, for concrete (D = int64) and
// symbolic (D = Dim) extents.
template <class D>
BasicTensorMeta<D> infer_dot_meta(const DotAttrs& a, const BasicTensorMeta<D>& l, const BasicTensorMeta<D>& r,
                                  const char* op = detail::kDotOp) {
  const auto& d = a.dims;
  TF_CHECK(detail::kTropicalDTypes.contains(l.dtype) && detail::kTropicalDTypes.contains(r.dtype),
           DTypeError, op, "takes f32, f64, i32 or i64 operands, got ", l, " and ", r);
  TF_CHECK(l.dtype == r.dtype, DTypeError, op, "operands must have one dtype, got ", l, " and ", r,
           "; convert one of them");
  TF_CHECK(d.lhs_batching_dimensions.size() == d.rhs_batching_dimensions.size(), ValueError, op,
           "needs as many lhs as rhs batch axes (", a, ")");
  TF_CHECK(d.lhs_contracting_dimensions.size() == d.rhs_contracting_dimensions.size(), ValueError, op,
           "needs as many lhs as rhs contracting axes (", a, ")");
  check_axes(op, a, "lhs", l, d.lhs_batching_dimensions, d.lhs_contracting_dimensions);
  check_axes(op, a, "rhs", r, d.rhs_batching_dimensions, d.rhs_contracting_dimensions);
  auto pair_check = [&](const DimVec& la, const DimVec& ra, const char* what) {
    for (std::size_t i = 0; i < la.size(); ++i) {
      const D& x = l.shape[static_cast<std::size_t>(la[i])];
      const D& y = r.shape[static_cast<std::size_t>(ra[i])];
      TF_CHECK(!differs(x, y), ShapeError, op, what, " axes lhs ", la[i], " and rhs ", ra[i],
               " have extents ", x, " and ", y, " (operands ", l, " and ", r, ")");
    }
  };
  pair_check(d.lhs_batching_dimensions, d.rhs_batching_dimensions, "batch");
  pair_check(d.lhs_contracting_dimensions, d.rhs_contracting_dimensions, "contracting");
  BasicTensorMeta<D> out{l.dtype, {}};
  for (auto x : d.lhs_batching_dimensions) out.shape.push_back(l.shape[static_cast<std::size_t>(x)]);
  for (auto x : detail::free_axes(static_cast<std::int64_t>(l.shape.size()), d.lhs_batching_dimensions,
                                  d.lhs_contracting_dimensions))
    out.shape.push_back(l.shape[static_cast<std::size_t>(x)]);
  for (auto x : detail::free_axes(static_cast<std::int64_t>(r.shape.size()), d.rhs_batching_dimensions,
                                  d.rhs_contracting_dimensions))
    out.shape.push_back(r.shape[static_cast<std::size_t>(x)]);
  return out;
}

struct InferDot {
  template <class D>
  std::vector<BasicTensorMeta<D>> operator()(const DotAttrs& a, std::span<const BasicTensorMeta<D>> in) const {
    return {infer_dot_meta(a, in[0], in[1])};
  }
};

template <class D>
bool same_shape(const BasicTensorMeta<D>& x, const BasicTensorMeta<D>& y) {
  if (x.shape.size() != y.shape.size()) return false;
  for (std::size_t i = 0; i < x.shape.size(); ++i)
    if (differs(x.shape[i], y.shape[i])) return false;
  return true;
}

// Shape rule of the derivative ops: inputs (t or ct, a, b, c).
template <class D>
BasicTensorMeta<D> infer_winner_meta(const char* op, bool cotangent, const WinnerAttrs& w,
                                     std::span<const BasicTensorMeta<D>> in) {
  const BasicTensorMeta<D> c = infer_dot_meta(w.dot, in[1], in[2], op);
  TF_CHECK(detail::kDerivativeDTypes.contains(c.dtype), DTypeError, op,
           "is defined for f32 and f64 operands, got ", in[1]);
  TF_CHECK(in[3].dtype == c.dtype && same_shape(in[3], c), ShapeError, op, "product operand ", in[3],
           " does not match the contraction of ", in[1], " and ", in[2], ", which is ", c, " (", w, ")");
  const BasicTensorMeta<D>& x = w.side == Side::lhs ? in[1] : in[2];
  const BasicTensorMeta<D>& want = cotangent ? c : x;
  TF_CHECK(in[0].dtype == want.dtype && same_shape(in[0], want), ShapeError, op,
           cotangent ? "cotangent " : "tangent ", in[0], " must be shaped like ", want, " (", w, ")");
  return cotangent ? x : c;
}

struct InferTangent {
  template <class D>
  std::vector<BasicTensorMeta<D>> operator()(const WinnerAttrs& w, std::span<const BasicTensorMeta<D>> in) const {
    return {infer_winner_meta(detail::kTangentOp, false, w, in)};
  }
};
struct InferCotangent {
  template <class D>
  std::vector<BasicTensorMeta<D>> operator()(const WinnerAttrs& w, std::span<const BasicTensorMeta<D>> in) const {
    return {infer_winner_meta(detail::kCotangentOp, true, w, in)};
  }
};

// ---- AD rules (Note [Tropical derivative]) ----------------------------------------------

Value apply(const char* op, FamilyAttrs attrs, std::vector<Value> inputs) {
  return tenferro::graph::apply_family(family().op(op), std::move(attrs), std::move(inputs)).front();
}

Value winner_tangent(const WinnerAttrs& w, const Value& t, std::span<const Value> abc) {
  return apply(detail::kTangentOp, FamilyAttrs::of(w), {t, abc[0], abc[1], abc[2]});
}
Value winner_cotangent(const WinnerAttrs& w, const Value& ct, std::span<const Value> abc) {
  return apply(detail::kCotangentOp, FamilyAttrs::of(w), {ct, abc[0], abc[1], abc[2]});
}

// dc = winner_tangent(lhs)(da) + winner_tangent(rhs)(db).
std::vector<Value> dot_jvp(const DotAttrs& a, std::span<const Value> in, std::span<const Value> out,
                           std::span<const Value> t) {
  const Value abc[3] = {in[0], in[1], out[0]};
  Value dc;
  if (t[0].defined()) dc = winner_tangent({a, Side::lhs}, t[0], abc);
  if (t[1].defined()) {
    Value r = winner_tangent({a, Side::rhs}, t[1], abc);
    dc = dc.defined() ? tenferro::vops::add(dc, r) : r;
  }
  return {dc};
}

std::vector<Value> tangent_jvp(const WinnerAttrs& w, std::span<const Value> in, std::span<const Value>,
                               std::span<const Value> t) {
  if (!t[0].defined()) return {Value{}};
  return {winner_tangent(w, t[0], in.subspan(1))};
}
std::vector<Value> tangent_transpose(const WinnerAttrs& w, std::span<const Value> in, std::span<const bool> linear,
                                     std::span<const Value> ct) {
  if (!linear[0] || !ct[0].defined()) return {Value{}, Value{}, Value{}, Value{}};
  return {winner_cotangent(w, ct[0], in.subspan(1)), Value{}, Value{}, Value{}};
}
std::vector<Value> cotangent_jvp(const WinnerAttrs& w, std::span<const Value> in, std::span<const Value>,
                                 std::span<const Value> t) {
  if (!t[0].defined()) return {Value{}};
  return {winner_cotangent(w, t[0], in.subspan(1))};
}
std::vector<Value> cotangent_transpose(const WinnerAttrs& w, std::span<const Value> in, std::span<const bool> linear,
                                       std::span<const Value> ct) {
  if (!linear[0] || !ct[0].defined()) return {Value{}, Value{}, Value{}, Value{}};
  return {winner_tangent(w, ct[0], in.subspan(1)), Value{}, Value{}, Value{}};
}

// ---- kernels ----------------------------------------------------------------------------

void register_kernels(const tenferro::OpFamily& f, tenferro::KernelRegistry& r) {
  using tenferro::DeviceKind;
  r.add(f.op(detail::kDotOp), DeviceKind::cpu, "tropical",
        tenferro::typed_kernel<DotAttrs>([](const DotAttrs& a, std::span<const Tensor> in, tenferro::Backend& b) {
          return std::vector<Tensor>{detail::run_dot(a, in[0], in[1], b)};
        }));
  r.add(f.op(detail::kTangentOp), DeviceKind::cpu, "tropical",
        tenferro::typed_kernel<WinnerAttrs>(
            [](const WinnerAttrs& w, std::span<const Tensor> in, tenferro::Backend& b) {
              return std::vector<Tensor>{detail::run_winner_tangent(w, in[0], in[1], in[2], in[3], b)};
            }));
  r.add(f.op(detail::kCotangentOp), DeviceKind::cpu, "tropical",
        tenferro::typed_kernel<WinnerAttrs>(
            [](const WinnerAttrs& w, std::span<const Tensor> in, tenferro::Backend& b) {
              return std::vector<Tensor>{detail::run_winner_cotangent(w, in[0], in[1], in[2], in[3], b)};
            }));
}

}  // namespace

const tenferro::OpFamily& family() {
  static const tenferro::OpFamily f{
      "tropical",
      {tenferro::define_family_op<DotAttrs>(
           {.name = detail::kDotOp, .num_inputs = 2, .num_outputs = 1, .ad = AdKind::nonlinear}, InferDot{},
           {.jvp = dot_jvp}),
       tenferro::define_family_op<WinnerAttrs>(
           {.name = detail::kTangentOp, .num_inputs = 4, .num_outputs = 1, .ad = AdKind::nonlinear},
           InferTangent{}, {.jvp = tangent_jvp, .transpose = tangent_transpose}),
       tenferro::define_family_op<WinnerAttrs>(
           {.name = detail::kCotangentOp, .num_inputs = 4, .num_outputs = 1, .ad = AdKind::nonlinear},
           InferCotangent{}, {.jvp = cotangent_jvp, .transpose = cotangent_transpose})},
      register_kernels};
  return f;
}

TensorMeta infer_dot(const DotAttrs& attrs, const TensorMeta& lhs, const TensorMeta& rhs) {
  return infer_dot_meta(attrs, lhs, rhs);
}

Tensor dot_general(const Tensor& a, const Tensor& b, const DotAttrs& attrs, tenferro::Backend& backend) {
  return tenferro::call_family(family().op(detail::kDotOp), FamilyAttrs::of(attrs), {{a, b}}, backend).front();
}

Value dot_general(const Value& a, const Value& b, const DotAttrs& attrs) {
  return apply(detail::kDotOp, FamilyAttrs::of(attrs), {a, b});
}

tenferro::TracedTensor dot_general(const tenferro::TracedTensor& a, const tenferro::TracedTensor& b,
                                   const DotAttrs& attrs) {
  return tenferro::TracedTensor(dot_general(a.graph_value(), b.graph_value(), attrs));
}

tenferro::EagerTensor dot_general(const tenferro::EagerTensor& a, const tenferro::EagerTensor& b,
                                  const DotAttrs& attrs) {
  return tenferro::EagerTensor(dot_general(a.graph_value(), b.graph_value(), attrs));
}

Tensor matmul(Semiring s, const Tensor& a, const Tensor& b, tenferro::Backend& backend) {
  TF_CHECK(a.ndim() == 2 && b.ndim() == 2, ShapeError, "tropical.matmul", "takes two matrices, got shapes ",
           a.shape(), " and ", b.shape());
  return dot_general(a, b, {s, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}}, backend);
}

}  // namespace tropical
