// Decompositions: reconstruction and orthogonality on random, ill-conditioned
// (cond 1e10), rank-deficient, tall, wide, 1 x 1 and empty matrices, every
// float dtype, batched, in random strided layouts.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "../../src/linalg/common.hpp"  // split_batch, for_each_batch (Note [LAPACK threads])
#include "../../src/linalg/small.hpp"   // getrf_auto, recursive_lu (Note [Recursive LU])
#include "linalg_test_util.hpp"

namespace tenferro {
namespace {

using namespace linalg_testing;

// Sizes up to 32 take the small-matrix kernels, larger ones LAPACK
// (Note [Small matrices] in src/linalg/small.hpp): both are swept.
const std::vector<std::pair<std::int64_t, std::int64_t>> kSizes = {
    {1, 1},   {2, 2},   {3, 3},   {6, 4},   {4, 6}, {16, 16},
    {27, 11}, {11, 27}, {40, 34}, {34, 40}, {0, 3}, {3, 0}};
const std::vector<Kind> kKinds = {Kind::random, Kind::ill_conditioned, Kind::rank_deficient};

double tol_for(DType d, std::int64_t m, std::int64_t n) {
  return 50.0 * eps(d) * static_cast<double>(std::max<std::int64_t>({m, n, 1}));
}

// A batch of test matrices of one kind as a tensor in a random layout.
struct Input {
  std::vector<Mat> mats;
  Tensor tensor;
};
Input make_input(Kind kind, std::int64_t m, std::int64_t n, const Shape& batch, DType d,
                 std::uint64_t seed) {
  Input in;
  for (std::int64_t b = 0; b < shape_numel(batch); ++b)
    in.mats.push_back(
        make_matrix(kind, m, n, is_complex(d), seed + 101 * static_cast<std::uint64_t>(b)));
  Tensor t = to_tensor(in.mats, batch, d);
  // The values actually stored (rounded to d) are the reference input.
  for (std::int64_t b = 0; b < shape_numel(batch); ++b)
    in.mats[static_cast<std::size_t>(b)] = matrix_of(t, b);
  in.tensor = testing::with_random_layout(t, seed);
  return in;
}

template <class F>
void sweep(F&& f) {
  std::uint64_t seed = 1;
  for (DType d : float_dtypes())
    for (auto [m, n] : kSizes)
      for (const Shape& batch : batch_shapes())
        for (Kind kind : kKinds) {
          if ((m == 0 || n == 0) && kind != Kind::random) continue;
          SCOPED_TRACE(::testing::Message() << dtype_name(d) << " " << m << "x" << n << " batch "
                                            << batch << " " << kind_name(kind) << " seed " << seed);
          f(d, m, n, batch, make_input(kind, m, n, batch, d, seed));
          ++seed;
        }
}

Shape with_batch(std::initializer_list<std::int64_t> lead, const Shape& batch) {
  Shape s(lead.begin(), lead.end());
  for (auto e : batch) s.push_back(e);
  return s;
}

// ---- SVD -------------------------------------------------------------------------------

void check_svd(const Input& in, const linalg::SvdResult& r, DType d, std::int64_t m, std::int64_t n,
               const Shape& batch, bool full) {
  const std::int64_t k = std::min(m, n);
  ASSERT_EQ(r.u.dtype(), d);
  ASSERT_EQ(r.s.dtype(), real_dtype(d));
  ASSERT_EQ(r.u.shape(), with_batch({m, full ? m : k}, batch));
  ASSERT_EQ(r.s.shape(), with_batch({k}, batch));
  ASSERT_EQ(r.vh.shape(), with_batch({full ? n : k, n}, batch));
  const double tol = tol_for(d, m, n);
  for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
    const Mat& a = in.mats[static_cast<std::size_t>(b)];
    Mat u = matrix_of(r.u, b), vh = matrix_of(r.vh, b);
    std::vector<cd> s = vector_of(r.s, b);
    std::vector<double> sr;
    for (std::int64_t i = 0; i < k; ++i) {
      EXPECT_EQ(s[static_cast<std::size_t>(i)].imag(), 0.0);
      EXPECT_GE(s[static_cast<std::size_t>(i)].real(), 0.0);
      if (i > 0) {
        EXPECT_LE(s[static_cast<std::size_t>(i)].real(), s[static_cast<std::size_t>(i - 1)].real());
      }
      sr.push_back(s[static_cast<std::size_t>(i)].real());
    }
    Mat recon = matmul(matmul(u, diag(sr, u.cols, vh.rows)), vh);
    EXPECT_LE(fro(minus(a, recon)), tol * fro(a) + 1e-300) << "reconstruction, matrix " << b;
    EXPECT_LE(orthonormality_error(u), tol) << "U^H U, matrix " << b;
    EXPECT_LE(orthonormality_error(adjoint(vh)), tol) << "Vh Vh^H, matrix " << b;
  }
}

TEST(LinalgSvd, ReconstructionAndOrthogonality) {
  CpuBackend cpu;
  sweep([&](DType d, std::int64_t m, std::int64_t n, const Shape& batch, const Input& in) {
    auto before = snapshot(in.tensor);
    check_svd(in, linalg::svd(in.tensor, cpu), d, m, n, batch, false);
    check_svd(in, linalg::svd(in.tensor, cpu, {.full_matrices = true}), d, m, n, batch, true);
    EXPECT_EQ(snapshot(in.tensor), before) << "the operand was modified";
  });
}

// Note [SVD in phases] (svd.cpp): one square real matrix on two threads
// against gesdd on one: the same singular values, U and V^H to rounding (the
// bidiagonal's SVD is the same call on the same data). Random,
// ill-conditioned, rank-deficient, and a matrix scaled below gesdd's
// threshold (which keeps gesdd); complex ones keep gesdd on both.
TEST(LinalgSvd, PhasesOnTwoThreads) {
  namespace ld = tenferro::linalg::detail;
  CpuBackend cpu;
  const int before = tenferro::get_num_threads();
  std::uint64_t seed = 900;
  for (DType d : float_dtypes())
    for (std::int64_t n : {128, 161})
      for (int kind = 0; kind < 4; ++kind) {
        SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " kind " << kind);
        Input in = make_input(kind == 3 ? Kind::random : kKinds[static_cast<std::size_t>(kind)], n,
                              n, {}, d, ++seed);
        if (kind == 3) {  // below sqrt(safe minimum) / eps
          const double tiny = real_dtype(d) == DType::f32 ? 1e-15 : 1e-160;
          for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t i = 0; i < n; ++i) in.mats[0](i, j) *= tiny;
          in.tensor = to_tensor(in.mats, {}, d);
          in.mats[0] = matrix_of(in.tensor, 0);
        }
        tenferro::set_num_threads(1);
        ASSERT_FALSE(ld::use_phased_svd(n, n));
        linalg::SvdResult one = linalg::svd(in.tensor, cpu);
        tenferro::set_num_threads(2);
        ASSERT_TRUE(ld::use_phased_svd(n, n));
        linalg::SvdResult two = linalg::svd(testing::with_random_layout(in.tensor, ++seed), cpu);
        tenferro::set_num_threads(before);
        check_svd(in, two, d, n, n, {}, false);
        const double tol = tol_for(d, n, n);
        const std::vector<cd> s1 = vector_of(one.s, 0), s2 = vector_of(two.s, 0);
        for (std::size_t i = 0; i < s1.size(); ++i)
          EXPECT_NEAR(s1[i].real(), s2[i].real(), 4 * eps(d) * s1[0].real()) << "value " << i;
        EXPECT_LE(fro(minus(matrix_of(one.u, 0), matrix_of(two.u, 0))), tol * std::sqrt(n));
        EXPECT_LE(fro(minus(matrix_of(one.vh, 0), matrix_of(two.vh, 0))), tol * std::sqrt(n));
      }
  tenferro::set_num_threads(before);
}

