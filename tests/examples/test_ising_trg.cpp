// The flagship example at a reduced bond dimension (chi = 8): ln Z / N
// against Onsager, the AD energy against a central difference of ln Z / N,
// the HVP specific heat against a difference of the AD energy, and the
// position of the specific-heat peak. The exact solution itself is checked
// first (E = -d lnZ/d beta by differences, E(Tc) = -sqrt 2).
#include <gtest/gtest.h>

#include <cmath>

#include <tenferro/ad.hpp>
#include <tenferro/cpu.hpp>

#include "ising_trg/onsager.hpp"
#include "ising_trg/trg.hpp"

namespace {

using namespace tenferro;

constexpr double kTc = 2.269185314213022;  // 2 / ln(1 + sqrt 2)

TEST(Onsager, EnergyIsMinusTheDerivativeOfLogZ) {
  for (double t : {1.5, 2.0, 2.2, 2.4, 3.0}) {
    const double b = 1 / t, h = 1e-5;
    const double fd = -(ising::log_z_exact(b + h) - ising::log_z_exact(b - h)) / (2 * h);
    EXPECT_NEAR(ising::energy_exact(b), fd, 1e-8) << "T = " << t;
  }
  EXPECT_NEAR(ising::critical_temperature(), kTc, 1e-14);
  EXPECT_NEAR(ising::energy_exact(1 / kTc), -std::sqrt(2.0), 1e-12);
  // High-temperature series: ln Z / N = ln 2 + 2 ln cosh b + tanh^4 b + O(tanh^6 b).
  const double th = std::tanh(0.05);
  EXPECT_NEAR(ising::log_z_exact(0.05), std::log(2.0) + 2 * std::log(std::cosh(0.05)) + std::pow(th, 4), 1e-7);
}

class IsingTrg : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ising::TrgOptions opt{.chi = 8, .steps = 20};
    TracedTensor beta = TracedTensor::input("beta", DType::f64, {});
    TracedTensor log_z = ising::log_z_per_site(beta, opt);
    TracedTensor dlog_z = grad(log_z, beta);
    TracedTensor d2log_z = jvp(dlog_z, beta, TracedTensor::from_vec_col_major<double>({}, {1.0}));
    program_ = new Program(GraphCompiler().compile({log_z, dlog_z, d2log_z}));
  }
  static void TearDownTestSuite() { delete program_; }

  struct Point {
    double log_z, dlog_z, d2log_z;
  };
  Point run(double beta) const {
    auto out = runtime_.run_compiled(*program_, {{"beta", Tensor::from_vec_col_major<double>({}, {beta})}});
    return {out[0].item().to<double>(), out[1].item().to<double>(), out[2].item().to<double>()};
  }

  static Program* program_;
  CpuBackend backend_;
  Runtime runtime_ =
      Runtime::builder().register_engine(cpu_engine(backend_)).register_family(linalg::family()).build();
};
Program* IsingTrg::program_ = nullptr;

TEST_F(IsingTrg, LogZMatchesOnsager) {
  // Measured at chi = 8, 20 steps: 1.3e-7 (T = 1.8) to 5.4e-5 (T = 2.5) away
  // from Tc, 1.2e-4 at T = 2.3; the bounds leave a factor of about 3.
  for (double t : {1.8, 2.0, 2.5, 2.8}) {
    const double b = 1 / t;
    EXPECT_LT(std::abs(run(b).log_z / ising::log_z_exact(b) - 1), 1.5e-4) << "T = " << t;
  }
  for (double t : {2.2, 2.27, 2.35}) {
    const double b = 1 / t;
    EXPECT_LT(std::abs(run(b).log_z / ising::log_z_exact(b) - 1), 1e-3) << "T = " << t;
  }
}

TEST_F(IsingTrg, AdEnergyMatchesFiniteDifference) {
  for (double t : {2.0, 2.25, 2.6}) {
    const double b = 1 / t, h = 1e-5;
    const double fd = (run(b + h).log_z - run(b - h).log_z) / (2 * h);
    const double ad = run(b).dlog_z;
    EXPECT_LT(std::abs(ad / fd - 1), 1e-6) << "T = " << t << " AD " << ad << " FD " << fd;
    // And it is close to the exact energy.
    EXPECT_LT(std::abs(-ad / ising::energy_exact(b) - 1), 5e-3) << "T = " << t;
  }
}

TEST_F(IsingTrg, HvpSpecificHeatMatchesDifferenceOfGradient) {
  for (double t : {2.0, 2.6}) {
    const double b = 1 / t, h = 1e-4;
    const double fd = (run(b + h).dlog_z - run(b - h).dlog_z) / (2 * h);
    const double hvp = run(b).d2log_z;
    EXPECT_LT(std::abs(hvp / fd - 1), 1e-4) << "T = " << t << " HVP " << hvp << " FD " << fd;
  }
}

TEST_F(IsingTrg, SpecificHeatPeaksNearTc) {
  double best_t = 0, best_c = -1;
  for (int i = 0; i <= 20; ++i) {
    const double t = 2.1 + 0.02 * i, b = 1 / t;
    const double c = b * b * run(b).d2log_z;
    if (c > best_c) best_c = c, best_t = t;
  }
  EXPECT_LT(std::abs(best_t - kTc), 0.05) << "peak at T = " << best_t;
  EXPECT_GT(best_c, 1.0);
}

}  // namespace
