// Bad input: every error names the op and the offending shapes, dtypes or
// values, LAPACK failures are LinalgErrors with the batch element and the
// info code, and a failing call leaves its operands unchanged.
#include <cmath>
#include <functional>
#include <limits>

#include "linalg_test_util.hpp"

namespace tenferro {
namespace {

using namespace linalg_testing;
using testing::throws_with;

CpuBackend& cpu() {
  static CpuBackend b;
  return b;
}

// Unary ops that take one matrix [m, n, batch...], by name.
const std::vector<std::pair<const char*, std::function<void(const Tensor&)>>>& unary_ops() {
  static const std::vector<std::pair<const char*, std::function<void(const Tensor&)>>> ops{
      {"linalg.svd", [](const Tensor& a) { linalg::svd(a, cpu()); }},
      {"linalg.svdvals", [](const Tensor& a) { linalg::svdvals(a, cpu()); }},
      {"linalg.svd_truncated", [](const Tensor& a) { linalg::svd_truncated(a, cpu()); }},
      {"linalg.qr", [](const Tensor& a) { linalg::qr(a, cpu()); }},
      {"linalg.lu", [](const Tensor& a) { linalg::lu(a, cpu()); }},
      {"linalg.lu_factor", [](const Tensor& a) { linalg::lu_factor(a, cpu()); }},
      {"linalg.pinv", [](const Tensor& a) { linalg::pinv(a, cpu()); }},
      {"linalg.matrix_rank", [](const Tensor& a) { linalg::matrix_rank(a, cpu()); }},
      {"linalg.matrix_norm", [](const Tensor& a) { linalg::matrix_norm(a, cpu(), 2); }},
      {"linalg.cond", [](const Tensor& a) { linalg::cond(a, cpu()); }},
  };
  return ops;
}

// Ops that need a square matrix.
const std::vector<std::pair<const char*, std::function<void(const Tensor&)>>>& square_ops() {
  static const std::vector<std::pair<const char*, std::function<void(const Tensor&)>>> ops{
      {"linalg.cholesky", [](const Tensor& a) { linalg::cholesky(a, cpu()); }},
      {"linalg.eigh", [](const Tensor& a) { linalg::eigh(a, cpu()); }},
      {"linalg.eig", [](const Tensor& a) { linalg::eig(a, cpu()); }},
      {"linalg.eigvals", [](const Tensor& a) { linalg::eigvals(a, cpu()); }},
      {"linalg.inv", [](const Tensor& a) { linalg::inv(a, cpu()); }},
      {"linalg.det", [](const Tensor& a) { linalg::det(a, cpu()); }},
      {"linalg.slogdet", [](const Tensor& a) { linalg::slogdet(a, cpu()); }},
      {"linalg.matrix_exp", [](const Tensor& a) { linalg::matrix_exp(a, cpu()); }},
      {"linalg.solve",
       [](const Tensor& a) {
         linalg::solve(a, Tensor::ones({a.shape()[0], 1}, a.dtype()), cpu());
       }},
  };
  return ops;
}

TEST(LinalgErrors, IntegerAndBoolDtypes) {
  for (DType d : {DType::i32, DType::i64, DType::bool_}) {
    Tensor a = Tensor::zeros({3, 3}, d);
    for (const auto& ops : {unary_ops(), square_ops()})
      for (const auto& [name, f] : ops)
        EXPECT_TRUE(
            throws_with<DTypeError>([&] { f(a); }, {name, dtype_name(d), "f32, f64, c64, c128"}))
            << name;
    EXPECT_TRUE(throws_with<DTypeError>([&] { linalg::vector_norm(Tensor::zeros({3}, d), cpu()); },
                                        {"linalg.vector_norm", dtype_name(d)}));
  }
}

TEST(LinalgErrors, RankBelowTwo) {
  for (const Tensor& a : {Tensor::zeros({3}), Tensor::scalar(1.0)})
    for (const auto& ops : {unary_ops(), square_ops()})
      for (const auto& [name, f] : ops) {
        if (std::string(name) == "linalg.solve") continue;  // builds b from a.shape()[0]
        EXPECT_TRUE(throws_with<ShapeError>([&] { f(a); }, {name, "rank >= 2"}))
            << name << " " << a.shape();
      }
  EXPECT_TRUE(throws_with<ShapeError>([&] { linalg::svd(Tensor::zeros({3}), cpu()); },
                                      {"linalg.svd", "[3]"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { linalg::vector_norm(Tensor::scalar(2.0), cpu()); },
                                      {"linalg.vector_norm", "rank >= 1"}));
}

TEST(LinalgErrors, NonSquare) {
  Tensor a = Tensor::zeros({3, 4, 2});
  for (const auto& [name, f] : square_ops()) {
    if (std::string(name) == "linalg.solve") continue;
    EXPECT_TRUE(throws_with<ShapeError>([&] { f(a); }, {name, "square", "[3, 4, 2]"})) << name;
  }
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::solve(a, Tensor::zeros({3, 1, 2}), cpu());
      },
      {"linalg.solve", "square", "[3, 4, 2]"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { linalg::cond(a, cpu(), 1); },
                                      {"linalg.cond", "square", "[3, 4, 2]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::triangular_solve(a, Tensor::zeros({3, 1, 2}), cpu());
      },
      {"linalg.triangular_solve", "square"}));
}

TEST(LinalgErrors, RightHandSides) {
  Tensor a = Tensor::eye(3);
  Tensor ab = Tensor::zeros({3, 3, 2});
  // Batch axes must agree exactly.
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::solve(ab, Tensor::zeros({3, 1, 5}), cpu());
      },
      {"linalg.solve", "batch", "[3, 3, 2]", "[3, 1, 5]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::lstsq(ab, Tensor::zeros({3, 1}), cpu());
      },
      {"linalg.lstsq", "batch", "[3, 3, 2]", "[3, 1]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::triangular_solve(ab, Tensor::zeros({3, 1, 3}), cpu());
      },
      {"linalg.triangular_solve", "batch"}));
  // Rows must match.
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::solve(a, Tensor::zeros({4, 1}), cpu());
      },
      {"linalg.solve", "[4, 1]", "3 rows"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { linalg::solve(a, Tensor::zeros({4}), cpu()); },
                                      {"linalg.solve", "[4]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::triangular_solve(a, Tensor::zeros({2, 4}), cpu(), {.left = false});
      },
      {"linalg.triangular_solve", "[2, 4]", "3 columns"}));
  // A vector b needs an unbatched a.
  EXPECT_TRUE(throws_with<ShapeError>([&] { linalg::solve(ab, Tensor::zeros({3}), cpu()); },
                                      {"linalg.solve", "vector", "[3, 3, 2]"}));
  // dtypes must agree.
  EXPECT_TRUE(throws_with<DTypeError>(
      [&] {
        linalg::solve(a, Tensor::zeros({3, 1}, DType::f32), cpu());
      },
      {"linalg.solve", "f64", "f32"}));
  EXPECT_TRUE(throws_with<DTypeError>(
      [&] {
        linalg::lstsq(a, Tensor::zeros({3, 1}, DType::c128), cpu());
      },
      {"linalg.lstsq", "f64", "c128"}));
}