TEST(LinalgSvd, SvdvalsMatchSvd) {
  CpuBackend cpu;
  sweep([&](DType d, std::int64_t m, std::int64_t n, const Shape&, const Input& in) {
    Tensor s1 = linalg::svdvals(in.tensor, cpu);
    Tensor s2 = linalg::svd(in.tensor, cpu).s;
    // Both are backward stable: they agree to eps * s_0.
    const std::int64_t count = batch_count(in.tensor);
    for (std::int64_t b = 0; b < count; ++b) {
      auto x = vector_of(s1, b), y = vector_of(s2, b);
      ASSERT_EQ(x.size(), y.size());
      for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(x[i].real(), y[i].real(), tol_for(d, m, n) * y[0].real());
    }
  });
}

TEST(LinalgSvd, KnownSingularValues) {
  // s = {4, 2, 1, 0.5} by construction, every dtype, both code paths (4x4 and 24x20).
  CpuBackend cpu;
  for (DType d : float_dtypes())
    for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {4, 4}, {24, 20}, {5, 17}, {40, 34}, {34, 50}}) {
      std::vector<double> s{4, 2, 1, 0.5};
      s.resize(static_cast<std::size_t>(std::min(m, n)), 0.25);
      Tensor a = to_tensor({with_singular_values(m, n, s, is_complex(d), 3)}, {}, d);
      auto got = vector_of(linalg::svdvals(a, cpu), 0);
      for (std::size_t i = 0; i < s.size(); ++i)
        EXPECT_NEAR(got[i].real(), s[i], 20 * eps(d) * 4 * static_cast<double>(std::max(m, n)))
            << dtype_name(d) << " " << m << "x" << n << " s[" << i << "]";
    }
}

// Matrices that exercise the special paths of the bidiagonal QR (exact zeros
// on the diagonal, a zero matrix, rank one) and the scaling (entries near the
// ends of the exponent range), for the small kernel (5 x 5, 6 x 4) and LAPACK (40 x 40).
std::vector<std::pair<std::string, Mat>> special_matrices(std::int64_t m, std::int64_t n, DType d) {
  std::vector<std::pair<std::string, Mat>> out;
  out.push_back({"zero", Mat(m, n)});
  Mat dg(m, n);
  for (std::int64_t i = 0; i < std::min(m, n); ++i)
    dg(i, i) = i % 2 == 0 ? 0.0 : 1.0 + static_cast<double>(i);
  out.push_back({"diagonal with zeros", dg});
  Mat ones(m, n);
  for (auto& x : ones.v) x = 1.0;
  out.push_back({"ones (rank 1)", ones});
  Mat holes = random_mat(m, n, is_complex(d), 91);
  for (std::int64_t i = 0; i < m; ++i) holes(i, n / 2) = 0;
  for (std::int64_t j = 0; j < n; ++j) holes(m / 2, j) = 0;
  out.push_back({"zero row and column", holes});
  const double big = real_dtype(d) == DType::f32 ? 1e30 : 1e300, tiny = 1 / big;
  for (double scale : {big, tiny}) {
    Mat r = random_mat(m, n, is_complex(d), 92);
    for (auto& x : r.v) x *= scale;
    out.push_back({scale > 1 ? "huge entries" : "tiny entries", r});
  }
  return out;
}

TEST(LinalgSvd, SpecialMatrices) {
  CpuBackend cpu;
  for (DType d : float_dtypes())
    for (auto [m, n] :
         std::vector<std::pair<std::int64_t, std::int64_t>>{{5, 5}, {6, 4}, {4, 6}, {40, 40}})
      for (const auto& [name, mat] : special_matrices(m, n, d)) {
        SCOPED_TRACE(::testing::Message() << dtype_name(d) << " " << m << "x" << n << " " << name);
        Input in;
        in.tensor = to_tensor({mat}, {}, d);
        in.mats = {matrix_of(in.tensor, 0)};
        // Norms are compared after scaling by the largest entry (tiny ones underflow when squared).
        double amax = 0;
        for (auto x : in.mats[0].v) amax = std::max(amax, std::abs(x));
        Input scaled = in;
        if (amax > 0)
          for (auto& x : scaled.mats[0].v) x /= amax;
        for (bool full : {false, true}) {
          auto r = linalg::svd(in.tensor, cpu, {.full_matrices = full});
          if (amax > 0) r.s = mul(r.s, Scalar(1 / amax), cpu);
          check_svd(scaled, r, d, m, n, {}, full);
        }
      }
}

