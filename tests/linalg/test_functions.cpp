// det, slogdet, matrix_exp, matrix_rank, norms and cond against independent
// references (reference elimination, matrices built from known spectra,
// closed forms), every float dtype, batched, strided.
#include <algorithm>
#include <cmath>

#include "linalg_test_util.hpp"

namespace tenferro {
namespace {

using namespace linalg_testing;

double tol_for(DType d, std::int64_t n) {
  return 50.0 * eps(d) * static_cast<double>(std::max<std::int64_t>(n, 1));
}

Tensor stored(const std::vector<Mat>& mats, const Shape& batch, DType d, std::vector<Mat>& rounded,
              std::uint64_t seed) {
  Tensor t = to_tensor(mats, batch, d);
  rounded.clear();
  for (std::int64_t b = 0; b < shape_numel(batch); ++b) rounded.push_back(matrix_of(t, b));
  return testing::with_random_layout(t, seed);
}

TEST(LinalgDet, MatchesReferenceElimination) {
  CpuBackend cpu;
  std::uint64_t seed = 7000;
  for (DType d : float_dtypes())
    for (std::int64_t n : {0, 1, 2, 3, 8, 33})
      for (const Shape& batch : batch_shapes())
        for (int layout = 0; layout < testing::kNumLayouts; layout += 1) {
          SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " batch " << batch
                                            << " layout " << layout);
          std::vector<Mat> mats, rounded;
          for (std::int64_t b = 0; b < shape_numel(batch); ++b)
            mats.push_back(random_mat(n, n, is_complex(d), ++seed));
          Tensor t = to_tensor(mats, batch, d);
          for (std::int64_t b = 0; b < shape_numel(batch); ++b) rounded.push_back(matrix_of(t, b));
          Tensor a = testing::with_random_layout(t, seed, layout);
          Tensor det = linalg::det(a, cpu);
          auto [sign, logabs] = linalg::slogdet(a, cpu);
          ASSERT_EQ(det.shape(), batch);
          ASSERT_EQ(det.dtype(), d);
          ASSERT_EQ(sign.dtype(), d);
          ASSERT_EQ(logabs.dtype(), real_dtype(d));
          for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
            const Mat& A = rounded[static_cast<std::size_t>(b)];
            const cd ref = det_ref(A);
            // Relative to the product of column norms (Hadamard's bound).
            double scale = 1;
            for (std::int64_t j = 0; j < n; ++j) scale *= fro(columns(A, j, j + 1));
            EXPECT_LE(std::abs(scalar_of(det, b) - ref), 10 * tol_for(d, n) * scale);
            EXPECT_NEAR(std::abs(scalar_of(sign, b)), 1.0, tol_for(d, n));
            const cd recon = scalar_of(sign, b) * std::exp(scalar_of(logabs, b).real());
            EXPECT_LE(std::abs(recon - ref), 10 * tol_for(d, n) * scale);
          }
        }
}

TEST(LinalgDet, SingularAndLargeMatrices) {
  CpuBackend cpu;
  for (DType d : float_dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    // Exactly singular (a zero column gives an exactly zero pivot): det 0,
    // sign 0, logabsdet -inf.
    Mat a = random_mat(4, 4, is_complex(d), 1);
    for (std::int64_t i = 0; i < 4; ++i) a(i, 2) = 0;
    Tensor t = to_tensor({a}, {}, d);
    EXPECT_EQ(scalar_of(linalg::det(t, cpu), 0), cd(0));
    auto [sign, logabs] = linalg::slogdet(t, cpu);
    EXPECT_EQ(scalar_of(sign, 0), cd(0));
    EXPECT_EQ(scalar_of(logabs, 0).real(), -std::numeric_limits<double>::infinity());
    // |det| of u diag(s) v^H is prod s: 60 values of 30 overflow f32 but not logabsdet.
    std::vector<double> s(60);
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = 30.0 / (1.0 + 0.01 * static_cast<double>(i));
    double expected = 0;
    for (double x : s) expected += std::log(x);
    Tensor big = to_tensor({with_singular_values(60, 60, s, is_complex(d), 2)}, {}, d);
    auto r = linalg::slogdet(big, cpu);
    EXPECT_NEAR(scalar_of(r.logabsdet, 0).real(), expected, 1e3 * eps(d) * expected);
    EXPECT_NEAR(std::abs(scalar_of(r.sign, 0)), 1.0, 100 * eps(d));
  }
  // 0 x 0: det 1.
  EXPECT_EQ(linalg::det(Tensor::zeros({0, 0}), cpu).item().to<double>(), 1.0);
}

// ---- matrix_exp ------------------------------------------------------------------------

