// Derivative rules of the linalg family (docs/linalg.md, "Derivatives").
//
// Each JVP rule is written with graph operations (tenferro/runtime/value_ops.hpp)
// and linalg ops on values (tenferro/linalg/traced.hpp), so it runs traced
// and eager and is itself differentiable: second derivatives (HVP = jvp of
// grad) differentiate these rules. Where a rule puts a tangent into a linalg
// op (solve, triangular_solve, band), that op is linear in that operand and
// has a transpose rule, which reverse mode (linearize-then-transpose) uses.
// Undefined Values are zero tangents/cotangents.
//
// Matrices are axes (0, 1), batch axes trail (Note [Linalg conventions]).
#include <cmath>
#include <limits>
#include <optional>

#include "common.hpp"
#include "ops.hpp"
#include "tenferro/linalg/traced.hpp"
#include "tenferro/runtime/value_ops.hpp"

namespace tenferro::linalg::detail {
namespace {

using namespace tenferro::vops;
using Dir = ComparisonDirection;

// ---- helpers ----------------------------------------------------------------------------

DimVec swap01(std::int64_t rank) {
  DimVec p;
  for (std::int64_t i = 0; i < rank; ++i) p.push_back(i);
  std::swap(p[0], p[1]);
  return p;
}
Value mT(const Value& x) { return transpose(x, swap01(x.ndim())); }
Value adj(const Value& x) { return conj(mT(x)); }

// Dims {axis, 2, 3, ...} of a [k, batch...] vector inside a rank-(2 + nb) matrix.
DimVec vec_dims(std::int64_t axis, std::int64_t nb) {
  DimVec d{axis};
  for (std::int64_t i = 0; i < nb; ++i) d.push_back(2 + i);
  return d;
}
// x [p, q, batch...] with column j scaled by s[j] ([q, batch...], real or not).
Value scale_cols(const Value& x, const Value& s) {
  return mul(x, broadcast_in_dim(s, x.shape(), vec_dims(1, x.ndim() - 2)));
}
// A [k, batch...] vector broadcast along rows (entry (i, j) = s[i]) or columns (= s[j]).
Value spread(const Value& s, bool by_row) {
  SymShape shape{s.shape()[0], s.shape()[0]};
  shape.insert(shape.end(), s.shape().begin() + 1, s.shape().end());
  return broadcast_in_dim(s, shape, vec_dims(by_row ? 0 : 1, s.ndim() - 1));
}
// where(cond, 1 / x, 0) without evaluating 1/0 (its derivative stays finite).
Value safe_recip(const Value& x, const Value& cond) {
  Value one = ones_like(x);
  return where(cond, div(one, where(cond, x, one)), zeros_like(x));
}
Value minus(const Value& a, const Value& b) {
  if (!b.defined()) return a;
  if (!a.defined()) return neg(b);
  return sub(a, b);
}
Value axes01_sum(const Value& x) { return sum(x, {0, 1}); }
// i * x for a real x, in the complex dtype c.
Value times_i(const Value& x, DType c) {
  Value z = zeros_like(x);
  return convert(complex(z, x), c);
}
// The Hermitian matrix a function of one triangle of `a` sees: the tangent
// of tri(a) + tri(a, strict)^H.
Value hermitian_from_triangle(const Value& t, bool lower) {
  // LAPACK reads only the real part of the diagonal.
  Value strict = lower ? band(t, -kNoLimit, -1) : band(t, 1, kNoLimit);
  Value diag = band(t, 0, 0);
  if (is_complex(t.dtype())) diag = convert(real(diag), t.dtype());
  return add(add(strict, adj(strict)), diag);
}
// Degeneracy tolerance of the rules (relative to the largest magnitude).
double degenerate_rtol(DType d) {
  double eps = real_dtype(d) == DType::f32 ? static_cast<double>(std::numeric_limits<float>::epsilon())
                                           : std::numeric_limits<double>::epsilon();
  return std::pow(eps, 0.75);
}
bool any_defined(std::span<const Value> t) {
  for (const Value& v : t)
    if (v.defined()) return true;
  return false;
}
std::vector<Value> none(std::size_t n) { return std::vector<Value>(n); }

// ---- SVD ------------------------------------------------------------------------------------
// Note [SVD derivative]: for a = u diag(s) vh (thin, k = min(m, n)), dP = u^H da v,
//   ds = Re diag(dP),
//   du = u Om_u + (1 - u u^H) da v / s,   dv = v Om_v + (1 - v v^H) da^H u / s,
// with Om_u, Om_v from the Hermitian/anti-Hermitian split of dP (H, K):
//   Om_u = Fm o H + Fp o K,   Om_v = Fm o H - Fp o K   (off the diagonal),
//   Fm_ij = 1 / (s_j - s_i),  Fp_ij = 1 / (s_i + s_j),
// and on the diagonal Om_u = -Om_v = i Im(dP_ii) / (2 s_i) (the complex gauge
// term: the phase is split evenly between u and v). Degenerate pairs
// (|s_i - s_j| <= eps^(3/4) s_max) use Om_u_ij = -Om_v_ij = dP_ij / (s_i + s_j)
// and Om_v_ij = conj(dP_ji) / (s_i + s_j) instead (u and v are then not kept
// orthonormal inside the degenerate block, whose rotation is not differentiable),
// so that du s vh + u ds vh + u s dvh = da holds exactly. Functions invariant under
// the bond gauge (u, vh) -> (u X, X^-1 vh) -- f(u s vh), tensor-network
// contractions such as TRG -- then differentiate exactly, also at degeneracy.
struct SvdTangent {
  Value du, ds, dvh;
};

// The dual bases u (u^H u)^-1 and v (v^H v)^-1: equal to u and v for the
// orthonormal factors a kernel returns, but with them the rule reconstructs
// da exactly at every (u, s, v) with u diag(s) v^H = a, orthonormal or not
// (Note [SVD derivative]). Second derivatives move off orthonormality along
// the degenerate-pair direction; the duals keep the gradient exact there.
// The op linalg.dual_basis (Note [Dual basis] in svd.cpp) returns x, which
// its operand (a kernel's orthonormal factor) is, and carries the dual's
// derivative.
Value dual(const Value& x) { return apply(opref::dual_basis, {}, {x})[0]; }

SvdTangent svd_tangent(const Value& da, const Value& u, const Value& s, const Value& vh, bool orthonormal) {
  const DType d = u.dtype();
  Value v = adj(vh);
  Value ud = dual(u), vd = dual(v);
  Value w = matmul(da, vd);                       // [m, k]
  Value dp = matmul(adj(ud), w);                  // [k, k]
  Value ds = sum(real(mul(conj(ud), w)), {0});    // Re diag(dP), [k, batch...]
  Value dph = adj(dp);
  Value h = mul(add(dp, dph), Scalar(0.5));
  Value kk = mul(sub(dp, dph), Scalar(0.5));
  Value si = spread(s, true), sj = spread(s, false);
  DimVec bdims;
  for (std::int64_t i = 0; i < s.ndim() - 1; ++i) bdims.push_back(2 + i);
  Value smax_kk = broadcast_in_dim(reduce_max(s, {0}), si.shape(), bdims);
  Value delta = sub(sj, si), total = add(si, sj);
  Value deg = compare(abs(delta), mul(smax_kk, Scalar(degenerate_rtol(d))), Dir::LE);
  Value fp = safe_recip(total, compare(total, zeros_like(total), Dir::GT));
  Value fm = where(deg, zeros_like(delta), div(ones_like(delta), where(deg, ones_like(delta), delta)));
  // Degenerate pairs: Fp (exact reconstruction) or, for functions of the
  // singular values alone, 0 (vectors fixed inside the degenerate subspace).
  Value g = orthonormal ? fm : where(deg, fp, fm);
  Value om_u = add(mul(g, h), mul(fp, kk));
  Value om_v = sub(mul(g, h), mul(fp, kk));
  Value inv_s = safe_recip(s, compare(s, zeros_like(s), Dir::GT));
  Value du = matmul(u, om_u), dv = matmul(v, om_v);
  if (!orthonormal) {
    // The diagonal of g o H is Re(dP_ii) / (2 s_i), which ds carries: removed from both.
    Value c = mul(mul(ds, inv_s), Scalar(0.5));
    du = sub(du, scale_cols(u, c));
    dv = sub(dv, scale_cols(v, c));
  }
  const Dim& m = u.shape()[0];
  const Dim& n = vh.shape()[1];
  const Dim& k = s.shape()[0];
  if (!known_equal(m, k)) du = add(du, scale_cols(sub(w, matmul(u, dp)), inv_s));
  if (!known_equal(n, k)) dv = add(dv, scale_cols(sub(matmul(adj(da), ud), matmul(v, dph)), inv_s));
  return {du, ds, adj(dv)};
}

// Note [SVD gauge attribute]: rules that only need the singular values
// (svdvals, nuclear/spectral norms) compute their vectors with the svd
// attribute `degenerate = SvdDegenerate::fixed`, whose derivative keeps the vectors
// of a degenerate subspace fixed (exact second derivatives for functions of
// the singular values); the default `reconstruct` is Note [SVD derivative].
HandleSvd<Value> svd_for_values(const Value& a) {
  auto o = apply(opref::svd, SvdAttrs{.full_matrices = false, .degenerate = SvdDegenerate::fixed}, {a});
  return {o[0], o[1], o[2]};
}

// Note [Dual basis] (svd.cpp): d[x G^-1] = (dx - D dG) G^-1 with G = x^H x,
// dG = dx^H x + x^H dx, D = x G^-1 (the op's output) and G^-1 = D^H D;
// written with the op's output, so its own derivative is exact at every order.
std::vector<Value> dual_basis_jvp(const NoFamilyAttrs&, std::span<const Value> in, std::span<const Value> out,
                                  std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  const Value &x = in[0], &d = out[0], &dx = t[0];
  Value dg = add(matmul(adj(dx), x), matmul(adj(x), dx));
  return {matmul(sub(dx, matmul(d, dg)), matmul(adj(d), d))};
}

std::vector<Value> svd_jvp(const SvdAttrs& attrs, std::span<const Value> in, std::span<const Value> out,
                           std::span<const Value> t) {
  if (!t[0].defined()) return none(3);
  const Value& a = in[0];
  if (attrs.full_matrices)
    TF_CHECK(known_equal(a.shape()[0], a.shape()[1]), UnimplementedError, "linalg.svd",
             "derivative with full_matrices = true of a non-square matrix ", a.shape(),
             " (the extra singular vectors are not unique): use the reduced SVD");
  bool fixed = attrs.degenerate == SvdDegenerate::fixed;
  SvdTangent r = svd_tangent(t[0], out[0], out[1], out[2], fixed);
  return {r.du, r.ds, r.dvh};
}

std::vector<Value> svdvals_jvp(const NoFamilyAttrs&, std::span<const Value> in, std::span<const Value>,
                               std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  auto f = svd_for_values(in[0]);
  return {sum(real(mul(conj(f.u), matmul(t[0], adj(f.vh)))), {0})};
}

// Truncated SVD: the exact derivative of the kept triplets, the first r of
// the full thin SVD (the one truncated by rtol alone).
// Singular values at or below rtol * s_max are zero for the truncation; the
// rule treats them as exactly zero too (their vectors enter only through the
// projector term of Note [SVD derivative]), which keeps second derivatives
// free of the ill-conditioned pairs among the tiny discarded values.
std::vector<Value> svd_truncated_jvp(const SvdTruncatedOptions& attrs, std::span<const Value> in, std::span<const Value> out,
                                     std::span<const Value> t) {
  if (!t[0].defined()) return none(3);
  const Value& s_r = out[1];
  // Truncated by rtol alone, the outputs are that SVD (the traced
  // svd_truncated with a rank limit is this op followed by
  // linalg.svd_rank_limit: Note [Rank limit after the SVD] in traced.cpp);
  // with a rank limit the rule computes it again.
  const bool limited = attrs.max_rank >= 0;
  const HandleSvd<Value> f = limited ? svd_truncated(in[0], {.max_rank = -1, .rtol = attrs.rtol})
                                     : HandleSvd<Value>{out[0], out[1], out[2]};
  SvdTangent g = svd_tangent(t[0], f.u, f.s, f.vh, false);
  // Values zeroed for a batch member's own rank are constants.
  Value kept = convert(compare(s_r, zeros_like(s_r), Dir::GT), s_r.dtype());
  if (!limited) return {g.du, mul(g.ds, kept), g.dvh};
  // The slices by the data-dependent r run after r is resolved: programs
  // order and plan them by symbol (Note [Symbol dependencies] in
  // src/runtime/compiler.cpp).
  const Dim r = s_r.shape()[0];
  return {slice_axis(g.du, 1, Dim(0), r), mul(slice_axis(g.ds, 0, Dim(0), r), kept),
          slice_axis(g.dvh, 0, Dim(0), r)};
}

// The kept triplets are a prefix of the operands: the tangents are the same prefix.
std::vector<Value> svd_rank_limit_jvp(const RankLimit&, std::span<const Value>, std::span<const Value> out,
                                      std::span<const Value> t) {
  const Dim r = out[1].shape()[0];
  const std::int64_t axes[3] = {1, 0, 0};  // the rank axis of u, s, vh
  std::vector<Value> d(3);
  for (std::size_t i = 0; i < 3; ++i)
    if (t[i].defined()) d[i] = slice_axis(t[i], axes[i], Dim(0), r);
  return d;
}

// ---- eigh -------------------------------------------------------------------------------
// dP = v^H da v (da the Hermitian tangent of the triangle read), dw = Re diag(dP),
// dv = v (F o dP), F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it and for
// degenerate pairs (|w_i - w_j| <= eps^(3/4) max|w|): inside a degenerate
// eigenspace the vectors are not differentiable and are kept fixed.
std::vector<Value> eigh_jvp(const TriangleOptions& attrs, std::span<const Value>, std::span<const Value> out,
                            std::span<const Value> t) {
  if (!t[0].defined()) return none(2);
  const Value &w = out[0], &v = out[1];
  Value da = hermitian_from_triangle(t[0], attrs.lower);
  Value av = matmul(da, v);
  Value dw = sum(real(mul(conj(v), av)), {0});
  Value dp = matmul(adj(v), av);
  Value wi = spread(w, true), wj = spread(w, false);
  DimVec bdims;
  for (std::int64_t i = 0; i < w.ndim() - 1; ++i) bdims.push_back(2 + i);
  Value wmax = broadcast_in_dim(reduce_max(abs(w), {0}), wi.shape(), bdims);
  Value delta = sub(wj, wi);
  Value deg = compare(abs(delta), mul(wmax, Scalar(degenerate_rtol(w.dtype()))), Dir::LE);
  Value f = where(deg, zeros_like(delta), div(ones_like(delta), where(deg, ones_like(delta), delta)));
  return {dw, matmul(v, mul(f, dp))};
}

// ---- Cholesky -----------------------------------------------------------------------------
// a = l l^H: dl = l Phi(l^-1 da l^-H), Phi = strictly lower part + half the diagonal.
std::vector<Value> cholesky_jvp(const TriangleOptions& attrs, std::span<const Value>, std::span<const Value> out,
                                std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  const bool lower = attrs.lower;
  Value da = hermitian_from_triangle(t[0], lower);
  Value l = lower ? out[0] : adj(out[0]);
  Value z1 = triangular_solve(l, da, {.lower = true, .left = true});
  Value z = triangular_solve(adj(l), z1, {.lower = false, .left = false});
  Value phi = add(band(z, -kNoLimit, -1), mul(band(z, 0, 0), Scalar(0.5)));
  Value dl = matmul(l, phi);
  return {lower ? dl : adj(dl)};
}

// ---- solvers ----------------------------------------------------------------------------------

std::vector<Value> solve_jvp(const NoFamilyAttrs&, std::span<const Value> in, std::span<const Value> out,
                             std::span<const Value> t) {
  if (!any_defined(t)) return none(1);
  Value rhs = t[1];
  if (t[0].defined()) rhs = minus(rhs, matmul(t[0], out[0]));
  return {solve(in[0], rhs)};
}

std::vector<Value> solve_transpose(const NoFamilyAttrs&, std::span<const Value> in, std::span<const bool> linear,
                                   std::span<const Value> ct) {
  TF_CHECK(!linear[0], InternalError, "linalg.solve", "is not linear in a");
  if (!ct[0].defined()) return none(2);
  return {Value{}, solve(adj(in[0]), ct[0])};
}

// Note [Solves that keep the factors] (lu.cpp): x = op(a)^-1 b; the
// factors' tangents are never read (the derivative goes through a).
Value op_of(const Value& x, Transpose trans) {
  return trans == Transpose::none ? x : trans == Transpose::transpose ? mT(x) : adj(x);
}

std::vector<Value> solve_factored_jvp(const Transpose& trans, std::span<const Value> in,
                                      std::span<const Value> out, std::span<const Value> t) {
  if (!t[0].defined() && !t[3].defined()) return none(1);
  Value rhs = t[3];
  if (t[0].defined()) rhs = minus(rhs, matmul(op_of(t[0], trans), out[0]));
  return {detail::solve_factored(in[0], in[1], in[2], rhs, trans)};
}

// Linear in b: ct_b = op(a)^-H ct; for op = transpose, (a^T)^-H = conj(a)^-1,
// and conj(a)^-1 c = conj(a^-1 conj(c)).
std::vector<Value> solve_factored_transpose(const Transpose& trans, std::span<const Value> in,
                                            std::span<const bool> linear, std::span<const Value> ct) {
  TF_CHECK(!linear[0], InternalError, "linalg.solve_factored", "is not linear in a");
  if (!ct[0].defined()) return none(4);
  Value x = trans == Transpose::transpose
                ? conj(detail::solve_factored(in[0], in[1], in[2], conj(ct[0]), Transpose::none))
                : detail::solve_factored(in[0], in[1], in[2], ct[0],
                                         trans == Transpose::none ? Transpose::adjoint : Transpose::none);
  return {Value{}, Value{}, Value{}, x};
}

std::vector<Value> triangular_solve_jvp(const TriangularSolveOptions& o, std::span<const Value> in,
                                        std::span<const Value> out, std::span<const Value> t) {
  if (!any_defined(t)) return none(1);
  Value rhs = t[1];
  if (t[0].defined()) {
    std::int64_t diag = o.unit_diagonal ? 1 : 0;
    Value tri = o.lower ? band(t[0], -kNoLimit, -diag) : band(t[0], diag, kNoLimit);
    rhs = minus(rhs, o.left ? matmul(tri, out[0]) : matmul(out[0], tri));
  }
  return {triangular_solve(in[0], rhs, o)};
}

std::vector<Value> triangular_solve_transpose(const TriangularSolveOptions& attrs, std::span<const Value> in,
                                              std::span<const bool> linear, std::span<const Value> ct) {
  TF_CHECK(!linear[0], InternalError, "linalg.triangular_solve", "is not linear in a");
  if (!ct[0].defined()) return none(2);
  TriangularSolveOptions o = attrs;
  o.lower = !o.lower;  // adj(a) holds the adjoint of the triangle read
  return {Value{}, triangular_solve(adj(in[0]), ct[0], o)};
}

std::vector<Value> inv_jvp(const NoFamilyAttrs&, std::span<const Value>, std::span<const Value> out,
                           std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  return {neg(matmul(out[0], matmul(t[0], out[0])))};
}

Value eye_like(const Value& x, const Dim& n);

// tr(a^-1 da) = sum(a^-T o da).
Value trace_inv_times(const Value& a, const Value& da) { return axes01_sum(mul(mT(inv(a)), da)); }

// Note [det derivative]: d det(a) = tr(adj(a) da) = sum(adj(a)^T o da), with
// adj(a) the adjugate: det(a) a^-1 for an invertible a. At a singular a the
// derivative is still defined: from a = U S V^H,
//   adj(a) = adj(V^H) adj(S) adj(U) = det(U) det(V^H) V diag(p) U^H,
// p_i = prod_{j != i} s_j (nonzero only at rank n - 1). Both forms are
// traced and `where` picks one per batch member (det != 0: the inverse);
// inv sees the identity in place of a singular member, so it never fails
// (it threw "linalg.inv: ... singular" for the gradient of det there).
Value adjugate(const Value& a, const Value& d) {
  DimVec batch;
  for (std::int64_t i = 2; i < a.ndim(); ++i) batch.push_back(i);
  Value nonsingular = broadcast_in_dim(compare(d, zeros_like(d), Dir::NE), a.shape(), batch);
  Value eye = eye_like(a, a.shape()[0]);
  Value via_inv = mul(broadcast_in_dim(d, a.shape(), batch), inv(where(nonsingular, a, eye)));
  auto f = svd_for_values(a);
  Value sj = spread(convert(f.s, a.dtype()), false);  // (i, j) = s_j
  Value p = prod(add(sub(sj, band(sj, 0, 0)), eye_like(sj, sj.shape()[0])), {1});  // prod_{j != i} s_j
  Value phase = broadcast_in_dim(mul(det(f.u), det(f.vh)), a.shape(), batch);
  Value via_svd = mul(phase, matmul(scale_cols(adj(f.vh), p), adj(f.u)));
  return where(nonsingular, via_inv, via_svd);
}

std::vector<Value> det_jvp(const NoFamilyAttrs&, std::span<const Value> in, std::span<const Value> out,
                           std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  return {axes01_sum(mul(mT(adjugate(in[0], out[0])), t[0]))};
}

std::vector<Value> slogdet_jvp(const NoFamilyAttrs&, std::span<const Value> in, std::span<const Value> out,
                               std::span<const Value> t) {
  if (!t[0].defined()) return none(2);
  Value tr = trace_inv_times(in[0], t[0]);
  Value dsign;
  if (is_complex(in[0].dtype())) dsign = mul(out[0], times_i(imag(tr), in[0].dtype()));
  return {dsign, real(tr)};
}

// ---- QR -----------------------------------------------------------------------------------------
// Note [QR derivative]. Reduced QR of a tall or square a = q r (m >= n):
// C = q^H da r^-1, X = the anti-Hermitian matrix with C's strictly lower part
// (and i Im diag C: r keeps a real diagonal),
//   dr = (C - X) r,   dq = da r^-1 - q (C - X).
// Wide a (m < n): a = [x | y] with x square [m, m], q r1 = x and r2 = q^H y, so
// (dq, dr1) is the square rule of x and dr2 = q^H (dy - dq r2). q is [m, m]
// in every mode then; the complete factors of a tall a are not unique (the
// last m - n columns of q are any orthonormal completion): no derivative.
struct QrTangent {
  Value dq, dr;
};
QrTangent qr_square_tangent(const Value& da, const Value& q, const Value& r) {
  Value dar = triangular_solve(r, da, {.lower = false, .left = false});
  Value c = matmul(adj(q), dar);
  Value low = band(c, -kNoLimit, -1);
  Value x = sub(low, adj(low));
  if (is_complex(da.dtype())) x = add(x, times_i(imag(band(c, 0, 0)), da.dtype()));
  Value cx = sub(c, x);
  return {sub(dar, matmul(q, cx)), matmul(cx, r)};
}

// Whether the matrix extents (rows, cols) of x are known to satisfy rows >= cols
// (true), rows < cols (false), or cannot be compared yet (nullopt).
std::optional<bool> known_tall(const Value& x) {
  const Dim &m = x.shape()[0], &n = x.shape()[1];
  if (known_equal(m, n)) return true;
  auto mv = m.try_value(), nv = n.try_value();
  if (mv && nv) return *mv >= *nv;
  return std::nullopt;
}

std::vector<Value> qr_jvp(const QrMode& mode, std::span<const Value> in, std::span<const Value> out,
                          std::span<const Value> t) {
  if (!t[0].defined()) return none(2);
  const Value& a = in[0];
  const std::optional<bool> tall = known_tall(a);
  TF_CHECK(tall.has_value(), UnimplementedError, "linalg.qr", "derivative of QR of a ", a.shape(),
           " matrix whose extents cannot be compared when the derivative is traced (use constant "
           "extents)");
  TF_CHECK(!*tall || mode != QrMode::complete || known_equal(a.shape()[0], a.shape()[1]),
           UnimplementedError, "linalg.qr", "derivative of QR of a ", a.shape(), " matrix with ",
           mode, ": the complete q of a tall matrix is not unique (use the reduced factors)");
  Value q = out[0], r = out[1];
  if (mode == QrMode::r) {
    auto f = qr(a);
    q = f.q;
    r = f.r;
  }
  QrTangent d;
  if (*tall) {
    d = qr_square_tangent(t[0], q, r);
  } else {
    const Dim &m = a.shape()[0], &n = a.shape()[1];
    QrTangent x = qr_square_tangent(slice_axis(t[0], 1, Dim(0), m), q, slice_axis(r, 1, Dim(0), m));
    Value r2 = slice_axis(r, 1, m, n);
    Value dr2 = matmul(adj(q), sub(slice_axis(t[0], 1, m, n), matmul(x.dq, r2)));
    d = {x.dq, concatenate({x.dr, dr2}, 1)};
  }
  if (mode == QrMode::r) return {Value{}, d.dr};
  return {d.dq, d.dr};
}

// ---- norms ----------------------------------------------------------------------------------------

std::vector<Value> vector_norm_jvp(const VectorNormAttrs& attrs, std::span<const Value> in, std::span<const Value> out,
                                   std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  double p = attrs.ord;
  TF_CHECK(std::isfinite(p) && p >= 1.0, UnimplementedError, "linalg.vector_norm",
           "derivative for ord = ", p, " (supported: finite ord >= 1)");
  const Value &x = in[0], &nrm = out[0];
  Value re = real(mul(conj(x), t[0]));  // Re(conj(x) dx)
  Value pos = compare(nrm, zeros_like(nrm), Dir::GT);
  if (p == 2.0) return {mul(sum(re, {0}), safe_recip(nrm, pos))};
  if (p == 1.0) {
    Value ax = abs(x);
    Value w = safe_recip(ax, compare(ax, zeros_like(ax), Dir::GT));
    return {sum(mul(re, w), {0})};
  }
  // d||x||_p = sum |x|^(p-2) Re(conj x dx) / ||x||^(p-1).
  Value ax = abs(x);
  Value wts = pow(ax, full(ax.shape(), Scalar(p - 2.0), ax.dtype()));
  Value num = sum(mul(re, wts), {0});
  Value den = pow(nrm, full(nrm.shape(), Scalar(p - 1.0), nrm.dtype()));
  return {mul(num, safe_recip(den, pos))};
}

std::vector<Value> matrix_norm_jvp(const MatrixNormAttrs& attrs, std::span<const Value> in, std::span<const Value> out,
                                   std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  const std::string ord = attrs.ord.to_string();
  const Value &a = in[0], &nrm = out[0];
  if (ord == "fro") {
    Value pos = compare(nrm, zeros_like(nrm), Dir::GT);
    return {mul(axes01_sum(real(mul(conj(a), t[0]))), safe_recip(nrm, pos))};
  }
  if (ord == "nuc" || ord == "2" || ord == "-2") {
    auto f = svd_for_values(a);
    Value ds = sum(real(mul(conj(f.u), matmul(t[0], adj(f.vh)))), {0});
    if (ord == "nuc") return {sum(ds, {0})};
    const Dim k = ds.shape()[0];
    Value pick = ord == "2" ? slice_axis(ds, 0, Dim(0), Dim(1)) : slice_axis(ds, 0, k - Dim(1), k);
    return {sum(pick, {0})};
  }
  TF_THROW(UnimplementedError, "linalg.matrix_norm", "derivative for ord '", ord,
           "' (supported: fro, nuc, 2, -2)");
}

// ---- cond ------------------------------------------------------------------------------------------
// Note [cond derivative]. Orders 2, -2, fro and nuc are functions of the singular
// values s (ds as for svdvals):
//   2: c = s_0 / s_{k-1};  -2: c = s_{k-1} / s_0;
//   fro: c = sqrt(X Y), X = sum s^2, Y = sum s^-2, dc = (dX Y + X dY) / (2 c);
//   nuc: c = X Y, X = sum s, Y = sum 1/s.
// Orders 1, -1, inf, -inf: c = n(a) n(a^-1), n the largest/smallest absolute
// column (1) or row (inf) sum; dn = the tangent of the extremal sums (split
// equally between ties, as max and min do), d(a^-1) = -a^-1 da a^-1.
struct NormTangent {
  Value n, dn;
};
NormTangent abs_sum_norm(const Value& x, const Value& dx, bool row_sums, bool largest) {
  const std::int64_t ax = row_sums ? 1 : 0;
  Value ab = abs(x);
  Value g = sum(ab, {ax});  // [n, batch...]
  Value n = largest ? reduce_max(g, {0}) : reduce_min(g, {0});
  DimVec bd;
  for (std::int64_t i = 1; i < g.ndim(); ++i) bd.push_back(i);
  Value hit = convert(compare(g, broadcast_in_dim(n, g.shape(), bd), Dir::EQ), g.dtype());
  Value w = div(hit, broadcast_in_dim(sum(hit, {0}), g.shape(), bd));
  Value sgn = mul(x, convert(safe_recip(ab, compare(ab, zeros_like(ab), Dir::GT)), x.dtype()));
  Value dg = sum(real(mul(conj(sgn), dx)), {ax});
  return {n, sum(mul(w, dg), {0})};
}

std::vector<Value> cond_jvp(const CondAttrs& attrs, std::span<const Value> in,
                            std::span<const Value> out, std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  const Value &a = in[0], &c = out[0], &da = t[0];
  const NormOrder& ord = attrs.ord;
  if (ord.is_named() || std::abs(ord.p()) == 2.0) {
    auto f = svd_for_values(a);
    const Value& s = f.s;
    Value ds = sum(real(mul(conj(f.u), matmul(da, adj(f.vh)))), {0});
    if (!ord.is_named()) {
      const Dim k = s.shape()[0];
      auto first = [&](const Value& v) { return sum(slice_axis(v, 0, Dim(0), Dim(1)), {0}); };
      auto last = [&](const Value& v) { return sum(slice_axis(v, 0, k - Dim(1), k), {0}); };
      Value hi = first(s), lo = last(s), dhi = first(ds), dlo = last(ds);
      if (ord.p() < 0) {
        std::swap(hi, lo);
        std::swap(dhi, dlo);
      }
      // c = hi / lo
      return {div(sub(mul(dhi, lo), mul(hi, dlo)), mul(lo, lo))};
    }
    Value inv_s = div(ones_like(s), s);
    if (ord.name() == "fro") {
      Value x = sum(mul(s, s), {0}), y = sum(mul(inv_s, inv_s), {0});
      Value dxs = mul(sum(mul(s, ds), {0}), Scalar(2.0));
      Value dys = mul(sum(mul(mul(inv_s, mul(inv_s, inv_s)), ds), {0}), Scalar(-2.0));
      return {div(add(mul(dxs, y), mul(x, dys)), mul(c, Scalar(2.0)))};
    }
    Value x = sum(s, {0}), y = sum(inv_s, {0});
    return {sub(mul(sum(ds, {0}), y), mul(x, sum(mul(mul(inv_s, inv_s), ds), {0})))};
  }
  const bool rows = std::isinf(ord.p()), largest = ord.p() > 0;
  Value ai = inv(a);
  NormTangent na = abs_sum_norm(a, da, rows, largest);
  NormTangent ni = abs_sum_norm(ai, neg(matmul(ai, matmul(da, ai))), rows, largest);
  return {add(mul(na.dn, ni.n), mul(na.n, ni.dn))};
}

// ---- pinv -----------------------------------------------------------------------------------------
// d(a+) = -a+ da a+ + a+ a+^H da^H (1 - a a+) + (1 - a+ a) da^H a+^H a+ (constant rank).
Value eye_like(const Value& x, const Dim& n) {
  SymShape s{n, n};
  s.insert(s.end(), x.shape().begin() + 2, x.shape().end());
  return band(full(s, Scalar(1), x.dtype()), 0, 0);
}

std::vector<Value> pinv_jvp(const RankTolerance&, std::span<const Value> in, std::span<const Value> out,
                            std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  const Value &a = in[0], &p = out[0], &da = t[0];
  Value ph = adj(p), dah = adj(da);
  Value term1 = neg(matmul(p, matmul(da, p)));
  Value left = sub(eye_like(a, a.shape()[0]), matmul(a, p));
  Value right = sub(eye_like(a, a.shape()[1]), matmul(p, a));
  Value term2 = matmul(matmul(p, ph), matmul(dah, left));
  Value term3 = matmul(right, matmul(dah, matmul(ph, p)));
  return {add(add(term1, term2), term3)};
}

// ---- LU, lu_factor, lu_solve ------------------------------------------------------------------
// Note [LU derivative]. p a = l u with l [m, k] unit lower trapezoidal and u [k, n]
// upper trapezoidal, k = min(m, n); the pivots are locally constant. With
// x = p da:
// - square: F = l^-1 x u^-1, dl = l strict_lower(F), du = upper(F) u;
// - tall (m > n): l = [l1; l2], x = [x1; x2]: (dl1, du) is the square rule
//   of (x1, l1, u), and l2 u = (p a)_2 gives dl2 = (x2 - l2 du) u^-1;
// - wide (m < n): u = [u1 | u2], x = [x1 | x2]: (dl, du1) is the square rule
//   of (x1, l, u1), and l u2 = (p a)_2 gives du2 = l^-1 (x2 - dl u2).
// lu_factor's packed tangent is dl (strictly lower) + du (upper), zero padded.
struct LuTangent {
  Value dl, du;
};
LuTangent lu_square_tangent(const Value& x, const Value& l, const Value& u) {
  Value z = triangular_solve(l, x, {.lower = true, .left = true, .unit_diagonal = true});
  Value f = triangular_solve(u, z, {.lower = false, .left = false});
  return {matmul(l, band(f, -kNoLimit, -1)), matmul(band(f, 0, kNoLimit), u)};
}

// x = p da, the rows of da in the pivoted order, from the permutation
// (p[i, perm[i]] = 1) of a's LU: for one matrix a gather of whole rows (m n
// element moves instead of an m x m x n product); a batch takes the product
// with p (gather has no batching dimensions), taken from a's LU again when
// the caller has none.
Value permuted_rows(const Value& a, const Value& da, const Value& perm, const Value& p) {
  if (da.ndim() != 2) return matmul(p.defined() ? p : lu(a).p, da);
  BasicGatherAttrs<Dim> g;
  g.offset_dims = {1};
  g.collapsed_slice_dims = {0};
  g.start_index_map = {0};
  g.index_vector_dim = 1;
  g.slice_sizes = {Dim(1), da.shape()[1]};
  return gather(da, reshape(perm, {perm.shape()[0], Dim(1)}), g);
}

// x = p da (permuted_rows).
LuTangent lu_tangent(const char* op, const Value& a, const Value& x, const Value& l, const Value& u) {
  const std::optional<bool> tall = known_tall(a);
  TF_CHECK(tall.has_value(), UnimplementedError, op, "derivative of the LU of a ", a.shape(),
           " matrix whose extents cannot be compared when the derivative is traced (use constant "
           "extents)");
  const Dim &m = a.shape()[0], &n = a.shape()[1];
  if (known_equal(m, n)) return lu_square_tangent(x, l, u);
  if (*tall) {
    Value l1 = slice_axis(l, 0, Dim(0), n), l2 = slice_axis(l, 0, n, m);
    LuTangent s = lu_square_tangent(slice_axis(x, 0, Dim(0), n), l1, u);
    Value dl2 = triangular_solve(u, sub(slice_axis(x, 0, n, m), matmul(l2, s.du)),
                                 {.lower = false, .left = false});
    return {concatenate({s.dl, dl2}, 0), s.du};
  }
  Value u1 = slice_axis(u, 1, Dim(0), m), u2 = slice_axis(u, 1, m, n);
  LuTangent s = lu_square_tangent(slice_axis(x, 1, Dim(0), m), l, u1);
  Value du2 = triangular_solve(l, sub(slice_axis(x, 1, m, n), matmul(s.dl, u2)),
                               {.lower = true, .left = true, .unit_diagonal = true});
  return {s.dl, concatenate({s.du, du2}, 1)};
}

std::vector<Value> lu_jvp(const LuOptions& attrs, std::span<const Value> in, std::span<const Value> out,
                          std::span<const Value> t) {
  if (!t[0].defined()) return none(4);
  const Value& a = in[0];
  const Value p = attrs.permutation_matrix ? out[3] : Value{};
  LuTangent d = lu_tangent("linalg.lu", a, permuted_rows(a, t[0], out[0], p), out[1], out[2]);
  return {Value{}, d.dl, d.du, Value{}};
}

std::vector<Value> lu_factor_jvp(const NoFamilyAttrs&, std::span<const Value> in,
                                 std::span<const Value>, std::span<const Value> t) {
  if (!t[0].defined()) return none(2);
  const Value& a = in[0];
  auto f = lu(a);
  LuTangent d = lu_tangent("linalg.lu_factor", a, permuted_rows(a, t[0], f.perm, f.p), f.l, f.u);
  // Both tangents padded to a's shape [m, n]: dl [m, k] with zero columns, du [k, n] with zero rows.
  const Dim &m = a.shape()[0], &n = a.shape()[1];
  const Dim k = d.dl.shape()[1];
  auto padded = [&](const Value& x, const Dim& rows, const Dim& cols) {
    SymShape lo(static_cast<std::size_t>(x.ndim()), Dim(0)), hi = lo;
    hi[0] = rows;
    hi[1] = cols;
    return pad(x, scalar(Scalar(0), x.dtype()), lo, hi,
               DimVec(static_cast<std::size_t>(x.ndim()), 0));
  };
  Value dl = known_equal(k, n) ? d.dl : padded(d.dl, Dim(0), n - k);
  Value du = known_equal(k, m) ? d.du : padded(d.du, m - k, Dim(0));
  return {add(dl, du), Value{}};
}

// x = A^-1 b (or A^-T b, A^-H b) with A = P L U held as the packed factors and
// pivots: with M = dL U + L dU (dA = P M; the pivots are constant),
//   none:       dx = -U^-1 L^-1 M x,
//   adjoint:    dx = -A^-H M^H P^T x,   P^T x = L U A^-1 x,
//   transpose:  dx = -A^-T M^T P^T x,
// written with lu_solve and triangular solves on the packed factor (each reads
// one triangle), so the rule is differentiable again.
std::vector<Value> lu_solve_jvp(const Transpose& trans, std::span<const Value> in,
                                std::span<const Value> out, std::span<const Value> t) {
  if (!t[0].defined() && !t[2].defined()) return none(1);
  const Value &f = in[0], &piv = in[1], &x = out[0];
  Value dx;
  if (t[2].defined()) dx = lu_solve(f, piv, t[2], trans);
  if (t[0].defined()) {
    const Dim& n = f.shape()[0];
    Value l = add(band(f, -kNoLimit, -1), eye_like(f, n)), u = band(f, 0, kNoLimit);
    Value dm = add(matmul(band(t[0], -kNoLimit, -1), u), matmul(l, band(t[0], 0, kNoLimit)));
    Value term;
    if (trans == Transpose::none) {
      Value z =
          triangular_solve(f, matmul(dm, x), {.lower = true, .left = true, .unit_diagonal = true});
      term = triangular_solve(f, z, {.lower = false, .left = true});
    } else {
      Value ptx = matmul(l, matmul(u, lu_solve(f, piv, x, Transpose::none)));
      Value mt = trans == Transpose::adjoint ? adj(dm) : mT(dm);
      term = lu_solve(f, piv, matmul(mt, ptx), trans);
    }
    dx = minus(dx, term);
  }
  return {dx};
}

std::vector<Value> lu_solve_transpose(const Transpose& t, std::span<const Value> in,
                                      std::span<const bool> linear, std::span<const Value> ct) {
  TF_CHECK(!linear[0], InternalError, "linalg.lu_solve", "is not linear in the factors");
  if (!ct[0].defined()) return none(3);
  Value r;
  if (t == Transpose::none) r = lu_solve(in[0], in[1], ct[0], Transpose::adjoint);
  else if (t == Transpose::adjoint) r = lu_solve(in[0], in[1], ct[0], Transpose::none);
  else r = conj(lu_solve(in[0], in[1], conj(ct[0]), Transpose::none));
  return {Value{}, Value{}, r};
}

// ---- lstsq ------------------------------------------------------------------------------------
// Note [lstsq derivative], for a of full rank (the rank is locally constant):
// - m >= n: x = (a^H a)^-1 a^H b; with r = b - a x (a^H r = 0),
//     dx = (a^H a)^-1 (a^H (db - da x) + da^H r);
// - m < n (minimum norm): x = a^H y, a a^H y = b; differentiating both,
//     dy = (a a^H)^-1 (db - da x - a da^H y),   dx = da^H y + a^H dy.
// Residuals (m > n): res_j = sum_i |r_ij|^2, dres = 2 Re sum_i conj(r_ij) dr_ij with
// dr = db - da x - a dx. Singular values: as svdvals. Rank-deficient a: the
// solution jumps with the rank, and no rule is claimed (the formulas above
// need a^H a or a a^H invertible).
Value as_matrix(const Value& v, bool vec) {
  if (!vec) return v;
  return reshape(v, SymShape{v.shape()[0], Dim(1)});
}

std::vector<Value> lstsq_jvp(const LstsqOptions&, std::span<const Value> in,
                             std::span<const Value> out, std::span<const Value> t) {
  if (!any_defined(t)) return none(4);
  const Value& a = in[0];
  const bool vec = in[1].ndim() == 1;
  const std::optional<bool> tall = known_tall(a);
  TF_CHECK(tall.has_value(), UnimplementedError, "linalg.lstsq", "derivative for a ", a.shape(),
           " matrix whose extents cannot be compared when the derivative is traced (use constant "
           "extents)");
  Value b = as_matrix(in[1], vec), x = as_matrix(out[0], vec);
  Value db = t[1].defined() ? as_matrix(t[1], vec) : zeros_like(b);
  Value da = t[0].defined() ? t[0] : zeros_like(a);
  Value rhs = sub(db, matmul(da, x));  // db - da x
  Value dx;
  if (*tall) {
    Value r = sub(b, matmul(a, x));
    dx = solve(matmul(adj(a), a), add(matmul(adj(a), rhs), matmul(adj(da), r)));
  } else {
    Value g = matmul(a, adj(a));
    Value y = solve(g, b);
    Value dy = solve(g, sub(rhs, matmul(a, matmul(adj(da), y))));
    dx = add(matmul(adj(da), y), matmul(adj(a), dy));
  }
  Value dres;
  const Dim &m = a.shape()[0], &n = a.shape()[1];
  if (*tall && !known_equal(m, n)) {
    Value r = sub(b, matmul(a, x));
    Value dr = sub(rhs, matmul(a, dx));
    dres = mul(sum(real(mul(conj(r), dr)), {0}), Scalar(2.0));
    if (vec) dres = reshape(dres, out[1].shape());
  }
  Value ds;
  if (t[0].defined()) {
    auto f = svd_for_values(a);
    ds = sum(real(mul(conj(f.u), matmul(t[0], adj(f.vh)))), {0});
  }
  if (vec) dx = reshape(dx, out[0].shape());
  return {dx, dres, Value{}, ds};
}

// ---- eig, eigvals -----------------------------------------------------------------------------
// M = V^-1 da V: dw = diag M, dV = V (F o M) with F_ij = 1/(w_j - w_i) (0 on the
// diagonal and for degenerate pairs), then minus V Re diag(V^H dV) so that the
// columns keep unit norm (PyTorch's normalisation). The phase of each vector
// is a gauge: test invariant functions.
struct EigTangent {
  Value dw, dv;
};
EigTangent eig_tangent(const Value& da_in, const Value& w, const Value& v, bool vectors) {
  const DType c = w.dtype();
  Value da = convert(da_in, c);
  Value m = matmul(inv(v), matmul(da, v));
  Value dw = sum(band(m, 0, 0), {1});
  if (!vectors) return {dw, Value{}};
  Value wi = spread(w, true), wj = spread(w, false);
  DimVec bdims;
  for (std::int64_t i = 0; i < w.ndim() - 1; ++i) bdims.push_back(2 + i);
  Value wmax = broadcast_in_dim(reduce_max(abs(w), {0}), wi.shape(), bdims);
  Value delta = sub(wj, wi);
  Value deg = compare(abs(delta), mul(wmax, Scalar(degenerate_rtol(c))), Dir::LE);
  Value f = where(deg, zeros_like(delta), div(ones_like(delta), where(deg, ones_like(delta), delta)));
  Value dv = matmul(v, mul(f, m));
  Value nrm = sum(real(mul(conj(v), dv)), {0});
  return {dw, sub(dv, scale_cols(v, convert(nrm, c)))};
}

std::vector<Value> eig_jvp(const NoFamilyAttrs&, std::span<const Value>, std::span<const Value> out,
                           std::span<const Value> t) {
  if (!t[0].defined()) return none(2);
  EigTangent e = eig_tangent(t[0], out[0], out[1], true);
  return {e.dw, e.dv};
}

std::vector<Value> eigvals_jvp(const NoFamilyAttrs&, std::span<const Value> in, std::span<const Value>,
                               std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  auto f = eig(in[0]);
  return {eig_tangent(t[0], f.eigenvalues, f.eigenvectors, false).dw};
}

// ---- matrix_exp ---------------------------------------------------------------------------------
// d exp(a) = L(a, da), the Frechet derivative: the top-right block of
// exp([[a, da], [0, a]]), as the op linalg.matrix_exp_frechet(a, e), linear in e
// with adjoint L(a^H, .). Its own derivative in a, D^2 exp(a)[da, e], is the
// top-right block of L([[a, e], [0, a]], [[da, 0], [0, da]]): the top-right
// block of exp([[x, e], [0, x]]) is L(x, e), and moving x along da moves the
// block matrix along diag(da, da). So the tangent da enters only the second,
// linear operand of a Frechet derivative, whose transpose exists: reverse
// mode through the gradient (grad of grad) works, and reverse mode never
// needs the transpose over the first operand.
Value block2(const Value& a11, const Value& a12, const Value& a21, const Value& a22) {
  return concatenate({concatenate({a11, a12}, 1), concatenate({a21, a22}, 1)}, 0);
}
Value top_right(const Value& x, const Dim& n) {
  return slice_axis(slice_axis(x, 0, Dim(0), n), 1, n, n + n);
}
Value frechet(const Value& a, const Value& e) {
  return apply(opref::matrix_exp_frechet, {}, {a, e})[0];
}

std::vector<Value> matrix_exp_jvp(const NoFamilyAttrs&, std::span<const Value> in, std::span<const Value>,
                                  std::span<const Value> t) {
  if (!t[0].defined()) return none(1);
  return {frechet(in[0], t[0])};
}

std::vector<Value> frechet_jvp(const NoFamilyAttrs&, std::span<const Value> in, std::span<const Value>,
                               std::span<const Value> t) {
  if (!any_defined(t)) return none(1);
  const Value &a = in[0], &e = in[1];
  Value r;
  if (t[1].defined()) r = frechet(a, t[1]);
  if (t[0].defined()) {
    Value z = zeros_like(a);
    Value second = top_right(frechet(block2(a, e, z, a), block2(t[0], z, z, t[0])), a.shape()[0]);
    r = r.defined() ? add(r, second) : second;
  }
  return {r};
}

std::vector<Value> frechet_transpose(const NoFamilyAttrs&, std::span<const Value> in, std::span<const bool> linear,
                                     std::span<const Value> ct) {
  TF_CHECK(
      !linear[0], UnimplementedError, "linalg.matrix_exp_frechet",
      "reverse mode over its first operand (the derivative rules of matrix_exp never need it: ",
      "call matrix_exp_frechet through them)");
  if (!ct[0].defined()) return none(2);
  return {Value{}, frechet(adj(in[0]), ct[0])};
}

// The CPU kernel of linalg.matrix_exp_frechet: the top-right block of
// exp([[a, e], [0, a]]), run eagerly with graph operations.
std::vector<Tensor> frechet_kernel(const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
  graph::NoGradGuard no_grad;
  graph::EagerScope scope(be);
  Value a = graph::constant(in[0]), e = graph::constant(in[1]);
  Value ex = apply(opref::matrix_exp, {}, {block2(a, e, zeros_like(a), a)})[0];
  return {top_right(ex, a.shape()[0]).value().contiguous()};
}

// ---- band -------------------------------------------------------------------------------------
// Linear and self-adjoint (a projection).
std::vector<Value> band_linear(const BandAttrs& attrs, std::span<const Value> x) {
  if (!x[0].defined()) return {Value{}};
  return {band(x[0], attrs.lo, attrs.hi)};
}

}  // namespace

// ---- the rule bundles (one per row of ops.hpp) -------------------------------------------------

// Not differentiable: matrix_rank (an integer output).
FamilyRules<NoFamilyAttrs> lu_factor_rules() { return {.jvp = lu_factor_jvp}; }
FamilyRules<LstsqOptions> lstsq_rules() { return {.jvp = lstsq_jvp}; }
FamilyRules<RankTolerance> matrix_rank_rules() { return {}; }
FamilyRules<CondAttrs> cond_rules() { return {.jvp = cond_jvp}; }

FamilyRules<SvdAttrs> svd_rules() { return {.jvp = svd_jvp}; }
FamilyRules<NoFamilyAttrs> svdvals_rules() { return {.jvp = svdvals_jvp}; }
FamilyRules<SvdTruncatedOptions> svd_truncated_rules() { return {.jvp = svd_truncated_jvp}; }
FamilyRules<RankLimit> svd_rank_limit_rules() { return {.jvp = svd_rank_limit_jvp}; }
FamilyRules<NoFamilyAttrs> dual_basis_rules() { return {.jvp = dual_basis_jvp}; }
FamilyRules<RankTolerance> pinv_rules() { return {.jvp = pinv_jvp}; }
FamilyRules<QrMode> qr_rules() { return {.jvp = qr_jvp}; }
FamilyRules<LuOptions> lu_rules() { return {.jvp = lu_jvp}; }
FamilyRules<Transpose> lu_solve_rules() { return {.jvp = lu_solve_jvp, .transpose = lu_solve_transpose}; }
FamilyRules<NoFamilyAttrs> solve_rules() { return {.jvp = solve_jvp, .transpose = solve_transpose}; }
FamilyRules<Transpose> solve_factored_rules() {
  return {.jvp = solve_factored_jvp, .transpose = solve_factored_transpose};
}
FamilyRules<NoFamilyAttrs> inv_rules() { return {.jvp = inv_jvp}; }
FamilyRules<NoFamilyAttrs> det_rules() { return {.jvp = det_jvp}; }
FamilyRules<NoFamilyAttrs> slogdet_rules() { return {.jvp = slogdet_jvp}; }
FamilyRules<TriangleOptions> cholesky_rules() { return {.jvp = cholesky_jvp}; }
FamilyRules<TriangularSolveOptions> triangular_solve_rules() {
  return {.jvp = triangular_solve_jvp, .transpose = triangular_solve_transpose};
}
FamilyRules<TriangleOptions> eigh_rules() { return {.jvp = eigh_jvp}; }
FamilyRules<NoFamilyAttrs> eig_rules() { return {.jvp = eig_jvp}; }
FamilyRules<NoFamilyAttrs> eigvals_rules() { return {.jvp = eigvals_jvp}; }
FamilyRules<NoFamilyAttrs> matrix_exp_rules() { return {.jvp = matrix_exp_jvp}; }
FamilyRules<NoFamilyAttrs> matrix_exp_frechet_rules() {
  return {.jvp = frechet_jvp, .transpose = frechet_transpose};
}
FamilyRules<VectorNormAttrs> vector_norm_rules() { return {.jvp = vector_norm_jvp}; }
FamilyRules<MatrixNormAttrs> matrix_norm_rules() { return {.jvp = matrix_norm_jvp}; }
FamilyRules<BandAttrs> band_rules() {
  return {.jvp = [](const BandAttrs& a, std::span<const Value>, std::span<const Value>,
                    std::span<const Value> t) { return band_linear(a, t); },
          .transpose = [](const BandAttrs& a, std::span<const Value>, std::span<const bool>,
                          std::span<const Value> ct) { return band_linear(a, ct); }};
}

// ---- linalg.matrix_exp_frechet ----------------------------------------------------------------
// Declared here: its kernel is written with graph operations (above).

Declaration declare_matrix_exp_frechet() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = "linalg.matrix_exp_frechet", .num_inputs = 2, .num_outputs = 1, .ad = AdKind::nonlinear},
      []<class D>(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) {
        const char* op = "linalg.matrix_exp_frechet";
        bool same = in[0].dtype == in[1].dtype && in[0].shape.size() == in[1].shape.size();
        for (std::size_t i = 0; same && i < in[0].shape.size(); ++i) same = !differs(in[0].shape[i], in[1].shape[i]);
        TF_CHECK(same, ShapeError, op, "operands must have one dtype and shape, got ", in[0].dtype, in[0].shape,
                 " and ", in[1].dtype, in[1].shape);
        matrix_shape(op, in[0], "a");
        require_square(op, in[0], "a");
        return std::vector<BasicTensorMeta<D>>{in[0]};
      },
      matrix_exp_frechet_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>(frechet_kernel)};
}

}  // namespace tenferro::linalg::detail
