// Derivatives of the linalg family (docs/linalg.md, "Derivatives"): every rule
// through the generic checker (JVP vs central differences, <v, J u> = <J^H v, u>,
// HVP vs differences of the gradient) in f64 and c128, with gauge-invariant
// observables where a factor has a gauge; degenerate singular values (the
// TRG case); svd_truncated in compiled programs whose sizes and ranks change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <vector>

#include "ad/ad_check.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/linalg.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;
namespace la = tenferro::linalg;

namespace {

struct RegisterFamily {
  RegisterFamily() { register_ad_check_family(la::family()); }
};
const RegisterFamily kRegistered;

using Fn = std::function<Value(const std::vector<Value>&)>;

DimVec swap01(std::int64_t rank) {
  DimVec p;
  for (std::int64_t i = 0; i < rank; ++i) p.push_back(i);
  std::swap(p[0], p[1]);
  return p;
}
Value mT(const Value& x) { return vops::transpose(x, swap01(x.ndim())); }
Value adj(const Value& x) { return vops::conj(mT(x)); }
// x [p, q, batch...] times diag(s) on the right.
Value scale_cols(const Value& x, const Value& s) {
  DimVec d{1};
  for (std::int64_t i = 2; i < x.ndim(); ++i) d.push_back(i);
  return vops::mul(x, vops::broadcast_in_dim(s, x.shape(), d));
}
Value scale_rows(const Value& x, const Value& s) {
  DimVec d{0};
  for (std::int64_t i = 2; i < x.ndim(); ++i) d.push_back(i);
  return vops::mul(x, vops::broadcast_in_dim(s, x.shape(), d));
}

const std::vector<DType> kBoth{DType::f64, DType::c128};

CpuBackend& cpu() {
  static CpuBackend b;
  return b;
}

Tensor rnd(const Shape& s, DType d, std::uint64_t seed) { return random_tensor(s, d, seed); }
double max_abs_diff(const Tensor& a, const Tensor& b);

// a + shift * I on every matrix of a square batch (well conditioned).
Tensor shifted(const Shape& s, DType d, std::uint64_t seed, double shift) {
  Tensor a = rnd(s, d, seed);
  std::vector<double> ev(static_cast<std::size_t>(shape_numel(s)), 0.0);
  const std::int64_t n = s[0], count = shape_numel(s) / (n * n);
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t i = 0; i < n; ++i) ev[static_cast<std::size_t>(b * n * n + i + i * n)] = shift;
  Tensor e = ops::convert(Tensor::from_vec_col_major<double>(s, ev), d, cpu());
  return add(a, e, cpu());
}

// Q1 diag(s) Q2^H with Haar-like random unitaries (from QR): prescribed singular values.
Tensor with_singular_values(std::int64_t m, std::int64_t n, const std::vector<double>& s, DType d,
                            std::uint64_t seed) {
  Tensor q1 = la::qr(rnd({m, m}, d, seed), cpu()).q;
  Tensor q2 = la::qr(rnd({n, n}, d, seed + 1), cpu()).q;
  std::vector<double> dv(static_cast<std::size_t>(m * n), 0.0);
  for (std::size_t i = 0; i < s.size(); ++i) dv[i + i * static_cast<std::size_t>(m)] = s[i];
  Tensor dm = ops::convert(Tensor::from_vec_col_major<double>({m, n}, dv), d, cpu());
  return matmul(matmul(q1, dm, cpu()), conj(q2.permute({1, 0}), cpu()), cpu());
}

void run_cases(const std::string& name, const std::vector<Shape>& shapes, const std::vector<DType>& dtypes,
               const std::function<Tensor(const Shape&, DType, std::uint64_t)>& make, const Fn& f,
               AdTolerances tol = {}, int inputs = 1) {
  std::uint64_t seed = 3;
  for (DType d : dtypes)
    for (const Shape& s : shapes) {
      std::vector<Tensor> in;
      for (int i = 0; i < inputs; ++i) in.push_back(make(s, d, seed += 7));
      check_ad_case({detail::str(name, " ", d, s), f, in}, tol);
    }
}

// ---- SVD ----------------------------------------------------------------------------------

TEST(LinalgAd, SvdInvariants) {
  const std::vector<Shape> shapes{{4, 3}, {3, 5}, {3, 3, 2}};
  run_cases("svd s", shapes, kBoth, rnd, [](const std::vector<Value>& x) { return la::svd(x[0]).s; });
  run_cases("svd sin(u s vh)", shapes, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::svd(x[0]);
    return vops::sin(vops::real(vops::matmul(scale_cols(r.u, r.s), r.vh)));
  });
  // (u u^H is the identity for square and wide matrices: a tall one.)
  run_cases("svd u u^H", {{4, 3}, {5, 2, 2}}, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::svd(x[0]);
    return vops::matmul(r.u, adj(r.u));
  });
  run_cases("svd vh^H s^2 vh", shapes, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::svd(x[0]);
    return vops::matmul(adj(r.vh), scale_rows(r.vh, vops::mul(r.s, r.s)));
  });
  // |u_ij| and |vh_ij| are invariant under the sign/phase gauge of each triplet.
  run_cases("svd |u| + |vh|^T", {{4, 4}, {3, 3, 2}}, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::svd(x[0]);
    return vops::add(vops::abs(r.u), mT(vops::abs(r.vh)));
  });
  // u_i vh_i (a rank-1 term) carries the complex gauge term.
  run_cases("svd u diag(s^3) vh", shapes, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::svd(x[0]);
    return vops::matmul(scale_cols(r.u, vops::mul(r.s, vops::mul(r.s, r.s))), r.vh);
  });
}

TEST(LinalgAd, Svdvals) {
  run_cases("svdvals", {{4, 3}, {2, 5}, {3, 3, 2}}, kBoth, rnd,
            [](const std::vector<Value>& x) { return la::svdvals(x[0]); });
}

TEST(LinalgAd, SvdTruncatedInvariants) {
  // rtol/max_rank that keep a fixed number of values (random spectra have gaps).
  run_cases("svd_truncated u s vh", {{5, 4}, {4, 6}}, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::svd_truncated(x[0], {.max_rank = 2});
    return vops::matmul(scale_cols(r.u, r.s), r.vh);
  });
  // (Outputs of the checked functions need static shapes: scalarise s [r].)
  run_cases("svd_truncated sum(exp(s))", {{5, 4}}, kBoth, rnd, [](const std::vector<Value>& x) {
    return vops::sum(vops::exp(la::svd_truncated(x[0], {.max_rank = 3}).s));
  });
  run_cases("svd_truncated u u^H", {{5, 4}}, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::svd_truncated(x[0], {.max_rank = 2});
    return vops::matmul(r.u, adj(r.u));
  });
}

// The TRG situation: singular values with an exactly degenerate pair, and
// observables invariant under the bond gauge (u, vh) -> (u X, X^-1 vh).
TEST(LinalgAd, DegenerateSingularValues) {
  // Central differences of the gradient straddle the split of the degenerate
  // pair (gap ~ 1e-5), where third derivatives are large: a looser HVP bound.
  AdTolerances tol;
  tol.hvp_fd = 1e-4;
  for (DType d : kBoth) {
    Tensor a = with_singular_values(4, 4, {3.0, 2.0, 2.0, 0.5}, d, 41);
    Tensor b = rnd({4, 4}, d, 43);
    Tensor bc = b;
    // sum(sin(Re(u s vh))) + sum(cos(Im(...))) as a matrix output.
    check_ad_case({detail::str("degenerate f(u s vh) ", d),
                   [](const std::vector<Value>& x) {
                     auto r = la::svd(x[0]);
                     Value rec = vops::matmul(scale_cols(r.u, r.s), r.vh);
                     return vops::add(vops::sin(vops::real(rec)), vops::cos(vops::imag(rec)));
                   },
                   {a}},
                  tol);
    for (bool truncated : {false, true}) {
      // Known gap (docs/linalg.md): second derivatives through svd_truncated
      // when a kept value is exactly degenerate are approximate (bounded in
      // SvdTruncatedHvpAtDegeneracyWithinItsBound).
      AdTolerances t2 = tol;
      t2.hvp = !truncated;
      auto factors = [truncated](const Value& x) {
        return truncated ? la::svd_truncated(x, {.max_rank = 3}) : la::svd(x);
      };
      // Half-tensors L = u sqrt(s), R = sqrt(s) vh contracted around a "plaquette" with B.
      check_ad_case({detail::str("degenerate tr((R B L)^2) ", truncated ? "truncated " : "", d),
                     [bc, factors](const std::vector<Value>& x) {
                       auto r = factors(x[0]);
                       Value sq = vops::sqrt(r.s);
                       Value l = scale_cols(r.u, sq), rr = scale_rows(r.vh, sq);
                       Value m = vops::matmul(vops::matmul(rr, graph::constant(bc)), l);
                       Value t = vops::sum(la::band(vops::matmul(m, m), 0, 0));
                       return vops::add(vops::real(t), vops::imag(t));
                     },
                     {a}},
                    t2);
      check_ad_case({detail::str("degenerate R L L R ", truncated ? "truncated " : "", d),
                     [factors](const std::vector<Value>& x) {
                       auto r = factors(x[0]);
                       Value sq = vops::sqrt(r.s);
                       Value l = scale_cols(r.u, sq), rr = scale_rows(r.vh, sq);
                       // (L R)(L R)^T-like products of the half tensors: gauge invariant.
                       return vops::matmul(vops::matmul(l, rr), vops::matmul(l, rr));
                     },
                     {a}},
                    t2);
    }
    // Symmetric functions of the degenerate values are differentiable. Second
    // derivatives at exact degeneracy are exact for the nuclear norm (linear
    // in s) but not for nonlinear functions of s (known gap, docs/linalg.md):
    // first order only here.
    AdTolerances first_order = tol;
    first_order.hvp = false;
    check_ad_case({detail::str("degenerate sum(exp(svdvals)) ", d),
                   [](const std::vector<Value>& x) { return vops::sum(vops::exp(la::svdvals(x[0]))); }, {a}},
                  first_order);
    check_ad_case({detail::str("degenerate nuclear norm ", d),
                   [](const std::vector<Value>& x) { return la::matrix_norm(x[0], la::NormOrder::nuc()); }, {a}},
                  tol);
  }
}

