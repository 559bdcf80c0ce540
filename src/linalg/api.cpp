// The eager linalg functions: each runs its family op through the op's
// typed reference (Note [Declaring a linalg op] in ops.hpp); all semantics
// live in the family ops.
#include "ops.hpp"
#include "tenferro/linalg.hpp"

namespace tenferro::linalg {

using detail::call;
namespace opref = detail::opref;

// ---- decompositions -------------------------------------------------------------------

SvdResult svd(const Tensor& a, Backend& backend, SvdOptions options) {
  auto out = call(opref::svd, SvdAttrs{.full_matrices = options.full_matrices}, {a}, backend);
  return {out[0], out[1], out[2]};
}

Tensor svdvals(const Tensor& a, Backend& backend) {
  return call(opref::svdvals, {}, {a}, backend)[0];
}

SvdResult svd_truncated(const Tensor& a, Backend& backend, SvdTruncatedOptions options) {
  auto out = call(opref::svd_truncated, options, {a}, backend);
  return {out[0], out[1], out[2]};
}

QrResult qr(const Tensor& a, Backend& backend, QrMode mode) {
  auto out = call(opref::qr, mode, {a}, backend);
  return {out[0], out[1]};
}

LuResult lu(const Tensor& a, Backend& backend, LuOptions options) {
  auto out = call(opref::lu, options, {a}, backend);
  return {out[0], out[1], out[2], out[3]};
}

LuFactorResult lu_factor(const Tensor& a, Backend& backend) {
  auto out = call(opref::lu_factor, {}, {a}, backend);
  return {out[0], out[1]};
}

Tensor householder_product(const Tensor& a, const Tensor& tau, Backend& backend) {
  graph::NoGradGuard no_grad;
  graph::EagerScope scope(backend);
  return householder_product(graph::constant(a), graph::constant(tau)).value().contiguous();
}

Tensor cholesky(const Tensor& a, Backend& backend, TriangleOptions options) {
  return call(opref::cholesky, options, {a}, backend)[0];
}

EighResult eigh(const Tensor& a, Backend& backend, TriangleOptions options) {
  auto out = call(opref::eigh, options, {a}, backend);
  return {out[0], out[1]};
}

EigResult eig(const Tensor& a, Backend& backend) {
  auto out = call(opref::eig, {}, {a}, backend);
  return {out[0], out[1]};
}

Tensor eigvals(const Tensor& a, Backend& backend) {
  return call(opref::eigvals, {}, {a}, backend)[0];
}

// ---- solvers ---------------------------------------------------------------------------

Tensor solve(const Tensor& a, const Tensor& b, Backend& backend) {
  return call(opref::solve, {}, {a, b}, backend)[0];
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, Backend& backend,
                        TriangularSolveOptions options) {
  return call(opref::triangular_solve, options, {a, b}, backend)[0];
}

Tensor lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, Backend& backend,
                Transpose trans) {
  return call(opref::lu_solve, trans, {lu, pivots, b}, backend)[0];
}

Tensor inv(const Tensor& a, Backend& backend) {
  return call(opref::inv, {}, {a}, backend)[0];
}

LstsqResult lstsq(const Tensor& a, const Tensor& b, Backend& backend, LstsqOptions options) {
  auto out = call(opref::lstsq, options, {a, b}, backend);
  return {out[0], out[1], out[2], out[3]};
}

Tensor pinv(const Tensor& a, Backend& backend, RankTolerance tolerance) {
  return call(opref::pinv, tolerance, {a}, backend)[0];
}

// ---- functions -------------------------------------------------------------------------

Tensor det(const Tensor& a, Backend& backend) {
  return call(opref::det, {}, {a}, backend)[0];
}

SlogdetResult slogdet(const Tensor& a, Backend& backend) {
  auto out = call(opref::slogdet, {}, {a}, backend);
  return {out[0], out[1]};
}

Tensor matrix_exp(const Tensor& a, Backend& backend) {
  return call(opref::matrix_exp, {}, {a}, backend)[0];
}

Tensor matrix_rank(const Tensor& a, Backend& backend, RankTolerance tolerance) {
  return call(opref::matrix_rank, tolerance, {a}, backend)[0];
}

Tensor vector_norm(const Tensor& x, Backend& backend, double ord) {
  return call(opref::vector_norm, VectorNormAttrs{ord}, {x}, backend)[0];
}

Tensor matrix_norm(const Tensor& a, Backend& backend, NormOrder ord) {
  return call(opref::matrix_norm, MatrixNormAttrs{std::move(ord)}, {a}, backend)[0];
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
  return call(opref::cond, CondAttrs{std::move(ord)}, {a}, backend)[0];
}

}  // namespace tenferro::linalg
