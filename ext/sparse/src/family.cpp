// The "sparse" operation family: two ops declared through tenferro's family
// seam (tenferro/ops/family.hpp), their shape rules, AD rules and the
// user-facing functions. The CPU kernels are in kernels.cpp.
//
// Note [Sparse family]
// - sparse.coo_matmul(values, rows, cols, dense[, like]) -> out[m, ...]:
//   out[i, J] = sum over p with rows[p] = i of values[p] * dense[cols[p], J]
//   for every multi-index J of dense's trailing axes. m is the attribute, or,
//   with attribute m = kRowsFromOperand, the first extent of the fifth
//   operand `like` (its values are never read). The fifth operand exists
//   for the transpose rules: the cotangent of a dense operand [k, ...] is a
//   coo_matmul with k rows, and in a traced program k may be a symbol, which
//   an attribute cannot hold; a broadcast zero vector of extent k carries
//   the symbol instead, and the runtime binds it like any other extent.
// - sparse.sddmm(a[m, ...], b[k, ...], rows, cols) -> out[nnz]:
//   out[p] = sum over J of a[rows[p], J] * b[cols[p], J].
// Both ops are linear in each float operand separately (AdKind nonlinear
// with a transpose for whichever operand is linear), and each one's
// transposes are written with the two ops, so every order of derivative
// stays inside the family:
//   d coo_matmul    = coo_matmul(dv, r, c, B) + coo_matmul(v, r, c, dB)
//   coo_matmul^T_v  = sddmm(ct, conj(B), r, c)
//   coo_matmul^T_B  = coo_matmul(conj(v), c, r, ct)          (k rows)
//   d sddmm         = sddmm(da, b, r, c) + sddmm(a, db, r, c)
//   sddmm^T_a       = coo_matmul(ct, r, c, conj(b))           (m rows)
//   sddmm^T_b       = coo_matmul(ct, c, r, conj(a))           (k rows)
// The conjugations make these the adjoints for the real inner product
// Re<u, v> (tenferro/ad.hpp); for real dtypes vops::conj is the identity.
// The integer index operands have no tangents.
//
// Note [Sparse nnz]
// nnz is the one extent values, rows and cols share; it is never compared
// against anything else, so it may be a symbol in traced programs (one
// program, run for any number of nonzeros). Index ranges are data, checked
// by the kernels when the op runs (IndexError naming op, position, index).
#include <ostream>

#include <tenferro/ops/graph.hpp>
#include <tenferro/ops/kernels.hpp>
#include <tenferro/ops/value_ops.hpp>
#include <tenferro/tensor/error.hpp>

#include "internal.hpp"