// ---- eigh ----------------------------------------------------------------------------------

Value herm(const Value& x) { return vops::mul(vops::add(x, adj(x)), Scalar(0.5)); }

TEST(LinalgAd, Eigh) {
  const std::vector<Shape> shapes{{4, 4}, {3, 3, 2}};
  run_cases("eigh w", shapes, kBoth, rnd, [](const std::vector<Value>& x) { return la::eigh(herm(x[0])).eigenvalues; });
  run_cases("eigh v w^2 v^H", shapes, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::eigh(herm(x[0]));
    return vops::matmul(scale_cols(r.eigenvectors, vops::mul(r.eigenvalues, r.eigenvalues)), adj(r.eigenvectors));
  });
  run_cases("eigh |v|", shapes, kBoth, rnd, [](const std::vector<Value>& x) {
    return vops::abs(la::eigh(herm(x[0])).eigenvectors);
  });
  // Raw (non-Hermitian) input: only one triangle is read.
  for (bool lower : {true, false})
    run_cases(detail::str("eigh raw lower=", lower), {{4, 4}}, kBoth, rnd, [lower](const std::vector<Value>& x) {
      auto r = la::eigh(x[0], {.lower = lower});
      return vops::matmul(scale_cols(r.eigenvectors, vops::exp(r.eigenvalues)), adj(r.eigenvectors));
    });
}

// ---- Cholesky, solvers, inverse, determinants ----------------------------------------------

Value spd(const Value& x) {
  Value g = vops::matmul(x, adj(x));
  return vops::add(g, la::band(vops::full(g.shape(), Scalar(3.0), g.dtype()), 0, 0));
}

TEST(LinalgAd, Cholesky) {
  for (bool lower : {true, false}) {
    run_cases(detail::str("cholesky lower=", lower), {{3, 3}, {4, 4, 2}}, kBoth, rnd,
              [lower](const std::vector<Value>& x) { return la::cholesky(spd(x[0]), {.lower = lower}); });
    // Raw input: one triangle read (the matrix is made positive definite by a shift).
    run_cases(detail::str("cholesky raw lower=", lower), {{4, 4}}, kBoth,
              [](const Shape& s, DType d, std::uint64_t seed) { return shifted(s, d, seed, 4.0); },
              [lower](const std::vector<Value>& x) { return la::cholesky(x[0], {.lower = lower}); });
  }
}

Tensor well_conditioned(const Shape& s, DType d, std::uint64_t seed) { return shifted(s, d, seed, 3.0); }

TEST(LinalgAd, Solve) {
  for (DType d : kBoth) {
    check_ad_case({detail::str("solve ", d), [](const std::vector<Value>& x) { return la::solve(x[0], x[1]); },
                   {well_conditioned({3, 3}, d, 1), rnd({3, 2}, d, 2)}});
    check_ad_case({detail::str("solve vector ", d), [](const std::vector<Value>& x) { return la::solve(x[0], x[1]); },
                   {well_conditioned({4, 4}, d, 3), rnd({4}, d, 4)}});
    check_ad_case({detail::str("solve batched ", d), [](const std::vector<Value>& x) { return la::solve(x[0], x[1]); },
                   {well_conditioned({3, 3, 2}, d, 5), rnd({3, 1, 2}, d, 6)}});
  }
}

TEST(LinalgAd, TriangularSolve) {
  for (DType d : kBoth)
    for (bool lower : {true, false})
      for (bool left : {true, false})
        for (bool unit : {false, true}) {
          la::TriangularSolveOptions o{.lower = lower, .left = left, .unit_diagonal = unit};
          Shape bs = left ? Shape{3, 2} : Shape{2, 3};
          check_ad_case({detail::str("triangular_solve ", d, " lower=", lower, " left=", left, " unit=", unit),
                         [o](const std::vector<Value>& x) { return la::triangular_solve(x[0], x[1], o); },
                         {well_conditioned({3, 3}, d, 11), rnd(bs, d, 12)}});
        }
}

TEST(LinalgAd, InvDetSlogdet) {
  const std::vector<Shape> shapes{{3, 3}, {4, 4, 2}};
  run_cases("inv", shapes, kBoth, well_conditioned, [](const std::vector<Value>& x) { return la::inv(x[0]); });
  run_cases("det", shapes, kBoth, well_conditioned, [](const std::vector<Value>& x) { return la::det(x[0]); });
  run_cases("slogdet logabsdet", shapes, kBoth, well_conditioned,
            [](const std::vector<Value>& x) { return la::slogdet(x[0]).logabsdet; });
  run_cases("slogdet sign", {{3, 3}}, {DType::c128}, well_conditioned,
            [](const std::vector<Value>& x) { return la::slogdet(x[0]).sign; });
}

TEST(LinalgAd, Qr) {
  const std::vector<Shape> shapes{{4, 3}, {3, 3}, {5, 2, 2}};
  run_cases("qr exp(q r)", shapes, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::qr(x[0]);
    return vops::exp(vops::matmul(r.q, r.r));
  });
  // Invariant under the phase gauge q -> q D, r -> D^H r.
  run_cases("qr |q| |r|", shapes, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::qr(x[0]);
    return vops::add(vops::sum(vops::abs(r.q), {0}), vops::sum(vops::abs(r.r), {0}));
  });
  run_cases("qr q q^H", {{4, 3}, {5, 2, 2}}, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::qr(x[0]);
    return vops::matmul(r.q, adj(r.q));
  });
  // Real: the factors themselves (LAPACK's sign convention is smooth).
  run_cases("qr q", shapes, {DType::f64}, rnd, [](const std::vector<Value>& x) { return la::qr(x[0]).q; });
  run_cases("qr r", shapes, {DType::f64}, rnd, [](const std::vector<Value>& x) { return la::qr(x[0]).r; });
  run_cases("qr mode r |r|", {{4, 3}}, kBoth, rnd, [](const std::vector<Value>& x) {
    return vops::abs(la::qr(x[0], la::QrMode::r).r);
  });
}

// ---- norms, pinv -----------------------------------------------------------------------------

TEST(LinalgAd, Norms) {
  for (double p : {2.0, 1.0, 3.0})
    run_cases(detail::str("vector_norm ", p), {{5}, {4, 3}}, kBoth, rnd,
              [p](const std::vector<Value>& x) { return la::vector_norm(x[0], p); });
  for (const char* ord : {"fro", "nuc", "2", "-2"})
    run_cases(detail::str("matrix_norm ", ord), {{4, 3}, {3, 3, 2}}, kBoth, rnd,
              [ord](const std::vector<Value>& x) { return la::matrix_norm(x[0], la::NormOrder(ord)); });
}

TEST(LinalgAd, Pinv) {
  run_cases("pinv", {{4, 3}, {3, 5}}, kBoth, rnd, [](const std::vector<Value>& x) { return la::pinv(x[0]); });
}

TEST(LinalgAd, Lu) {
  // Random matrices: the pivot order is locally constant.
  run_cases("lu l", {{3, 3}, {4, 4, 2}}, kBoth, rnd, [](const std::vector<Value>& x) { return la::lu(x[0]).l; });
  run_cases("lu u", {{3, 3}, {4, 4, 2}}, kBoth, rnd, [](const std::vector<Value>& x) { return la::lu(x[0]).u; });
  for (DType d : kBoth)
    for (la::Transpose t : {la::Transpose::none, la::Transpose::transpose, la::Transpose::adjoint}) {
      Tensor a = well_conditioned({3, 3}, d, 51);
      auto f = la::lu_factor(a, cpu());
      Tensor lu = f.lu, piv = f.pivots;
      check_ad_case({detail::str("lu_solve in b ", d, " trans=", static_cast<int>(t)),
                     [lu, piv, t](const std::vector<Value>& x) {
                       return la::lu_solve(graph::constant(lu), graph::constant(piv), x[0], t);
                     },
                     {rnd({3, 2}, d, 52)}});
    }
}

