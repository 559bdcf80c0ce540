// Every transform against the naive O(n^2) DFT (long double), for small and
// prime sizes, all float dtypes, all norms, batched inputs in random layouts.
#include "fft_test_util.hpp"

using namespace tenferro;
using namespace tenferro::fft;
using namespace tenferro::fft::testing;
using tenferro::testing::kNumLayouts;
using tenferro::testing::random_tensor;
using tenferro::testing::with_random_layout;

namespace {

const std::vector<std::int64_t> kSizes{1, 2, 3, 4, 5, 7, 8, 12, 13, 16, 97, 100};
const DType kReal[] = {DType::f32, DType::f64};
const DType kComplex[] = {DType::c64, DType::c128};

// Batched shapes with the transformed axis of extent `n` at several positions.
struct Placement {
  Shape shape;
  std::int64_t axis;  // as passed (may be negative)
  std::int64_t normalized;
};
std::vector<Placement> placements(std::int64_t n) {
  return {{{n, 3}, 0, 0}, {{2, n}, 1, 1}, {{2, n, 2}, -2, 1}};
}

// Random values in a random layout (seeded per case).
Tensor input(const Shape& shape, DType dtype, std::uint64_t seed) {
  return with_random_layout(random_tensor(shape, dtype, seed), seed,
                            static_cast<int>(seed % kNumLayouts));
}

std::string label(const char* op, DType d, std::int64_t n, const Placement& p, Norm norm) {
  std::ostringstream os;
  os << op << " dtype " << d << " n " << n << " shape " << p.shape << " axis " << p.axis
     << " norm " << norm_name(norm);
  return os.str();
}

}  // namespace

TEST(FftNaive, ComplexTransforms) {
  CpuBackend cpu;
  for_each_provider([&] {
    std::uint64_t seed = 1;
    for (DType d : tenferro::testing::float_dtypes())
      for (std::int64_t n : kSizes)
        for (const Placement& p : placements(n))
          for (Norm norm : kNorms) {
            Tensor x = input(p.shape, d, ++seed);
            Ref rx = to_ref(x);
            Options o{.n = std::nullopt, .axis = p.axis, .norm = norm};
            EXPECT_TRUE(close_to(fft::fft(x, cpu, o), ref_c2c(rx, {p.normalized}, {n}, norm, false),
                                 complex_dtype(d), tol_for(d)))
                << label("fft", d, n, p, norm);
            EXPECT_TRUE(close_to(ifft(x, cpu, o), ref_c2c(rx, {p.normalized}, {n}, norm, true),
                                 complex_dtype(d), tol_for(d)))
                << label("ifft", d, n, p, norm);
          }
  });
}

TEST(FftNaive, RealForwardTransforms) {
  CpuBackend cpu;
  for_each_provider([&] {
    std::uint64_t seed = 1000;
    for (DType d : kReal)
      for (std::int64_t n : kSizes)
        for (const Placement& p : placements(n))
          for (Norm norm : kNorms) {
            Tensor x = input(p.shape, d, ++seed);
            Ref rx = to_ref(x);
            Options o{.n = std::nullopt, .axis = p.axis, .norm = norm};
            EXPECT_TRUE(close_to(rfft(x, cpu, o), ref_r2c(rx, {p.normalized}, {n}, norm),
                                 complex_dtype(d), tol_for(d)))
                << label("rfft", d, n, p, norm);
            EXPECT_TRUE(close_to(ihfft(x, cpu, o), ref_ihfft(rx, p.normalized, n, norm),
                                 complex_dtype(d), tol_for(d)))
                << label("ihfft", d, n, p, norm);
          }
  });
}