TEST(LinalgSvd, TypedResultsAndQuickstart) {
  // The README's Quickstart A: a 2 x 2 product and its SVD, singular values {3, 1}.
  CpuBackend cpu;
  auto a = TypedTensor<double>::from_vec_col_major({2, 2}, {3.0, 0.0, 0.0, 1.0});
  auto identity = TypedTensor<double>::from_vec_col_major({2, 2}, {1.0, 0.0, 0.0, 1.0});
  auto product = tenferro::matmul(a, identity, cpu);
  auto [u, s, vh] = linalg::svd(product, cpu);
  static_assert(std::is_same_v<decltype(s), TypedTensor<double>>);
  EXPECT_NEAR(s.at({0}), 3.0, 1e-12);
  EXPECT_NEAR(s.at({1}), 1.0, 1e-12);
  auto zc = TypedTensor<std::complex<float>>::from_vec_col_major({1, 1}, {{3.0f, 4.0f}});
  auto [zu, zs, zvh] = linalg::svd(zc, cpu);
  static_assert(std::is_same_v<decltype(zs), TypedTensor<float>>);
  EXPECT_NEAR(zs.at({0}), 5.0f, 1e-6f);
  EXPECT_NEAR(std::abs(zu.at({0, 0}) * zs.at({0}) * zvh.at({0, 0}) - std::complex<float>(3, 4)),
              0.0f, 1e-6f);
}

TEST(LinalgSvdTruncated, KeepsValuesAboveTheThreshold) {
  CpuBackend cpu;
  for (DType d : float_dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    const double e = eps(d);
    // Matrix 0 has s = {5, 3, 1, 1e-3, 0}; matrix 1 has s = {2, 1, 0, 0, 0}.
    std::vector<Mat> mats{with_singular_values(7, 5, {5, 3, 1, 1e-3, 0}, is_complex(d), 11),
                          with_singular_values(7, 5, {2, 1, 0, 0, 0}, is_complex(d), 12)};
    Tensor a = testing::with_random_layout(to_tensor(mats, {2}, d), 5);
    mats = {matrix_of(a, 0), matrix_of(a, 1)};
    {
      auto [u, s, vh] = linalg::svd_truncated(a, cpu, {.rtol = 1e-2});
      // Matrix 0 keeps 3 (1 > 5e-2 > 1e-3), matrix 1 keeps 2: r = 3, its s[2] is zeroed.
      ASSERT_EQ(u.shape(), (Shape{7, 3, 2}));
      ASSERT_EQ(s.shape(), (Shape{3, 2}));
      ASSERT_EQ(vh.shape(), (Shape{3, 5, 2}));
      EXPECT_NEAR(testing::value_at(s, {2, 0}).real(), 1.0, 100 * e);
      EXPECT_EQ(testing::value_at(s, {2, 1}).real(), 0.0);
      for (std::int64_t b = 0; b < 2; ++b) {
        Mat ub = matrix_of(u, b), vb = matrix_of(vh, b);
        std::vector<double> sr;
        for (auto x : vector_of(s, b)) sr.push_back(x.real());
        Mat recon = matmul(matmul(ub, diag(sr, 3, 3)), vb);
        // The truncation error is the dropped singular value (1e-3 or 0).
        const double dropped = b == 0 ? 1e-3 : 0.0;
        EXPECT_NEAR(fro(minus(mats[static_cast<std::size_t>(b)], recon)), dropped, 200 * e);
        EXPECT_LE(orthonormality_error(ub), 200 * e);
        EXPECT_LE(orthonormality_error(adjoint(vb)), 200 * e);
      }
    }
    {
      auto r = linalg::svd_truncated(a, cpu, {.max_rank = 1});
      EXPECT_EQ(r.s.shape(), (Shape{1, 2}));
      EXPECT_NEAR(testing::value_at(r.s, {0, 0}).real(), 5.0, 100 * e);
      EXPECT_NEAR(testing::value_at(r.s, {0, 1}).real(), 2.0, 100 * e);
    }
    {
      // rtol 0 keeps every nonzero value: 4 for matrix 0 (the exact 0 is dropped
      // when it comes out as zero, and kept as a tiny value otherwise).
      auto r = linalg::svd_truncated(a, cpu);
      EXPECT_GE(r.s.shape()[0], 4);
      EXPECT_LE(r.s.shape()[0], 5);
    }
    {
      // A zero matrix keeps nothing.
      auto r = linalg::svd_truncated(Tensor::zeros({3, 4}, d), cpu, {.rtol = 1e-6});
      EXPECT_EQ(r.u.shape(), (Shape{3, 0}));
      EXPECT_EQ(r.s.shape(), (Shape{0}));
      EXPECT_EQ(r.vh.shape(), (Shape{0, 4}));
    }
  }
}

// ---- QR --------------------------------------------------------------------------------