TEST(LinalgAd, Eig) {
  // Invariant under the phase of each eigenvector: eigenvalues, V f(w) V^-1.
  run_cases("eigvals", {{3, 3}, {4, 4, 2}}, kBoth, rnd,
            [](const std::vector<Value>& x) { return la::eigvals(x[0]); });
  run_cases("eig w", {{3, 3}}, kBoth, rnd, [](const std::vector<Value>& x) { return la::eig(x[0]).eigenvalues; });
  run_cases("eig v exp(w) v^-1", {{3, 3}, {4, 4, 2}}, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::eig(x[0]);
    return vops::matmul(scale_cols(r.eigenvectors, vops::exp(r.eigenvalues)), la::inv(r.eigenvectors));
  });
  run_cases("eig |v|", {{3, 3}}, kBoth, rnd, [](const std::vector<Value>& x) {
    return vops::abs(la::eig(x[0]).eigenvectors);
  });
}

TEST(LinalgAd, MatrixExp) {
  run_cases("matrix_exp", {{3, 3}, {2, 2, 3}}, kBoth, rnd,
            [](const std::vector<Value>& x) { return la::matrix_exp(x[0]); });
}

TEST(LinalgAd, UndifferentiableOpsSayWhich) {
  // lstsq's rule picks the over- or underdetermined formula: symbolic extents
  // that cannot be compared are refused, naming the op.
  Value x = graph::input("x", DType::f64, {Dim("m"), Dim("n")});
  Value y = vops::sum(la::lstsq(x, vops::sum(x, {1})).solution);
  std::vector<Value> ys{y}, xs{x}, ts{graph::input("t", DType::f64, {Dim("m"), Dim("n")})};
  try {
    ad::jvp(ys, xs, ts);
    FAIL() << "expected UnimplementedError";
  } catch (const UnimplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("linalg.lstsq"), std::string::npos) << e.what();
  }
  // The complete q of a tall matrix is not unique.
  Value c = graph::input("c", DType::f64, {Dim(4), Dim(3)});
  std::vector<Value> ys3{vops::sum(la::qr(c, la::QrMode::complete).q)}, xs3{c},
      ts3{graph::input("u", DType::f64, {Dim(4), Dim(3)})};
  EXPECT_THROW(ad::jvp(ys3, xs3, ts3), UnimplementedError);
  // Full U of a tall matrix is not unique.
  Value t = graph::input("t", DType::f64, {Dim(4), Dim(3)});
  Value z = graph::input("z", DType::f64, {Dim(4), Dim(3)});
  std::vector<Value> ys2{vops::sum(la::svd(t, {.full_matrices = true}).u)}, xs2{t}, ts2{z};
  EXPECT_THROW(ad::jvp(ys2, xs2, ts2), UnimplementedError);
}

// ---- lstsq, non-square LU, lu_factor, lu_solve in the factor, wide QR, cond, householder_product --

// Full-rank a: overdetermined (residuals too), square, underdetermined (minimum
// norm), batched, vector b; derivatives in a and b together.
TEST(LinalgAd, Lstsq) {
  struct Case {
    Shape a, b;
  };
  const std::vector<Case> cases{{{5, 3}, {5, 2}},       {{3, 3}, {3, 2}},       {{2, 4}, {2, 3}},
                                {{4, 2, 2}, {4, 3, 2}}, {{2, 3, 2}, {2, 1, 2}}, {{5, 3}, {5}},
                                {{2, 3}, {2}}};
  std::uint64_t seed = 100;
  for (DType d : kBoth)
    for (const Case& c : cases) {
      std::vector<Tensor> in{rnd(c.a, d, seed++), rnd(c.b, d, seed++)};
      check_ad_case({detail::str("lstsq solution ", d, c.a, c.b),
                     [](const std::vector<Value>& x) { return la::lstsq(x[0], x[1]).solution; },
                     in});
      if (c.a[0] > c.a[1])
        check_ad_case({detail::str("lstsq residuals ", d, c.a, c.b),
                       [](const std::vector<Value>& x) { return la::lstsq(x[0], x[1]).residuals; },
                       in});
      check_ad_case(
          {detail::str("lstsq singular values ", d, c.a, c.b),
           [](const std::vector<Value>& x) { return la::lstsq(x[0], x[1]).singular_values; }, in});
    }
}

TEST(LinalgAd, LuNonSquare) {
  // Random matrices: the pivot order is locally constant.
  const std::vector<Shape> shapes{{5, 3}, {3, 5}, {4, 2, 2}, {2, 4, 2}};
  run_cases("lu l", shapes, kBoth, rnd, [](const std::vector<Value>& x) { return la::lu(x[0]).l; });
  run_cases("lu u", shapes, kBoth, rnd, [](const std::vector<Value>& x) { return la::lu(x[0]).u; });
  run_cases("lu l (no p)", {{5, 3}, {3, 3}}, kBoth, rnd, [](const std::vector<Value>& x) {
    return la::lu(x[0], {.permutation_matrix = false}).l;
  });
  run_cases("lu_factor lu", {{3, 3}, {5, 3}, {3, 5}, {4, 2, 2}, {2, 3, 2}}, kBoth, rnd,
            [](const std::vector<Value>& x) { return la::lu_factor(x[0]).lu; });
}

// lu_solve differentiated in the packed factor and b, with the pivots of a
// real factorization held fixed, for the three transpose modes.
TEST(LinalgAd, LuSolveInFactor) {
  for (DType d : kBoth)
    for (const Shape& s : {Shape{3, 3}, Shape{3, 3, 2}})
      for (la::Transpose t :
           {la::Transpose::none, la::Transpose::transpose, la::Transpose::adjoint}) {
        auto f = la::lu_factor(rnd(s, d, 61), cpu());
        Tensor piv = f.pivots;
        Shape bs = s;
        bs[1] = 2;
        check_ad_case({detail::str("lu_solve in lu and b ", d, s, " trans=", static_cast<int>(t)),
                       [piv, t](const std::vector<Value>& x) {
                         return la::lu_solve(x[0], graph::constant(piv), x[1], t);
                       },
                       {f.lu, rnd(bs, d, 62)}});
      }
}

TEST(LinalgAd, QrWide) {
  const std::vector<Shape> shapes{{3, 5}, {2, 4, 2}};
  run_cases("qr wide exp(q r)", shapes, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::qr(x[0]);
    return vops::exp(vops::matmul(r.q, r.r));
  });
  // Invariant under the phase gauge q -> q D, r -> D^H r.
  run_cases("qr wide |q| |r|", shapes, kBoth, rnd, [](const std::vector<Value>& x) {
    auto r = la::qr(x[0]);
    return vops::add(vops::sum(vops::abs(r.q), {0}), vops::sum(vops::abs(r.r), {1}));
  });
  run_cases("qr wide q", shapes, {DType::f64}, rnd,
            [](const std::vector<Value>& x) { return la::qr(x[0]).q; });
  run_cases("qr wide r", shapes, {DType::f64}, rnd,
            [](const std::vector<Value>& x) { return la::qr(x[0]).r; });
  run_cases("qr wide complete r", {{3, 5}}, {DType::f64}, rnd,
            [](const std::vector<Value>& x) { return la::qr(x[0], la::QrMode::complete).r; });
  run_cases("qr wide mode r |r|", {{3, 5}}, kBoth, rnd,
            [](const std::vector<Value>& x) { return vops::abs(la::qr(x[0], la::QrMode::r).r); });
}

TEST(LinalgAd, Cond) {
  for (double p : {2.0, -2.0})
    run_cases(detail::str("cond ", p), {{4, 3}, {3, 5}, {3, 3, 2}}, kBoth, rnd,
              [p](const std::vector<Value>& x) { return la::cond(x[0], p); });
  for (la::NormOrder ord : {la::NormOrder("fro"), la::NormOrder("nuc"), la::NormOrder(1),
                            la::NormOrder(-1), la::NormOrder(la::kInf), la::NormOrder(-la::kInf)})
    run_cases(detail::str("cond ", ord), {{3, 3}, {4, 4, 2}}, kBoth, rnd,
              [ord](const std::vector<Value>& x) { return la::cond(x[0], ord); });
}