// irfft and hfft for odd and even output lengths n, from m = n/2 + 1 inputs;
// real input is promoted to complex.
TEST(FftNaive, RealInverseTransforms) {
  CpuBackend cpu;
  for_each_provider([&] {
    std::uint64_t seed = 2000;
    for (DType d : tenferro::testing::float_dtypes())
      for (std::int64_t n : kSizes)
        for (const Placement& q : placements(n)) {
          Placement p = q;
          p.shape[static_cast<std::size_t>(p.normalized)] = n / 2 + 1;
          for (Norm norm : kNorms) {
            Tensor x = input(p.shape, d, ++seed);
            Ref rx = to_ref(x);
            Options o{.n = n, .axis = p.axis, .norm = norm};
            EXPECT_TRUE(close_to(irfft(x, cpu, o), ref_c2r(rx, {p.normalized}, {n}, norm),
                                 real_dtype(d), tol_for(d)))
                << label("irfft", d, n, p, norm);
            EXPECT_TRUE(close_to(hfft(x, cpu, o), ref_hfft(rx, p.normalized, n, norm),
                                 real_dtype(d), tol_for(d)))
                << label("hfft", d, n, p, norm);
            if (n % 2 == 0 && n >= 2) {  // the default length 2 (m - 1) is n
              Options dflt{.n = std::nullopt, .axis = p.axis, .norm = norm};
              EXPECT_TRUE(close_to(irfft(x, cpu, dflt), ref_c2r(rx, {p.normalized}, {n}, norm),
                                   real_dtype(d), tol_for(d)))
                  << label("irfft default n", d, n, p, norm);
            }
          }
        }
  });
}

// `n` crops or zero-pads the input (for irfft/hfft: the half spectrum).
TEST(FftNaive, LengthsCropAndPad) {
  CpuBackend cpu;
  for_each_provider([&] {
    std::uint64_t seed = 3000;
    for (DType d : {DType::f64, DType::c64, DType::c128})
      for (std::int64_t m : {1, 6, 7})
        for (std::int64_t n : {1, 2, 5, 8, 11, 16}) {
          for (std::int64_t axis : {0, 1}) {
            Shape shape = axis == 0 ? Shape{m, 2} : Shape{3, m};
            Tensor x = input(shape, d, ++seed);
            Ref rx = to_ref(x);
            Options o{.n = n, .axis = axis, .norm = Norm::ortho};
            std::string what = "m " + std::to_string(m) + " n " + std::to_string(n) + " axis " +
                               std::to_string(axis);
            EXPECT_TRUE(close_to(fft::fft(x, cpu, o), ref_c2c(rx, {axis}, {n}, Norm::ortho, false),
                                 complex_dtype(d), tol_for(d)))
                << "fft " << what;
            EXPECT_TRUE(close_to(ifft(x, cpu, o), ref_c2c(rx, {axis}, {n}, Norm::ortho, true),
                                 complex_dtype(d), tol_for(d)))
                << "ifft " << what;
            EXPECT_TRUE(close_to(irfft(x, cpu, o), ref_c2r(rx, {axis}, {n}, Norm::ortho),
                                 real_dtype(d), tol_for(d)))
                << "irfft " << what;
            EXPECT_TRUE(close_to(hfft(x, cpu, o), ref_hfft(rx, axis, n, Norm::ortho),
                                 real_dtype(d), tol_for(d)))
                << "hfft " << what;
            if (!is_complex(d)) {
              EXPECT_TRUE(close_to(rfft(x, cpu, o), ref_r2c(rx, {axis}, {n}, Norm::ortho),
                                   complex_dtype(d), tol_for(d)))
                  << "rfft " << what;
              EXPECT_TRUE(close_to(ihfft(x, cpu, o), ref_ihfft(rx, axis, n, Norm::ortho),
                                   complex_dtype(d), tol_for(d)))
                  << "ihfft " << what;
            }
          }
        }
  });
}