TEST(LinalgQr, AllModes) {
  CpuBackend cpu;
  sweep([&](DType d, std::int64_t m, std::int64_t n, const Shape& batch, const Input& in) {
    const std::int64_t k = std::min(m, n);
    const double tol = tol_for(d, m, n);
    auto [q, r] = linalg::qr(in.tensor, cpu);
    auto [qc, rc] = linalg::qr(in.tensor, cpu, linalg::QrMode::complete);
    auto [q0, r_only] = linalg::qr(in.tensor, cpu, linalg::QrMode::r);
    ASSERT_EQ(q.shape(), with_batch({m, k}, batch));
    ASSERT_EQ(r.shape(), with_batch({k, n}, batch));
    ASSERT_EQ(qc.shape(), with_batch({m, m}, batch));
    ASSERT_EQ(rc.shape(), with_batch({m, n}, batch));
    ASSERT_EQ(q0.shape(), with_batch({0, 0}, batch));
    ASSERT_EQ(r_only.shape(), with_batch({k, n}, batch));
    for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
      const Mat& a = in.mats[static_cast<std::size_t>(b)];
      for (auto [qq, rr] : {std::pair{q, r}, std::pair{qc, rc}}) {
        Mat Q = matrix_of(qq, b), R = matrix_of(rr, b);
        EXPECT_LE(fro(minus(a, matmul(Q, R))), tol * fro(a) + 1e-300) << "Q R, matrix " << b;
        EXPECT_LE(orthonormality_error(Q), tol) << "Q^H Q, matrix " << b;
        for (std::int64_t j = 0; j < R.cols; ++j)
          for (std::int64_t i = j + 1; i < R.rows; ++i)
            EXPECT_EQ(R(i, j), cd(0)) << "R below diagonal";
      }
      // Mode "r" gives the same R as the reduced mode.
      Mat R1 = matrix_of(r, b), R2 = matrix_of(r_only, b);
      EXPECT_LE(fro(minus(R1, R2)), tol * fro(a) + 1e-300);
    }
  });
}

// ---- LU --------------------------------------------------------------------------------

TEST(LinalgLu, PermutedProductAndFactors) {
  CpuBackend cpu;
  sweep([&](DType d, std::int64_t m, std::int64_t n, const Shape& batch, const Input& in) {
    const std::int64_t k = std::min(m, n);
    const double tol = tol_for(d, m, n);
    auto [perm, l, u, p] = linalg::lu(in.tensor, cpu);
    ASSERT_EQ(perm.dtype(), DType::i64);
    ASSERT_EQ(perm.shape(), with_batch({m}, batch));
    ASSERT_EQ(l.shape(), with_batch({m, k}, batch));
    ASSERT_EQ(u.shape(), with_batch({k, n}, batch));
    ASSERT_EQ(p.shape(), with_batch({m, m}, batch));
    auto no_p = linalg::lu(in.tensor, cpu, {.permutation_matrix = false});
    EXPECT_EQ(no_p.p.shape(), with_batch({0, 0}, batch));
    auto [packed, piv] = linalg::lu_factor(in.tensor, cpu);
    ASSERT_EQ(packed.shape(), in.tensor.shape());
    ASSERT_EQ(piv.shape(), with_batch({k}, batch));
    for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
      const Mat& a = in.mats[static_cast<std::size_t>(b)];
      Mat L = matrix_of(l, b), U = matrix_of(u, b), P = matrix_of(p, b);
      // P A = L U, P[i, perm[i]] = 1.
      EXPECT_LE(fro(minus(matmul(P, a), matmul(L, U))), tol * fro(a) + 1e-300) << "P A = L U";
      std::vector<cd> pv = vector_of(perm, b);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < m; ++j)
          EXPECT_EQ(P(i, j), cd(j == pv[static_cast<std::size_t>(i)].real() ? 1.0 : 0.0));
      for (std::int64_t j = 0; j < k; ++j) {
        EXPECT_EQ(L(j, j), cd(1)) << "unit diagonal";
        for (std::int64_t i = 0; i < j; ++i) EXPECT_EQ(L(i, j), cd(0));
        for (std::int64_t i = j + 1; i < m;
             ++i)  // partial pivoting: |l_ij| <= 1 (|re| + |im| pivots)
          EXPECT_LE(std::abs(L(i, j)), std::sqrt(2.0) + 1e-6);
      }
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = j + 1; i < k; ++i) EXPECT_EQ(U(i, j), cd(0));
      // lu_factor: the same factors, packed, with LAPACK-style pivots.
      Mat F = matrix_of(packed, b);
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < m; ++i)
          EXPECT_EQ(F(i, j), i > j ? L(i, j) : U(i, j))
              << "packed factor (" << i << ", " << j << ")";
      std::vector<std::int64_t> rows(static_cast<std::size_t>(m));
      for (std::int64_t i = 0; i < m; ++i) rows[static_cast<std::size_t>(i)] = i;
      std::vector<cd> pivots = vector_of(piv, b);
      for (std::int64_t i = 0; i < k; ++i) {
        auto pi = static_cast<std::int64_t>(pivots[static_cast<std::size_t>(i)].real());
        EXPECT_GE(pi, i);
        EXPECT_LT(pi, m);
        std::swap(rows[static_cast<std::size_t>(i)], rows[static_cast<std::size_t>(pi)]);
      }
      for (std::int64_t i = 0; i < m; ++i)
        EXPECT_EQ(static_cast<std::int64_t>(pv[static_cast<std::size_t>(i)].real()),
                  rows[static_cast<std::size_t>(i)]);
    }
  });
}

TEST(LinalgLu, SingularMatrixFactorsWithoutError) {
  CpuBackend cpu;
  Tensor a =
      Tensor::from_vec_col_major<double>({3, 3}, {1, 2, 3, 2, 4, 6, 1, 0, 1});  // col 1 = 2 col 0
  auto [perm, l, u, p] = linalg::lu(a, cpu);
  Mat U = matrix_of(u, 0);
  double min_diag = 1e300;
  for (int i = 0; i < 3; ++i) min_diag = std::min(min_diag, std::abs(U(i, i)));
  EXPECT_EQ(min_diag, 0.0);
  EXPECT_LE(fro(minus(matmul(matrix_of(p, 0), matrix_of(a, 0)), matmul(matrix_of(l, 0), U))),
            1e-14);
}