// The product of explicit m x m reflectors I - tau_i v_i v_i^H, first n columns,
// built entry by entry on the host (independent of the rank-1 updates).
Tensor householder_reference(const Tensor& a, const Tensor& tau) {
  const std::int64_t m = a.shape()[0], n = a.shape()[1], k = tau.shape()[0];
  const DType d = a.dtype();
  using C = std::complex<double>;
  std::vector<C> q(static_cast<std::size_t>(m * m));
  for (std::int64_t i = 0; i < m; ++i) q[static_cast<std::size_t>(i + i * m)] = 1;
  for (std::int64_t r = 0; r < k; ++r) {
    std::vector<C> v(static_cast<std::size_t>(m));
    v[static_cast<std::size_t>(r)] = 1;
    for (std::int64_t i = r + 1; i < m; ++i) v[static_cast<std::size_t>(i)] = value_at(a, {i, r});
    const C t = value_at(tau, {r});
    std::vector<C> h(static_cast<std::size_t>(m * m)), next(static_cast<std::size_t>(m * m));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < m; ++j)
        h[static_cast<std::size_t>(i + j * m)] =
            (i == j ? 1.0 : 0.0) -
            t * v[static_cast<std::size_t>(i)] * std::conj(v[static_cast<std::size_t>(j)]);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < m; ++j) {
        C acc = 0;
        for (std::int64_t l = 0; l < m; ++l)
          acc += q[static_cast<std::size_t>(i + l * m)] * h[static_cast<std::size_t>(l + j * m)];
        next[static_cast<std::size_t>(i + j * m)] = acc;
      }
    q = next;
  }
  std::vector<C> qn(q.begin(), q.begin() + m * n);  // column-major: the first n columns
  if (is_complex(d)) return Tensor::from_vec_col_major<C>({m, n}, qn);
  std::vector<double> re;
  for (const C& z : qn) re.push_back(z.real());
  return Tensor::from_vec_col_major<double>({m, n}, re);
}

TEST(LinalgAd, HouseholderProduct) {
  struct Case {
    Shape a, tau;
  };
  const std::vector<Case> cases{{{5, 3}, {3}}, {{4, 4}, {2}}, {{4, 3, 2}, {3, 2}}, {{3, 3}, {0}}};
  std::uint64_t seed = 200;
  for (DType d : kBoth)
    for (const Case& c : cases) {
      Tensor a = rnd(c.a, d, seed++), tau = rnd(c.tau, d, seed++);
      // Values against the explicit product (each batch member).
      Tensor q = la::householder_product(a, tau, cpu());
      ASSERT_EQ(q.shape(), c.a);
      const std::int64_t count = c.a.size() > 2 ? c.a[2] : 1;
      for (std::int64_t b = 0; b < count; ++b) {
        Tensor ab = c.a.size() > 2 ? a.select(2, b) : a,
               tb = c.tau.size() > 1 ? tau.select(1, b) : tau;
        Tensor qb = c.a.size() > 2 ? q.select(2, b) : q;
        EXPECT_LE(
            max_abs_diff(qb.contiguous(), householder_reference(ab.contiguous(), tb.contiguous())),
            1e-13)
            << d << c.a;
      }
      if (c.tau[0] == 0) continue;  // no reflectors: q is a constant
      check_ad_case(
          {detail::str("householder_product ", d, c.a, c.tau),
           [](const std::vector<Value>& x) { return la::householder_product(x[0], x[1]); },
           {a, tau}});
    }
  // tau_i = 2 / |v_i|^2 makes each reflector unitary, so q has orthonormal columns.
  Tensor a = rnd({5, 3}, DType::c128, 7);
  std::vector<std::complex<double>> t;
  for (std::int64_t r = 0; r < 3; ++r) {
    double nv = 1;
    for (std::int64_t i = r + 1; i < 5; ++i) nv += std::norm(value_at(a, {i, r}));
    t.push_back(2.0 / nv);
  }
  Tensor q =
      la::householder_product(a, Tensor::from_vec_col_major<std::complex<double>>({3}, t), cpu());
  EXPECT_LE(
      max_abs_diff(matmul(conj(q.permute({1, 0}), cpu()), q, cpu()), Tensor::eye(3, DType::c128)),
      1e-13);
}

// ---- traced programs: symbolic sizes, data-dependent rank --------------------------------------

Runtime linalg_runtime() {
  return Runtime::builder().register_engine(cpu_engine(cpu())).register_family(la::family()).build();
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double m = 0;
  for (const DimVec& i : all_indices(a.shape())) m = std::max(m, std::abs(value_at(a, i) - value_at(b, i)));
  return m;
}

double max_abs(const Tensor& x) {
  double m = 0;
  for (const DimVec& i : all_indices(x.shape())) m = std::max(m, std::abs(value_at(x, i)));
  return m;
}

// How many instructions of `p` run the op `name`.
std::ptrdiff_t kernel_count(const Program& p, std::string_view name) {
  return std::count_if(p.code.begin(), p.code.end(), [&](const Instruction& i) { return i.name() == name; });
}

// Each output within rtol (1 + max |want_k|) of the other program's.
void expect_outputs_close(const std::vector<Tensor>& got, const std::vector<Tensor>& want, double rtol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].shape(), want[k].shape()) << "output " << k;
    EXPECT_LE(max_abs_diff(got[k], want[k]), rtol * (1 + max_abs(want[k]))) << "output " << k;
  }
}

TEST(LinalgAdTraced, SvdTruncatedCompiledOnceRanksAndSizesVary) {
  auto a = TracedTensor::input("a", DType::f64, {Dim("m"), Dim("n")});
  auto [u, s, vh] = la::svd_truncated(a, {.max_rank = 5, .rtol = 1e-9});
  auto rec = (u * s.reshape({Dim(1), s.shape()[0]})).matmul(vh);
  GraphCompiler compiler;
  Program p = compiler.compile({u, s, vh, rec});
  auto rt = linalg_runtime();
  struct Case {
    std::int64_t m, n;
    std::vector<double> sv;
    std::int64_t want_rank;
  };
  const std::vector<Case> cases{{6, 4, {4, 3, 2, 1}, 4},
                                {5, 7, {5, 4, 3, 1e-12, 0}, 3},
                                {8, 8, {8, 7, 6, 5, 4, 3, 2, 1}, 5},
                                {3, 3, {2, 2, 0}, 2}};
  for (const Case& c : cases) {
    Tensor x = with_singular_values(c.m, c.n, c.sv, DType::f64, 7 + static_cast<std::uint64_t>(c.m));
    std::vector<Tensor> out = rt.run_compiled(p, {{"a", x}});
    ASSERT_EQ(out[1].shape(), (Shape{c.want_rank})) << c.m << "x" << c.n;
    EXPECT_EQ(out[0].shape(), (Shape{c.m, c.want_rank}));
    EXPECT_EQ(out[2].shape(), (Shape{c.want_rank, c.n}));
    for (std::int64_t i = 0; i < c.want_rank; ++i)
      EXPECT_NEAR(value_at(out[1], {i}).real(), c.sv[static_cast<std::size_t>(i)], 1e-12);
    // Reconstruction of the kept part: x minus the dropped triplets (all < 1e-9 here, or rank cut).
    double dropped = 0;
    for (std::size_t i = static_cast<std::size_t>(c.want_rank); i < c.sv.size(); ++i) dropped = std::max(dropped, c.sv[i]);
    EXPECT_LE(max_abs_diff(out[3], x), dropped * 1.01 + 1e-12);
  }
}

TEST(LinalgAdTraced, GradThroughSvdTruncatedCompiledOnce) {
  auto a = TracedTensor::input("a", DType::f64, {Dim("n"), Dim("n")});
  auto b = TracedTensor::input("b", DType::f64, {Dim("n"), Dim("n")});
  auto [u, s, vh] = la::svd_truncated(a, {.max_rank = 3});
  auto sq = s.sqrt().reshape({Dim(1), s.shape()[0]});
  auto l = u * sq;
  auto r = (vh.transpose({1, 0}) * sq).transpose({1, 0});
  auto m = r.matmul(b).matmul(l);
  auto loss = la::band(m.matmul(m), 0, 0).sum() + (l.matmul(r)).sin().sum();
  auto g = grad(loss, a);
  GraphCompiler compiler;
  Program pl = compiler.compile(loss);
  Program pg = compiler.compile(g);
  auto rt = linalg_runtime();
  for (std::int64_t n : {4, 5, 7}) {
    Tensor x = rnd({n, n}, DType::f64, 100 + static_cast<std::uint64_t>(n));
    Tensor bv = rnd({n, n}, DType::f64, 200 + static_cast<std::uint64_t>(n));
    Tensor gv = rt.run_compiled(pg, {{"a", x}, {"b", bv}})[0];
    ASSERT_EQ(gv.shape(), (Shape{n, n}));
    // Central differences of the compiled loss, entry by entry.
    const double h = 1e-6;
    double err = 0, scale = 0;
    for (const DimVec& idx : all_indices(x.shape())) {
      std::vector<double> ev(static_cast<std::size_t>(n * n), 0.0);
      ev[static_cast<std::size_t>(idx[0] + idx[1] * n)] = h;
      Tensor dx = Tensor::from_vec_col_major<double>({n, n}, ev);
      double fp = value_at(rt.run_compiled(pl, {{"a", add(x, dx, cpu())}, {"b", bv}})[0], {}).real();
      double fm = value_at(rt.run_compiled(pl, {{"a", sub(x, dx, cpu())}, {"b", bv}})[0], {}).real();
      double fd = (fp - fm) / (2 * h);
      err = std::max(err, std::abs(fd - value_at(gv, idx).real()));
      scale = std::max(scale, std::abs(fd));
    }
    EXPECT_LE(err / std::max(scale, 1e-12), 1e-6) << "n = " << n;
  }
}

