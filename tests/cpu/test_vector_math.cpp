// Note [Vector exp]: accuracy against std::exp, special values, and identical
// results for contiguous (vector kernel) and strided (scalar path) layouts.
#include <cmath>
#include <limits>

#include "support/test_support.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {
double ulps(double a, double b) {
  if (a == b) return 0;
  return std::abs(a - b) / (std::nextafter(std::abs(b), INFINITY) - std::abs(b));
}
}  // namespace

TEST(VectorExp, AccurateAndIdenticalAcrossLayouts) {
  CpuBackend cpu;
  const std::int64_t n = 20001;
  Tensor x = Tensor::uniform({n}, DType::f64, 5, -745.0, 709.7);
  Tensor y = ops::exp(x, cpu);                          // contiguous: the array kernel
  Tensor ys = ops::exp(x.reshape({n, 1}).permute({1, 0}).select(0, 0).flip({0}), cpu);  // strided: the scalar path
  auto xv = x.to_vec_col_major<double>(), yv = y.to_vec_col_major<double>(), ysv = ys.to_vec_col_major<double>();
  double worst = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double want = std::exp(xv[static_cast<std::size_t>(i)]);
    if (want >= std::numeric_limits<double>::min()) worst = std::max(worst, ulps(yv[static_cast<std::size_t>(i)], want));
    ASSERT_EQ(ysv[static_cast<std::size_t>(n - 1 - i)], yv[static_cast<std::size_t>(i)]) << "x = " << xv[static_cast<std::size_t>(i)];
  }
  EXPECT_LE(worst, 1.0);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  Tensor s = Tensor::from_vec_col_major<double>({8}, {0.0, -0.0, inf, -inf, nan, 710.0, -746.0, -740.0});
  auto e = ops::exp(s, cpu).to_vec_col_major<double>();
  EXPECT_EQ(e[0], 1.0);
  EXPECT_EQ(e[1], 1.0);
  EXPECT_EQ(e[2], inf);
  EXPECT_EQ(e[3], 0.0);
  EXPECT_TRUE(std::isnan(e[4]));
  EXPECT_EQ(e[5], inf);
  EXPECT_EQ(e[6], 0.0);
  EXPECT_EQ(e[7], std::exp(-740.0));  // subnormal
  // f32 goes through the double kernel and rounds once: correctly rounded here.
  Tensor xf = Tensor::uniform({1000}, DType::f32, 6, -80.0, 80.0);
  auto ef = ops::exp(xf, cpu).to_vec_col_major<float>();
  auto xfv = xf.to_vec_col_major<float>();
  for (std::size_t i = 0; i < xfv.size(); ++i) EXPECT_EQ(ef[i], static_cast<float>(std::exp(static_cast<double>(xfv[i]))));
}
