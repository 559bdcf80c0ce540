// Solvers: residuals and defining identities for solve, triangular_solve,
// lu_solve, inv, lstsq and pinv; every float dtype, batched, strided.
#include <algorithm>
#include <cmath>

#include "linalg_test_util.hpp"

namespace tenferro {
namespace {

using namespace linalg_testing;

Shape with_batch(std::initializer_list<std::int64_t> lead, const Shape& batch) {
  Shape s(lead.begin(), lead.end());
  for (auto e : batch) s.push_back(e);
  return s;
}

double tol_for(DType d, std::int64_t n) {
  return 50.0 * eps(d) * static_cast<double>(std::max<std::int64_t>(n, 1));
}

// Matrices stored in dtype d, read back (the rounded values are the reference).
struct Batch {
  std::vector<Mat> mats;
  Tensor tensor;
};
Batch make_batch(const std::vector<Mat>& mats, const Shape& batch, DType d,
                 std::uint64_t layout_seed, int layout_kind = -1) {
  Batch out;
  Tensor t = to_tensor(mats, batch, d);
  for (std::int64_t b = 0; b < shape_numel(batch); ++b) out.mats.push_back(matrix_of(t, b));
  out.tensor = testing::with_random_layout(t, layout_seed, layout_kind);
  return out;
}

// ||a x - b|| <= tol (||a|| ||x|| + ||b||): a backward-stable solve.
void expect_solves(const Mat& a, const Mat& x, const Mat& b, double tol, const char* what) {
  EXPECT_LE(fro(minus(matmul(a, x), b)), tol * (fro(a) * fro(x) + fro(b)) + 1e-300) << what;
}

TEST(LinalgSolve, MatrixAndVectorRightHandSides) {
  CpuBackend cpu;
  std::uint64_t seed = 1000;
  for (DType d : float_dtypes())
    for (std::int64_t n : {0, 1, 2, 5, 16, 33, 40})
      for (const Shape& batch : batch_shapes())
        for (std::int64_t nrhs : {1, 4})
          for (int layout = 0; layout < testing::kNumLayouts; ++layout) {
            SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " batch " << batch
                                              << " nrhs " << nrhs << " layout " << layout);
            std::vector<Mat> as, bs;
            for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
              as.push_back(
                  with_singular_values(n, n, geometric_values(n, 1e3), is_complex(d), ++seed));
              bs.push_back(random_mat(n, nrhs, is_complex(d), ++seed));
            }
            Batch A = make_batch(as, batch, d, seed, layout),
                  B = make_batch(bs, batch, d, seed + 1);
            Tensor x = linalg::solve(A.tensor, B.tensor, cpu);
            ASSERT_EQ(x.shape(), with_batch({n, nrhs}, batch));
            ASSERT_EQ(x.dtype(), d);
            for (std::int64_t b = 0; b < shape_numel(batch); ++b)
              expect_solves(A.mats[static_cast<std::size_t>(b)], matrix_of(x, b),
                            B.mats[static_cast<std::size_t>(b)], tol_for(d, n), "a x = b");
            if (batch.empty() && n > 0) {
              Tensor bv =
                  testing::with_random_layout(to_vector_tensor(columns(B.mats[0], 0, 1), d), seed);
              Tensor xv = linalg::solve(A.tensor, bv, cpu);
              ASSERT_EQ(xv.shape(), (Shape{n}));
              expect_solves(A.mats[0], matrix_of(xv, 0), matrix_of(bv, 0), tol_for(d, n),
                            "vector b");
            }
          }
}

TEST(LinalgSolve, TypedOverload) {
  CpuBackend cpu;
  auto a = TypedTensor<double>::from_vec_col_major({2, 2}, {2, 1, 1, 3});
  auto b = TypedTensor<double>::from_vec_col_major({2}, {3, 5});
  TypedTensor<double> x = linalg::solve(a, b, cpu);
  EXPECT_NEAR(x.at({0}), 0.8, 1e-15);
  EXPECT_NEAR(x.at({1}), 1.4, 1e-15);
}