// Note [Output projections]: the values and their JVP (whose rule takes the
// full SVD) compile to one SVD kernel, and give what the program without CSE
// gives; a program of the values alone keeps its values-only kernel.
TEST(LinalgAdTraced, SvdvalsShareTheRuleSvdInCompiledPrograms) {
  auto a = TracedTensor::input("a", DType::f64, {Dim(5), Dim(3)});
  auto t = TracedTensor::input("t", DType::f64, {Dim(5), Dim(3)});
  auto y = la::svdvals(a).exp().sum();
  auto dy = jvp(y, a, t);
  auto ct = vjp(y, a, TracedTensor::constant(Tensor::full({}, Scalar(1.0), DType::f64)));
  Program values = GraphCompiler().compile(y);
  EXPECT_EQ(kernel_count(values, "linalg.svdvals"), 1);
  EXPECT_EQ(kernel_count(values, "linalg.svd"), 0);
  Program merged = GraphCompiler().compile({y, dy, ct});
  EXPECT_EQ(kernel_count(merged, "linalg.svdvals"), 0) << merged.to_text();
  EXPECT_EQ(kernel_count(merged, "linalg.svd"), 1) << merged.to_text();
  CompileOptions no_cse;
  no_cse.cse = false;
  Program plain = GraphCompiler(no_cse).compile({y, dy, ct});
  EXPECT_EQ(kernel_count(plain, "linalg.svdvals"), 1);
  auto rt = linalg_runtime();
  Tensor av = rnd({5, 3}, DType::f64, 31), tv = rnd({5, 3}, DType::f64, 32);
  auto got = rt.run_compiled(merged, {{"a", av}, {"t", tv}});
  auto want = rt.run_compiled(plain, {{"a", av}, {"t", tv}});
  ASSERT_EQ(got.size(), 3u);
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].shape(), want[k].shape());
    for (const DimVec& idx : all_indices(got[k].shape()))
      EXPECT_NEAR(value_at(got[k], idx).real(), value_at(want[k], idx).real(),
                  1e-12 * (1 + std::abs(value_at(want[k], idx).real())))
          << "output " << k;
  }
  // Independent of both: y by the definition, from an eager SVD.
  Tensor s = la::svdvals(av, cpu());
  double ys = 0;
  for (std::int64_t i = 0; i < 3; ++i) ys += std::exp(value_at(s, {i}).real());
  EXPECT_NEAR(value_at(got[0], {}).real(), ys, 1e-12 * ys);
}

// Note [Rank limit after the SVD] (src/linalg/traced.cpp): a traced
// svd_truncated with a rank limit is the truncation by rtol followed by
// linalg.svd_rank_limit, so its derivatives need no second SVD. They equal
// those of the single op linalg.svd_truncated, whose rule takes its own SVD.
TEST(LinalgAdTraced, SvdTruncatedWithRankLimitRunsOneSvd) {
  auto a = TracedTensor::input("a", DType::f64, {Dim(6), Dim(5), Dim(2)});
  auto v = TracedTensor::input("v", DType::f64, {Dim(6), Dim(5), Dim(2)});
  const la::SvdTruncatedOptions opts{.max_rank = 3, .rtol = 1e-12};
  auto loss = [](const la::HandleSvd<TracedTensor>& f) {
    auto sq = f.s.sqrt().reshape({Dim(1), f.s.shape()[0], Dim(2)});
    return ((f.u * sq).sum({1}).square().sum() + (f.vh * sq.reshape({f.s.shape()[0], Dim(1), Dim(2)})).sum().exp());
  };
  auto y = loss(la::svd_truncated(a, opts));
  auto one_op = graph::apply_family(la::family().op("linalg.svd_truncated"), FamilyAttrs::of(opts), {a.graph_value()});
  auto y1 = loss({TracedTensor(one_op[0]), TracedTensor(one_op[1]), TracedTensor(one_op[2])});
  GraphCompiler compiler;
  Program p = compiler.compile({y, grad(y, a), hvp(y, a, v)});
  EXPECT_EQ(kernel_count(p, "linalg.svd_truncated"), 1) << p.to_text();
  EXPECT_EQ(kernel_count(p, "linalg.svd_rank_limit"), 1) << p.to_text();
  Program p1 = compiler.compile({y1, grad(y1, a), hvp(y1, a, v)});
  EXPECT_EQ(kernel_count(p1, "linalg.svd_truncated"), 2) << "the single op's rule takes a second SVD";
  auto rt = linalg_runtime();
  // Batch member 0 of full rank, member 1 of rank 2 (its third value is cut by rtol).
  Tensor x = Tensor::zeros({6, 5, 2}, DType::f64);
  x.slice(2, 0, 1).copy_from(with_singular_values(6, 5, {5, 4, 3, 2, 1}, DType::f64, 41).reshape({6, 5, 1}));
  x.slice(2, 1, 2).copy_from(with_singular_values(6, 5, {3, 1.5, 1e-14, 0, 0}, DType::f64, 42).reshape({6, 5, 1}));
  Tensor dir = rnd({6, 5, 2}, DType::f64, 43);
  auto got = rt.run_compiled(p, {{"a", x}, {"v", dir}});
  auto want = rt.run_compiled(p1, {{"a", x}, {"v", dir}});
  ASSERT_EQ(got.size(), 3u);
  expect_outputs_close(got, want, 1e-10);
}

// Note [Solves that keep the factors] (src/linalg/lu.cpp): solve on graph
// values is lu_factor then linalg.solve_factored, whose derivative rules
// reuse the factors; a program with the value, gradient, JVP and HVP of a
// solve factors a once. Its outputs equal those of the single op
// linalg.solve, whose rules solve (and factor) again.
TEST(LinalgAdTraced, SolveDerivativesFactorOnce) {
  for (DType d : {DType::f64, DType::c128}) {
    SCOPED_TRACE(dtype_name(d));
    auto a = TracedTensor::input("a", d, {Dim(6), Dim(6), Dim(2)});
    auto b = TracedTensor::input("b", d, {Dim(6), Dim(3), Dim(2)});
    auto t = TracedTensor::input("t", d, {Dim(6), Dim(6), Dim(2)});
    auto loss = [&](const TracedTensor& x) { return (x * x.conj()).real().sum() + x.real().sum(); };
    auto y = loss(la::solve(a, b));
    auto one_op = graph::apply_family(la::family().op("linalg.solve"), {}, {a.graph_value(), b.graph_value()});
    auto y1 = loss(TracedTensor(one_op[0]));
    GraphCompiler compiler;
    Program p = compiler.compile({y, grad(y, a), grad(y, b), jvp(y, a, t), hvp(y, a, t)});
    EXPECT_EQ(kernel_count(p, "linalg.lu_factor"), 1) << p.to_text();
    EXPECT_EQ(kernel_count(p, "linalg.solve"), 0) << p.to_text();
    Program p1 = compiler.compile({y1, grad(y1, a), grad(y1, b), jvp(y1, a, t), hvp(y1, a, t)});
    EXPECT_EQ(kernel_count(p1, "linalg.solve"), 1);
    EXPECT_GE(kernel_count(p1, "linalg.lu_factor"), 1) << "the single op's rules factor a again";
    auto rt = linalg_runtime();
    Tensor av = rnd({6, 6, 2}, d, 61), bv = rnd({6, 3, 2}, d, 62), tv = rnd({6, 6, 2}, d, 63);
    auto got = rt.run_compiled(p, {{"a", av}, {"b", bv}, {"t", tv}});
    auto want = rt.run_compiled(p1, {{"a", av}, {"b", bv}, {"t", tv}});
    ASSERT_EQ(got.size(), 5u);
    expect_outputs_close(got, want, 1e-11);
  }
}

