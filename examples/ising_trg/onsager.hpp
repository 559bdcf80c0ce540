#pragma once
// Onsager's exact solution of the square-lattice Ising model (J = 1, no
// field), evaluated by numerical quadrature: the free energy
//   ln Z / N = ln(2 cosh 2b) + 1/(2 pi) Int_0^pi ln[(1 + sqrt(1 - k^2 sin^2 t)) / 2] dt,
//   k = 2 sinh(2b) / cosh^2(2b),
// and the internal energy E = -d(ln Z/N)/db in closed form with the complete
// elliptic integral K(k).
#include <cmath>
#include <numbers>

namespace ising {

/// Composite Gauss-Legendre quadrature (5 points per panel) of f on [a, b].
template <class F>
double integrate(F f, double a, double b, int panels = 4000) {
  static const double x[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640};
  static const double w[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                              0.2369268850561891};
  double h = (b - a) / panels, s = 0;
  for (int p = 0; p < panels; ++p) {
    double c = a + (p + 0.5) * h;
    for (int i = 0; i < 5; ++i) s += w[i] * f(c + 0.5 * h * x[i]);
  }
  return 0.5 * h * s;
}

/// ln Z / N at inverse temperature beta.
inline double log_z_exact(double beta) {
  double k = 2 * std::sinh(2 * beta) / (std::cosh(2 * beta) * std::cosh(2 * beta));
  double integral = integrate(
      [k](double t) {
        double q = std::sqrt(std::max(0.0, 1 - k * k * std::sin(t) * std::sin(t)));
        return std::log((1 + q) / 2);
      },
      0.0, std::numbers::pi);
  return std::log(2 * std::cosh(2 * beta)) + integral / (2 * std::numbers::pi);
}

/// Complete elliptic integral of the first kind K(k) = Int_0^{pi/2} dt / sqrt(1 - k^2 sin^2 t),
/// by the arithmetic-geometric mean: K(k) = pi / (2 AGM(1, sqrt(1 - k^2))).
inline double elliptic_k(double k) {
  double a = 1, b = std::sqrt(std::max(0.0, 1 - k * k));
  for (int i = 0; i < 64 && std::abs(a - b) > 1e-16 * a; ++i) {
    double an = (a + b) / 2;
    b = std::sqrt(a * b);
    a = an;
  }
  return std::numbers::pi / (2 * a);
}

/// Internal energy per site E = -d(ln Z/N)/d(beta)
///   = -coth(2b) [1 + (2/pi) (2 tanh^2(2b) - 1) K(k)].
inline double energy_exact(double beta) {
  double t = std::tanh(2 * beta);
  double k = 2 * std::sinh(2 * beta) / (std::cosh(2 * beta) * std::cosh(2 * beta));
  if (std::abs(k - 1) < 1e-15) return -std::sqrt(2.0);  // (2 tanh^2 - 1) K -> 0 at T_c
  return -(1 / t) * (1 + (2 / std::numbers::pi) * (2 * t * t - 1) * elliptic_k(k));
}

/// The critical temperature 2 / ln(1 + sqrt 2).
inline double critical_temperature() { return 2.0 / std::log(1.0 + std::sqrt(2.0)); }

}  // namespace ising