TEST(LinalgTriangularSolve, AllSidesTrianglesAndDiagonals) {
  CpuBackend cpu;
  std::uint64_t seed = 2000;
  for (DType d : float_dtypes())
    // Orders up to 32: small::trsm; real ones up to 128 on a CPU with AVX-512F: its vector
    // kernel (Note [Vector trsm]: columns in pairs, an odd order's first alone, rows of b in
    // blocks of 4 registers, 1 and single rows: 90 = 2 * 32 + 3 * 8 + 2 doubles, 64 + 16 + 10
    // floats; side 'L' in panels of 64 columns); others LAPACK's trsm.
    for (std::int64_t n : {1, 3, 20, 40, 77, 128, 130})
      for (const Shape& batch : {Shape{}, Shape{2}})
        for (bool lower : {true, false})
          for (bool left : {true, false})
            for (bool unit : {false, true})
              for (int layout : {0, 1, 3}) {
                SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " batch "
                                                  << batch << " lower " << lower << " left " << left
                                                  << " unit " << unit << " layout " << layout);
                std::vector<Mat> as, bs;
                for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
                  Mat a = random_mat(n, n, is_complex(d), ++seed);
                  for (std::int64_t i = 0; i < n; ++i) a(i, i) += 2.0;  // well conditioned
                  as.push_back(a);
                  const std::int64_t nrhs = n == 3 || n >= 40 ? 90 : 3;
                  bs.push_back(left ? random_mat(n, nrhs, is_complex(d), ++seed)
                                    : random_mat(nrhs, n, is_complex(d), ++seed));
                }
                Batch A = make_batch(as, batch, d, seed, layout),
                      B = make_batch(bs, batch, d, seed + 1);
                Tensor x = linalg::triangular_solve(
                    A.tensor, B.tensor, cpu, {.lower = lower, .left = left, .unit_diagonal = unit});
                ASSERT_EQ(x.shape(), B.tensor.shape());
                for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
                  // The triangular matrix the solve sees: the other triangle (and a unit diagonal)
                  // ignored.
                  Mat t = A.mats[static_cast<std::size_t>(b)];
                  for (std::int64_t j = 0; j < n; ++j)
                    for (std::int64_t i = 0; i < n; ++i) {
                      if (lower ? i < j : i > j) t(i, j) = 0;
                      if (unit && i == j) t(i, j) = 1;
                    }
                  Mat X = matrix_of(x, b);
                  const Mat& rhs = B.mats[static_cast<std::size_t>(b)];
                  if (left) {
                    expect_solves(t, X, rhs, tol_for(d, n), "a x = b");
                  } else {
                    EXPECT_LE(fro(minus(matmul(X, t), rhs)),
                              tol_for(d, n) * (fro(t) * fro(X) + fro(rhs)));
                  }
                }
              }
}

TEST(LinalgLuSolve, AllTransposes) {
  CpuBackend cpu;
  std::uint64_t seed = 3000;
  for (DType d : float_dtypes())
    for (std::int64_t n : {1, 4, 40})
      for (const Shape& batch : {Shape{}, Shape{3}}) {
        std::vector<Mat> as, bs;
        for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
          as.push_back(with_singular_values(n, n, geometric_values(n, 100), is_complex(d), ++seed));
          bs.push_back(random_mat(n, 2, is_complex(d), ++seed));
        }
        Batch A = make_batch(as, batch, d, seed), B = make_batch(bs, batch, d, seed + 1);
        auto [lu, piv] = linalg::lu_factor(A.tensor, cpu);
        for (auto [trans, name] :
             {std::pair{linalg::Transpose::none, "N"}, std::pair{linalg::Transpose::transpose, "T"},
              std::pair{linalg::Transpose::adjoint, "C"}}) {
          SCOPED_TRACE(::testing::Message()
                       << dtype_name(d) << " n " << n << " batch " << batch << " trans " << name);
          // Factors in a strided layout too.
          Tensor x =
              linalg::lu_solve(testing::with_random_layout(lu, seed), piv, B.tensor, cpu, trans);
          for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
            const Mat& a = A.mats[static_cast<std::size_t>(b)];
            Mat op = trans == linalg::Transpose::none        ? a
                     : trans == linalg::Transpose::transpose ? transpose(a)
                                                             : adjoint(a);
            expect_solves(op, matrix_of(x, b), B.mats[static_cast<std::size_t>(b)], tol_for(d, n),
                          name);
          }
        }
      }
}

TEST(LinalgInv, InverseTimesMatrixIsIdentity) {
  CpuBackend cpu;
  std::uint64_t seed = 4000;
  for (DType d : float_dtypes())
    for (std::int64_t n : {0, 1, 2, 7, 32, 45})
      for (const Shape& batch : batch_shapes()) {
        SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " batch " << batch);
        std::vector<Mat> as;
        for (std::int64_t b = 0; b < shape_numel(batch); ++b)
          as.push_back(with_singular_values(n, n, geometric_values(n, 1e2), is_complex(d), ++seed));
        Batch A = make_batch(as, batch, d, seed);
        Tensor ai = linalg::inv(A.tensor, cpu);
        ASSERT_EQ(ai.shape(), A.tensor.shape());
        for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
          Mat x = matrix_of(ai, b);
          // cond 1e2: the error of a backward-stable inverse is <= cond * eps * n.
          EXPECT_LE(fro(minus(matmul(A.mats[static_cast<std::size_t>(b)], x), eye(n, n))),
                    1e2 * tol_for(d, n));
        }
      }
}

