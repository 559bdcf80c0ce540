// The eager linalg functions: each builds the op's attributes and runs the
// family op through call_family (all semantics live in the family ops).
#include <cmath>

#include "tenferro/linalg.hpp"

namespace tenferro::linalg {
namespace {

// The family op `name`, looked up once.
#define TF_LINALG_OP(name)                                   \
  []() -> const FamilyOp& {                                  \
    static const FamilyOp& op = family().op("linalg." name); \
    return op;                                               \
  }()

std::vector<Tensor> run(const FamilyOp& op, const FamilyAttrs& attrs,
                        std::initializer_list<Tensor> inputs, Backend& backend) {
  return call_family(op, attrs, std::span<const Tensor>(inputs.begin(), inputs.size()), backend);
}

Tensor run1(const FamilyOp& op, const FamilyAttrs& attrs, std::initializer_list<Tensor> inputs,
            Backend& backend) {
  return run(op, attrs, inputs, backend)[0];
}

FamilyAttrs tolerance_attrs(const RankTolerance& t) { return {{"rtol", t.rtol}, {"atol", t.atol}}; }

}  // namespace

std::string NormOrder::to_string() const {
  if (is_named()) return name_;
  if (std::isinf(p_)) return p_ > 0 ? "inf" : "-inf";
  if (p_ == std::floor(p_) && std::abs(p_) < 1e15)
    return std::to_string(static_cast<long long>(p_));
  return ::tenferro::detail::str(p_);
}

// ---- decompositions -------------------------------------------------------------------

SvdResult svd(const Tensor& a, Backend& backend, SvdOptions options) {
  auto out = run(TF_LINALG_OP("svd"), {{"full_matrices", options.full_matrices}}, {a}, backend);
  return {out[0], out[1], out[2]};
}

Tensor svdvals(const Tensor& a, Backend& backend) {
  return run1(TF_LINALG_OP("svdvals"), {}, {a}, backend);
}

SvdResult svd_truncated(const Tensor& a, Backend& backend, SvdTruncatedOptions options) {
  auto out = run(TF_LINALG_OP("svd_truncated"),
                 {{"max_rank", options.max_rank}, {"rtol", options.rtol}}, {a}, backend);
  return {out[0], out[1], out[2]};
}

QrResult qr(const Tensor& a, Backend& backend, QrMode mode) {
  const char* m = mode == QrMode::reduced ? "reduced" : mode == QrMode::complete ? "complete" : "r";
  auto out = run(TF_LINALG_OP("qr"), {{"mode", std::string(m)}}, {a}, backend);
  return {out[0], out[1]};
}

LuResult lu(const Tensor& a, Backend& backend, LuOptions options) {
  auto out =
      run(TF_LINALG_OP("lu"), {{"permutation_matrix", options.permutation_matrix}}, {a}, backend);
  return {out[0], out[1], out[2], out[3]};
}

LuFactorResult lu_factor(const Tensor& a, Backend& backend) {
  auto out = run(TF_LINALG_OP("lu_factor"), {}, {a}, backend);
  return {out[0], out[1]};
}

Tensor cholesky(const Tensor& a, Backend& backend, TriangleOptions options) {
  return run1(TF_LINALG_OP("cholesky"), {{"lower", options.lower}}, {a}, backend);
}

EighResult eigh(const Tensor& a, Backend& backend, TriangleOptions options) {
  auto out = run(TF_LINALG_OP("eigh"), {{"lower", options.lower}}, {a}, backend);
  return {out[0], out[1]};
}

EigResult eig(const Tensor& a, Backend& backend) {
  auto out = run(TF_LINALG_OP("eig"), {}, {a}, backend);
  return {out[0], out[1]};
}

Tensor eigvals(const Tensor& a, Backend& backend) {
  return run1(TF_LINALG_OP("eigvals"), {}, {a}, backend);
}

// ---- solvers ---------------------------------------------------------------------------

Tensor solve(const Tensor& a, const Tensor& b, Backend& backend) {
  return run1(TF_LINALG_OP("solve"), {}, {a, b}, backend);
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, Backend& backend,
                        TriangularSolveOptions options) {
  return run1(
      TF_LINALG_OP("triangular_solve"),
      {{"lower", options.lower}, {"left", options.left}, {"unit_diagonal", options.unit_diagonal}},
      {a, b}, backend);
}

Tensor lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, Backend& backend,
                Transpose trans) {
  const char* t = trans == Transpose::none ? "N" : trans == Transpose::transpose ? "T" : "C";
  return run1(TF_LINALG_OP("lu_solve"), {{"trans", std::string(t)}}, {lu, pivots, b}, backend);
}

Tensor inv(const Tensor& a, Backend& backend) {
  return run1(TF_LINALG_OP("inv"), {}, {a}, backend);
}

LstsqResult lstsq(const Tensor& a, const Tensor& b, Backend& backend, LstsqOptions options) {
  auto out = run(TF_LINALG_OP("lstsq"), {{"rcond", options.rcond}}, {a, b}, backend);
  return {out[0], out[1], out[2], out[3]};
}

Tensor pinv(const Tensor& a, Backend& backend, RankTolerance tolerance) {
  return run1(TF_LINALG_OP("pinv"), tolerance_attrs(tolerance), {a}, backend);
}

// ---- functions -------------------------------------------------------------------------

Tensor det(const Tensor& a, Backend& backend) {
  return run1(TF_LINALG_OP("det"), {}, {a}, backend);
}

SlogdetResult slogdet(const Tensor& a, Backend& backend) {
  auto out = run(TF_LINALG_OP("slogdet"), {}, {a}, backend);
  return {out[0], out[1]};
}

Tensor matrix_exp(const Tensor& a, Backend& backend) {
  return run1(TF_LINALG_OP("matrix_exp"), {}, {a}, backend);
}

Tensor matrix_rank(const Tensor& a, Backend& backend, RankTolerance tolerance) {
  return run1(TF_LINALG_OP("matrix_rank"), tolerance_attrs(tolerance), {a}, backend);
}

Tensor vector_norm(const Tensor& x, Backend& backend, double ord) {
  return run1(TF_LINALG_OP("vector_norm"), {{"ord", ord}}, {x}, backend);
}

Tensor matrix_norm(const Tensor& a, Backend& backend, NormOrder ord) {
  return run1(TF_LINALG_OP("matrix_norm"), {{"ord", ord.to_string()}}, {a}, backend);
}

Tensor norm(const Tensor& a, Backend& backend) {
  TF_CHECK(a.defined(), ValueError, "linalg.norm", "operand is an undefined tensor");
  return a.ndim() == 1 ? vector_norm(a, backend) : matrix_norm(a, backend);
}

Tensor norm(const Tensor& a, Backend& backend, NormOrder ord) {
  TF_CHECK(a.defined(), ValueError, "linalg.norm", "operand is an undefined tensor");
  if (a.ndim() != 1) return matrix_norm(a, backend, ord);
  TF_CHECK(!ord.is_named(), ValueError, "linalg.norm", "ord \"", ord.name(),
           "\" is a matrix norm; x ", a.shape(), " is a vector");
  return vector_norm(a, backend, ord.p());
}

Tensor cond(const Tensor& a, Backend& backend, NormOrder ord) {
  return run1(TF_LINALG_OP("cond"), {{"ord", ord.to_string()}}, {a}, backend);
}

#undef TF_LINALG_OP

}  // namespace tenferro::linalg