// Note [Dual basis] (src/linalg/svd.cpp): linalg.dual_basis returns its
// orthonormal operand and carries the derivative of x (x^H x)^-1. Its first
// and second directional derivatives at an SVD factor equal those of that
// expression written literally (a Gram matrix and a solve).
TEST(LinalgAdTraced, DualBasisDifferentiatesAsTheLiteralDual) {
  for (DType d : {DType::f64, DType::c128}) {
    SCOPED_TRACE(dtype_name(d));
    auto x = TracedTensor::input("x", d, {Dim(7), Dim(4), Dim(2)});
    auto t = TracedTensor::input("t", d, {Dim(7), Dim(4), Dim(2)});
    auto w = TracedTensor::input("w", d, {Dim(7), Dim(4), Dim(2)});
    auto op = TracedTensor(graph::apply_family(la::family().op("linalg.dual_basis"), {}, {x.graph_value()})[0]);
    auto xh = x.conj().transpose({1, 0, 2});
    auto literal = la::solve(xh.matmul(x), xh).conj().transpose({1, 0, 2});
    auto f = [&](const TracedTensor& y) { return (y * w.conj()).real().sum(); };
    Program p = GraphCompiler().compile({op, jvp(f(op), x, t), jvp(jvp(f(op), x, t), x, t)});
    Program q = GraphCompiler().compile({literal, jvp(f(literal), x, t), jvp(jvp(f(literal), x, t), x, t)});
    auto rt = linalg_runtime();
    Tensor u = la::svd(rnd({7, 4, 2}, d, 71), cpu()).u;
    auto got = rt.run_compiled(p, {{"x", u}, {"t", rnd({7, 4, 2}, d, 72)}, {"w", rnd({7, 4, 2}, d, 73)}});
    auto want = rt.run_compiled(q, {{"x", u}, {"t", rnd({7, 4, 2}, d, 72)}, {"w", rnd({7, 4, 2}, d, 73)}});
    expect_outputs_close(got, want, 1e-12);
    EXPECT_GT(std::abs(value_at(want[2], {})), 1e-3) << "the second derivative is not trivially zero";
  }
}

TEST(LinalgAdTraced, HvpThroughSvdOnDegenerateSpectrum) {
  // Compiled hvp of a TRG-like scalar at a matrix with a degenerate pair
  // (svd_truncated: see SvdTruncatedHvpCompiled and the known gap in docs).
  auto a = TracedTensor::input("a", DType::f64, {Dim("n"), Dim("n")});
  auto v = TracedTensor::input("v", DType::f64, {Dim("n"), Dim("n")});
  auto [u, s, vh] = la::svd(a);
  auto sq = s.sqrt().reshape({Dim(1), s.shape()[0]});
  auto l = u * sq;
  auto r = (vh.transpose({1, 0}) * sq).transpose({1, 0});
  auto m = r.matmul(l.matmul(r)).matmul(l);
  auto loss = la::band(m.matmul(m), 0, 0).sum();
  auto g = grad(loss, a);
  auto h = hvp(loss, a, v);
  GraphCompiler compiler;
  Program pg = compiler.compile(g);
  Program ph = compiler.compile(h);
  auto rt = linalg_runtime();
  Tensor x = with_singular_values(4, 4, {3.0, 2.0, 2.0, 0.5}, DType::f64, 5);
  Tensor dir = rnd({4, 4}, DType::f64, 6);
  Tensor hv = rt.run_compiled(ph, {{"a", x}, {"v", dir}})[0];
  const double eps = 1e-5;
  Tensor gp = rt.run_compiled(pg, {{"a", add(x, mul(dir, Scalar(eps), cpu()), cpu())}})[0];
  Tensor gm = rt.run_compiled(pg, {{"a", sub(x, mul(dir, Scalar(eps), cpu()), cpu())}})[0];
  Tensor fd = mul(sub(gp, gm, cpu()), Scalar(1 / (2 * eps)), cpu());
  const double scale = max_abs(fd);
  EXPECT_LE(max_abs_diff(hv, fd) / scale, 1e-5);
  for (const DimVec& i : all_indices(hv.shape())) EXPECT_TRUE(std::isfinite(value_at(hv, i).real()));
}

TEST(LinalgAdTraced, SvdTruncatedHvpCompiled) {
  // hvp through svd_truncated compiled once, run at several sizes (gapped spectra).
  auto a = TracedTensor::input("a", DType::f64, {Dim("n"), Dim("n")});
  auto v = TracedTensor::input("v", DType::f64, {Dim("n"), Dim("n")});
  auto [u, s, vh] = la::svd_truncated(a, {.max_rank = 3});
  auto sq = s.sqrt().reshape({Dim(1), s.shape()[0]});
  auto l = u * sq;
  auto r = (vh.transpose({1, 0}) * sq).transpose({1, 0});
  auto m = r.matmul(l.matmul(r)).matmul(l);
  auto loss = la::band(m.matmul(m), 0, 0).sum();
  GraphCompiler compiler;
  Program pg = compiler.compile(grad(loss, a));
  Program ph = compiler.compile(hvp(loss, a, v));
  auto rt = linalg_runtime();
  for (std::int64_t n : {4, 6}) {
    std::vector<double> sv;
    for (std::int64_t i = 0; i < n; ++i) sv.push_back(4.0 - 0.5 * static_cast<double>(i));
    Tensor x = with_singular_values(n, n, sv, DType::f64, 60 + static_cast<std::uint64_t>(n));
    Tensor dir = rnd({n, n}, DType::f64, 61);
    Tensor hv = rt.run_compiled(ph, {{"a", x}, {"v", dir}})[0];
    const double eps = 1e-5;
    Tensor gp = rt.run_compiled(pg, {{"a", add(x, mul(dir, Scalar(eps), cpu()), cpu())}})[0];
    Tensor gm = rt.run_compiled(pg, {{"a", sub(x, mul(dir, Scalar(eps), cpu()), cpu())}})[0];
    Tensor fd = mul(sub(gp, gm, cpu()), Scalar(1 / (2 * eps)), cpu());
    const double scale = max_abs(fd);
    EXPECT_LE(max_abs_diff(hv, fd) / scale, 1e-6) << "n = " << n;
  }
}

TEST(LinalgAdTraced, MatrixExpGradOfGrad) {
  // Reverse mode through the gradient of a matrix_exp loss: gg = grad(q, a)
  // with q(a) = Re <w, grad(loss)(a)>, against central differences of q (real
  // and imaginary parts of each entry: Note [Complex gradients]); and the
  // hvp (forward over reverse) against differences of the gradient.
  for (DType d : kBoth) {
    const bool cx = is_complex(d);
    auto a = TracedTensor::input("a", d, {Dim(3), Dim(3)});
    auto v = TracedTensor::input("v", d, {Dim(3), Dim(3)});
    Tensor wv = rnd({3, 3}, d, 71);
    auto w = TracedTensor::constant(wv);
    auto re_sum = [cx](const TracedTensor& x) {
      return cx ? (x.real() + x.imag()).sum() : x.sum();
    };
    auto loss = re_sum(la::matrix_exp(a).sin());
    auto g = grad(loss, a);
    auto q = re_sum(g * w.conj());
    auto gg = grad(q, a);
    auto h = hvp(loss, a, v);
    GraphCompiler compiler;
    Program pq = compiler.compile(q), pgg = compiler.compile(gg), pg = compiler.compile(g),
            ph = compiler.compile(h);
    auto rt = linalg_runtime();
    Tensor x = mul(rnd({3, 3}, d, 72), Scalar(0.7), cpu());
    Tensor ggv = rt.run_compiled(pgg, {{"a", x}})[0];
    const double eps = 1e-5;
    double err = 0, scale = 0;
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 3; ++j)
        for (int part = 0; part < (cx ? 2 : 1); ++part) {
          std::vector<double> e(9, 0.0);
          e[static_cast<std::size_t>(i + 3 * j)] = eps;
          Tensor step = ops::convert(Tensor::from_vec_col_major<double>({3, 3}, e), d, cpu());
          if (part == 1) step = mul(step, Scalar(std::complex<double>(0, 1)), cpu());
          double qp = rt.run_compiled(pq, {{"a", add(x, step, cpu())}})[0].item().to<double>();
          double qm = rt.run_compiled(pq, {{"a", sub(x, step, cpu())}})[0].item().to<double>();
          double fd = (qp - qm) / (2 * eps);
          std::complex<double> got = value_at(ggv, {i, j});
          err = std::max(err, std::abs((part == 0 ? got.real() : got.imag()) - fd));
          scale = std::max(scale, std::abs(fd));
        }
    ASSERT_GT(scale, 0) << d;
    EXPECT_LE(err / scale, 1e-7) << d;
    Tensor dir = rnd({3, 3}, d, 73);
    Tensor hv = rt.run_compiled(ph, {{"a", x}, {"v", dir}})[0];
    Tensor gp = rt.run_compiled(pg, {{"a", add(x, mul(dir, Scalar(eps), cpu()), cpu())}})[0];
    Tensor gm = rt.run_compiled(pg, {{"a", sub(x, mul(dir, Scalar(eps), cpu()), cpu())}})[0];
    Tensor fdh = mul(sub(gp, gm, cpu()), Scalar(1 / (2 * eps)), cpu());
    double hs = 0;
    for (const DimVec& i : all_indices(fdh.shape())) hs = std::max(hs, std::abs(value_at(fdh, i)));
    EXPECT_LE(max_abs_diff(hv, fdh) / hs, 1e-7) << d;
  }
}