// Extent 0: empty batches give empty results of the right shape; a complex
// transform of length 0 is empty too.
TEST(FftNaive, EmptyTensors) {
  CpuBackend cpu;
  for_each_provider([&] {
    EXPECT_EQ(fft::fft(Tensor::zeros({0, 3}, DType::c128), cpu).shape(), (Shape{0, 3}));
    EXPECT_EQ(ifft(Tensor::zeros({0}, DType::c64), cpu).shape(), (Shape{0}));
    EXPECT_EQ(fft::fft(Tensor::zeros({5, 0}, DType::f64), cpu).shape(), (Shape{5, 0}));
    EXPECT_EQ(fft::fft(Tensor::zeros({0}, DType::c128), cpu, {.n = 4}).shape(), (Shape{4}));
    EXPECT_TRUE(close_to(fft::fft(Tensor::zeros({0}, DType::c128), cpu, {.n = 4}),
                         zeros_ref({4}), DType::c128, 0.0));
    Tensor r = rfft(Tensor::zeros({6, 0}, DType::f32), cpu);
    EXPECT_EQ(r.shape(), (Shape{4, 0}));
    EXPECT_EQ(r.dtype(), DType::c64);
    Tensor i = irfft(Tensor::zeros({4, 0}, DType::c128), cpu, {.n = 7});
    EXPECT_EQ(i.shape(), (Shape{7, 0}));
    EXPECT_EQ(i.dtype(), DType::f64);
    EXPECT_EQ(fftn(Tensor::zeros({0, 4}, DType::c128), cpu).shape(), (Shape{0, 4}));
    EXPECT_EQ(rfftn(Tensor::zeros({3, 0, 4}, DType::f64), cpu, {.axes = DimVec{0, 2}}).shape(),
              (Shape{3, 0, 3}));
  });
}

// n-D transforms over axis subsets in any order, with lengths, against
// the naive DFT applied axis by axis.
TEST(FftNaive, MultiAxisTransforms) {
  CpuBackend cpu;
  struct NdCase {
    Shape shape;
    DimVec axes;       // as passed
    DimVec resolved;   // normalized
    std::optional<Shape> s;
  };
  const std::vector<NdCase> cases{
      {{4, 5, 3}, {0, 1}, {0, 1}, std::nullopt},
      {{4, 5, 3}, {2, 0}, {2, 0}, std::nullopt},
      {{4, 5, 3}, {1}, {1}, std::nullopt},
      {{4, 5, 3}, {0, 1, 2}, {0, 1, 2}, std::nullopt},
      {{4, 5, 3}, {-1, 0}, {2, 0}, Shape{6, 3}},
      {{6, 7, 2, 2}, {1, 0}, {1, 0}, Shape{5, 8}},
      {{6, 7, 2, 2}, {3, 1, 0}, {3, 1, 0}, Shape{2, 7, 7}},
      {{3, 1, 4}, {1, 2}, {1, 2}, Shape{2, 4}},
  };
  for_each_provider([&] {
    std::uint64_t seed = 4000;
    for (const NdCase& c : cases)
      for (Norm norm : kNorms)
        for (DType d : tenferro::testing::float_dtypes()) {
          Tensor x = input(c.shape, d, ++seed);
          Ref rx = to_ref(x);
          NdOptions o{.s = c.s, .axes = c.axes, .norm = norm};
          DimVec lengths;
          for (std::size_t i = 0; i < c.resolved.size(); ++i)
            lengths.push_back(c.s ? (*c.s)[i] : c.shape[static_cast<std::size_t>(c.resolved[i])]);
          std::ostringstream what;
          what << "shape " << c.shape << " axes " << c.axes << " lengths " << lengths << " norm "
               << norm_name(norm) << " dtype " << d;
          EXPECT_TRUE(close_to(fftn(x, cpu, o), ref_c2c(rx, c.resolved, lengths, norm, false),
                               complex_dtype(d), tol_for(d)))
              << "fftn " << what.str();
          EXPECT_TRUE(close_to(ifftn(x, cpu, o), ref_c2c(rx, c.resolved, lengths, norm, true),
                               complex_dtype(d), tol_for(d)))
              << "ifftn " << what.str();
          if (!is_complex(d)) {
            EXPECT_TRUE(close_to(rfftn(x, cpu, o), ref_r2c(rx, c.resolved, lengths, norm),
                                 complex_dtype(d), tol_for(d)))
                << "rfftn " << what.str();
          }
          // irfftn: output lengths `lengths`, odd and even along the real axis.
          for (std::int64_t last : {lengths.back(), lengths.back() + 1}) {
            DimVec out_len = lengths;
            out_len.back() = last;
            Shape in_shape = c.shape;
            for (std::size_t i = 0; i + 1 < c.resolved.size(); ++i)
              in_shape[static_cast<std::size_t>(c.resolved[i])] = out_len[i];
            in_shape[static_cast<std::size_t>(c.resolved.back())] = last / 2 + 1;
            Tensor z = input(in_shape, d, ++seed);
            NdOptions oi{.s = Shape(out_len), .axes = c.axes, .norm = norm};
            EXPECT_TRUE(close_to(irfftn(z, cpu, oi), ref_c2r(to_ref(z), c.resolved, out_len, norm),
                                 real_dtype(d), tol_for(d)))
                << "irfftn " << what.str() << " output lengths " << out_len;
          }
        }
  });
}

