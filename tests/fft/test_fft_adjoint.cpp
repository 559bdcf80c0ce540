// The adjoint of every transform kind and norm: inner-product identities,
// the explicit matrix transpose for small sizes, and PyTorch's VJPs.
#include <fstream>
#include <nlohmann/json.hpp>

#include "fft_test_util.hpp"

using namespace tenferro;
using namespace tenferro::fft;
using namespace tenferro::fft::testing;
using tenferro::testing::random_tensor;
using tenferro::testing::with_random_layout;

namespace {

const FftType kTypes[] = {FftType::FFT, FftType::IFFT, FftType::RFFT, FftType::IRFFT};

// The operand shape of transform `a` whose logical shape is `shape`.
Shape operand_shape(const TransformAttrs& a, Shape shape) {
  if (a.type == FftType::IRFFT) {
    auto& e = shape[static_cast<std::size_t>(a.axes.back())];
    e = e / 2 + 1;
  }
  return shape;
}

DType operand_dtype(FftType t, DType real) {
  return t == FftType::RFFT ? real : complex_dtype(real);
}

Norm swapped(Norm n) {
  return n == Norm::backward ? Norm::forward : n == Norm::forward ? Norm::backward : Norm::ortho;
}

std::string describe(const TransformAttrs& a, const Shape& s) {
  std::ostringstream os;
  os << fft_type_name(a.type) << " axes " << a.axes << " lengths " << a.lengths << " norm "
     << norm_name(a.norm) << " shape " << s;
  return os.str();
}

struct Geometry {
  Shape shape;  // logical
  DimVec axes;
};

std::vector<Geometry> geometries() {
  std::vector<Geometry> g;
  for (std::int64_t n : {1, 2, 5, 6, 7, 8, 13}) {
    g.push_back({{n, 3}, {0}});
    g.push_back({{2, n}, {1}});
  }
  g.push_back({{5, 4, 3}, {0, 2}});
  g.push_back({{5, 4, 3}, {2, 1, 0}});
  g.push_back({{6, 3, 7}, {1, 2}});
  g.push_back({{4, 6, 2}, {2, 0, 1}});
  return g;
}

}  // namespace

// Re<F x, y> = Re<x, F^T y> for every kind; for the complex-linear FFT and
// IFFT also the full complex identity <F x, y> = <x, F^H y>.
TEST(FftAdjoint, InnerProductIdentity) {
  CpuBackend cpu;
  for_each_provider([&] {
    std::uint64_t seed = 1;
    for (DType real : {DType::f32, DType::f64})
      for (const Geometry& g : geometries())
        for (FftType t : kTypes)
          for (Norm norm : kNorms) {
            TransformAttrs a{.type = t, .axes = g.axes, .lengths = {}, .norm = norm};
            for (auto ax : g.axes) a.lengths.push_back(g.shape[static_cast<std::size_t>(ax)]);
            Shape in_shape = operand_shape(a, g.shape);
            seed += 2;
            Tensor x = with_random_layout(random_tensor(in_shape, operand_dtype(t, real), seed),
                                          seed, static_cast<int>(seed % 6));
            Tensor fx = transform(x, a, cpu);
            Tensor y = with_random_layout(random_tensor(fx.shape(), fx.dtype(), seed + 1), seed + 1,
                                          static_cast<int>((seed + 1) % 6));
            Tensor fty = transform_adjoint(y, a, cpu);
            EXPECT_EQ(fty.shape(), x.shape()) << describe(a, g.shape);
            EXPECT_EQ(fty.dtype(), x.dtype()) << describe(a, g.shape);
            Cx lhs = dot(fx, y), rhs = dot(x, fty);
            long double scale = std::sqrt(real_dot(fx, fx) * real_dot(y, y)) + 1e-30L;
            double tol = real == DType::f32 ? 1e-5 : 1e-13;
            EXPECT_LE(std::abs(lhs.real() - rhs.real()) / scale, tol) << describe(a, g.shape);
            if (t == FftType::FFT || t == FftType::IFFT) {
              EXPECT_LE(std::abs(lhs - rhs) / scale, tol) << describe(a, g.shape);
            }
          }
  });
}