// The known gap of docs/linalg.md ("Known gaps at exact degeneracy"), as a
// tested bound. hvp of a TRG-like scalar tr((R B L)^2) (L = u sqrt(s), R =
// sqrt(s) vh: a function of the rank-r reconstruction alone) against central
// differences of the gradient (step 1e-5), at spectra {3, 2, 2, 0.5} kept to
// rank 3: through svd_truncated the relative error is 0.2-12% on ten random
// singular bases (bound: 0.15); the same observable built from the first 3
// triplets of the full svd has the same error (the gap is the svd rule's at
// a degenerate pair split from the discarded values, not the truncation's);
// with all 4 triplets (svd) or with the kept pair split by 4e-1 or 1e-3 it is
// exact (< 1e-5).
enum class SvdObservable { truncated, first3_of_full, all_of_full };

double svd_hvp_error(SvdObservable kind, const std::vector<double>& spectrum, std::uint64_t seed) {
  auto a = TracedTensor::input("a", DType::f64, {Dim(4), Dim(4)});
  auto v = TracedTensor::input("v", DType::f64, {Dim(4), Dim(4)});
  auto f = kind == SvdObservable::truncated ? la::svd_truncated(a, {.max_rank = 3}) : la::svd(a);
  if (kind == SvdObservable::first3_of_full) {
    f.u = f.u.slice(1, Dim(0), Dim(3));
    f.s = f.s.slice(0, Dim(0), Dim(3));
    f.vh = f.vh.slice(0, Dim(0), Dim(3));
  }
  auto sq = f.s.sqrt().reshape({Dim(1), f.s.shape()[0]});
  auto l = f.u * sq;
  auto r = (f.vh.transpose({1, 0}) * sq).transpose({1, 0});
  auto b = TracedTensor::constant(rnd({4, 4}, DType::f64, seed + 2));
  auto m = r.matmul(b).matmul(l);
  auto loss = la::band(m.matmul(m), 0, 0).sum();
  GraphCompiler compiler;
  Program pg = compiler.compile(grad(loss, a)), ph = compiler.compile(hvp(loss, a, v));
  auto rt = linalg_runtime();
  Tensor x = with_singular_values(4, 4, spectrum, DType::f64, seed);
  Tensor dir = rnd({4, 4}, DType::f64, seed + 1);
  Tensor hv = rt.run_compiled(ph, {{"a", x}, {"v", dir}})[0];
  const double eps = 1e-5;
  Tensor gp = rt.run_compiled(pg, {{"a", add(x, mul(dir, Scalar(eps), cpu()), cpu())}})[0];
  Tensor gm = rt.run_compiled(pg, {{"a", sub(x, mul(dir, Scalar(eps), cpu()), cpu())}})[0];
  Tensor fd = mul(sub(gp, gm, cpu()), Scalar(1 / (2 * eps)), cpu());
  const double scale = max_abs(fd);
  return max_abs_diff(hv, fd) / scale;
}

TEST(LinalgAdTraced, SvdTruncatedHvpAtDegeneracyWithinItsBound) {
  using K = SvdObservable;
  const std::vector<double> degenerate{3.0, 2.0, 2.0, 0.5};
  double worst = 0;
  for (std::uint64_t seed : {41, 51, 61, 71, 81, 91, 101, 111, 121, 131}) {
    const double e = svd_hvp_error(K::truncated, degenerate, seed);
    worst = std::max(worst, e);
    EXPECT_LE(e, 0.15) << seed;
    EXPECT_NEAR(svd_hvp_error(K::first3_of_full, degenerate, seed), e, 1e-6 + 1e-3 * e) << seed;
    EXPECT_LE(svd_hvp_error(K::all_of_full, degenerate, seed), 1e-5) << seed;
    EXPECT_LE(svd_hvp_error(K::truncated, {3.0, 2.2, 1.8, 0.5}, seed), 1e-5) << seed;
    EXPECT_LE(svd_hvp_error(K::truncated, {3.0, 2.0005, 1.9995, 0.5}, seed), 1e-5) << seed;
  }
  std::cout << "svd_truncated hvp at a degenerate kept pair: worst relative error " << worst
            << "\n";
}

TEST(LinalgAdTraced, SymbolicShapesThroughSeveralOps) {
  auto a = TracedTensor::input("a", DType::f64, {Dim("n"), Dim("n")});
  auto bt = TracedTensor::input("b", DType::f64, {Dim("n"), Dim("k")});
  auto spd = a.matmul(a.transpose({1, 0})) + 1.0;
  auto l = la::cholesky(spd + la::band(spd, 0, 0));
  auto x = la::solve(a, bt);
  auto y = la::triangular_solve(l, x);
  auto [w, vecs] = la::eigh(spd);
  auto out = y.sum() + w.sum() + la::det(a) + la::inv(a).sum();
  auto g = grad(out, a);
  GraphCompiler compiler;
  Program p = compiler.compile({out, g});
  auto rt = linalg_runtime();
  for (std::int64_t n : {3, 5}) {
    Tensor av = well_conditioned({n, n}, DType::f64, 9);
    Tensor bv = rnd({n, 2}, DType::f64, 10);
    auto res = rt.run_compiled(p, {{"a", av}, {"b", bv}});
    EXPECT_EQ(res[1].shape(), (Shape{n, n}));
    // Eager value of the same expression.
    Tensor sp = add(matmul(av, av.permute({1, 0}), cpu()), Scalar(1.0), cpu());
    Tensor spd2 = add(sp, matmul(Tensor::eye(n), mul(Tensor::eye(n), sp, cpu()), cpu()), cpu());
    Tensor lv = la::cholesky(spd2, cpu());
    Tensor yv = la::triangular_solve(lv, la::solve(av, bv, cpu()), cpu());
    double want = value_at(sum(yv, cpu()), {}).real() + value_at(sum(la::eigh(sp, cpu()).eigenvalues, cpu()), {}).real() +
                  value_at(la::det(av, cpu()), {}).real() + value_at(sum(la::inv(av, cpu()), cpu()), {}).real();
    EXPECT_NEAR(value_at(res[0], {}).real(), want, 1e-10 * std::max(1.0, std::abs(want)));
  }
}

TEST(LinalgAdTraced, SvdOfSymbolicRectangularShapes) {
  // k = min(p, q) is a symbol bound when the SVD runs; one program for tall and wide inputs.
  auto c = TracedTensor::input("c", DType::f64, {Dim("p"), Dim("q")});
  auto [u, s, vh] = la::svd(c);
  auto rec = (u * s.reshape({Dim(1), s.shape()[0]})).matmul(vh);
  auto loss = rec.sin().sum() + la::svdvals(c).sum();
  auto g = grad(loss, c);
  GraphCompiler compiler;
  Program pl = compiler.compile(loss);
  Program pg = compiler.compile(g);
  auto rt = linalg_runtime();
  for (auto [p, q] : {std::pair<std::int64_t, std::int64_t>{5, 3}, {3, 4}}) {
    Tensor x = rnd({p, q}, DType::f64, 70 + static_cast<std::uint64_t>(p));
    Tensor dir = rnd({p, q}, DType::f64, 71);
    Tensor gv = rt.run_compiled(pg, {{"c", x}})[0];
    ASSERT_EQ(gv.shape(), (Shape{p, q}));
    const double h = 1e-6;
    double fp = value_at(rt.run_compiled(pl, {{"c", add(x, mul(dir, Scalar(h), cpu()), cpu())}})[0], {}).real();
    double fm = value_at(rt.run_compiled(pl, {{"c", sub(x, mul(dir, Scalar(h), cpu()), cpu())}})[0], {}).real();
    double fd = (fp - fm) / (2 * h);
    EXPECT_NEAR(real_dot(gv, dir), fd, 1e-7 * std::max(1.0, std::abs(fd))) << p << "x" << q;
  }
}

// ---- eager handles -------------------------------------------------------------------------------

TEST(LinalgAdEager, DetBackwardIsCofactor) {
  EagerRuntime rt(cpu());
  Tensor av = well_conditioned({3, 3}, DType::f64, 21);
  auto x = rt.tensor(av).requires_grad();
  auto y = la::det(x);
  backward(y);
  // d det / d a = det(a) a^-T (Jacobi's formula).
  double dv = value_at(la::det(av, cpu()), {}).real();
  Tensor want = mul(la::inv(av, cpu()).permute({1, 0}), Scalar(dv), cpu());
  EXPECT_LE(max_abs_diff(x.grad().value(), want), 1e-12 * std::abs(dv) * 10);
}