// A subnormal pivot: 1 / pivot overflows, so the multipliers are quotients
// (getf2's rule), l = 1e-310 / 3e-310 = 1/3, not 1e-310 * inf.
TEST(LinalgLu, SubnormalPivot) {
  CpuBackend cpu;
  Tensor a = Tensor::from_vec_col_major<double>({2, 2}, {3e-310, 1e-310, 1, 2});
  auto [perm, l, u, p] = linalg::lu(a, cpu);
  Mat L = matrix_of(l, 0), U = matrix_of(u, 0);
  EXPECT_NEAR(L(1, 0).real(), 1.0 / 3.0, 1e-6);
  EXPECT_EQ(U(0, 0), cd(3e-310));
  EXPECT_NEAR(U(1, 1).real(), 2.0 - 1.0 / 3.0, 1e-12);
}

// Note [Recursive LU] (src/linalg/recursive_lu.hpp) against LAPACK's getrf
// on the same matrices: orders at its bounds, leaf splits that are not
// multiples of 8, tall and wide, and zero columns (zero pivots, LAPACK's
// info). f64: the same pivots and factors to rounding; f32 (whose rounding
// can swap two near-equal pivot candidates): P A = L U, |L| <= 1 and info.
template <class T>
void check_recursive_lu_against_lapack() {
  namespace rlu = linalg::detail::recursive_lu;
  namespace lapack = linalg::detail::lapack;
  const double eps = std::numeric_limits<T>::epsilon();
  std::vector<std::pair<int, int>> sizes = {{33, 33},   {64, 64},   {100, 70}, {70, 100},
                                            {131, 129}, {257, 257}, {40, 300}, {512, 512}};
  if (sizeof(T) == 8) sizes.emplace_back(1024, 1024);
  std::mt19937_64 gen(7);
  std::normal_distribution<double> normal;
  for (const auto& size : sizes)
    for (bool zero_columns : {false, true}) {
      const int m = size.first, n = size.second;  // (a lambda below reads m: no structured binding)
      SCOPED_TRACE(::testing::Message()
                   << m << " x " << n << (zero_columns ? ", zero columns" : ""));
      ASSERT_TRUE(rlu::use<T>(m, n));
      const int k = std::min(m, n);
      std::vector<T> a(static_cast<std::size_t>(m) * n);
      for (T& v : a) v = static_cast<T>(normal(gen));
      if (zero_columns)
        for (int c : {5, 17, k - 1})
          std::fill_n(a.begin() + static_cast<std::ptrdiff_t>(c) * m, m, T(0));
      std::vector<T> ours(a), theirs(a);
      std::vector<int> piv_ours(static_cast<std::size_t>(k)), piv_theirs(piv_ours);
      const int info_ours = rlu::getrf<T>(m, n, ours.data(), m, piv_ours.data());
      const int info_theirs = lapack::getrf<T>(m, n, theirs.data(), m, piv_theirs.data());
      EXPECT_EQ(info_ours, info_theirs);
      EXPECT_EQ(info_ours, zero_columns ? 6 : 0);
      auto at = [&](const std::vector<T>& f, int i, int j) {
        return static_cast<double>(
            f[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * m]);
      };
      double amax = 0;
      for (T v : a) amax = std::max(amax, std::abs(static_cast<double>(v)));
      if constexpr (std::is_same_v<T, double>) {
        EXPECT_EQ(piv_ours, piv_theirs);
        double diff = 0, fmax = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
          diff = std::max(diff, std::abs(static_cast<double>(ours[i] - theirs[i])));
          fmax = std::max(fmax, std::abs(static_cast<double>(theirs[i])));
        }
        EXPECT_LE(diff, 20.0 * k * eps * fmax);
      }
      // P A = L U: row i of L U against row perm[i] of a.
      std::vector<int> perm(static_cast<std::size_t>(m));
      for (int i = 0; i < m; ++i) perm[static_cast<std::size_t>(i)] = i;
      for (int i = 0; i < k; ++i) {
        const int p = piv_ours[static_cast<std::size_t>(i)] - 1;
        ASSERT_GE(p, i);
        ASSERT_LT(p, m);
        std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(p)]);
      }
      double resid = 0;
      const int step = m > 300 ? 7 : 1;  // every 7th row at order 512
      for (int i = 0; i < m; i += step)
        for (int j = 0; j < n; ++j) {
          double s = 0;
          for (int t = 0; t <= std::min({i, j, k - 1}); ++t)
            s += (t == i ? 1.0 : at(ours, i, t)) * at(ours, t, j);
          resid = std::max(resid, std::abs(s - at(a, perm[static_cast<std::size_t>(i)], j)));
          if (j < k && i > j) {
            EXPECT_LE(std::abs(at(ours, i, j)), 1.0) << "|L| <= 1";
          }
        }
      EXPECT_LE(resid, 20.0 * k * eps * amax) << "P A = L U";
    }
}

// On one thread, and on two, where the right-block updates are split by
// columns.
TEST(LinalgLu, RecursiveLuMatchesLapack) {
  if (!linalg::detail::recursive_lu::has_avx512_fma()) GTEST_SKIP() << "no AVX-512F and FMA";
  const int before = tenferro::get_num_threads();
  for (int threads : {1, 2}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    tenferro::set_num_threads(threads);
    check_recursive_lu_against_lapack<double>();
    check_recursive_lu_against_lapack<float>();
  }
  tenferro::set_num_threads(before);
}

// A pivot whose reciprocal overflows in the recursive LU's leaf: that column
// is divided by it, not multiplied by inf (getf2's rule).
TEST(LinalgLu, RecursiveLuSubnormalPivot) {
  CpuBackend cpu;
  const std::int64_t n = 64;
  std::vector<double> v(static_cast<std::size_t>(n * n));
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& x : v) x = u(gen);
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] *= 1e-309;  // column 0
  Tensor a = Tensor::from_vec_col_major<double>({n, n}, v);
  auto [perm, l, u_, p] = linalg::lu(a, cpu);
  Mat L = matrix_of(l, 0), U = matrix_of(u_, 0), A = matrix_of(a, 0);
  for (std::int64_t i = 1; i < n; ++i) {
    ASSERT_TRUE(std::isfinite(L(i, 0).real())) << i;
    EXPECT_LE(std::abs(L(i, 0)), 1.0);
  }
  EXPECT_LE(fro(minus(matmul(matrix_of(p, 0), A), matmul(L, U))), 1e-12 * fro(A));
}

