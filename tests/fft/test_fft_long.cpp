// Long lines (pocketfft driver, Note [Long transforms]: four-step, Bluestein,
// real transforms through half-length complex ones): individual outputs
// against the direct O(n) sum in long double, for lengths past the
// threshold, contiguous and strided, both precisions.
#include <numbers>
#include <random>

#include "fft_test_util.hpp"

using namespace tenferro;
using namespace tenferro::fft;
using namespace tenferro::fft::testing;
using tenferro::testing::random_tensor;

namespace {

// One thread here (the long path's threading is FftProvider.ThreadedExecution's).
struct SingleThread {
  int saved = get_num_threads();
  SingleThread() { set_num_threads(1); }
  ~SingleThread() { set_num_threads(saved); }
};

// Line `b` of `t` along `axis` (t has rank 2) as long doubles.
std::vector<Cx> line(const Tensor& t, std::int64_t axis, std::int64_t b) {
  std::vector<Cx> v;
  for (std::int64_t i = 0; i < t.size(axis); ++i) {
    auto z = tenferro::testing::value_at(t, axis == 0 ? DimVec{i, b} : DimVec{b, i});
    v.emplace_back(z.real(), z.imag());
  }
  return v;
}

// exp(sign 2 pi i p / n), from a table of exp(2 pi i m / n) built once per n.
Cx unit(int sign, std::int64_t p, std::int64_t n) {
  static std::int64_t table_n = 0;
  static std::vector<Cx> table;
  if (table_n != n) {
    table.resize(static_cast<std::size_t>(n));
    for (std::int64_t m = 0; m < n; ++m) {
      long double a = 2.0L * std::numbers::pi_v<long double> * static_cast<long double>(m) /
                      static_cast<long double>(n);
      table[std::size_t(m)] = {std::cos(a), std::sin(a)};
    }
    table_n = n;
  }
  const Cx& w = table[static_cast<std::size_t>(p % n)];
  return sign > 0 ? w : std::conj(w);
}

// sum_j x_j exp(sign 2 pi i jk/n).
Cx direct(const std::vector<Cx>& x, std::int64_t k, int sign) {
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  Cx s = 0;
  for (std::int64_t j = 0; j < n; ++j) s += x[std::size_t(j)] * unit(sign, j * k, n);
  return s;
}

// The c2r output x_j of a half spectrum z for a length-n signal.
long double direct_c2r(const std::vector<Cx>& z, std::int64_t j, std::int64_t n) {
  long double s = z[0].real();
  std::int64_t k = 1;
  for (; 2 * k < n; ++k) s += 2 * (z[std::size_t(k)] * unit(+1, j * k, n)).real();
  if (2 * k == n) s += z[std::size_t(k)].real() * (j % 2 == 0 ? 1 : -1);
  return s;
}

long double norm2(const std::vector<Cx>& x) {
  long double s = 0;
  for (const Cx& z : x) s += std::norm(z);
  return std::sqrt(s);
}

std::vector<std::int64_t> probes(std::int64_t n, std::int64_t count, std::uint64_t seed) {
  std::vector<std::int64_t> k{0, 1, 2, count / 2, count - 1};
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 6; ++i) k.push_back(static_cast<std::int64_t>(rng() % std::uint64_t(count)));
  (void)n;
  return k;
}

// [n, 2] along axis 0 (contiguous lines) or [3, n] along axis 1 (strided).
Shape shape_for(std::int64_t n, std::int64_t axis) { return axis == 0 ? Shape{n, 2} : Shape{3, n}; }

}  // namespace

TEST(FftLong, ComplexSpotChecks) {
  SingleThread one;
  CpuBackend cpu;
  // 2^15 (the threshold), 3^10, 3^2 5 7 11 13 (four-step), 40009 (prime) and
  // 2 x 40009 (Bluestein).
  const std::int64_t sizes[] = {32768, 59049, 45045, 40009, 80018};
  for_each_provider([&] {
    std::uint64_t seed = 1;
    for (std::int64_t n : sizes)
      for (std::int64_t axis : {0, 1})
        for (DType d : {DType::c128, DType::c64}) {
          Tensor x = random_tensor(shape_for(n, axis), d, ++seed);
          const double tol = d == DType::c64 ? 1e-5 : 1e-12;
          for (bool inverse : {false, true}) {
            Tensor y = inverse ? ifft(x, cpu, {.axis = axis, .norm = Norm::ortho})
                               : fft::fft(x, cpu, {.axis = axis, .norm = Norm::ortho});
            const std::int64_t b = axis == 0 ? 1 : 2;
            std::vector<Cx> xl = line(x, axis, b), yl = line(y, axis, b);
            const long double scale = 1 / std::sqrt(static_cast<long double>(n));
            for (std::int64_t k : probes(n, n, seed)) {
              Cx expect = direct(xl, k, inverse ? +1 : -1) * scale;
              EXPECT_LE(static_cast<double>(std::abs(yl[std::size_t(k)] - expect) / norm2(xl)), tol)
                  << (inverse ? "ifft" : "fft") << " n " << n << " axis " << axis << " dtype " << d
                  << " k " << k;
            }
          }
        }
  });
}

TEST(FftLong, RealSpotChecks) {
  SingleThread one;
  CpuBackend cpu;
  // even (half-length complex: 2^16 -> 2^15 four-step, 2 x 3^10 -> 3^10), odd
  // (complex: 3^10 four-step, the prime 80021 Bluestein).
  const std::int64_t sizes[] = {65536, 118098, 59049, 80021};
  for_each_provider([&] {
    std::uint64_t seed = 100;
    for (std::int64_t n : sizes)
      for (std::int64_t axis : {0, 1})
        for (DType d : {DType::f64, DType::f32}) {
          const double tol = d == DType::f32 ? 1e-5 : 1e-12;
          const std::int64_t b = axis == 0 ? 1 : 2;
          Tensor x = random_tensor(shape_for(n, axis), d, ++seed);
          Tensor X = rfft(x, cpu, {.axis = axis});
          ASSERT_EQ(X.size(axis), n / 2 + 1);
          std::vector<Cx> xl = line(x, axis, b), Xl = line(X, axis, b);
          for (std::int64_t k : probes(n, n / 2 + 1, seed))
            EXPECT_LE(static_cast<double>(std::abs(Xl[std::size_t(k)] - direct(xl, k, -1)) / norm2(xl)),
                      tol)
                << "rfft n " << n << " axis " << axis << " dtype " << d << " k " << k;
          // irfft of an arbitrary half spectrum (imaginary parts at 0 and n/2 ignored)
          Tensor z = random_tensor(shape_for(n / 2 + 1, axis), complex_dtype(d), ++seed);
          Tensor r = irfft(z, cpu, {.n = n, .axis = axis, .norm = Norm::forward});
          ASSERT_EQ(r.size(axis), n);
          std::vector<Cx> zl = line(z, axis, b), rl = line(r, axis, b);
          for (std::int64_t j : probes(n, n, seed))
            EXPECT_LE(static_cast<double>(std::abs(rl[std::size_t(j)].real() - direct_c2r(zl, j, n)) /
                                          (2 * norm2(zl))),
                      tol)
                << "irfft n " << n << " axis " << axis << " dtype " << d << " j " << j;
          // and the round trip
          EXPECT_TRUE(close_to(irfft(X, cpu, {.n = n, .axis = axis}), x, tol));
        }
  });
}