// The new rules through eager backward() and through grad of a compiled
// traced program (constant extents), against each other and against central
// differences of the loss.
TEST(LinalgAdEager, NewRulesBackwardMatchesTracedGradAndDifferences) {
  struct Case {
    std::string name;
    Shape shape;
    std::function<Tensor(std::uint64_t)> make;
    std::function<EagerTensor(const EagerTensor&)> eager;
    std::function<TracedTensor(const TracedTensor&)> traced;
  };
  Tensor bm = rnd({5, 2}, DType::f64, 71), bw = rnd({2, 2}, DType::f64, 72),
         tau = rnd({2}, DType::f64, 73);
  auto f = la::lu_factor(rnd({3, 3}, DType::f64, 74), cpu());
  Tensor piv = f.pivots, bl = rnd({3, 2}, DType::f64, 75);
  auto sq = [](const auto& y) { return (y * y).sum(); };
  EagerRuntime rt(cpu());
  std::vector<Case> cases{
      {"lstsq tall",
       {5, 3},
       [](std::uint64_t s) {
         return rnd({5, 3}, DType::f64, s);
       },
       [&](const EagerTensor& x) { return sq(la::lstsq(x, rt.tensor(bm)).solution); },
       [&](const TracedTensor& x) {
         return sq(la::lstsq(x, TracedTensor::constant(bm)).solution);
       }},
      {"lstsq wide",
       {2, 4},
       [](std::uint64_t s) {
         return rnd({2, 4}, DType::f64, s);
       },
       [&](const EagerTensor& x) { return sq(la::lstsq(x, rt.tensor(bw)).solution); },
       [&](const TracedTensor& x) {
         return sq(la::lstsq(x, TracedTensor::constant(bw)).solution);
       }},
      {"lu_factor wide",
       {3, 5},
       [](std::uint64_t s) {
         return rnd({3, 5}, DType::f64, s);
       },
       [&](const EagerTensor& x) { return sq(la::lu_factor(x).lu); },
       [&](const TracedTensor& x) { return sq(la::lu_factor(x).lu); }},
      {"lu_solve in lu",
       {3, 3},
       [&](std::uint64_t) { return f.lu; },
       [&](const EagerTensor& x) {
         return sq(la::lu_solve(x, rt.tensor(piv), rt.tensor(bl), la::Transpose::adjoint));
       },
       [&](const TracedTensor& x) {
         return sq(la::lu_solve(x, TracedTensor::constant(piv), TracedTensor::constant(bl),
                                la::Transpose::adjoint));
       }},
      {"qr wide",
       {3, 5},
       [](std::uint64_t s) {
         return rnd({3, 5}, DType::f64, s);
       },
       [&](const EagerTensor& x) { return sq(la::qr(x).r); },
       [&](const TracedTensor& x) { return sq(la::qr(x).r); }},
      {"cond 2",
       {4, 3},
       [](std::uint64_t s) {
         return rnd({4, 3}, DType::f64, s);
       },
       [&](const EagerTensor& x) { return la::cond(x); },
       [&](const TracedTensor& x) { return la::cond(x); }},
      {"cond inf",
       {3, 3},
       [](std::uint64_t s) {
         return rnd({3, 3}, DType::f64, s);
       },
       [&](const EagerTensor& x) { return la::cond(x, la::kInf); },
       [&](const TracedTensor& x) { return la::cond(x, la::kInf); }},
      {"householder_product",
       {4, 3},
       [](std::uint64_t s) {
         return rnd({4, 3}, DType::f64, s);
       },
       [&](const EagerTensor& x) { return sq(la::householder_product(x, rt.tensor(tau))); },
       [&](const TracedTensor& x) {
         return sq(la::householder_product(x, TracedTensor::constant(tau)));
       }},
  };
  auto r = linalg_runtime();
  int checked = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ++checked;
    Tensor xv = c.make(81);
    auto x = rt.tensor(xv).requires_grad();
    backward(c.eager(x));
    Tensor ge = x.grad().value();
    auto xt = TracedTensor::input("x", DType::f64, {Dim(c.shape[0]), Dim(c.shape[1])});
    Program p = GraphCompiler().compile(grad(c.traced(xt), xt));
    Tensor gt = r.run_compiled(p, {{"x", xv}})[0];
    EXPECT_LE(max_abs_diff(ge, gt), 1e-12);
    // <grad, u> against a central difference of the loss (eager, no history).
    Tensor u = rnd(c.shape, DType::f64, 82);
    const double h = 1e-6;
    auto loss = [&](const Tensor& v) { return value_at(c.eager(rt.tensor(v)).value(), {}).real(); };
    const double fd = (loss(add(xv, mul(u, Scalar(h), cpu()), cpu())) -
                       loss(sub(xv, mul(u, Scalar(h), cpu()), cpu()))) /
                      (2 * h);
    EXPECT_NEAR(real_dot(ge, u), fd, 1e-6 * std::max(1.0, std::abs(fd)));
  }
  EXPECT_EQ(checked, 8);
}

TEST(LinalgAdEager, SvdTruncatedBackward) {
  EagerRuntime rt(cpu());
  Tensor av = rnd({5, 4}, DType::f64, 31);
  auto x = rt.tensor(av).requires_grad();
  auto [u, s, vh] = la::svd_truncated(x, {.max_rank = 2});
  EXPECT_EQ(s.concrete_shape(), (Shape{2}));
  // sum of the kept singular values: gradient u_r vh_r.
  backward(s.sum());
  Tensor want = matmul(u.value(), vh.value(), cpu());
  EXPECT_LE(max_abs_diff(x.grad().value(), want), 1e-12);
}

}  // namespace

namespace {

// d det / d a_ij by a central difference with step 1: det is affine in each
// entry, so for integer matrices this is exact (the cofactor C_ij).
std::vector<double> det_cofactors(const std::vector<double>& a, std::int64_t n) {
  std::vector<double> g(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    std::vector<double> p = a, m = a;
    p[k] += 1;
    m[k] -= 1;
    const double dp = la::det(Tensor::from_vec_col_major<double>({n, n}, p), cpu()).item().to<double>();
    const double dm = la::det(Tensor::from_vec_col_major<double>({n, n}, m), cpu()).item().to<double>();
    g[k] = (dp - dm) / 2;
  }
  return g;
}

// Issue 21, item 14: the gradient of det at a singular matrix threw
// "linalg.inv: ... singular", although it is the (transposed) adjugate.
// Checked against exact central differences, eager and traced, batched
// with a nonsingular member, and at rank n - 2 (gradient 0).
TEST(ErrorContract, Item14DetGradientAtSingularMatrix) {
  EagerRuntime rt(cpu());
  struct Case {
    std::int64_t n;
    std::vector<double> a;
  };
  for (const Case& c : std::vector<Case>{{2, {1, 2, 2, 4}},                     // rank 1
                                         {3, {1, 2, 1, 2, 4, 1, 3, 6, 1}},      // rank 2
                                         {3, {1, 2, 3, 2, 4, 6, 3, 6, 9}},      // rank 1: adj = 0
                                         {3, {0, 0, 0, 0, 0, 0, 0, 0, 0}},      // zero
                                         {3, {2, 1, 0, 1, 3, 1, 0, 1, 4}}}) {   // nonsingular
    SCOPED_TRACE(::testing::PrintToString(c.a));
    const std::vector<double> want = det_cofactors(c.a, c.n);
    auto x = rt.tensor(Tensor::from_vec_col_major<double>({c.n, c.n}, c.a)).requires_grad();
    backward(la::det(x));
    std::vector<double> got = x.grad().value().to_vec_col_major<double>();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-12) << k;
    // Traced, compiled and run.
    auto xt = TracedTensor::input("x", DType::f64, {Dim("n"), Dim("n")});
    auto r = Runtime::builder().register_engine(cpu_engine(cpu())).register_family(la::family()).build();
    Tensor g = r.run_compiled(GraphCompiler().compile(grad(la::det(xt), xt)),
                              {{"x", Tensor::from_vec_col_major<double>({c.n, c.n}, c.a)}})[0];
    got = g.to_vec_col_major<double>();
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-12) << k;
  }
  // A batch [2, 2, 2]: one singular member, one not; sum of dets.
  std::vector<double> a{1, 2, 2, 4, 2, 1, 1, 3};
  auto xb = rt.tensor(Tensor::from_vec_col_major<double>({2, 2, 2}, a)).requires_grad();
  backward(la::det(xb).sum());
  std::vector<double> want = det_cofactors({1, 2, 2, 4}, 2), w2 = det_cofactors({2, 1, 1, 3}, 2);
  want.insert(want.end(), w2.begin(), w2.end());
  std::vector<double> got = xb.grad().value().to_vec_col_major<double>();
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-12) << k;
}

}  // namespace