// ---- Cholesky --------------------------------------------------------------------------

TEST(LinalgCholesky, LowerAndUpper) {
  CpuBackend cpu;
  std::uint64_t seed = 40;
  for (DType d : float_dtypes())
    for (std::int64_t n : {0, 1, 2, 5, 17, 40})  // up to 32: small::potrf; 40: LAPACK's potrf
      for (const Shape& batch : batch_shapes()) {
        SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " batch " << batch);
        std::vector<Mat> mats;
        for (std::int64_t b = 0; b < shape_numel(batch); ++b)
          mats.push_back(random_hpd(n, is_complex(d), ++seed));
        Tensor t = to_tensor(mats, batch, d);
        for (std::int64_t b = 0; b < shape_numel(batch); ++b)
          mats[static_cast<std::size_t>(b)] = matrix_of(t, b);
        Tensor a = testing::with_random_layout(t, seed);
        Tensor l = linalg::cholesky(a, cpu);
        Tensor u = linalg::cholesky(a, cpu, {.lower = false});
        const double tol = tol_for(d, n, n);
        for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
          const Mat& A = mats[static_cast<std::size_t>(b)];
          Mat L = matrix_of(l, b), U = matrix_of(u, b);
          EXPECT_LE(fro(minus(A, matmul(L, adjoint(L)))), tol * fro(A) + 1e-300);
          EXPECT_LE(fro(minus(A, matmul(adjoint(U), U))), tol * fro(A) + 1e-300);
          for (std::int64_t j = 0; j < n; ++j) {
            EXPECT_GT(L(j, j).real(), 0.0);
            EXPECT_EQ(L(j, j).imag(), 0.0);
            for (std::int64_t i = 0; i < j; ++i) {
              EXPECT_EQ(L(i, j), cd(0));
              EXPECT_EQ(U(j, i), cd(0));
            }
          }
        }
      }
}

TEST(LinalgCholesky, ReadsOnlyOneTriangle) {
  CpuBackend cpu;
  Mat h = random_hpd(4, true, 7);
  Mat lower_only = h, upper_only = h;
  for (std::int64_t j = 0; j < 4; ++j)
    for (std::int64_t i = 0; i < 4; ++i) {
      if (i < j) lower_only(i, j) = cd(99, -7);  // garbage above the diagonal
      if (i > j) upper_only(i, j) = cd(-5, 3);
    }
  Tensor l1 = linalg::cholesky(to_tensor({h}, {}, DType::c128), cpu);
  Tensor l2 = linalg::cholesky(to_tensor({lower_only}, {}, DType::c128), cpu);
  Tensor u1 = linalg::cholesky(to_tensor({h}, {}, DType::c128), cpu, {.lower = false});
  Tensor u2 = linalg::cholesky(to_tensor({upper_only}, {}, DType::c128), cpu, {.lower = false});
  EXPECT_TRUE(testing::tensors_equal(l1, l2));
  EXPECT_TRUE(testing::tensors_equal(u1, u2));
}

// ---- eigh ------------------------------------------------------------------------------

Mat random_hermitian(std::int64_t n, bool complex, std::uint64_t seed) {
  Mat r = random_mat(n, n, complex, seed);
  Mat h(n, n);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) h(i, j) = 0.5 * (r(i, j) + std::conj(r(j, i)));
  return h;
}

TEST(LinalgEigh, DecompositionAscendingOrthonormal) {
  CpuBackend cpu;
  std::uint64_t seed = 300;
  for (DType d : float_dtypes())
    for (std::int64_t n : {0, 1, 2, 3, 8, 16, 17, 33})
      for (const Shape& batch : batch_shapes())
        for (bool lower : {true, false})
          for (int kind = 0; kind < 2; ++kind) {
            SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " batch " << batch
                                              << (lower ? " lower" : " upper") << " kind " << kind);
            std::vector<Mat> mats;
            for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
              // kind 1: eigenvalues spread over 10 orders of magnitude, with a repeated one.
              Mat h = random_hermitian(n, is_complex(d), ++seed);
              if (kind == 1) {
                std::vector<double> w = geometric_values(n, 1e10);
                if (n > 2) w[1] = w[0];
                Mat q = random_unitary(n, is_complex(d), seed);
                h = matmul(matmul(q, diag(w, n, n)), adjoint(q));
              }
              mats.push_back(h);
            }
            Tensor t = to_tensor(mats, batch, d);
            for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
              // The reference is the Hermitian matrix defined by the triangle read.
              Mat s = matrix_of(t, b);
              for (std::int64_t j = 0; j < n; ++j) {
                s(j, j) = s(j, j).real();
                for (std::int64_t i = j + 1; i < n; ++i) {
                  if (lower)
                    s(j, i) = std::conj(s(i, j));
                  else
                    s(i, j) = std::conj(s(j, i));
                }
              }
              mats[static_cast<std::size_t>(b)] = s;
            }
            auto [w, v] = linalg::eigh(testing::with_random_layout(t, seed), cpu, {.lower = lower});
            ASSERT_EQ(w.dtype(), real_dtype(d));
            ASSERT_EQ(w.shape(), with_batch({n}, batch));
            ASSERT_EQ(v.shape(), with_batch({n, n}, batch));
            const double tol = tol_for(d, n, n);
            for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
              const Mat& A = mats[static_cast<std::size_t>(b)];
              Mat V = matrix_of(v, b);
              std::vector<double> wr;
              for (auto x : vector_of(w, b)) wr.push_back(x.real());
              for (std::size_t i = 1; i < wr.size(); ++i) EXPECT_LE(wr[i - 1], wr[i]);
              EXPECT_LE(fro(minus(matmul(A, V), matmul(V, diag(wr, n, n)))), tol * fro(A) + 1e-300);
              EXPECT_LE(orthonormality_error(V), tol);
            }
          }
}