// One matrix of order >= 128 is inverted as inv(U) inv(L) P, the triangular
// inverses by halves (Notes [Inverse on threads] and [Triangular inverse by
// halves] in src/linalg/lu.cpp), on one thread and two; orders 130 and 300
// split into halves of odd order down to the leaves. The singular error too.
TEST(LinalgInv, LargeMatrixOnOneAndTwoThreads) {
  CpuBackend cpu;
  const int before = get_num_threads();
  std::uint64_t seed = 4500;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (DType d : float_dtypes()) {
      for (const std::int64_t n : {130, 300}) {
        SCOPED_TRACE(::testing::Message() << dtype_name(d) << " threads " << threads << " n " << n);
        Mat a = with_singular_values(n, n, geometric_values(n, 1e2), is_complex(d), ++seed);
        Batch A = make_batch({a}, {}, d, seed);
        Mat x = matrix_of(linalg::inv(A.tensor, cpu), 0);
        EXPECT_LE(fro(minus(matmul(A.mats[0], x), eye(n, n))), 1e2 * tol_for(d, n));
        for (std::int64_t i = 0; i < n; ++i) a(i, 7) = 0;  // singular: a zero column
        Tensor s = make_batch({a}, {}, d, seed).tensor;
        try {
          linalg::inv(s, cpu);
          ADD_FAILURE() << "a singular matrix was inverted";
        } catch (const LinalgError& e) {
          EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
        }
      }
    }
  }
  set_num_threads(before);
}

TEST(LinalgLstsq, OverdeterminedUnderdeterminedRankDeficient) {
  CpuBackend cpu;
  std::uint64_t seed = 5000;
  for (DType d : float_dtypes())
    for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {6, 3}, {3, 6}, {5, 5}, {40, 20}, {1, 1}})
      for (const Shape& batch : {Shape{}, Shape{2}})
        for (bool deficient : {false, true}) {
          SCOPED_TRACE(::testing::Message() << dtype_name(d) << " " << m << "x" << n << " batch "
                                            << batch << (deficient ? " rank-deficient" : ""));
          const std::int64_t k = std::min(m, n);
          std::vector<double> s = geometric_values(k, 10);
          std::int64_t rank = k;
          if (deficient && k > 1) {
            rank = k / 2;
            for (std::int64_t i = rank; i < k; ++i) s[static_cast<std::size_t>(i)] = 0;
          }
          std::vector<BuiltSvd> built;
          std::vector<Mat> as, bs;
          for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
            built.push_back(build_svd(m, n, s, is_complex(d), ++seed));
            as.push_back(built.back().a);
            bs.push_back(random_mat(m, 2, is_complex(d), ++seed));
          }
          Batch A = make_batch(as, batch, d, seed), B = make_batch(bs, batch, d, seed + 1);
          auto [x, res, r, sv] = linalg::lstsq(A.tensor, B.tensor, cpu);
          ASSERT_EQ(x.shape(), with_batch({n, 2}, batch));
          ASSERT_EQ(res.shape(), with_batch({m > n ? 2 : 0}, batch));
          ASSERT_EQ(r.shape(), batch);
          ASSERT_EQ(sv.shape(), with_batch({k}, batch));
          const double tol = 100 * tol_for(d, std::max(m, n));
          for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
            EXPECT_EQ(scalar_of(r, b).real(), static_cast<double>(rank));
            std::vector<cd> svb = vector_of(sv, b);
            for (std::int64_t i = 0; i < k; ++i)
              EXPECT_NEAR(svb[static_cast<std::size_t>(i)].real(), s[static_cast<std::size_t>(i)],
                          tol);
            // The minimum-norm solution is pinv(a) b.
            Mat expected = matmul(pinv_of(built[static_cast<std::size_t>(b)]),
                                  B.mats[static_cast<std::size_t>(b)]);
            Mat X = matrix_of(x, b);
            EXPECT_LE(fro(minus(X, expected)), tol * (fro(expected) + 1));
            if (m > n) {
              Mat rvec = minus(B.mats[static_cast<std::size_t>(b)],
                               matmul(A.mats[static_cast<std::size_t>(b)], X));
              std::vector<cd> rb = vector_of(res, b);
              for (std::int64_t j = 0; j < 2; ++j) {
                double rr = 0;
                for (std::int64_t i = 0; i < m; ++i) rr += std::norm(rvec(i, j));
                EXPECT_NEAR(rb[static_cast<std::size_t>(j)].real(), rr, tol * (1 + rr));
              }
            }
          }
        }
}

