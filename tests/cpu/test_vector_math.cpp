// Note [Vector exp]: accuracy against std::exp, special values, and identical
// results for contiguous (vector kernel) and strided (scalar path) layouts.
// Note [Vector arithmetic]: the array kernels against a plain loop, bit for bit.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "support/test_support.hpp"
#include "../../src/cpu/vector_math.hpp"

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

namespace {
// Random values with signed zeros, infinities, NaN, subnormals and zeros
// (so divide meets x / 0 and 0 / 0).
template <class T>
std::vector<T> arith_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<T> u(-4, 4);
  const T special[] = {T(0), T(-0.0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                       std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min(),
                       std::numeric_limits<T>::max(), T(1)};
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i % 5 == 3 ? special[(i / 5) % 8] : u(rng);
  return v;
}

template <class T>
T plain(tenferro::cpu::Arith op, T x, T y) {
  switch (op) {
    case tenferro::cpu::Arith::add: return x + y;
    case tenferro::cpu::Arith::subtract: return x - y;
    case tenferro::cpu::Arith::multiply: return x * y;
    case tenferro::cpu::Arith::divide: return x / y;
  }
  return T(0);
}

template <class T>
void check_arith() {
  using tenferro::cpu::Arith;
  const std::size_t kGuard = 8;
  for (Arith op : {Arith::add, Arith::subtract, Arith::multiply, Arith::divide})
    for (auto [sa, sb] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {1, 0}, {0, 1}})
      for (std::int64_t n : {0, 1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 47, 64, 100, 1001}) {
        const auto a = arith_values<T>(static_cast<std::size_t>(n) + 1, 11 + static_cast<unsigned>(n));
        const auto b = arith_values<T>(static_cast<std::size_t>(n) + 1, 97 + static_cast<unsigned>(n));
        const T canary = T(12345);
        std::vector<T> o(static_cast<std::size_t>(n) + kGuard, canary);
        tenferro::cpu::arith_array(op, a.data() + 1, sa, b.data() + 1, sb, o.data(), n);  // unaligned starts
        for (std::int64_t i = 0; i < n; ++i) {
          const T want = plain(op, a[static_cast<std::size_t>(1 + i * sa)], b[static_cast<std::size_t>(1 + i * sb)]);
          const T got = o[static_cast<std::size_t>(i)];
          if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(got)) << "op " << int(op) << " n " << n << " i " << i;
          } else {
            // bit for bit (signed zeros included)
            ASSERT_EQ(std::memcmp(&want, &got, sizeof(T)), 0)
                << "op " << int(op) << " strides " << sa << "," << sb << " n " << n << " i " << i << ": " << got
                << " vs " << want;
          }
        }
        for (std::size_t g = 0; g < kGuard; ++g) ASSERT_EQ(o[static_cast<std::size_t>(n) + g], canary) << "wrote past n = " << n;
      }
}
}  // namespace

TEST(VectorArith, EveryOpStrideAndLengthMatchesAPlainLoopBitForBit) {
  check_arith<double>();
  check_arith<float>();
}

// The elementwise kernels take the vector path for contiguous and broadcast
// runs and the scalar loop for strided ones: both give the same bits, and
// each element is the operation on its operands.
template <class T>
void check_broadcast_products(DType dt) {
  CpuBackend cpu;
  Tensor a = Tensor::uniform({37, 5}, dt, 3, -2.0, 2.0);
  Tensor b = Tensor::uniform({1, 5}, dt, 4, 0.5, 2.0);
  Tensor bb = b.broadcast_to({37, 5});
  Tensor at = a.permute({1, 0}).contiguous().permute({1, 0});  // the same values in row-major order
  const auto av = a.to_vec_col_major<T>(), bv = bb.to_vec_col_major<T>();
  using Op = Tensor (*)(const Tensor&, const Tensor&, Backend&);
  const Op fs[] = {&ops::add, &ops::subtract, &ops::multiply, &ops::divide};
  for (int k = 0; k < 4; ++k) {
    const auto fv = fs[k](a, bb, cpu).to_vec_col_major<T>(), sv = fs[k](at, bb, cpu).to_vec_col_major<T>();
    const auto rv = fs[k](bb, a, cpu).to_vec_col_major<T>();  // the broadcast operand first
    for (std::size_t i = 0; i < fv.size(); ++i) {
      const T x = av[i], y = bv[i];
      const T want = k == 0 ? x + y : k == 1 ? x - y : k == 2 ? x * y : x / y;
      const T rwant = k == 0 ? y + x : k == 1 ? y - x : k == 2 ? y * x : y / x;
      ASSERT_EQ(fv[i], want) << "op " << k << " i " << i;
      ASSERT_EQ(sv[i], want) << "op " << k << " i " << i;
      ASSERT_EQ(rv[i], rwant) << "op " << k << " i " << i;
    }
  }
}

TEST(VectorArith, BroadcastProductsMatchTheStridedPath) {
  check_broadcast_products<double>(DType::f64);
  check_broadcast_products<float>(DType::f32);
}