// Hermitian matrices that are hard for eigh: zero, a diagonal with repeated
// eigenvalues, and a random one scaled to each end of the dtype's range.
std::vector<std::pair<std::string, Mat>> special_hermitian(DType d, std::int64_t n,
                                                           std::uint64_t seed) {
  const double big = real_dtype(d) == DType::f32 ? 1e30 : 1e300;
  std::vector<std::pair<std::string, Mat>> cases;
  cases.push_back({"zero", Mat(n, n)});
  Mat dg(n, n);
  for (std::int64_t i = 0; i < n; ++i) dg(i, i) = static_cast<double>(i % 3);
  cases.push_back({"diagonal, repeated", dg});
  for (double scale : {big, 1 / big}) {
    Mat h = random_hermitian(n, is_complex(d), seed);
    for (auto& x : h.v) x *= scale;
    cases.push_back({scale > 1 ? "huge entries" : "tiny entries", h});
  }
  return cases;
}

// The matrix of t scaled to largest entry 1, and that scale.
std::pair<Mat, double> unit_scaled(const Tensor& t) {
  Mat a = matrix_of(t, 0);
  double amax = 0;
  for (auto x : a.v) amax = std::max(amax, std::abs(x));
  const double scale = amax > 0 ? 1 / amax : 1;
  for (auto& x : a.v) x *= scale;
  return {a, scale};
}

// Checks eigh's (w, v) of a matrix whose scaled copy is `a` (unit_scaled):
// A V = V diag(w), V orthonormal, w ascending. Returns w times the scale.
std::vector<double> expect_eigh_of(const Mat& a, double scale, const Tensor& w, const Tensor& v,
                                   double tol) {
  const std::int64_t n = a.rows;
  Mat V = matrix_of(v, 0);
  std::vector<double> wr;
  for (auto x : vector_of(w, 0)) wr.push_back(x.real() * scale);
  EXPECT_LE(fro(minus(matmul(a, V), matmul(V, diag(wr, n, n)))), tol * (fro(a) + 1e-300));
  EXPECT_LE(orthonormality_error(V), tol);
  for (std::size_t i = 1; i < wr.size(); ++i) EXPECT_LE(wr[i - 1], wr[i]);
  return wr;
}

TEST(LinalgEigh, SpecialMatrices) {
  CpuBackend cpu;
  for (DType d : float_dtypes())
    for (std::int64_t n : {5, 40})
      for (const auto& [name, mat] : special_hermitian(d, n, 93)) {
        SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " " << name);
        Tensor t = to_tensor({mat}, {}, d);
        auto [a, scale] = unit_scaled(t);
        auto [w, v] = linalg::eigh(t, cpu);
        expect_eigh_of(a, scale, w, v, tol_for(d, n, n));
      }
}

// Note [Eigh in phases]: one matrix of order 64 and up on two threads runs
// hetrd, stedc on the two halves, their merge and unmtr by column blocks itself.
// The cases hit the merge's corners: no coupling at the cut (block
// diagonal, diagonal, zero), heavy deflation (repeated eigenvalues, one
// or two eigenvalues left to the secular equation) and extreme scales;
// eigenvalues must also match the one-thread syevd/heevd.
TEST(LinalgEigh, PhasesOnTwoThreads) {
  namespace ld = tenferro::linalg::detail;
  CpuBackend cpu;
  const int before = tenferro::get_num_threads();
  std::uint64_t seed = 700;
  for (DType d : float_dtypes())
    for (std::int64_t n : {64, 97}) {
      std::vector<std::pair<std::string, Mat>> cases = special_hermitian(d, n, ++seed);
      cases.push_back({"random", random_hermitian(n, is_complex(d), ++seed)});
      {
        std::vector<double> w = geometric_values(n, 1e10);
        for (std::int64_t i = 1; i < n; i += 3)
          w[static_cast<std::size_t>(i)] = w[static_cast<std::size_t>(i - 1)];
        Mat q = random_unitary(n, is_complex(d), ++seed);
        cases.push_back({"spread, repeated", matmul(matmul(q, diag(w, n, n)), adjoint(q))});
      }
      Mat blocks = random_hermitian(n, is_complex(d), ++seed);
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < n; ++i)
          if ((i < n / 2) != (j < n / 2)) blocks(i, j) = 0;
      cases.push_back({"block diagonal", blocks});
      // Already tridiagonal, coupled only across the cut (n / 2): each half
      // is diagonal, so two eigenvalues reach the secular equation, or one
      // when the diagonal is constant (the two coupled ones then coincide).
      const std::int64_t cut = n / 2;
      Mat up(n, n), down(n, n), one(n, n);
      for (std::int64_t i = 0; i < n; ++i) {
        up(i, i) = 0.37 * static_cast<double>(i) - 3.0;
        down(i, i) = -up(i, i);
        one(i, i) = 1.0;
      }
      up(cut - 1, cut) = up(cut, cut - 1) = 0.8;
      down(cut - 1, cut) = down(cut, cut - 1) = 0.8;
      one(cut - 1, cut) = one(cut, cut - 1) = 0.5;
      cases.push_back({"two roots, ascending diagonal", up});
      cases.push_back({"two roots, descending diagonal", down});
      cases.push_back({"one root", one});
      for (const auto& [name, mat] : cases)
        for (bool lower : {true, false}) {
          SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " " << name
                                            << (lower ? " lower" : " upper"));
          Tensor t = to_tensor({mat}, {}, d);
          auto [a, scale] = unit_scaled(t);
          tenferro::set_num_threads(1);
          ASSERT_FALSE(ld::use_phased_eigh(n));
          auto [w1, v1] = linalg::eigh(t, cpu, {.lower = lower});
          tenferro::set_num_threads(2);
          ASSERT_TRUE(ld::use_phased_eigh(n));
          auto [w, v] = linalg::eigh(testing::with_random_layout(t, ++seed), cpu, {.lower = lower});
          tenferro::set_num_threads(before);
          const double tol = tol_for(d, n, n);
          const std::vector<double> wr = expect_eigh_of(a, scale, w, v, tol);
          std::vector<double> wr1;
          for (auto x : vector_of(w1, 0)) wr1.push_back(x.real() * scale);
          double wdiff = 0;
          for (std::size_t i = 0; i < wr.size(); ++i)
            wdiff = std::max(wdiff, std::abs(wr[i] - wr1[i]));
          EXPECT_LE(wdiff, tol);  // eigenvalues of a scaled to largest entry 1
        }
    }
  tenferro::set_num_threads(before);
}