namespace sparse {

using tenferro::AdKind;
using tenferro::BasicTensorMeta;
using tenferro::Dim;
using tenferro::FamilyAttrs;
using tenferro::Tensor;
using tenferro::Value;
namespace vops = tenferro::vops;

std::ostream& operator<<(std::ostream& os, const CooAttrs& a) {
  if (a.m == kRowsFromOperand) return os << "m=operand";
  return os << "m=" << a.m;
}

namespace {

bool differs(std::int64_t x, std::int64_t y) { return x != y; }
bool differs(const Dim& x, const Dim& y) { return tenferro::known_different(x, y); }

// values/rows/cols (or just rows/cols when `values` is null): rank 1, one
// extent, integer indices of one dtype.
template <class D>
void check_coordinates(const char* op, const BasicTensorMeta<D>* values, const BasicTensorMeta<D>& rows,
                       const BasicTensorMeta<D>& cols) {
  TF_CHECK(rows.shape.size() == 1 && cols.shape.size() == 1, ShapeError, op,
           "rows and cols must be vectors [nnz], got ", rows, " and ", cols);
  TF_CHECK(tenferro::kIntegerDTypes.contains(rows.dtype) && rows.dtype == cols.dtype, DTypeError, op,
           "rows and cols must both be i32 or both i64, got ", rows, " and ", cols);
  TF_CHECK(!differs(rows.shape[0], cols.shape[0]), ShapeError, op, "rows ", rows, " and cols ", cols,
           " have different lengths");
  if (values) {
    TF_CHECK(values->shape.size() == 1, ShapeError, op, "values must be a vector [nnz], got ", *values);
    TF_CHECK(!differs(values->shape[0], rows.shape[0]), ShapeError, op, "values ", *values, " and rows ", rows,
             " have different lengths");
  }
}

template <class D>
void check_float(const char* op, const char* what, const BasicTensorMeta<D>& x) {
  TF_CHECK(detail::kValueDTypes.contains(x.dtype), DTypeError, op, what, " must be f32, f64, c64 or c128, got ", x);
}

// The shape rule of sparse.coo_matmul (Note [Sparse family]).
struct InferCoo {
  template <class D>
  std::vector<BasicTensorMeta<D>> operator()(const CooAttrs& a, std::span<const BasicTensorMeta<D>> in) const {
    const char* op = detail::kCooOp;
    TF_CHECK(in.size() == 4 || in.size() == 5, ValueError, op, "takes 4 operands (values, rows, cols, dense) or 5 (",
             "and one whose first extent is m), got ", in.size());
    const auto &values = in[0], &rows = in[1], &cols = in[2], &dense = in[3];
    check_float(op, "values", values);
    TF_CHECK(dense.dtype == values.dtype, DTypeError, op, "dense operand ", dense, " must have the dtype of values ",
             values);
    check_coordinates(op, &values, rows, cols);
    TF_CHECK(!dense.shape.empty(), ShapeError, op, "dense operand must have rank >= 1 ([k, ...]), got ", dense);
    BasicTensorMeta<D> out{values.dtype, dense.shape};
    if (in.size() == 5) {
      TF_CHECK(a.m == kRowsFromOperand, ValueError, op, "takes m from the attribute (", a,
               ") or from a fifth operand, not both");
      TF_CHECK(!in[4].shape.empty(), ShapeError, op, "the operand giving m must have rank >= 1, got ", in[4]);
      out.shape[0] = in[4].shape[0];
    } else {
      TF_CHECK(a.m >= 0, ValueError, op, "the number of rows m must be >= 0, got ", a.m);
      out.shape[0] = D(a.m);
    }
    return {out};
  }
};

// The shape rule of sparse.sddmm.
struct InferSddmm {
  template <class D>
  std::vector<BasicTensorMeta<D>> operator()(const tenferro::NoFamilyAttrs&,
                                             std::span<const BasicTensorMeta<D>> in) const {
    const char* op = detail::kSddmmOp;
    const auto &a = in[0], &b = in[1], &rows = in[2], &cols = in[3];
    check_float(op, "a", a);
    TF_CHECK(b.dtype == a.dtype, DTypeError, op, "operands ", a, " and ", b, " must have one dtype");
    TF_CHECK(!a.shape.empty() && a.shape.size() == b.shape.size(), ShapeError, op,
             "operands must have one rank >= 1 ([m, ...] and [k, ...]), got ", a, " and ", b);
    for (std::size_t i = 1; i < a.shape.size(); ++i)
      TF_CHECK(!differs(a.shape[i], b.shape[i]), ShapeError, op, "trailing extents of ", a, " and ", b,
               " differ at axis ", i);
    check_coordinates<D>(op, nullptr, rows, cols);
    return {BasicTensorMeta<D>{a.dtype, {rows.shape[0]}}};
  }
};

// ---- AD rules (Note [Sparse family]) ----------------------------------------------------

Value add(const Value& x, const Value& y) {
  if (!x.defined()) return y;
  if (!y.defined()) return x;
  return vops::add(x, y);
}

// The same op with the row count of an existing node (attribute, or its operand 4).
Value coo_like(const CooAttrs& a, std::span<const Value> in, const Value& values, const Value& rows,
               const Value& cols, const Value& dense) {
  std::vector<Value> ops{values, rows, cols, dense};
  if (in.size() == 5) ops.push_back(in[4]);
  return tenferro::graph::apply_family(family().op(detail::kCooOp), FamilyAttrs::of(a), std::move(ops)).front();
}

std::vector<Value> coo_jvp(const CooAttrs& a, std::span<const Value> in, std::span<const Value>,
                           std::span<const Value> t) {
  Value d;
  if (t[0].defined()) d = coo_like(a, in, t[0], in[1], in[2], in[3]);
  if (t[3].defined()) d = add(d, coo_like(a, in, in[0], in[1], in[2], t[3]));
  return {d};
}

std::vector<Value> coo_transpose(const CooAttrs&, std::span<const Value> in, std::span<const bool> linear,
                                 std::span<const Value> ct) {
  std::vector<Value> res(in.size());
  if (!ct[0].defined()) return res;
  TF_CHECK(!(linear[0] && linear[3]), InternalError, detail::kCooOp,
           "is linear in values and dense separately, not jointly; a transpose needs one of them fixed");
  if (linear[0]) res[0] = sddmm(ct[0], vops::conj(in[3]), in[1], in[2]);
  if (linear[3]) res[3] = coo_matmul(vops::conj(in[0]), in[2], in[1], ct[0], in[3].shape()[0]);
  return res;
}

std::vector<Value> sddmm_jvp(const tenferro::NoFamilyAttrs&, std::span<const Value> in, std::span<const Value>,
                             std::span<const Value> t) {
  Value d;
  if (t[0].defined()) d = sddmm(t[0], in[1], in[2], in[3]);
  if (t[1].defined()) d = add(d, sddmm(in[0], t[1], in[2], in[3]));
  return {d};
}

std::vector<Value> sddmm_transpose(const tenferro::NoFamilyAttrs&, std::span<const Value> in,
                                   std::span<const bool> linear, std::span<const Value> ct) {
  std::vector<Value> res(in.size());
  if (!ct[0].defined()) return res;
  TF_CHECK(!(linear[0] && linear[1]), InternalError, detail::kSddmmOp,
           "is linear in a and b separately, not jointly; a transpose needs one of them fixed");
  if (linear[0]) res[0] = coo_matmul(ct[0], in[2], in[3], vops::conj(in[1]), in[0].shape()[0]);
  if (linear[1]) res[1] = coo_matmul(ct[0], in[3], in[2], vops::conj(in[0]), in[1].shape()[0]);
  return res;
}

void register_kernels(const tenferro::OpFamily& f, tenferro::KernelRegistry& r) {
  using tenferro::DeviceKind;
  r.add(f.op(detail::kCooOp), DeviceKind::cpu, "sparse",
        tenferro::typed_kernel<CooAttrs>([](const CooAttrs& a, std::span<const Tensor> in, tenferro::Backend& b) {
          const std::int64_t m = in.size() == 5 ? in[4].shape()[0] : a.m;
          return std::vector<Tensor>{detail::run_coo_matmul(in[0], in[1], in[2], in[3], m, b)};
        }));
  r.add(f.op(detail::kSddmmOp), DeviceKind::cpu, "sparse",
        tenferro::typed_kernel<tenferro::NoFamilyAttrs>(
            [](const tenferro::NoFamilyAttrs&, std::span<const Tensor> in, tenferro::Backend& b) {
              return std::vector<Tensor>{detail::run_sddmm(in[0], in[1], in[2], in[3], b)};
            }));
}

}  // namespace

const tenferro::OpFamily& family() {
  static const tenferro::OpFamily f{
      "sparse",
      {tenferro::define_family_op<CooAttrs>(
           {.name = detail::kCooOp, .num_inputs = -1, .num_outputs = 1, .ad = AdKind::nonlinear}, InferCoo{},
           {.jvp = coo_jvp, .transpose = coo_transpose}),
       tenferro::define_family_op<tenferro::NoFamilyAttrs>(
           {.name = detail::kSddmmOp, .num_inputs = 4, .num_outputs = 1, .ad = AdKind::nonlinear}, InferSddmm{},
           {.jvp = sddmm_jvp, .transpose = sddmm_transpose})},
      register_kernels};
  return f;
}

// ---- user-facing functions --------------------------------------------------------------

Tensor coo_matmul(const Tensor& values, const Tensor& rows, const Tensor& cols, const Tensor& dense, std::int64_t m,
                  tenferro::Backend& backend) {
  return tenferro::call_family(family().op(detail::kCooOp), FamilyAttrs::of(CooAttrs{m}),
                               {{values, rows, cols, dense}}, backend)
      .front();
}

Value coo_matmul(const Value& values, const Value& rows, const Value& cols, const Value& dense, const Dim& m) {
  std::vector<Value> ops{values, rows, cols, dense};
  CooAttrs attrs{kRowsFromOperand};
  if (m.is_constant()) {
    attrs.m = m.value();
    TF_CHECK(attrs.m >= 0, ValueError, detail::kCooOp, "the number of rows m must be >= 0, got ", attrs.m);
  } else {
    // Note [Sparse family]: a symbolic m travels as the extent of a broadcast zero.
    TF_CHECK(rows.defined(), ValueError, detail::kCooOp, "undefined rows operand");
    ops.push_back(vops::full(tenferro::SymShape{m}, tenferro::Scalar(std::int64_t{0}), rows.dtype()));
  }
  return tenferro::graph::apply_family(family().op(detail::kCooOp), FamilyAttrs::of(attrs), std::move(ops)).front();
}

tenferro::TracedTensor coo_matmul(const tenferro::TracedTensor& values, const tenferro::TracedTensor& rows,
                                  const tenferro::TracedTensor& cols, const tenferro::TracedTensor& dense,
                                  const Dim& m) {
  return tenferro::TracedTensor(
      coo_matmul(values.graph_value(), rows.graph_value(), cols.graph_value(), dense.graph_value(), m));
}

tenferro::EagerTensor coo_matmul(const tenferro::EagerTensor& values, const tenferro::EagerTensor& rows,
                                 const tenferro::EagerTensor& cols, const tenferro::EagerTensor& dense,
                                 std::int64_t m) {
  return tenferro::EagerTensor(
      coo_matmul(values.graph_value(), rows.graph_value(), cols.graph_value(), dense.graph_value(), Dim(m)));
}

Tensor sddmm(const Tensor& a, const Tensor& b, const Tensor& rows, const Tensor& cols, tenferro::Backend& backend) {
  return tenferro::call_family(family().op(detail::kSddmmOp), {}, {{a, b, rows, cols}}, backend).front();
}

Value sddmm(const Value& a, const Value& b, const Value& rows, const Value& cols) {
  return tenferro::graph::apply_family(family().op(detail::kSddmmOp), {}, {a, b, rows, cols}).front();
}

tenferro::TracedTensor sddmm(const tenferro::TracedTensor& a, const tenferro::TracedTensor& b,
                             const tenferro::TracedTensor& rows, const tenferro::TracedTensor& cols) {
  return tenferro::TracedTensor(sddmm(a.graph_value(), b.graph_value(), rows.graph_value(), cols.graph_value()));
}

tenferro::EagerTensor sddmm(const tenferro::EagerTensor& a, const tenferro::EagerTensor& b,
                            const tenferro::EagerTensor& rows, const tenferro::EagerTensor& cols) {
  return tenferro::EagerTensor(sddmm(a.graph_value(), b.graph_value(), rows.graph_value(), cols.graph_value()));
}

}  // namespace sparse
