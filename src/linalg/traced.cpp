// The linalg ops on graph values (tenferro/linalg/traced.hpp), the symbolic
// shape rules that let them trace with symbolic extents, and linalg.band
// (the masking op the derivative rules use for triangles and diagonals).
#include "tenferro/linalg/traced.hpp"

#include <algorithm>
#include <cmath>

#include "common.hpp"
#include "ops.hpp"

namespace tenferro::linalg {
namespace {

const FamilyOp& op(std::string_view name) { return family().op(name); }

std::vector<Value> run(std::string_view name, FamilyAttrs attrs, std::vector<Value> in) {
  return graph::apply_family(op(name), std::move(attrs), std::move(in));
}

FamilyAttrs tolerance_attrs(const RankTolerance& t) { return {{"rtol", t.rtol}, {"atol", t.atol}}; }

}  // namespace

HandleSvd<Value> svd(const Value& a, SvdOptions options) {
  auto o = run("linalg.svd", {{"full_matrices", options.full_matrices}}, {a});
  return {o[0], o[1], o[2]};
}
Value svdvals(const Value& a) { return run("linalg.svdvals", {}, {a})[0]; }
HandleSvd<Value> svd_truncated(const Value& a, SvdTruncatedOptions options) {
  auto o = run("linalg.svd_truncated", {{"max_rank", options.max_rank}, {"rtol", options.rtol}}, {a});
  return {o[0], o[1], o[2]};
}
HandleQr<Value> qr(const Value& a, QrMode mode) {
  const char* m = mode == QrMode::reduced ? "reduced" : mode == QrMode::complete ? "complete" : "r";
  auto o = run("linalg.qr", {{"mode", std::string(m)}}, {a});
  return {o[0], o[1]};
}
HandleLu<Value> lu(const Value& a, LuOptions options) {
  auto o = run("linalg.lu", {{"permutation_matrix", options.permutation_matrix}}, {a});
  return {o[0], o[1], o[2], o[3]};
}
HandleLuFactor<Value> lu_factor(const Value& a) {
  auto o = run("linalg.lu_factor", {}, {a});
  return {o[0], o[1]};
}
Value lu_solve(const Value& lu, const Value& pivots, const Value& b, Transpose trans) {
  const char* t = trans == Transpose::none ? "N" : trans == Transpose::transpose ? "T" : "C";
  return run("linalg.lu_solve", {{"trans", std::string(t)}}, {lu, pivots, b})[0];
}
Value cholesky(const Value& a, TriangleOptions options) {
  return run("linalg.cholesky", {{"lower", options.lower}}, {a})[0];
}
HandleEigh<Value> eigh(const Value& a, TriangleOptions options) {
  auto o = run("linalg.eigh", {{"lower", options.lower}}, {a});
  return {o[0], o[1]};
}
HandleEig<Value> eig(const Value& a) {
  auto o = run("linalg.eig", {}, {a});
  return {o[0], o[1]};
}
Value eigvals(const Value& a) { return run("linalg.eigvals", {}, {a})[0]; }
Value solve(const Value& a, const Value& b) { return run("linalg.solve", {}, {a, b})[0]; }
Value triangular_solve(const Value& a, const Value& b, TriangularSolveOptions options) {
  return run("linalg.triangular_solve",
             {{"lower", options.lower}, {"left", options.left}, {"unit_diagonal", options.unit_diagonal}},
             {a, b})[0];
}
Value inv(const Value& a) { return run("linalg.inv", {}, {a})[0]; }
Value det(const Value& a) { return run("linalg.det", {}, {a})[0]; }
HandleSlogdet<Value> slogdet(const Value& a) {
  auto o = run("linalg.slogdet", {}, {a});
  return {o[0], o[1]};
}
HandleLstsq<Value> lstsq(const Value& a, const Value& b, LstsqOptions options) {
  auto o = run("linalg.lstsq", {{"rcond", options.rcond}}, {a, b});
  return {o[0], o[1], o[2], o[3]};
}
Value pinv(const Value& a, RankTolerance tolerance) { return run("linalg.pinv", tolerance_attrs(tolerance), {a})[0]; }
Value matrix_exp(const Value& a) { return run("linalg.matrix_exp", {}, {a})[0]; }
Value matrix_rank(const Value& a, RankTolerance tolerance) {
  return run("linalg.matrix_rank", tolerance_attrs(tolerance), {a})[0];
}
Value vector_norm(const Value& x, double ord) { return run("linalg.vector_norm", {{"ord", ord}}, {x})[0]; }
Value matrix_norm(const Value& a, NormOrder ord) {
  return run("linalg.matrix_norm", {{"ord", ord.to_string()}}, {a})[0];
}
Value cond(const Value& a, NormOrder ord) { return run("linalg.cond", {{"ord", ord.to_string()}}, {a})[0]; }
Value band(const Value& a, std::int64_t lo, std::int64_t hi) {
  return run("linalg.band", {{"lo", lo}, {"hi", hi}}, {a})[0];
}

namespace detail {
namespace {

// ---- symbolic shape rules -------------------------------------------------------------

struct SymMat {
  Dim m, n;
  SymShape batch;
};

SymMat sym_matrix(const std::string& op, const SymMeta& a, const char* name) {
  TF_CHECK(is_float(a.dtype), DTypeError, op, "operand ", name, " must have a float dtype, got ", a.dtype);
  TF_CHECK(a.shape.size() >= 2, ShapeError, op, "operand ", name, " must have rank >= 2 ([m, n, batch...]), got ",
           a.shape);
  return {a.shape[0], a.shape[1], SymShape(a.shape.begin() + 2, a.shape.end())};
}

void sym_square(const std::string& op, const SymMat& s, const char* name) {
  TF_CHECK(!known_different(s.m, s.n), ShapeError, op, "operand ", name, " must be square, got [", s.m, ", ",
           s.n, "]");
}

SymShape wb(std::initializer_list<Dim> lead, const SymShape& batch) {
  SymShape s(lead);
  s.insert(s.end(), batch.begin(), batch.end());
  return s;
}

// min(a, b) when decidable at trace time, else a symbol bound when the op runs.
Dim sym_min(const Dim& a, const Dim& b) {
  if (known_equal(a, b)) return a;
  auto x = a.try_value(), y = b.try_value();
  if (x && y) return Dim(std::min(*x, *y));
  return Dim::fresh("k");
}

using SymRule = std::function<std::vector<SymMeta>(const FamilyAttrs&, std::span<const SymMeta>, const std::string&)>;

// The sym_infer of an op: its concrete `infer` when every extent is constant
// (kDynamicDim becomes a fresh symbol), else `rule`.
FamilyOp::SymInferFn make_sym_infer(const FamilyOp& fop, SymRule rule) {
  FamilyOp::InferFn infer = fop.infer;
  std::string name = fop.name;
  return [infer, rule, name](const FamilyAttrs& attrs, std::span<const SymMeta> in) {
    std::vector<TensorMeta> cm;
    bool constant = true;
    for (const SymMeta& m : in) {
      auto s = try_constant_shape(m.shape);
      if (!s) {
        constant = false;
        break;
      }
      cm.push_back({m.dtype, *s});
    }
    if (constant) {
      std::vector<TensorMeta> concrete = infer(attrs, cm);
      // Data-dependent extents (the rank of a truncated SVD) are one symbol
      // shared by every output: the symbolic rule names it.
      bool dynamic = false;
      for (const TensorMeta& m : concrete)
        for (std::int64_t d : m.shape) dynamic = dynamic || d == kDynamicDim;
      if (!dynamic) {
        std::vector<SymMeta> out;
        for (const TensorMeta& m : concrete) out.push_back({m.dtype, to_sym_shape(m.shape)});
        return out;
      }
    }
    return rule(attrs, in, name);
  };
}

std::vector<SymMeta> same_as(std::size_t input, std::span<const SymMeta> in) { return {in[input]}; }

SymRule square_like_input() {
  return [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    sym_square(op, s, "a");
    return same_as(0, in);
  };
}

// Solvers: a [n, n, batch...], b [n, r, batch...] (or [n]) -> like b.
SymRule solver_like_rhs(std::size_t a_index, std::size_t b_index) {
  return [a_index, b_index](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[a_index], "a");
    sym_square(op, s, "a");
    const SymMeta& b = in[b_index];
    TF_CHECK(b.dtype == in[a_index].dtype, DTypeError, op, "operands a and b have dtypes ", in[a_index].dtype,
             " and ", b.dtype);
    TF_CHECK(!b.shape.empty(), ShapeError, op, "b must have rank >= 1");
    return same_as(b_index, in);
  };
}

SymRule batch_only(bool real_out, bool square) {
  return [real_out, square](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    if (square) sym_square(op, s, "a");
    DType d = real_out ? real_dtype(in[0].dtype) : in[0].dtype;
    return std::vector<SymMeta>{{d, s.batch}};
  };
}

std::map<std::string, SymRule, std::less<>> sym_rules() {
  std::map<std::string, SymRule, std::less<>> r;
  r["linalg.svd"] = [](const FamilyAttrs& attrs, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    bool full = attrs.get_or<bool>("full_matrices", false);
    Dim k = sym_min(s.m, s.n);
    DType d = in[0].dtype;
    return std::vector<SymMeta>{{d, wb({s.m, full ? s.m : k}, s.batch)},
                                {real_dtype(d), wb({k}, s.batch)},
                                {d, wb({full ? s.n : k, s.n}, s.batch)}};
  };
  r["linalg.svdvals"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    return std::vector<SymMeta>{{real_dtype(in[0].dtype), wb({sym_min(s.m, s.n)}, s.batch)}};
  };
  r["linalg.svd_truncated"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    Dim rank = Dim::fresh("r");
    DType d = in[0].dtype;
    return std::vector<SymMeta>{{d, wb({s.m, rank}, s.batch)},
                                {real_dtype(d), wb({rank}, s.batch)},
                                {d, wb({rank, s.n}, s.batch)}};
  };
  r["linalg.pinv"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    return std::vector<SymMeta>{{in[0].dtype, wb({s.n, s.m}, s.batch)}};
  };
  r["linalg.matrix_rank"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    return std::vector<SymMeta>{{DType::i64, s.batch}};
  };
  r["linalg.qr"] = [](const FamilyAttrs& attrs, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    std::string mode = attrs.get_or<std::string>("mode", "reduced");
    Dim k = sym_min(s.m, s.n);
    DType d = in[0].dtype;
    if (mode == "complete") return std::vector<SymMeta>{{d, wb({s.m, s.m}, s.batch)}, {d, wb({s.m, s.n}, s.batch)}};
    if (mode == "r") return std::vector<SymMeta>{{d, wb({Dim(0), Dim(0)}, s.batch)}, {d, wb({k, s.n}, s.batch)}};
    return std::vector<SymMeta>{{d, wb({s.m, k}, s.batch)}, {d, wb({k, s.n}, s.batch)}};
  };
  r["linalg.lu"] = [](const FamilyAttrs& attrs, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    bool p = attrs.get_or<bool>("permutation_matrix", true);
    Dim k = sym_min(s.m, s.n);
    DType d = in[0].dtype;
    return std::vector<SymMeta>{{DType::i64, wb({s.m}, s.batch)},
                                {d, wb({s.m, k}, s.batch)},
                                {d, wb({k, s.n}, s.batch)},
                                {d, p ? wb({s.m, s.m}, s.batch) : wb({Dim(0), Dim(0)}, s.batch)}};
  };
  r["linalg.lu_factor"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    return std::vector<SymMeta>{in[0], {DType::i64, wb({sym_min(s.m, s.n)}, s.batch)}};
  };
  r["linalg.lu_solve"] = solver_like_rhs(0, 2);
  r["linalg.solve"] = solver_like_rhs(0, 1);
  r["linalg.triangular_solve"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    sym_square(op, s, "a");
    TF_CHECK(in[1].dtype == in[0].dtype, DTypeError, op, "operands a and b have dtypes ", in[0].dtype, " and ",
             in[1].dtype);
    return same_as(1, in);
  };
  r["linalg.cholesky"] = square_like_input();
  r["linalg.inv"] = square_like_input();
  r["linalg.matrix_exp"] = square_like_input();
  r["linalg.eigh"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    sym_square(op, s, "a");
    return std::vector<SymMeta>{{real_dtype(in[0].dtype), wb({s.m}, s.batch)}, in[0]};
  };
  r["linalg.eig"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    sym_square(op, s, "a");
    DType c = complex_dtype(in[0].dtype);
    return std::vector<SymMeta>{{c, wb({s.m}, s.batch)}, {c, wb({s.m, s.m}, s.batch)}};
  };
  r["linalg.eigvals"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    sym_square(op, s, "a");
    return std::vector<SymMeta>{{complex_dtype(in[0].dtype), wb({s.m}, s.batch)}};
  };
  r["linalg.det"] = batch_only(false, true);
  r["linalg.slogdet"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    sym_square(op, s, "a");
    return std::vector<SymMeta>{{in[0].dtype, s.batch}, {real_dtype(in[0].dtype), s.batch}};
  };
  r["linalg.matrix_norm"] = batch_only(true, false);
  r["linalg.cond"] = batch_only(true, false);
  r["linalg.vector_norm"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    TF_CHECK(is_float(in[0].dtype), DTypeError, op, "operand must have a float dtype, got ", in[0].dtype);
    TF_CHECK(!in[0].shape.empty(), ShapeError, op, "operand must have rank >= 1");
    return std::vector<SymMeta>{{real_dtype(in[0].dtype), SymShape(in[0].shape.begin() + 1, in[0].shape.end())}};
  };
  r["linalg.band"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    sym_matrix(op, in[0], "a");
    return same_as(0, in);
  };
  r["linalg.lstsq"] = [](const FamilyAttrs&, std::span<const SymMeta> in, const std::string& op) {
    SymMat s = sym_matrix(op, in[0], "a");
    const SymMeta& b = in[1];
    DType d = in[0].dtype, re = real_dtype(d);
    bool vec = b.shape.size() == 1;
    Dim r = vec ? Dim(1) : b.shape[1];
    SymShape x = vec ? SymShape{s.n} : wb({s.n, r}, s.batch);
    // Residuals exist only when m > n: decided when the op runs unless constant.
    auto m = s.m.try_value(), n = s.n.try_value();
    Dim res = (m && n) ? (*m > *n ? r : Dim(0)) : Dim::fresh("res");
    SymShape rs = vec ? SymShape{res} : wb({res}, s.batch);
    return std::vector<SymMeta>{{d, x}, {re, rs}, {DType::i64, s.batch}, {re, wb({sym_min(s.m, s.n)}, s.batch)}};
  };
  return r;
}

// ---- linalg.band ------------------------------------------------------------------------

std::vector<TensorMeta> infer_band(const FamilyAttrs& attrs, std::span<const TensorMeta> in) {
  matrix_shape("linalg.band", in[0], "a");
  attrs.get_or<std::int64_t>("lo", -kNoLimit);
  attrs.get_or<std::int64_t>("hi", kNoLimit);
  return {in[0]};
}

std::vector<Tensor> band_kernel(const FamilyAttrs& attrs, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  const std::int64_t lo = attrs.get_or<std::int64_t>("lo", -kNoLimit), hi = attrs.get_or<std::int64_t>("hi", kNoLimit);
  Tensor out = be.empty(a.dtype(), a.shape());
  MatrixBatch mb = matrix_batch(a);
  visit_dtype<kFloatDTypes>(a.dtype(), "linalg.band", [&]<class T>() {
    const T* src = static_cast<const T*>(a.data_ptr());
    T* dst = ptr<T>(out);
    for (std::int64_t b = 0; b < mb.count(); ++b) {
      const T* s = src + mb.offsets[static_cast<std::size_t>(b)];
      T* d = dst + b * mb.rows * mb.cols;
      for (std::int64_t j = 0; j < mb.cols; ++j)
        for (std::int64_t i = 0; i < mb.rows; ++i) {
          std::int64_t off = j - i;
          d[i + j * mb.rows] = (off >= lo && off <= hi) ? s[i * mb.rs + j * mb.cs] : T(0);
        }
    }
  });
  return {out};
}

}  // namespace

FamilyOp band_op() {
  FamilyOp f = cpu_op("linalg.band", 1, 1, infer_band, band_kernel);
  // Linear and self-adjoint (a projection).
  f.ad = AdKind::linear;
  f.jvp = [](const FamilyAttrs& attrs, std::span<const Value>, std::span<const Value>,
             std::span<const Value> t) -> std::vector<Value> {
    if (!t[0].defined()) return {Value{}};
    return {band(t[0], attrs.get_or<std::int64_t>("lo", -kNoLimit), attrs.get_or<std::int64_t>("hi", kNoLimit))};
  };
  f.transpose = [](const FamilyAttrs& attrs, std::span<const Value>, std::span<const bool>,
                   std::span<const Value> ct) -> std::vector<Value> {
    if (!ct[0].defined()) return {Value{}};
    return {band(ct[0], attrs.get_or<std::int64_t>("lo", -kNoLimit), attrs.get_or<std::int64_t>("hi", kNoLimit))};
  };
  return f;
}

void attach_sym_infer(OpFamily& f) {
  auto rules = sym_rules();
  for (FamilyOp& o : f.ops) {
    auto it = rules.find(o.name);
    if (it != rules.end() && !o.sym_infer) o.sym_infer = make_sym_infer(o, it->second);
  }
}

}  // namespace detail
}  // namespace tenferro::linalg