// ---- eig -------------------------------------------------------------------------------

TEST(LinalgEig, RightEigenvectors) {
  CpuBackend cpu;
  std::uint64_t seed = 500;
  for (DType d : float_dtypes())
    for (std::int64_t n : {0, 1, 2, 5, 12, 30})
      for (const Shape& batch : batch_shapes()) {
        SCOPED_TRACE(::testing::Message() << dtype_name(d) << " n " << n << " batch " << batch);
        std::vector<Mat> mats;
        for (std::int64_t b = 0; b < shape_numel(batch); ++b)
          mats.push_back(random_mat(n, n, is_complex(d), ++seed));
        Tensor t = to_tensor(mats, batch, d);
        for (std::int64_t b = 0; b < shape_numel(batch); ++b)
          mats[static_cast<std::size_t>(b)] = matrix_of(t, b);
        Tensor a = testing::with_random_layout(t, seed);
        auto [w, v] = linalg::eig(a, cpu);
        Tensor w2 = linalg::eigvals(a, cpu);
        ASSERT_EQ(w.dtype(), complex_dtype(d));
        ASSERT_EQ(v.dtype(), complex_dtype(d));
        ASSERT_EQ(w.shape(), with_batch({n}, batch));
        ASSERT_EQ(v.shape(), with_batch({n, n}, batch));
        const double tol = tol_for(d, n, n) * 10;
        for (std::int64_t b = 0; b < shape_numel(batch); ++b) {
          const Mat& A = mats[static_cast<std::size_t>(b)];
          Mat V = matrix_of(v, b);
          std::vector<cd> wv = vector_of(w, b), wv2 = vector_of(w2, b);
          Mat W(n, n);
          for (std::int64_t i = 0; i < n; ++i) W(i, i) = wv[static_cast<std::size_t>(i)];
          EXPECT_LE(fro(minus(matmul(A, V), matmul(V, W))), tol * fro(A) + 1e-300);
          for (std::int64_t j = 0; j < n; ++j) {
            double nrm = 0, largest = 0;
            cd big = 0;
            for (std::int64_t i = 0; i < n; ++i) {
              nrm += std::norm(V(i, j));
              if (std::abs(V(i, j)) > largest) largest = std::abs(V(i, j)), big = V(i, j);
            }
            EXPECT_NEAR(nrm, 1.0, tol) << "unit 2-norm";
            if (is_complex(d)) {
              EXPECT_NEAR(big.imag() / largest, 0.0, std::sqrt(tol)) << "largest component real";
            }
            // eigvals gives the same eigenvalues (same algorithm).
            EXPECT_NEAR(
                std::abs(wv[static_cast<std::size_t>(j)] - wv2[static_cast<std::size_t>(j)]), 0.0,
                tol * fro(A));
          }
          if (!is_complex(d)) {
            // Complex eigenvalues of a real matrix come in adjacent conjugate pairs.
            for (std::int64_t j = 0; j < n; ++j) {
              cd x = wv[static_cast<std::size_t>(j)];
              if (x.imag() > 0) {
                ASSERT_LT(j + 1, n);
                EXPECT_EQ(wv[static_cast<std::size_t>(j + 1)], std::conj(x));
                ++j;
              }
            }
          }
        }
      }
}

}  // namespace
}  // namespace tenferro

// Note [LAPACK threads]: with two threads set, a loop over matrices up to
// order 256 that stays on the calling thread runs its body (and so LAPACK)
// with that thread's OpenMP setting at one, and restores it after; larger
// matrices and split batches keep the setting.
TEST(LinalgThreads, SmallMatricesKeepLapackOnOneThread) {
  namespace ld = tenferro::linalg::detail;
  const int before = tenferro::get_num_threads();
  tenferro::set_num_threads(2);
  auto threads_in_body = [](ld::BatchSplit split, std::int64_t count) {
    int seen = 0;
    ld::for_each_batch(count, split, [] { return 0; }, [&](std::int64_t b, int&) {
      if (b == 0) seen = omp_get_max_threads();
    });
    return seen;
  };
  const ld::BatchSplit one = ld::split_batch(1, 256, 256), big = ld::split_batch(1, 257, 257);
  EXPECT_FALSE(one.parallel);
  EXPECT_TRUE(one.one_lapack_thread);
  EXPECT_FALSE(big.one_lapack_thread);
  // LU factorizations (getrf) are threaded from order 256.
  EXPECT_FALSE(ld::split_batch(1, 256, 256, ld::kThreadedGetrfWork).one_lapack_thread);
  EXPECT_TRUE(ld::split_batch(1, 255, 255, ld::kThreadedGetrfWork).one_lapack_thread);
  // Least squares (gelsd) keeps one thread up to 512 x 256.
  EXPECT_TRUE(ld::split_batch(1, 512, 256, ld::kThreadedGelsdWork).one_lapack_thread);
  EXPECT_FALSE(ld::split_batch(1, 513, 256, ld::kThreadedGelsdWork).one_lapack_thread);
  EXPECT_EQ(threads_in_body(one, 1), 1);
  EXPECT_EQ(omp_get_max_threads(), 2);  // restored
  EXPECT_EQ(threads_in_body(big, 1), 2);
  EXPECT_TRUE(ld::split_batch(64, 16, 16).parallel);  // many small matrices: one per thread
  tenferro::set_num_threads(1);
  EXPECT_FALSE(ld::split_batch(1, 256, 256).one_lapack_thread);  // nothing to lower
  tenferro::set_num_threads(before);
}