TEST(LinalgLstsq, VectorRightHandSideAndRcond) {
  CpuBackend cpu;
  // a = [1 0; 0 1e-8; 0 0], b = [1, 1, 1]: rcond 1e-4 drops the second singular value.
  Tensor a = Tensor::from_vec_col_major<double>({3, 2}, {1, 0, 0, 0, 1e-8, 0});
  Tensor b = Tensor::from_vec_col_major<double>({3}, {1, 1, 1});
  auto full = linalg::lstsq(a, b, cpu);
  ASSERT_EQ(full.solution.shape(), (Shape{2}));
  ASSERT_EQ(full.residuals.shape(), (Shape{1}));
  EXPECT_EQ(full.rank.item().to<std::int64_t>(), 2);
  EXPECT_NEAR(full.solution.at<double>({1}), 1e8, 1e-2);
  EXPECT_NEAR(full.residuals.at<double>({0}), 1.0, 1e-12);
  auto cut = linalg::lstsq(a, b, cpu, {.rcond = 1e-4});
  EXPECT_EQ(cut.rank.item().to<std::int64_t>(), 1);
  EXPECT_NEAR(cut.solution.at<double>({0}), 1.0, 1e-12);
  EXPECT_NEAR(cut.solution.at<double>({1}), 0.0, 1e-12);
  EXPECT_NEAR(cut.residuals.at<double>({0}), 2.0, 1e-12);
}

TEST(LinalgPinv, MoorePenroseConditions) {
  CpuBackend cpu;
  std::uint64_t seed = 6000;
  for (DType d : float_dtypes())
    for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {4, 4}, {6, 3}, {3, 6}, {30, 18}, {0, 2}})
      for (bool deficient : {false, true})
        for (const Shape& batch : {Shape{}, Shape{2}}) {
          SCOPED_TRACE(::testing::Message()
                       << dtype_name(d) << " " << m << "x" << n << " batch " << batch);
          const std::int64_t k = std::min(m, n);
          std::vector<double> s = geometric_values(k, 1e3);
          if (deficient)
            for (std::int64_t i = (k + 1) / 2; i < k; ++i) s[static_cast<std::size_t>(i)] = 0;
          std::vector<Mat> as;
          for (std::int64_t b = 0; b < shape_numel(batch); ++b)
            as.push_back(with_singular_values(m, n, s, is_complex(d), ++seed));
          Batch A = make_batch(as, batch, d, seed);
          Tensor p = linalg::pinv(A.tensor, cpu);
          ASSERT_EQ(p.shape(), with_batch({n, m}, batch));
          const double tol = 1e3 * tol_for(d, std::max(m, n));
          for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
            const Mat& a = A.mats[static_cast<std::size_t>(b)];
            Mat P = matrix_of(p, b);
            Mat ap = matmul(a, P), pa = matmul(P, a);
            EXPECT_LE(fro(minus(matmul(ap, a), a)), tol * (fro(a) + 1e-300)) << "a p a = a";
            EXPECT_LE(fro(minus(matmul(pa, P), P)), tol * (fro(P) + 1e-300)) << "p a p = p";
            EXPECT_LE(fro(minus(ap, adjoint(ap))), tol) << "(a p)^H = a p";
            EXPECT_LE(fro(minus(pa, adjoint(pa))), tol) << "(p a)^H = p a";
          }
        }
}

TEST(LinalgPinv, ToleranceDropsSmallValues) {
  CpuBackend cpu;
  Tensor a = Tensor::from_vec_col_major<double>({2, 2}, {2, 0, 0, 1e-6});
  Tensor p1 = linalg::pinv(a, cpu);
  EXPECT_NEAR(p1.at<double>({1, 1}), 1e6, 1e-3);
  Tensor p2 = linalg::pinv(a, cpu, {.rtol = 1e-3});
  EXPECT_NEAR(p2.at<double>({0, 0}), 0.5, 1e-15);
  EXPECT_NEAR(p2.at<double>({1, 1}), 0.0, 1e-15);
  Tensor p3 = linalg::pinv(a, cpu, {.rtol = 0, .atol = 1.0});
  EXPECT_NEAR(p3.at<double>({1, 1}), 0.0, 1e-15);
  EXPECT_NEAR(p3.at<double>({0, 0}), 0.5, 1e-15);
}

}  // namespace
}  // namespace tenferro