// For small sizes, the adjoint equals the transpose of the explicit matrix
// of the map (over the reals for RFFT/IRFFT: real and imaginary unit inputs).
TEST(FftAdjoint, EqualsExplicitTranspose) {
  CpuBackend cpu;
  for_each_provider([&] {
    for (std::int64_t n : {1, 2, 3, 4, 5, 6})
      for (FftType t : kTypes)
        for (Norm norm : kNorms) {
          TransformAttrs a{.type = t, .axes = {0}, .lengths = {n}, .norm = norm};
          Shape in_shape = operand_shape(a, {n});
          DType in_dtype = operand_dtype(t, DType::f64);
          Tensor probe = transform(Tensor::zeros(in_shape, in_dtype), a, cpu);
          // Real coordinates of a tensor: (re, im) per element, or re alone.
          auto coords = [](const Tensor& v) {
            std::vector<long double> c;
            for (const Cx& z : to_ref(v).v) {
              c.push_back(z.real());
              if (is_complex(v.dtype())) c.push_back(z.imag());
            }
            return c;
          };
          auto unit = [](const Shape& s, DType d, std::size_t k) {
            std::vector<double> vals(static_cast<std::size_t>(shape_numel(s)) *
                                     (is_complex(d) ? 2 : 1));
            vals[k] = 1;
            return tensor_from_values(s, d, vals);
          };
          const std::size_t nin = coords(Tensor::zeros(in_shape, in_dtype)).size();
          const std::size_t nout = coords(probe).size();
          // M[o][i] = coordinate o of F(e_i);  adjoint(e_o) must be column o of M^T.
          std::vector<std::vector<long double>> m(nout, std::vector<long double>(nin));
          for (std::size_t i = 0; i < nin; ++i) {
            auto c = coords(transform(unit(in_shape, in_dtype, i), a, cpu));
            for (std::size_t o = 0; o < nout; ++o) m[o][i] = c[o];
          }
          for (std::size_t o = 0; o < nout; ++o) {
            auto c = coords(transform_adjoint(unit(probe.shape(), probe.dtype(), o), a, cpu));
            for (std::size_t i = 0; i < nin; ++i)
              EXPECT_NEAR(static_cast<double>(c[i]), static_cast<double>(m[o][i]), 1e-14)
                  << describe(a, {n}) << " entry (" << o << ", " << i << ")";
          }
        }
  });
}

TEST(FftAdjoint, AttrsSwapKindAndNorm) {
  TransformAttrs a{.type = FftType::RFFT, .axes = {2, 0}, .lengths = {5, 4}, .norm = Norm::backward};
  TransformAttrs t = adjoint_attrs(a);
  EXPECT_EQ(t.type, FftType::IRFFT);
  EXPECT_EQ(t.norm, Norm::forward);
  EXPECT_EQ(t.axes, a.axes);
  EXPECT_EQ(t.lengths, a.lengths);
  EXPECT_EQ(adjoint_attrs(t), a);
  EXPECT_EQ(adjoint_attrs({.type = FftType::FFT, .axes = {0}, .lengths = {3}, .norm = Norm::ortho}).type,
            FftType::IFFT);
}

// PyTorch's vector-Jacobian products (tests/fft/data/torch_vjp.json, made by
// gen_reference.py) equal the adjoint applied to the cotangent; hfft/ihfft
// compose it with conj as the transforms do.
TEST(FftAdjoint, MatchesPyTorchVjp) {
  CpuBackend cpu;
  std::ifstream in(std::string(TENFERRO_FFT_TEST_DATA_DIR) + "/torch_vjp.json");
  ASSERT_TRUE(in) << "missing torch_vjp.json";
  nlohmann::json data = nlohmann::json::parse(in);
  ASSERT_GE(data["cases"].size(), 60u);
  for_each_provider([&] {
    for (const auto& c : data["cases"]) {
      const std::string op = c["op"];
      const Norm norm = c["norm"] == "ortho" ? Norm::ortho
                        : c["norm"] == "forward" ? Norm::forward
                                                 : Norm::backward;
      const DimVec axes = c["axes"].get<std::vector<std::int64_t>>();
      const DimVec lengths = c["lengths"].get<std::vector<std::int64_t>>();
      const Shape out_shape = c["out_shape"].get<std::vector<std::int64_t>>();
      const bool out_complex = !(op == "irfft" || op == "irfftn" || op == "hfft");
      Tensor g = hash_tensor(out_shape, out_complex ? DType::c128 : DType::f64,
                             c["cotangent_seed"].get<std::uint64_t>());
      Tensor gx;
      if (op == "fft" || op == "fftn") {
        gx = transform_adjoint(g, {FftType::FFT, axes, lengths, norm}, cpu);
      } else if (op == "ifft") {
        gx = transform_adjoint(g, {FftType::IFFT, axes, lengths, norm}, cpu);
      } else if (op == "rfft" || op == "rfftn") {
        gx = transform_adjoint(g, {FftType::RFFT, axes, lengths, norm}, cpu);
      } else if (op == "irfft" || op == "irfftn") {
        gx = transform_adjoint(g, {FftType::IRFFT, axes, lengths, norm}, cpu);
      } else if (op == "hfft") {  // hfft = IRFFT(swap norm) o conj
        TransformAttrs a{FftType::IRFFT, axes, lengths, swapped(norm)};
        gx = conj(transform_adjoint(g, a, cpu), cpu);
      } else if (op == "ihfft") {  // ihfft = conj o RFFT(swap norm)
        TransformAttrs a{FftType::RFFT, axes, lengths, swapped(norm)};
        gx = transform_adjoint(conj(g, cpu), a, cpu);
      } else {
        FAIL() << "unknown op " << op;
      }
      const Shape in_shape = c["shape"].get<std::vector<std::int64_t>>();
      DType grad_dtype = c["grad_dtype"] == "c128" ? DType::c128 : DType::f64;
      Tensor expected = tensor_from_values(in_shape, grad_dtype, c["grad"].get<std::vector<double>>());
      EXPECT_TRUE(close_to(gx, expected, 1e-12)) << op << " norm " << c["norm"] << " axes " << axes
                                                 << " lengths " << lengths;
    }
  });
}