// exp of u diag(w) u^H is u diag(exp w) u^H.
TEST(LinalgMatrixExp, HermitianMatricesFromTheirSpectrum) {
  CpuBackend cpu;
  std::uint64_t seed = 8000;
  for (DType d : float_dtypes())
    for (std::int64_t n : {1, 2, 5, 20})
      for (double spread : {1e-3, 0.5, 3.0, 25.0})  // every Pade degree and the scaling path
        for (const Shape& batch : {Shape{}, Shape{3}}) {
          SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " spread " << spread
                                            << " batch " << batch);
          std::vector<Mat> mats, expected, rounded;
          for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
            Mat q = random_unitary(n, is_complex(d), ++seed);
            Mat r = random_mat(n, 1, false, seed);
            std::vector<double> w, ew;
            for (std::int64_t i = 0; i < n; ++i) {
              w.push_back(spread * r(i, 0).real());
              ew.push_back(std::exp(w.back()));
            }
            mats.push_back(matmul(matmul(q, diag(w, n, n)), adjoint(q)));
            expected.push_back(matmul(matmul(q, diag(ew, n, n)), adjoint(q)));
          }
          Tensor a = stored(mats, batch, d, rounded, seed);
          Tensor e = linalg::matrix_exp(a, cpu);
          ASSERT_EQ(e.shape(), a.shape());
          for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
            // Rounding the input to d perturbs exp(a) by about eps ||a|| ||exp(a)||.
            const Mat& ex = expected[static_cast<std::size_t>(b)];
            EXPECT_LE(fro(minus(matrix_of(e, b), ex)), 20 * tol_for(d, n) * (1 + spread) * fro(ex));
          }
        }
}

TEST(LinalgMatrixExp, ClosedForms) {
  CpuBackend cpu;
  for (DType d : float_dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    const double tol = 100 * eps(d);
    // Rotation generator: exp([[0, -t], [t, 0]]) = [[cos t, -sin t], [sin t, cos t]].
    for (double t : {0.1, 1.0, 4.0, 40.0}) {
      Tensor a = to_tensor({[&] {
                             Mat m(2, 2);
                             m(0, 1) = -t;
                             m(1, 0) = t;
                             return m;
                           }()},
                           {}, d);
      Mat e = matrix_of(linalg::matrix_exp(a, cpu), 0);
      EXPECT_NEAR(std::abs(e(0, 0) - std::cos(t)), 0, tol * (1 + t));
      EXPECT_NEAR(std::abs(e(1, 0) - std::sin(t)), 0, tol * (1 + t));
      EXPECT_NEAR(std::abs(e(0, 1) + std::sin(t)), 0, tol * (1 + t));
    }
    // Nilpotent: exp(N) = I + N + N^2 / 2 exactly representable.
    Mat nil(3, 3);
    nil(0, 1) = 2;
    nil(1, 2) = 3;
    nil(0, 2) = is_complex(d) ? cd(1, 1) : cd(1);
    Mat expected = eye(3, 3);
    Mat n2 = matmul(nil, nil);
    for (std::size_t i = 0; i < expected.v.size(); ++i) expected.v[i] += nil.v[i] + 0.5 * n2.v[i];
    Mat e = matrix_of(linalg::matrix_exp(to_tensor({nil}, {}, d), cpu), 0);
    EXPECT_LE(fro(minus(e, expected)), tol * fro(expected));
    // exp(0) = I, and exp(a) exp(-a) = I for a general matrix.
    EXPECT_TRUE(testing::tensors_close(linalg::matrix_exp(Tensor::zeros({4, 4}, d), cpu),
                                       Tensor::eye(4, d), 0, 0));
    Mat g = random_mat(6, 6, is_complex(d), 9);
    Mat ng = g;
    for (auto& x : ng.v) x = -x;
    Mat p = matmul(matrix_of(linalg::matrix_exp(to_tensor({g}, {}, d), cpu), 0),
                   matrix_of(linalg::matrix_exp(to_tensor({ng}, {}, d), cpu), 0));
    EXPECT_LE(fro(minus(p, eye(6, 6))), 1e3 * eps(d));
  }
}

// ---- matrix_rank -------------------------------------------------------------------------

