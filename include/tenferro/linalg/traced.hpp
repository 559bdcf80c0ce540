#pragma once
/// \file
/// The linalg ops on graph values and on the tensor handles `TracedTensor`
/// and `EagerTensor`: the same family ops as the eager `Tensor` functions,
/// recorded as graph nodes, so that they run in compiled programs (shapes
/// may be symbolic; the rank of `svd_truncated` is data-dependent) and are
/// differentiable (`grad`, `jvp`, `hvp`, eager `backward()`; docs/linalg.md,
/// "Derivatives").
///
/// ```cpp
/// using namespace tenferro;
/// auto a = TracedTensor::input("a", DType::f64, {Dim("n"), Dim("n")});
/// auto [u, s, vh] = linalg::svd_truncated(a, {.max_rank = 8, .rtol = 1e-12});
/// auto loss = (u * s.reshape({Dim(1), s.shape()[0]}).sqrt()).square().sum();
/// auto g = grad(loss, a);                       // compiles and runs like any tensor
///
/// CpuBackend cpu;
/// EagerRuntime rt(cpu);
/// auto x = rt.tensor(Tensor::normal({4, 4}, DType::f64, 1)).requires_grad();
/// auto y = linalg::det(x);
/// backward(y);                                 // x.grad() = adj(x)^T = det(x) inv(x)^T
/// ```
/// A runtime that runs such programs is given the family explicitly:
/// `Runtime::builder().register_engine(cpu_engine(cpu)).register_family(linalg::family())`.
///
/// The handle functions are templates over `H` = `TracedTensor` or
/// `EagerTensor` (any `TensorHandle<H>` constructible from a `Value`);
/// results are the same structs as the eager functions', with handle members
/// (`HandleSvd<H>` has `u`, `s`, `vh`, ...). Options and their defaults are
/// those of the `Tensor` overloads (decompositions.hpp, solvers.hpp,
/// functions.hpp).

#include <concepts>
#include <cstdint>
#include <vector>

#include "tenferro/linalg/decompositions.hpp"
#include "tenferro/linalg/functions.hpp"
#include "tenferro/linalg/solvers.hpp"
#include "tenferro/ops/graph.hpp"
#include "tenferro/runtime/tensor_handle.hpp"