TEST(LinalgErrors, HouseholderProduct) {
  const char* op = "linalg.householder_product";
  Tensor a = Tensor::zeros({4, 3}), tau = Tensor::zeros({2});
  EXPECT_TRUE(throws_with<DTypeError>(
      [&] { linalg::householder_product(a, Tensor::zeros({2}, DType::c128), cpu()); },
      {op, "f64", "c128"}));
  EXPECT_TRUE(throws_with<DTypeError>(
      [&] {
        linalg::householder_product(Tensor::zeros({4, 3}, DType::i64),
                                    Tensor::zeros({2}, DType::i64), cpu());
      },
      {op, "i64"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::householder_product(Tensor::zeros({3, 4}), tau, cpu());
      },
      {op, "[3, 4]", "rows"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] { linalg::householder_product(a, Tensor::zeros({4}), cpu()); }, {op, "[4]", "[4, 3]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::householder_product(a, Tensor::zeros({2, 2}), cpu());
      },
      {op, "[4, 3]", "[2, 2]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        linalg::householder_product(Tensor::zeros({4, 3, 2}), Tensor::zeros({2, 5}), cpu());
      },
      {op, "batch", "[4, 3, 2]", "[2, 5]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] { linalg::householder_product(Tensor::zeros({4}), tau, cpu()); }, {op, "[4]"}));
}

TEST(LinalgErrors, SingularMatricesNameTheBatchElement) {
  for (DType d : float_dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    // Batch [3, 3, 2, 2]; matrix [0, 1] (linear index 2) is singular (zero column 1).
    std::vector<Mat> mats;
    for (int b = 0; b < 4; ++b) {
      Mat m = random_mat(3, 3, is_complex(d), 70 + b);
      for (int i = 0; i < 3; ++i) m(i, i) += 3.0;
      if (b == 2)
        for (int i = 0; i < 3; ++i) m(i, 1) = 0;
      mats.push_back(m);
    }
    Tensor a = testing::with_random_layout(to_tensor(mats, {2, 2}, d), 3);
    Tensor b = Tensor::ones({3, 2, 2, 2}, d);
    const auto before = snapshot(a);
    for (const auto& [name, f] : std::vector<std::pair<const char*, std::function<void()>>>{
             {"linalg.solve", [&] { linalg::solve(a, b, cpu()); }},
             {"linalg.inv", [&] { linalg::inv(a, cpu()); }}}) {
      try {
        f();
        ADD_FAILURE() << name << " did not throw";
      } catch (const LinalgError& e) {
        EXPECT_EQ(e.batch_index(), 2) << name;
        EXPECT_GT(e.info(), 0) << name;
        std::string msg = e.what();
        for (const char* frag :
             {name, "matrix [0, 1] of the batch", "[3, 3, 2, 2]", "singular", "info"})
          EXPECT_NE(msg.find(frag), std::string::npos) << msg << " lacks " << frag;
      }
    }
    EXPECT_EQ(snapshot(a), before);
    // det of the same batch is fine: 0 for the singular matrix.
    EXPECT_EQ(scalar_of(linalg::det(a, cpu()), 2), cd(0));
  }
}

TEST(LinalgErrors, SingularTriangularAndLuSolve) {
  Tensor t = Tensor::from_vec_col_major<double>({2, 2, 2},
                                                {1, 1, 0, 1, 1, 1, 0, 0});  // matrix 1: U[1,1] = 0
  Tensor b = Tensor::ones({2, 1, 2});
  try {
    linalg::triangular_solve(t, b, cpu());
    ADD_FAILURE() << "did not throw";
  } catch (const LinalgError& e) {
    EXPECT_EQ(e.batch_index(), 1);
    EXPECT_EQ(e.info(), 2);
    EXPECT_NE(std::string(e.what()).find("diagonal entry [1, 1] is exactly zero"),
              std::string::npos)
        << e.what();
  }
  // With unit_diagonal the diagonal is not read: no error.
  EXPECT_NO_THROW(linalg::triangular_solve(t, b, cpu(), {.unit_diagonal = true}));
  // lu_solve with the factors of a singular matrix.
  Tensor s = Tensor::from_vec_col_major<double>({2, 2}, {1, 2, 2, 4});
  auto [lu, piv] = linalg::lu_factor(s, cpu());
  EXPECT_TRUE(throws_with<LinalgError>(
      [&] {
        linalg::lu_solve(lu, piv, Tensor::ones({2, 1}), cpu());
      },
      {"linalg.lu_solve", "singular", "U[1, 1]"}));
}

TEST(LinalgErrors, NotPositiveDefinite) {
  for (DType d : float_dtypes()) {
    // Matrix 1 of 3 has eigenvalues {1, -1, 2}: its leading minor of order 2 fails.
    std::vector<Mat> mats{random_hpd(3, is_complex(d), 1), eye(3, 3),
                          random_hpd(3, is_complex(d), 2)};
    mats[1](1, 1) = -1;
    Tensor a = to_tensor(mats, {3}, d);
    const auto before = snapshot(a);
    try {
      linalg::cholesky(a, cpu());
      ADD_FAILURE() << "did not throw";
    } catch (const LinalgError& e) {
      EXPECT_EQ(e.batch_index(), 1);
      EXPECT_EQ(e.info(), 2);
      std::string msg = e.what();
      EXPECT_NE(msg.find("linalg.cholesky"), std::string::npos);
      EXPECT_NE(msg.find("not positive definite"), std::string::npos) << msg;
      EXPECT_NE(msg.find("matrix [1] of the batch"), std::string::npos) << msg;
    }
    EXPECT_EQ(snapshot(a), before);
  }
}

TEST(LinalgErrors, NonFiniteInputIsRejectedBeforeLapack) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (DType d : float_dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    Tensor good =
        to_tensor({random_hpd(3, is_complex(d), 4), random_hpd(3, is_complex(d), 5)}, {2}, d);
    Tensor bad = good.duplicate();
    // NaN in matrix 1, entry (2, 0): below the diagonal.
    visit_dtype<kFloatDTypes>(d, "test", [&]<class T>() {
      bad.set<T>({2, 0, 1}, T(static_cast<real_t<T>>(nan)));
    });
    const Tensor before = bad.duplicate();
    const std::vector<std::pair<const char*, std::function<void()>>> calls{
        {"linalg.svd", [&] { linalg::svd(bad, cpu()); }},
        {"linalg.qr", [&] { linalg::qr(bad, cpu()); }},
        {"linalg.lu", [&] { linalg::lu(bad, cpu()); }},
        {"linalg.cholesky", [&] { linalg::cholesky(bad, cpu()); }},
        {"linalg.eigh", [&] { linalg::eigh(bad, cpu()); }},
        {"linalg.eig", [&] { linalg::eig(bad, cpu()); }},
        {"linalg.inv", [&] { linalg::inv(bad, cpu()); }},
        {"linalg.det", [&] { linalg::det(bad, cpu()); }},
        {"linalg.matrix_exp", [&] { linalg::matrix_exp(bad, cpu()); }},
        {"linalg.pinv", [&] { linalg::pinv(bad, cpu()); }},
        {"linalg.solve",
         [&] {
           linalg::solve(bad, Tensor::ones({3, 1, 2}, d), cpu());
         }},
        {"linalg.lstsq",
         [&] {
           linalg::lstsq(bad, Tensor::ones({3, 1, 2}, d), cpu());
         }},
        {"linalg.cond", [&] { linalg::cond(bad, cpu()); }},
    };
    for (const auto& [name, f] : calls)
      EXPECT_TRUE(throws_with<ValueError>(f, {name, "non-finite", "nan", "[2, 0, 1]"})) << name;
    EXPECT_TRUE(testing::tensors_equal(bad, before));  // NaN compares equal to NaN here
    // The right-hand side is checked too.
    Tensor rhs = Tensor::ones({3, 1, 2}, d);
    visit_dtype<kFloatDTypes>(d, "test", [&]<class T>() {
      rhs.set<T>({1, 0, 0}, T(static_cast<real_t<T>>(inf)));
    });
    EXPECT_TRUE(throws_with<ValueError>([&] { linalg::solve(good, rhs, cpu()); },
                                        {"linalg.solve", "operand b", "inf", "[1, 0, 0]"}));
    // Ops that read one triangle ignore NaN in the other one.
    EXPECT_NO_THROW(linalg::eigh(bad, cpu(), {.lower = false}));
    EXPECT_NO_THROW(linalg::cholesky(bad, cpu(), {.lower = false}));
    EXPECT_NO_THROW(
        linalg::triangular_solve(bad, Tensor::ones({3, 1, 2}, d), cpu(), {.lower = false}));
  }
}

// The dense scan (eight sums of x * 0, then a tail) against a NaN or an Inf
// at every position of a 5 x 7 matrix (35 entries: four blocks of eight and
// a tail of three), in its real and imaginary parts, column-major and as a
// transposed (row-major) view.
TEST(LinalgErrors, NonFiniteEntryIsFoundAtEveryPosition) {
  for (DType d : float_dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    visit_dtype<kFloatDTypes>(d, "test", [&]<class T>() {
      using R = real_t<T>;
      for (const R bad : {std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::infinity()})
        for (bool imag : {false, true}) {
          if (imag && !is_complex(d)) continue;
          for (bool transposed : {false, true})
            for (std::int64_t pos = 0; pos < 35; ++pos) {
              Tensor a = Tensor::ones(transposed ? Shape{7, 5} : Shape{5, 7}, d);
              DimVec at = transposed ? DimVec{pos / 5, pos % 5} : DimVec{pos % 5, pos / 5};
              T v{};
              if constexpr (is_complex_v<T>) v = imag ? T(1, bad) : T(bad, 1);
              else v = bad;
              a.set<T>(at, v);
              const Tensor m = transposed ? a.permute({1, 0}) : a;
              EXPECT_TRUE(throws_with<ValueError>([&] { linalg::qr(m, cpu()); }, {"linalg.qr", "non-finite"}))
                  << "position " << pos << (transposed ? " (transposed)" : "") << (imag ? " (imaginary part)" : "");
            }
        }
      EXPECT_NO_THROW(linalg::qr(Tensor::ones({5, 7}, d), cpu()));
    });
  }
}

TEST(LinalgErrors, BadAttributes) {
  const OpFamily& f = linalg::family();
  Tensor a = Tensor::eye(3);
  std::vector<Tensor> in{a};
  EXPECT_TRUE(throws_with<ValueError>(
      [&] { call_family(f.op("linalg.qr"), FamilyAttrs::of(static_cast<linalg::QrMode>(7)), in, cpu()); },
      {"linalg.qr", "mode", "7"}));
  // Attributes are typed: another op's struct is rejected before the kernel runs.
  EXPECT_TRUE(throws_with<InternalError>(
      [&] { call_family(f.op("linalg.svd"), FamilyAttrs::of(linalg::LuOptions{}), in, cpu()); },
      {"LuOptions", "SvdAttrs"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { linalg::svd_truncated(a, cpu(), {.max_rank = -2}); },
                                      {"linalg.svd_truncated", "max_rank", "-2"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { linalg::svd_truncated(a, cpu(), {.rtol = -1}); },
                                      {"linalg.svd_truncated", "rtol", "-1"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { linalg::pinv(a, cpu(), {.atol = -1}); },
                                      {"linalg.pinv", "atol"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { linalg::matrix_norm(a, cpu(), 3); },
                                      {"linalg.matrix_norm", "\"3\""}));
  EXPECT_TRUE(throws_with<ValueError>([&] { linalg::matrix_norm(a, cpu(), "max"); },
                                      {"linalg.matrix_norm", "max"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { linalg::norm(Tensor::ones({3}), cpu(), "fro"); },
                                      {"linalg.norm", "fro", "vector"}));
  EXPECT_TRUE(
      throws_with<ValueError>([&] { linalg::vector_norm(Tensor::ones({3}), cpu(), std::nan("")); },
                              {"linalg.vector_norm", "NaN"}));
  EXPECT_TRUE(
      throws_with<ValueError>([&] { linalg::vector_norm(Tensor::ones({0}), cpu(), -linalg::kInf); },
                              {"linalg.vector_norm", "length 0"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        linalg::matrix_norm(Tensor::ones({0, 2}), cpu(), -2);
      },
      {"linalg.matrix_norm", "empty"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        linalg::cond(Tensor::ones({0, 0}), cpu());
      },
      {"linalg.cond", "empty"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        call_family(f.op("linalg.lu_solve"), FamilyAttrs::of(static_cast<linalg::Transpose>(9)),
                    std::vector<Tensor>{a, Tensor::zeros({3}, DType::i64), a}, cpu());
      },
      {"linalg.lu_solve", "trans", "9"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { f.op("linalg.nope"); }, {"linalg", "nope"}));
}

TEST(LinalgErrors, LuSolvePivots) {
  Tensor a = Tensor::from_vec_col_major<double>({3, 3}, {4, 1, 2, 1, 5, 1, 2, 1, 6});
  auto [lu, piv] = linalg::lu_factor(a, cpu());
  Tensor b = Tensor::ones({3, 1});
  Tensor bad = Tensor::from_vec_col_major<std::int64_t>({3}, {0, 3, 2});
  EXPECT_TRUE(throws_with<ValueError>([&] { linalg::lu_solve(lu, bad, b, cpu()); },
                                      {"linalg.lu_solve", "pivots[1] = 3", "[1, 3)"}));
  Tensor below = Tensor::from_vec_col_major<std::int64_t>({3}, {0, 0, 2});
  EXPECT_TRUE(
      throws_with<ValueError>([&] { linalg::lu_solve(lu, below, b, cpu()); }, {"pivots[1] = 0"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { linalg::lu_solve(lu, Tensor::zeros({3}), b, cpu()); },
                                      {"linalg.lu_solve", "pivots must be i64", "f64"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] { linalg::lu_solve(lu, Tensor::zeros({2}, DType::i64), b, cpu()); },
      {"linalg.lu_solve", "pivots [2]", "[3]"}));
}

}  // namespace
}  // namespace tenferro

namespace tenferro {
namespace {

// Issue 21, item 7: the 1-norm of a finite input overflowed (2 x 2 of
// 1.7e308), the number of squarings became an undefined int conversion and
// the result was the identity. The norm is formed without overflow, so the
// scaling goes on: exp(N) = I + N for N nilpotent (exact, hand value), and
// +inf where exp overflows.
TEST(ErrorContract, Item07MatrixExpOfOverflowingNormIsComputed) {
  const double a = 1.7e308;
  // N = a (e1 + e2) e3^T, N^2 = 0, ||N||_1 = 2a overflows.
  Tensor n3 = Tensor::from_vec_col_major<double>({3, 3}, {0, 0, 0, 0, 0, 0, a, a, 0});
  EXPECT_EQ(linalg::matrix_exp(n3, cpu()).to_vec_col_major<double>(),
            (std::vector<double>{1, 0, 0, 0, 1, 0, a, a, 1}));
  // [[a, a], [a, a]] has eigenvalues 0 and 2a: exp = I + (e^{2a} - 1) / (2a) A, all +inf.
  Tensor full = Tensor::from_vec_col_major<double>({2, 2}, {a, a, a, a});
  for (double v : linalg::matrix_exp(full, cpu()).to_vec_col_major<double>()) EXPECT_EQ(v, linalg::kInf);
  EXPECT_EQ(full.to_vec_col_major<double>(), (std::vector<double>{a, a, a, a}));  // input unchanged
  // f32 and complex take the same path: 3.4e38 in f32, a complex entry whose modulus overflows.
  const float af = 3.0e38f;
  Tensor n3f = Tensor::from_vec_col_major<float>({3, 3}, {0, 0, 0, 0, 0, 0, af, af, 0});
  EXPECT_EQ(linalg::matrix_exp(n3f, cpu()).to_vec_col_major<float>(),
            (std::vector<float>{1, 0, 0, 0, 1, 0, af, af, 1}));
  using C = std::complex<double>;
  Tensor n2c = Tensor::from_vec_col_major<C>({2, 2}, {C(0), C(0), C(a, a), C(0)});
  EXPECT_EQ(linalg::matrix_exp(n2c, cpu()).to_vec_col_major<C>(), (std::vector<C>{C(1), C(0), C(a, a), C(1)}));
  // Non-finite input stays a ValueError.
  Tensor bad = Tensor::from_vec_col_major<double>({2, 2}, {1, linalg::kInf, 0, 1});
  EXPECT_TRUE(testing::throws_with<ValueError>([&] { linalg::matrix_exp(bad, cpu()); }, {"linalg.matrix_exp"}));
}

}  // namespace
}  // namespace tenferro