TEST(LinalgMatrixRank, ConstructedRanks) {
  CpuBackend cpu;
  for (DType d : float_dtypes())
    for (auto [m, n] :
         std::vector<std::pair<std::int64_t, std::int64_t>>{{5, 5}, {8, 3}, {3, 8}, {25, 20}}) {
      SCOPED_TRACE(::testing::Message() << dtype_name(d) << " " << m << "x" << n);
      const std::int64_t k = std::min(m, n);
      std::vector<Mat> mats;
      for (std::int64_t r = 0; r <= k; ++r) {
        std::vector<double> s(static_cast<std::size_t>(k), 0.0);
        for (std::int64_t i = 0; i < r; ++i)
          s[static_cast<std::size_t>(i)] = 1.0 + static_cast<double>(i);
        mats.push_back(
            with_singular_values(m, n, s, is_complex(d), 50 + static_cast<std::uint64_t>(r)));
      }
      std::vector<Mat> rounded;
      Tensor a = stored(mats, {k + 1}, d, rounded, 3);
      Tensor rank = linalg::matrix_rank(a, cpu);
      ASSERT_EQ(rank.dtype(), DType::i64);
      for (std::int64_t r = 0; r <= k; ++r)
        EXPECT_EQ(scalar_of(rank, r).real(), static_cast<double>(r));
      // atol above every singular value: rank 0.
      Tensor zero = linalg::matrix_rank(a, cpu, {.rtol = 0, .atol = 1e6});
      for (std::int64_t r = 0; r <= k; ++r) EXPECT_EQ(scalar_of(zero, r).real(), 0.0);
    }
}

// ---- norms -------------------------------------------------------------------------------

double vector_norm_ref(const std::vector<cd>& x, double p) {
  if (p == linalg::kInf || p == -linalg::kInf) {
    double best = p > 0 ? 0 : linalg::kInf;
    for (cd v : x) best = p > 0 ? std::max(best, std::abs(v)) : std::min(best, std::abs(v));
    return best;
  }
  double s = 0;
  for (cd v : x) s += p == 0 ? (v != cd(0) ? 1.0 : 0.0) : std::pow(std::abs(v), p);
  return p == 0 ? s : std::pow(s, 1 / p);
}

TEST(LinalgNorm, VectorNorms) {
  CpuBackend cpu;
  for (DType d : float_dtypes())
    for (double p : {2.0, 1.0, linalg::kInf, -linalg::kInf, 0.0, 0.5, 3.0, -1.0}) {
      SCOPED_TRACE(::testing::Message() << dtype_name(d) << " ord " << p);
      Tensor x = testing::with_random_layout(testing::random_tensor({7, 3, 2}, d, 5), 4);
      Tensor nrm = linalg::vector_norm(x, cpu, p);
      ASSERT_EQ(nrm.shape(), (Shape{3, 2}));
      ASSERT_EQ(nrm.dtype(), real_dtype(d));
      for (std::int64_t b = 0; b < 6; ++b) {
        std::vector<cd> col;
        for (std::int64_t i = 0; i < 7; ++i) col.push_back(testing::value_at(x, {i, b % 3, b / 3}));
        const double ref = vector_norm_ref(col, p);
        EXPECT_NEAR(scalar_of(nrm, b).real(), ref, 20 * eps(d) * ref);
      }
    }
  // The 2-norm does not overflow where the squares would.
  Tensor big = Tensor::from_vec_col_major<double>({2}, {3e200, 4e200});
  EXPECT_NEAR(linalg::norm(big, cpu).item().to<double>(), 5e200, 1e186);
  EXPECT_NEAR(linalg::norm(big, cpu, 1).item().to<double>(), 7e200, 1e186);
}

TEST(LinalgNorm, MatrixNorms) {
  CpuBackend cpu;
  std::uint64_t seed = 9000;
  for (DType d : float_dtypes())
    for (auto [m, n] :
         std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 4}, {6, 3}, {3, 6}, {20, 30}})
      for (const Shape& batch : {Shape{}, Shape{2}}) {
        SCOPED_TRACE(::testing::Message()
                     << dtype_name(d) << " " << m << "x" << n << " batch " << batch);
        const std::int64_t k = std::min(m, n);
        std::vector<BuiltSvd> built;
        std::vector<Mat> mats, rounded;
        std::vector<double> s = geometric_values(k, 50);
        for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
          built.push_back(build_svd(m, n, s, is_complex(d), ++seed));
          mats.push_back(built.back().a);
        }
        Tensor a = stored(mats, batch, d, rounded, seed);
        const double tol = tol_for(d, std::max(m, n));
        for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
          const Mat& A = rounded[static_cast<std::size_t>(b)];
          double col_max = 0, col_min = linalg::kInf, row_max = 0, row_min = linalg::kInf;
          for (std::int64_t j = 0; j < n; ++j) {
            double c = 0;
            for (std::int64_t i = 0; i < m; ++i) c += std::abs(A(i, j));
            col_max = std::max(col_max, c);
            col_min = std::min(col_min, c);
          }
          for (std::int64_t i = 0; i < m; ++i) {
            double r = 0;
            for (std::int64_t j = 0; j < n; ++j) r += std::abs(A(i, j));
            row_max = std::max(row_max, r);
            row_min = std::min(row_min, r);
          }
          double nuc = 0;
          for (double x : s) nuc += x;
          const std::vector<std::pair<linalg::NormOrder, double>> cases{{"fro", fro(A)},
                                                                        {"nuc", nuc},
                                                                        {1, col_max},
                                                                        {-1, col_min},
                                                                        {2, s.front()},
                                                                        {-2, s.back()},
                                                                        {linalg::kInf, row_max},
                                                                        {-linalg::kInf, row_min}};
          for (const auto& [ord, ref] : cases) {
            SCOPED_TRACE(ord.to_string());
            Tensor got = linalg::matrix_norm(a, cpu, ord);
            ASSERT_EQ(got.shape(), batch);
            EXPECT_NEAR(scalar_of(got, b).real(), ref, 10 * tol * ref);
            EXPECT_NEAR(scalar_of(linalg::norm(a, cpu, ord), b).real(), ref, 10 * tol * ref);
          }
          EXPECT_NEAR(scalar_of(linalg::norm(a, cpu), b).real(), fro(A), 10 * tol * fro(A));
        }
      }
}

