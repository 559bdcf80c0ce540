// linalg.matrix_exp: scaling and squaring with diagonal Pade approximants.
//
// Note [matrix_exp]: Higham, "The scaling and squaring method for the matrix
// exponential revisited" (SIAM J. Matrix Anal. Appl. 26, 2005). For
// ||A||_1 <= theta_m the [m/m] Pade approximant r_m(A) = q_m(A)^{-1} p_m(A)
// has backward error below the unit roundoff; otherwise A is scaled by 2^-s
// so that ||A / 2^s||_1 <= theta_max, and r_max(A / 2^s) is squared s times.
// Degrees 3, 5, 7, 9, 13 in double precision and 3, 5, 7 in single; the
// theta_m are Higham's Table 2.3 values. p_m(x) = sum_j c_j x^j with
// c_j = (2m - j)! m! / ((2m)! j! (m - j)!), and q_m(x) = p_m(-x), so with
// U = odd part and V = even part, r_m = (V - U)^{-1} (V + U).
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>

#include "common.hpp"
#include "ops.hpp"
#include "small.hpp"
#include "tenferro/ops/backend.hpp"

namespace tenferro::linalg::detail {
namespace {

constexpr const char* kMatrixExp = "linalg.matrix_exp";

struct PadeDegree {
  int m;
  double theta;
};
constexpr std::array<PadeDegree, 5> kDoubleDegrees{{{3, 1.495585217958292e-2},
                                                    {5, 2.539398330063230e-1},
                                                    {7, 9.504178996162932e-1},
                                                    {9, 2.097847961257068e0},
                                                    {13, 5.371920351148152e0}}};
constexpr std::array<PadeDegree, 3> kSingleDegrees{
    {{3, 4.258730016922831e-1}, {5, 1.880152677804762e0}, {7, 3.925724783138660e0}}};

// Coefficients c_0..c_m of p_m (see the note).
std::array<double, 14> pade_coefficients(int m) {
  std::array<double, 14> c{};
  c[0] = 1.0;
  for (int j = 0; j < m; ++j)
    c[static_cast<std::size_t>(j + 1)] =
        c[static_cast<std::size_t>(j)] * (m - j) / ((j + 1.0) * (2.0 * m - j));
  return c;
}

/// Products below this order use a plain loop instead of BLAS.
constexpr std::int64_t kLoopMatmul = 16;

// c = a b for n x n column-major matrices (c distinct from a and b).
template <class T>
void square_matmul(std::int64_t n, const T* a, const T* b, T* c) {
  if (n <= kLoopMatmul) {
    std::fill(c, c + n * n, T(0));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t k = 0; k < n; ++k) {
        const T bkj = b[k + j * n];
        for (std::int64_t i = 0; i < n; ++i) c[i + j * n] += a[i + k * n] * bkj;
      }
    return;
  }
  const lapack_int ln = static_cast<lapack_int>(n);
  lapack::gemm<T>('N', 'N', ln, ln, ln, T(1), a, ln, b, ln, T(0), c, ln);
}

// out = sum_i coef[i] * mats[i] (+ c_id * I).
template <class T>
void combine(std::int64_t n, T* out, std::initializer_list<std::pair<double, const T*>> terms,
             double c_id) {
  using R = real_t<T>;
  std::fill(out, out + n * n, T(0));
  for (const auto& [c, m] : terms) {
    const R cr = static_cast<R>(c);
    for (std::int64_t i = 0; i < n * n; ++i) out[i] += cr * m[i];
  }
  for (std::int64_t i = 0; i < n; ++i) out[i + i * n] += static_cast<R>(c_id);
}

template <class T>
struct ExpWorkspace {
  std::vector<T> a, a2, a4, a6, a8, u, v, t;
  std::vector<lapack_int> ipiv;
  explicit ExpWorkspace(std::int64_t n) {
    const auto nn = static_cast<std::size_t>(n * n);
    for (auto* buf : {&a, &a2, &a4, &a6, &a8, &u, &v, &t}) buf->resize(nn);
    ipiv.resize(static_cast<std::size_t>(n));
  }
};

// exp of ws.a (n x n) into out; returns getrf's info (0 on success).
template <class T>
int expm(std::int64_t n, ExpWorkspace<T>& ws, T* out) {
  using R = real_t<T>;
  T* a = ws.a.data();
  // The 1-norm as amax * inner (amax = the largest |re| or |im|, inner = the
  // largest column sum of |a_ij| / amax, at most sqrt(2) n), so a finite
  // input whose norm overflows (2 x 2 of 1.7e308) still gets a finite
  // log2 ||A||_1 and its number of squarings; forming the sum directly gave
  // inf, an undefined int conversion and the identity as the result.
  double amax = 0;
  for (std::int64_t i = 0; i < n * n; ++i) {
    amax = std::max(amax, static_cast<double>(std::abs(std::real(a[i]))));
    amax = std::max(amax, static_cast<double>(std::abs(std::imag(a[i]))));
  }
  double inner = 0;
  for (std::int64_t j = 0; amax > 0 && j < n; ++j) {
    double col = 0;
    for (std::int64_t i = 0; i < n; ++i) col += std::abs(static_cast<std::complex<double>>(a[i + j * n]) / amax);
    inner = std::max(inner, col);
  }
  const double norm1 = amax * inner;  // may be inf; only compared
  constexpr bool single = std::is_same_v<R, float>;
  const PadeDegree* degrees = single ? kSingleDegrees.data() : kDoubleDegrees.data();
  const std::size_t ndeg = single ? kSingleDegrees.size() : kDoubleDegrees.size();
  PadeDegree deg = degrees[ndeg - 1];
  int s = 0;
  for (std::size_t i = 0; i + 1 < ndeg; ++i)
    if (norm1 <= degrees[i].theta) {
      deg = degrees[i];
      break;
    }
  if (deg.m == degrees[ndeg - 1].m && norm1 > deg.theta) {
    s = static_cast<int>(std::ceil(std::log2(amax) + std::log2(inner) - std::log2(deg.theta)));
    // A / 2^s in two exact power-of-two steps (2^-s alone underflows for s
    // beyond the exponent range, e.g. s = 1030 for a huge f64 norm).
    const R lo = std::ldexp(R(1), -(s / 2)), hi = std::ldexp(R(1), -(s - s / 2));
    for (std::int64_t i = 0; i < n * n; ++i) a[i] = (a[i] * lo) * hi;
  }
  const std::array<double, 14> c = pade_coefficients(deg.m);
  auto C = [&](int j) { return c[static_cast<std::size_t>(j)]; };
  T *a2 = ws.a2.data(), *a4 = ws.a4.data(), *a6 = ws.a6.data(), *a8 = ws.a8.data();
  T *u = ws.u.data(), *v = ws.v.data(), *t = ws.t.data();
  square_matmul(n, a, a, a2);
  if (deg.m >= 5) square_matmul(n, a2, a2, a4);
  if (deg.m >= 7) square_matmul(n, a4, a2, a6);
  switch (deg.m) {
    case 3:
      combine<T>(n, t, {{C(3), a2}}, C(1));
      combine<T>(n, v, {{C(2), a2}}, C(0));
      break;
    case 5:
      combine<T>(n, t, {{C(5), a4}, {C(3), a2}}, C(1));
      combine<T>(n, v, {{C(4), a4}, {C(2), a2}}, C(0));
      break;
    case 7:
      combine<T>(n, t, {{C(7), a6}, {C(5), a4}, {C(3), a2}}, C(1));
      combine<T>(n, v, {{C(6), a6}, {C(4), a4}, {C(2), a2}}, C(0));
      break;
    case 9:
      square_matmul(n, a6, a2, a8);
      combine<T>(n, t, {{C(9), a8}, {C(7), a6}, {C(5), a4}, {C(3), a2}}, C(1));
      combine<T>(n, v, {{C(8), a8}, {C(6), a6}, {C(4), a4}, {C(2), a2}}, C(0));
      break;
    default:  // 13: powers up to a6 only, nested once more
      combine<T>(n, u, {{C(13), a6}, {C(11), a4}, {C(9), a2}}, 0.0);
      square_matmul(n, a6, u, t);
      for (std::int64_t i = 0; i < n * n; ++i)
        t[i] += static_cast<R>(C(7)) * a6[i] + static_cast<R>(C(5)) * a4[i] +
                static_cast<R>(C(3)) * a2[i];
      for (std::int64_t i = 0; i < n; ++i) t[i + i * n] += static_cast<R>(C(1));
      combine<T>(n, u, {{C(12), a6}, {C(10), a4}, {C(8), a2}}, 0.0);
      square_matmul(n, a6, u, v);
      for (std::int64_t i = 0; i < n * n; ++i)
        v[i] += static_cast<R>(C(6)) * a6[i] + static_cast<R>(C(4)) * a4[i] +
                static_cast<R>(C(2)) * a2[i];
      for (std::int64_t i = 0; i < n; ++i) v[i + i * n] += static_cast<R>(C(0));
      break;
  }
  square_matmul(n, a, t, u);  // U = A * (odd part / A)
  // Solve (V - U) R = (V + U); R lands in out (or in a scratch buffer when squarings follow).
  T* p = s % 2 == 0 ? out : a2;
  for (std::int64_t i = 0; i < n * n; ++i) {
    p[i] = v[i] + u[i];
    v[i] -= u[i];
  }
  const lapack_int ln = static_cast<lapack_int>(n);
  int info = getrf_auto<T>(ln, ln, v, ln, ws.ipiv.data());
  if (info != 0) return info;
  getrs_auto<T>('N', ln, ln, v, ln, ws.ipiv.data(), p, ln);
  // s squarings, alternating between two buffers so that the last lands in out.
  T* cur = p;
  for (int i = 0; i < s; ++i) {
    T* next = cur == out ? a2 : out;
    square_matmul(n, cur, cur, next);
    cur = next;
  }
  return 0;
}

std::vector<Tensor> matrix_exp_kernel(const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  check_finite(kMatrixExp, a, "a");
  Tensor out = be.empty(a.dtype(), a.shape());
  visit_dtype<kFloatDTypes>(a.dtype(), kMatrixExp, [&]<class T>() {
    const MatrixBatch mb = matrix_batch(a);
    const std::int64_t n = mb.rows, count = mb.count();
    if (n == 0) return;
    to_lapack_int(kMatrixExp, n);
    const T* base = ptr<T>(a);
    BatchStatus status(count);
    for_each_batch(
        count, split_batch(count, n, n), [&] { return ExpWorkspace<T>(n); },
        [&](std::int64_t b, ExpWorkspace<T>& ws) {
          load_matrix(ws.a.data(), n, base, mb, b);
          status.set(b, expm(n, ws, ptr<T>(out) + b * n * n));
        });
    throw_if_failed(kMatrixExp, a, "a", status, [](int info) {
      return ::tenferro::detail::str("gave a singular Pade denominator (getrf info ", info, ")");
    });
  });
  return {out};
}

}  // namespace

Declaration declare_matrix_exp() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kMatrixExp, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const NoFamilyAttrs&, auto in) { return infer_square(kMatrixExp, in); }, matrix_exp_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>(matrix_exp_kernel)};
}

}  // namespace tenferro::linalg::detail
