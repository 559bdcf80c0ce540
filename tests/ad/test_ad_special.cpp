// Eager derivatives of the rounding, remainder, binary-exponent and special
// function primitives: backward() of sum(f(x)) on EagerTensors against
// central finite differences of the same function on Tensors (away from
// jumps and poles), and a second derivative (backward of a gradient built
// with create-graph semantics is not needed: the JVP rules are themselves
// differentiable, which test_ad_rules checks traced through HVPs).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "support/test_support.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/ops/sugar.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

struct Case {
  std::string name;
  std::function<EagerTensor(const EagerTensor&)> eager;
  std::function<Tensor(const Tensor&, Backend&)> tensor;
  double lo, hi;  // inputs uniform in [lo, hi)
};

std::vector<Case> cases() {
#define TF_CASE(fn, lo, hi) \
  Case { #fn, [](const EagerTensor& x) { return fn(x); }, [](const Tensor& x, Backend& b) { return fn(x, b); }, lo, hi }
  return {
      TF_CASE(erf, -2.5, 2.5),
      TF_CASE(erfc, -2.5, 2.5),
      TF_CASE(erfinv, -0.9, 0.9),
      TF_CASE(erfcx, -2.0, 5.0),
      TF_CASE(lgamma, 0.3, 6.0),
      TF_CASE(digamma, 0.3, 6.0),
      TF_CASE(i0, -4.0, 4.0),
      TF_CASE(i0e, 0.2, 4.0),
      TF_CASE(i1, -4.0, 4.0),
      TF_CASE(i1e, 0.2, 4.0),
      TF_CASE(ndtr, -4.0, 4.0),
      TF_CASE(ndtri, 0.02, 0.98),
      TF_CASE(log_ndtr, -6.0, 6.0),
      Case{"polygamma(2, x)", [](const EagerTensor& x) { return polygamma(2, x); },
           [](const Tensor& x, Backend& b) { return polygamma(2, x, b); }, 0.5, 5.0},
      Case{"mvlgamma(x, 3)", [](const EagerTensor& x) { return mvlgamma(x, 3); },
           [](const Tensor& x, Backend& b) { return mvlgamma(x, 3, b); }, 1.5, 6.0},
      Case{"fmod(x, 0.7)", [](const EagerTensor& x) { return fmod(x, Scalar(0.7)); },
           [](const Tensor& x, Backend& b) { return fmod(x, Scalar(0.7), b); }, 0.05, 0.65},
      Case{"remainder(x, -0.7)", [](const EagerTensor& x) { return remainder(x, Scalar(-0.7)); },
           [](const Tensor& x, Backend& b) { return remainder(x, Scalar(-0.7), b); }, 0.05, 0.65},
      Case{"ldexp(x, 3)", [](const EagerTensor& x) { return ldexp(x, Scalar(3.0)); },
           [](const Tensor& x, Backend& b) { return ldexp(x, Scalar(3.0), b); }, -2.0, 2.0},
      Case{"frexp(x).mantissa", [](const EagerTensor& x) { return frexp(x).first; },
           [](const Tensor& x, Backend& b) { return frexp(x, b).first; }, 1.1, 1.9},
      Case{"round(x, 1) + x", [](const EagerTensor& x) { return round(x, 1) + x; },
           [](const Tensor& x, Backend& b) { return add(round(x, 1, b), x, b); }, 0.12, 0.18},
      Case{"floor(x) ceil(x) trunc(x) + x", [](const EagerTensor& x) { return floor(x) * ceil(x) * trunc(x) + x; },
           [](const Tensor& x, Backend& b) {
             return add(mul(mul(floor(x, b), ceil(x, b), b), trunc(x, b), b), x, b);
           },
           1.2, 1.8},
  };
#undef TF_CASE
}

TEST(EagerSpecialDerivatives, BackwardMatchesFiniteDifferences) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  std::uint64_t seed = 5;
  std::size_t checked = 0;
  for (const Case& c : cases()) {
    Tensor x0 = Tensor::uniform({7}, DType::f64, seed++, c.lo, c.hi);
    EagerTensor x = rt.tensor(x0).requires_grad();
    backward(sum(c.eager(x)));
    std::vector<double> g = x.grad().value().to_vec_col_major<double>();
    std::vector<double> xs = x0.to_vec_col_major<double>();
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double h = 1e-6 * std::max(1.0, std::fabs(xs[i]));
      auto f_at = [&](double v) {
        std::vector<double> p = xs;
        p[i] = v;
        Tensor t = Tensor::from_vec_col_major<double>({static_cast<std::int64_t>(p.size())}, p);
        return sum(c.tensor(t, cpu), cpu).to_vec_col_major<double>()[0];
      };
      const double fd = (f_at(xs[i] + h) - f_at(xs[i] - h)) / (2 * h);
      EXPECT_NEAR(g[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << c.name << " at x = " << xs[i];
      ++checked;
    }
  }
  EXPECT_EQ(checked, cases().size() * 7);
}

// Rounding has a zero derivative: the gradient through it is exactly 0.
TEST(EagerSpecialDerivatives, RoundingGradientIsZero) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  EagerTensor x = rt.tensor(Tensor::from_vec_col_major<double>({4}, {-1.5, -0.2, 0.7, 2.5})).requires_grad();
  backward(sum(floor(x) + ceil(x) + trunc(x) + round(x) + frexp(x).second.convert(DType::f64)));
  EXPECT_EQ(x.grad().value().to_vec_col_major<double>(), (std::vector<double>{0, 0, 0, 0}));
}