// The 2-D functions and the n-D defaults (leading axes).
TEST(FftNaive, DefaultAxes) {
  CpuBackend cpu;
  for_each_provider([&] {
    Tensor x = input({4, 6, 3}, DType::c128, 77);
    Tensor r = input({4, 6, 3}, DType::f64, 78);
    Ref rx = to_ref(x), rr = to_ref(r);
    const double tol = 1e-12;
    EXPECT_TRUE(close_to(fft2(x, cpu), ref_c2c(rx, {0, 1}, {4, 6}, Norm::backward, false),
                         DType::c128, tol));
    EXPECT_TRUE(close_to(ifft2(x, cpu, {.norm = Norm::ortho}),
                         ref_c2c(rx, {0, 1}, {4, 6}, Norm::ortho, true), DType::c128, tol));
    EXPECT_TRUE(close_to(rfft2(r, cpu), ref_r2c(rr, {0, 1}, {4, 6}, Norm::backward), DType::c128,
                         tol));
    EXPECT_TRUE(close_to(irfft2(x, cpu), ref_c2r(rx, {0, 1}, {4, 10}, Norm::backward), DType::f64,
                         tol));
    EXPECT_TRUE(close_to(irfft2(x, cpu, {.s = Shape{5, 9}}),
                         ref_c2r(rx, {0, 1}, {5, 9}, Norm::backward), DType::f64, tol));
    EXPECT_TRUE(close_to(fftn(x, cpu), ref_c2c(rx, {0, 1, 2}, {4, 6, 3}, Norm::backward, false),
                         DType::c128, tol));
    EXPECT_TRUE(close_to(fftn(x, cpu, {.s = Shape{8}}),
                         ref_c2c(rx, {0}, {8}, Norm::backward, false), DType::c128, tol));
    EXPECT_TRUE(close_to(rfftn(r, cpu), ref_r2c(rr, {0, 1, 2}, {4, 6, 3}, Norm::backward),
                         DType::c128, tol));
    EXPECT_TRUE(close_to(irfftn(x, cpu), ref_c2r(rx, {0, 1, 2}, {4, 6, 4}, Norm::backward),
                         DType::f64, tol));
    // 1-D defaults: axis 0.
    EXPECT_TRUE(close_to(fft::fft(x, cpu), ref_c2c(rx, {0}, {4}, Norm::backward, false),
                         DType::c128, tol));
    EXPECT_TRUE(close_to(irfft(x, cpu), ref_c2r(rx, {0}, {6}, Norm::backward), DType::f64, tol));
  });
}

// A broadcast input (stride 0) is read in place.
TEST(FftNaive, BroadcastInput) {
  CpuBackend cpu;
  for_each_provider([&] {
    Tensor row = random_tensor({1, 5}, DType::c128, 5);
    Tensor x = row.broadcast_to({6, 5});  // stride 0 along axis 0
    ASSERT_EQ(x.strides()[0], 0);
    Ref rx = to_ref(x);
    EXPECT_TRUE(close_to(fft::fft(x, cpu, {.axis = 1}),
                         ref_c2c(rx, {1}, {5}, Norm::backward, false), DType::c128, 1e-12));
    EXPECT_TRUE(close_to(fft::fft(x, cpu, {.axis = 0}),
                         ref_c2c(rx, {0}, {6}, Norm::backward, false), DType::c128, 1e-12));
    Tensor xr = random_tensor({7, 1}, DType::f64, 6).broadcast_to({7, 4});
    EXPECT_TRUE(close_to(rfftn(xr, cpu), ref_r2c(to_ref(xr), {0, 1}, {7, 4}, Norm::backward),
                         DType::c128, 1e-12));
  });
}
