#pragma once
// Levin-Nave tensor renormalization group (TRG) for the square-lattice Ising
// model (J = 1, no field), written with tenferro's traced API: the whole
// coarse-graining is one traced function of the inverse temperature, so that
// ln Z / N, its gradient and its second derivative (forward-over-reverse)
// compile into one program that is then run for every temperature.
//
// Conventions. A site tensor T[l, u, r, d] has its legs left, up, right,
// down. The Boltzmann weight of a bond, B = [[e^b, e^-b], [e^-b, e^b]], is
// split as B = W W^T with W[s, i] = Q[s, i] sqrt(lambda_i) (Q the Hadamard
// matrix / sqrt 2, lambda = 2 cosh b, 2 sinh b), so
//   T[i, j, k, l] = sum_s W[s, i] W[s, j] W[s, k] W[s, l].
// One TRG step splits T in two ways by truncated SVD,
//   T[l, u, r, d] = sum_a F1[l, u, a] F3[a, r, d]   (rows (l, u))
//   T[l, u, r, d] = sum_b F2[u, r, b] F4[b, d, l]   (rows (u, r)),
// with the square root of the singular values on each side, and contracts
// the four pieces that face one plaquette into the coarse tensor of the
// lattice rotated by 45 degrees (half as many sites):
//   T'[p, t, s, q] = sum_{e,a,b,c} F2[e, a, p] F1[a, b, q] F4[s, b, c] F3[t, c, e].
// Each tensor is divided by its Frobenius norm g_k; with N = 2^steps sites on
// a torus, ln Z / N = sum_k ln(g_k) / 2^k + ln(tr T_final) / 2^steps.
#include <cstdint>

#include <tenferro/einsum.hpp>
#include <tenferro/linalg.hpp>
#include <tenferro/runtime.hpp>

namespace ising {

struct TrgOptions {
  std::int64_t chi = 16;  ///< bond dimension kept by every truncated SVD
  int steps = 24;         ///< coarse-graining steps (2^steps sites)
  double rtol = 1e-9;     ///< singular values below rtol * s_max are dropped too
};

/// The site tensor T[l, u, r, d] at inverse temperature `beta` (rank 0).
inline tenferro::TracedTensor site_tensor(const tenferro::TracedTensor& beta) {
  using tenferro::TracedTensor;
  TracedTensor ep = beta.exp(), em = (-beta).exp();
  TracedTensor sqrt_cosh = ((ep + em) * 0.5).sqrt();
  TracedTensor sqrt_sinh = ((ep - em) * 0.5).sqrt();
  // W[s, i] (column-major): column 0 = sqrt(cosh b) (1, 1), column 1 = sqrt(sinh b) (1, -1).
  auto first = TracedTensor::from_vec_col_major<double>({2, 2}, {1, 1, 0, 0});
  auto second = TracedTensor::from_vec_col_major<double>({2, 2}, {0, 0, 1, -1});
  TracedTensor w = first * sqrt_cosh + second * sqrt_sinh;
  return tenferro::einsum("si,sj,sk,sl->ijkl", {w, w, w, w});
}

/// The two halves of a truncated SVD m = u s vh of a [d*d, d*d] matrix, with
/// sqrt(s) on each side: left[x, y, a] = (u sqrt(s))[(x, y), a] and
/// right[a, x, y] = (sqrt(s) vh)[a, (x, y)].
struct Split {
  tenferro::TracedTensor left, right;
};
inline Split split(const tenferro::TracedTensor& m, const tenferro::Dim& d,
                   const tenferro::linalg::SvdTruncatedOptions& trunc) {
  auto f = tenferro::linalg::svd_truncated(m, trunc);
  tenferro::TracedTensor root = f.s.sqrt();
  const tenferro::Dim r = f.s.shape()[0];
  return {(f.u * root).reshape({d, d, r}), (f.vh * root.reshape({r, tenferro::Dim(1)})).reshape({r, d, d})};
}

/// ln Z / N of the infinite lattice (2^steps sites) as a traced function of `beta`.
inline tenferro::TracedTensor log_z_per_site(const tenferro::TracedTensor& beta, const TrgOptions& opt) {
  using tenferro::Dim;
  using tenferro::TracedTensor;
  const tenferro::linalg::SvdTruncatedOptions trunc{.max_rank = opt.chi, .rtol = opt.rtol};
  TracedTensor t = site_tensor(beta);
  TracedTensor g = t.norm();
  t = t / g;
  TracedTensor log_z = g.log();
  double weight = 1.0;
  for (int step = 0; step < opt.steps; ++step) {
    const Dim d = t.shape()[0];
    // (l, u) | (r, d): F1[l, u, a], F3[a, r, d];  (u, r) | (d, l): F2[u, r, b], F4[b, d, l].
    Split a = split(t.reshape({d * d, d * d}), d, trunc);
    Split b = split(t.transpose({1, 2, 3, 0}).reshape({d * d, d * d}), d, trunc);
    // The four pieces around one plaquette make the coarse tensor T'[p, t, s, q].
    t = tenferro::einsum("eap,abq,sbc,tce->ptsq", {b.left, a.left, b.right, a.right});
    g = t.norm();
    t = t / g;
    weight *= 0.5;
    log_z = log_z + g.log() * weight;
  }
  // Close the last tensor on a one-site torus.
  return log_z + tenferro::einsum("ijij->", {t}).log() * weight;
}

}  // namespace ising