namespace tenferro::linalg {

/// Tensor handle types (TracedTensor, EagerTensor).
template <class H>
concept Handle = std::derived_from<H, TensorHandle<H>> && std::constructible_from<H, Value>;

template <class H>
using HandleSvd = BasicSvdResult<H, H>;
template <class H>
using HandleQr = BasicQrResult<H>;
template <class H>
using HandleLu = BasicLuResult<H, H>;
template <class H>
using HandleLuFactor = BasicLuFactorResult<H, H>;
template <class H>
using HandleEigh = BasicEigResult<H, H>;
template <class H>
using HandleEig = BasicEigResult<H, H>;
template <class H>
using HandleSlogdet = BasicSlogdetResult<H, H>;
template <class H>
using HandleLstsq = BasicLstsqResult<H, H, H>;

// ---- on graph values ------------------------------------------------------------------
// Each records one family-op node (evaluated at once when the operands are
// eager; Note [Eager evaluation] in tenferro/ops/graph.hpp).

/// ```cpp
/// auto [u, s, vh] = linalg::svd(graph::input("a", DType::f64, {Dim(4), Dim(3)}));
/// ```
HandleSvd<Value> svd(const Value& a, SvdOptions options = {});
Value svdvals(const Value& a);
/// Rank r is data-dependent: u [m, r], s [r], vh [r, n] with a fresh symbol r.
HandleSvd<Value> svd_truncated(const Value& a, SvdTruncatedOptions options = {});
HandleQr<Value> qr(const Value& a, QrMode mode = QrMode::reduced);
HandleLu<Value> lu(const Value& a, LuOptions options = {});
HandleLuFactor<Value> lu_factor(const Value& a);
Value lu_solve(const Value& lu, const Value& pivots, const Value& b,
               Transpose trans = Transpose::none);
/// Product of Householder reflectors (decompositions.hpp), as matrix products.
Value householder_product(const Value& a, const Value& tau);
Value cholesky(const Value& a, TriangleOptions options = {});
HandleEigh<Value> eigh(const Value& a, TriangleOptions options = {});
HandleEig<Value> eig(const Value& a);
Value eigvals(const Value& a);
Value solve(const Value& a, const Value& b);
Value triangular_solve(const Value& a, const Value& b, TriangularSolveOptions options = {});
Value inv(const Value& a);
Value det(const Value& a);
HandleSlogdet<Value> slogdet(const Value& a);
HandleLstsq<Value> lstsq(const Value& a, const Value& b, LstsqOptions options = {});
Value pinv(const Value& a, RankTolerance tolerance = {});
Value matrix_exp(const Value& a);
Value matrix_rank(const Value& a, RankTolerance tolerance = {});
Value vector_norm(const Value& x, double ord = 2.0);
Value matrix_norm(const Value& a, NormOrder ord = NormOrder::fro());
Value cond(const Value& a, NormOrder ord = 2);
/// Entries a[i, j] with lo <= j - i <= hi kept, others zero (per matrix of
/// a batch): band(a, 0, 0) is the diagonal, band(a, -kNoLimit, 0) the lower
/// triangle (kNoLimit: tenferro/linalg/attrs.hpp). Linear, works for
/// symbolic extents.
Value band(const Value& a, std::int64_t lo, std::int64_t hi);

// ---- on tensor handles ----------------------------------------------------------------

/// ```cpp
/// auto [u, s, vh] = linalg::svd(TracedTensor::input("a", DType::c128, {Dim("m"), Dim("m")}));
/// ```
template <Handle H>
HandleSvd<H> svd(const H& a, SvdOptions options = {}) {
  auto r = linalg::svd(a.graph_value(), options);
  return {H(r.u), H(r.s), H(r.vh)};
}
/// ```cpp
/// auto s = linalg::svdvals(x);      // real, descending
/// ```
template <Handle H>
H svdvals(const H& a) {
  return H(linalg::svdvals(a.graph_value()));
}
/// ```cpp
/// auto [u, s, vh] = linalg::svd_truncated(x, {.max_rank = chi, .rtol = 1e-12});
/// auto left = u * s.sqrt().reshape({Dim(1), s.shape()[0]});   // U sqrt(S)
/// ```
template <Handle H>
HandleSvd<H> svd_truncated(const H& a, SvdTruncatedOptions options = {}) {
  auto r = linalg::svd_truncated(a.graph_value(), options);
  return {H(r.u), H(r.s), H(r.vh)};
}
/// ```cpp
/// auto [q, r] = linalg::qr(x);
/// ```
template <Handle H>
HandleQr<H> qr(const H& a, QrMode mode = QrMode::reduced) {
  auto r = linalg::qr(a.graph_value(), mode);
  return {H(r.q), H(r.r)};
}
/// ```cpp
/// auto [perm, l, u, p] = linalg::lu(x);
/// ```
template <Handle H>
HandleLu<H> lu(const H& a, LuOptions options = {}) {
  auto r = linalg::lu(a.graph_value(), options);
  return {H(r.perm), H(r.l), H(r.u), H(r.p)};
}
/// ```cpp
/// auto [lu, piv] = linalg::lu_factor(x);
/// ```
template <Handle H>
HandleLuFactor<H> lu_factor(const H& a) {
  auto r = linalg::lu_factor(a.graph_value());
  return {H(r.lu), H(r.pivots)};
}
/// ```cpp
/// auto q = linalg::householder_product(reflectors, tau);   // differentiable in both
/// ```
template <Handle H>
H householder_product(const H& a, const H& tau) {
  return H(linalg::householder_product(a.graph_value(), tau.graph_value()));
}
/// ```cpp
/// auto y = linalg::lu_solve(lu, piv, b);
/// ```
template <Handle H>
H lu_solve(const H& lu, const H& pivots, const H& b, Transpose trans = Transpose::none) {
  return H(linalg::lu_solve(lu.graph_value(), pivots.graph_value(), b.graph_value(), trans));
}
/// ```cpp
/// auto l = linalg::cholesky(spd);
/// ```
template <Handle H>
H cholesky(const H& a, TriangleOptions options = {}) {
  return H(linalg::cholesky(a.graph_value(), options));
}
/// ```cpp
/// auto [w, v] = linalg::eigh(h);
/// ```
template <Handle H>
HandleEigh<H> eigh(const H& a, TriangleOptions options = {}) {
  auto r = linalg::eigh(a.graph_value(), options);
  return {H(r.eigenvalues), H(r.eigenvectors)};
}
/// ```cpp
/// auto [w, v] = linalg::eig(x);    // complex
/// ```
template <Handle H>
HandleEig<H> eig(const H& a) {
  auto r = linalg::eig(a.graph_value());
  return {H(r.eigenvalues), H(r.eigenvectors)};
}
template <Handle H>
H eigvals(const H& a) {
  return H(linalg::eigvals(a.graph_value()));
}
/// ```cpp
/// auto x = linalg::solve(a, b);     // a x = b
/// ```
template <Handle H>
H solve(const H& a, const H& b) {
  return H(linalg::solve(a.graph_value(), b.graph_value()));
}
/// ```cpp
/// auto x = linalg::triangular_solve(l, b, {.lower = true});
/// ```
template <Handle H>
H triangular_solve(const H& a, const H& b, TriangularSolveOptions options = {}) {
  return H(linalg::triangular_solve(a.graph_value(), b.graph_value(), options));
}
template <Handle H>
H inv(const H& a) {
  return H(linalg::inv(a.graph_value()));
}
/// Its derivative is tr(adj(x) dx) with the adjugate adj(x) (Note [det
/// derivative] in src/linalg/ad_rules.cpp): det(x) inv(x) for an invertible
/// x, from the SVD at a singular one (there it is not an error; it is 0
/// below rank n - 1). The rule traces both forms, so a det gradient also
/// computes an SVD.
/// ```cpp
/// auto d = linalg::det(x);          // rank 0 (or [batch...])
/// ```
template <Handle H>
H det(const H& a) {
  return H(linalg::det(a.graph_value()));
}
/// The derivative of logabsdet is tr(inv(x) dx): at a singular x, where
/// logabsdet is -inf, it is not defined and evaluating it is the LinalgError
/// of linalg.inv.
/// ```cpp
/// auto [sign, logabsdet] = linalg::slogdet(x);
/// ```
template <Handle H>
HandleSlogdet<H> slogdet(const H& a) {
  auto r = linalg::slogdet(a.graph_value());
  return {H(r.sign), H(r.logabsdet)};
}
/// ```cpp
/// auto res = linalg::lstsq(a, b);   // res.solution
/// ```
template <Handle H>
HandleLstsq<H> lstsq(const H& a, const H& b, LstsqOptions options = {}) {
  auto r = linalg::lstsq(a.graph_value(), b.graph_value(), options);
  return {H(r.solution), H(r.residuals), H(r.rank), H(r.singular_values)};
}
template <Handle H>
H pinv(const H& a, RankTolerance tolerance = {}) {
  return H(linalg::pinv(a.graph_value(), tolerance));
}
template <Handle H>
H matrix_exp(const H& a) {
  return H(linalg::matrix_exp(a.graph_value()));
}
template <Handle H>
H matrix_rank(const H& a, RankTolerance tolerance = {}) {
  return H(linalg::matrix_rank(a.graph_value(), tolerance));
}
/// ```cpp
/// auto n2 = linalg::vector_norm(x);        // over axis 0
/// auto nf = linalg::matrix_norm(a, "nuc");
/// ```
template <Handle H>
H vector_norm(const H& x, double ord = 2.0) {
  return H(linalg::vector_norm(x.graph_value(), ord));
}
template <Handle H>
H matrix_norm(const H& a, NormOrder ord = NormOrder::fro()) {
  return H(linalg::matrix_norm(a.graph_value(), ord));
}
template <Handle H>
H cond(const H& a, NormOrder ord = 2) {
  return H(linalg::cond(a.graph_value(), ord));
}
template <Handle H>
H band(const H& a, std::int64_t lo, std::int64_t hi) {
  return H(linalg::band(a.graph_value(), lo, hi));
}

}  // namespace tenferro::linalg