// Bad input: clear errors naming the op and the value, in every mode.
TEST(SpecialFunctionErrors, BadOrdersAndDtypes) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  Tensor x = Tensor::from_vec_col_major<double>({2}, {1.0, 2.0});
  EXPECT_TRUE(throws_with<ValueError>([&] { return polygamma(-1, x, cpu); }, {"polygamma", "-1"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { return ops::polygamma(1001, x, cpu); }, {"polygamma", "1001"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { return mvlgamma(x, 0, cpu); }, {"mvlgamma", "p", "0"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { return round(x, 400, cpu); }, {"round", "400"}));
  Tensor z = Tensor::from_vec_col_major<std::complex<double>>({1}, {{1.0, 1.0}});
  EXPECT_TRUE(throws_with<DTypeError>([&] { return erf(z, cpu); }, {"erf", "c128"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { return floor(z, cpu); }, {"floor", "c128"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { return fmod(z, z, cpu); }, {"fmod", "c128"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { return polygamma(1, rt.tensor(z)).value(); }, {"polygamma", "c128"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] { return ops::fmod(x, Tensor::from_vec_col_major<double>({3}, {1, 2, 3}), cpu); }, {"fmod", "[2]", "[3]"}));
}

// Values by hand (definitions): ties to even, the signs of fmod and
// remainder, frexp of a power of two, integers through the rounding sugar.
TEST(RoundingValues, ByHand) {
  CpuBackend cpu;
  auto v = [](const Tensor& t) { return t.to_vec_col_major<double>(); };
  Tensor x = Tensor::from_vec_col_major<double>({6}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5});
  EXPECT_EQ(v(round(x, cpu)), (std::vector<double>{-2, -2, -0.0, 0, 2, 2}));
  EXPECT_TRUE(std::signbit(v(round(x, cpu))[2]));
  EXPECT_EQ(v(floor(x, cpu)), (std::vector<double>{-3, -2, -1, 0, 1, 2}));
  EXPECT_EQ(v(ceil(x, cpu)), (std::vector<double>{-2, -1, -0.0, 1, 2, 3}));
  EXPECT_EQ(v(trunc(x, cpu)), (std::vector<double>{-2, -1, -0.0, 0, 1, 2}));
  EXPECT_EQ(v(round(Tensor::from_vec_col_major<double>({2}, {1.2345, -1250.0}), 2, cpu)), (std::vector<double>{1.23, -1250}));
  EXPECT_EQ(v(round(Tensor::from_vec_col_major<double>({2}, {1250.0, 1350.0}), -2, cpu)), (std::vector<double>{1200, 1400}));
  Tensor a = Tensor::from_vec_col_major<double>({4}, {7, -7, 7, -7});
  Tensor b = Tensor::from_vec_col_major<double>({4}, {3, 3, -3, -3});
  EXPECT_EQ(v(fmod(a, b, cpu)), (std::vector<double>{1, -1, 1, -1}));
  EXPECT_EQ(v(remainder(a, b, cpu)), (std::vector<double>{1, 2, -2, -1}));
  auto [m, k] = frexp(Tensor::from_vec_col_major<double>({3}, {8.0, -0.375, 0.0}), cpu);
  EXPECT_EQ(v(m), (std::vector<double>{0.5, -0.75, 0.0}));
  EXPECT_EQ(k.dtype(), DType::i32);
  EXPECT_EQ(k.to_vec_col_major<std::int32_t>(), (std::vector<std::int32_t>{4, -1, 0}));
  EXPECT_EQ(v(ldexp(Tensor::from_vec_col_major<double>({2}, {0.75, 1.0}), Tensor::from_vec_col_major<std::int32_t>({2}, {4, -1074}), cpu)),
            (std::vector<double>{12.0, 4.9406564584124654e-324}));
  Tensor i = Tensor::from_vec_col_major<std::int64_t>({2}, {3, -4});
  EXPECT_EQ(floor(i, cpu).dtype(), DType::i64);  // integers are already integral
  EXPECT_EQ(remainder(i, Scalar(3), cpu).to_vec_col_major<double>(), (std::vector<double>{0, 2}));  // computed in f64
}

}  // namespace
