// Larger sizes against numpy.fft (tests/fft/data/numpy_reference.json, made by
// gen_reference.py), in the reference's precision and in single precision.
#include <fstream>
#include <nlohmann/json.hpp>

#include "fft_test_util.hpp"

using namespace tenferro;
using namespace tenferro::fft;
using namespace tenferro::fft::testing;

namespace {

Norm parse_norm(const std::string& s) {
  return s == "ortho" ? Norm::ortho : s == "forward" ? Norm::forward : Norm::backward;
}

Tensor run(const nlohmann::json& c, const Tensor& x, Backend& b) {
  const std::string op = c["op"];
  const Norm norm = parse_norm(c["norm"]);
  if (!c["axis"].is_null()) {
    Options o{.n = std::nullopt, .axis = c["axis"].get<std::int64_t>(), .norm = norm};
    if (!c["n"].is_null()) o.n = c["n"].get<std::int64_t>();
    if (op == "fft") return fft::fft(x, b, o);
    if (op == "ifft") return ifft(x, b, o);
    if (op == "rfft") return rfft(x, b, o);
    if (op == "irfft") return irfft(x, b, o);
    if (op == "hfft") return hfft(x, b, o);
    if (op == "ihfft") return ihfft(x, b, o);
  } else {
    NdOptions o{.s = std::nullopt, .axes = std::nullopt, .norm = norm};
    const auto axes = c["axes"].get<std::vector<std::int64_t>>();
    o.axes.emplace(axes);
    if (!c["s"].is_null()) {
      const auto s = c["s"].get<std::vector<std::int64_t>>();
      o.s.emplace(s);
    }
    if (op == "fft2") return fft2(x, b, o);
    if (op == "ifft2") return ifft2(x, b, o);
    if (op == "rfft2") return rfft2(x, b, o);
    if (op == "irfft2") return irfft2(x, b, o);
    if (op == "fftn") return fftn(x, b, o);
    if (op == "ifftn") return ifftn(x, b, o);
    if (op == "rfftn") return rfftn(x, b, o);
    if (op == "irfftn") return irfftn(x, b, o);
  }
  throw std::runtime_error("unknown op " + op);
}

DType parse_dtype(const std::string& s) {
  return s == "c128" ? DType::c128 : s == "c64" ? DType::c64 : s == "f32" ? DType::f32 : DType::f64;
}

}  // namespace

TEST(FftReference, MatchesNumpy) {
  CpuBackend cpu;
  std::ifstream in(std::string(TENFERRO_FFT_TEST_DATA_DIR) + "/numpy_reference.json");
  ASSERT_TRUE(in) << "missing numpy_reference.json";
  nlohmann::json data = nlohmann::json::parse(in);
  ASSERT_GE(data["cases"].size(), 30u);
  for_each_provider([&] {
    for (const auto& c : data["cases"]) {
      const Shape shape = c["shape"].get<std::vector<std::int64_t>>();
      const DType dtype = parse_dtype(c["dtype"]);
      const DType out_dtype = parse_dtype(c["out_dtype"]);
      const Shape out_shape = c["out_shape"].get<std::vector<std::int64_t>>();
      Tensor expected = tensor_from_values(out_shape, out_dtype, c["out"].get<std::vector<double>>());
      Tensor x = hash_tensor(shape, dtype, c["seed"].get<std::uint64_t>());
      std::string what = c["op"].get<std::string>() + " shape " + c["shape"].dump() + " norm " +
                         c["norm"].get<std::string>();
      // The reference has 15 significant digits.
      EXPECT_TRUE(close_to(run(c, x, cpu), expected, 1e-12)) << what;
      // Single precision: same values to float accuracy.
      DType single = dtype == DType::c128 ? DType::c64 : DType::f32;
      DType single_out = out_dtype == DType::c128 ? DType::c64 : DType::f32;
      Tensor xs = hash_tensor(shape, single, c["seed"].get<std::uint64_t>());
      Tensor ys = run(c, xs, cpu);
      EXPECT_EQ(ys.dtype(), single_out) << what;
      EXPECT_TRUE(close_to(ys, tensor_from_values(out_shape, single_out, c["out"].get<std::vector<double>>()),
                           5e-6))
          << what << " (single precision)";
    }
  });
}