TEST(LinalgNorm, EmptyMatricesAndTypedResults) {
  CpuBackend cpu;
  Tensor e = Tensor::zeros({0, 3}, DType::f32);
  for (linalg::NormOrder o :
       {linalg::NormOrder("fro"), linalg::NormOrder("nuc"), linalg::NormOrder(1),
        linalg::NormOrder(2), linalg::NormOrder(linalg::kInf)})
    EXPECT_EQ(linalg::matrix_norm(e, cpu, o).item().to<double>(), 0.0) << o.to_string();
  auto z = TypedTensor<std::complex<double>>::from_vec_col_major({2}, {{3, 4}, {0, 0}});
  TypedTensor<double> nz = linalg::norm(z, cpu);
  EXPECT_NEAR(nz.item(), 5.0, 1e-15);
}

// ---- cond --------------------------------------------------------------------------------

TEST(LinalgCond, EveryOrderAndSingular) {
  CpuBackend cpu;
  std::uint64_t seed = 9500;
  for (DType d : float_dtypes())
    for (std::int64_t n : {1, 3, 8, 30}) {
      SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n);
      std::vector<double> s = geometric_values(n, 1e3);
      BuiltSvd f = build_svd(n, n, s, is_complex(d), ++seed);
      std::vector<Mat> rounded;
      Tensor a = stored({f.a, f.a}, {2}, d, rounded, seed);
      // The reference inverse is v diag(1/s) u^H of the construction; rounding a to d
      // perturbs cond by about cond * eps relatively.
      Mat ainv = pinv_of(f);
      const double tol = 1e3 * tol_for(d, n);
      auto direct = [&](const Mat& x, int ord) {
        double best = ord > 0 ? 0 : linalg::kInf;
        for (std::int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (std::int64_t i = 0; i < n; ++i)
            sum += std::abs(std::abs(ord) == 1 ? x(i, j) : x(j, i));
          best = ord > 0 ? std::max(best, sum) : std::min(best, sum);
        }
        return best;
      };
      double sinv2 = 0, sum_s = 0, sum_inv = 0;
      for (double x : s) {
        sinv2 += 1 / (x * x);
        sum_s += x;
        sum_inv += 1 / x;
      }
      const std::vector<std::pair<linalg::NormOrder, double>> cases{
          {2, s.front() / s.back()},
          {-2, s.back() / s.front()},
          {"fro", fro(f.a) * std::sqrt(sinv2)},
          {"nuc", sum_s * sum_inv},
          {1, direct(f.a, 1) * direct(ainv, 1)},
          {-1, direct(f.a, -1) * direct(ainv, -1)},
          {linalg::kInf, direct(f.a, 2) * direct(ainv, 2)},
          {-linalg::kInf, direct(f.a, -2) * direct(ainv, -2)}};
      for (const auto& [ord, ref] : cases) {
        Tensor c = linalg::cond(a, cpu, ord);
        ASSERT_EQ(c.shape(), (Shape{2}));
        EXPECT_NEAR(scalar_of(c, 1).real(), ref, tol * ref) << ord.to_string();
      }
    }
  // Singular: inf in every order (and 0 for -2).
  Tensor sing = Tensor::from_vec_col_major<double>({2, 2}, {1, 2, 2, 4});
  for (linalg::NormOrder o : {linalg::NormOrder(2), linalg::NormOrder(1), linalg::NormOrder("fro"),
                              linalg::NormOrder(linalg::kInf)})
    EXPECT_EQ(linalg::cond(sing, cpu, o).item().to<double>(), linalg::kInf) << o.to_string();
  EXPECT_EQ(linalg::cond(sing, cpu, -2).item().to<double>(), 0.0);
  // Rectangular in the 2-norm.
  Tensor rect = Tensor::from_vec_col_major<double>({3, 2}, {2, 0, 0, 0, 1, 0});
  EXPECT_NEAR(linalg::cond(rect, cpu).item().to<double>(), 2.0, 1e-15);
}

}  // namespace
}  // namespace tenferro
