// AD through the FFT family and the handle-level calls (traced and eager):
// - every transform x norm x (default length, cropping, zero-padding)
//   through the generic checker (tests/ad/ad_check.hpp): JVP against central
//   differences, <v, J u> = <J^H v, u>, and the HVP of sum |y|^4;
// - gradients of real losses against PyTorch (data/fft_ad_reference.json,
//   written by data/make_fft_ad_reference.py), traced and eager;
// - one compiled program (an FFT, its loss, grad and HVP) run for two batch
//   sizes against a naive DFT written out here;
// - handle calls against the Tensor API, and bad input.
#include <cmath>
#include <complex>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>

#include "ad/ad_check.hpp"
#include "fft_test_util.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
namespace ft = tenferro::fft::testing;
using fft::Norm;
using fft::Transform;
using fft::testing::kNorms;
using tenferro::testing::AdCase;
using tenferro::testing::AdTolerances;
using tenferro::testing::check_ad_case;
using tenferro::testing::random_tensor;

namespace {

Runtime fft_runtime(CpuBackend& cpu) {
  return Runtime::builder().register_engine(cpu_engine(cpu)).register_family(fft::family()).build();
}

void register_fft_once() {
  static const bool done = [] {
    tenferro::testing::register_ad_check_family(fft::family());
    return true;
  }();
  (void)done;
}

// One call of a transform with its options (1-D or n-D).
struct Call {
  Transform t;
  bool nd = false;
  fft::Options o{};
  fft::NdOptions no{};

  Value apply(const Value& x) const { return nd ? fft::lower(x, t, no) : fft::lower(x, t, o); }
  Call with_norm(Norm n) const {
    Call c = *this;
    c.o.norm = n;
    c.no.norm = n;
    return c;
  }
  Tensor eager_tensor(const Tensor& x, CpuBackend& b) const {
    switch (t) {
      case Transform::fft: return fft::fft(x, b, o);
      case Transform::ifft: return fft::ifft(x, b, o);
      case Transform::rfft: return fft::rfft(x, b, o);
      case Transform::irfft: return fft::irfft(x, b, o);
      case Transform::hfft: return fft::hfft(x, b, o);
      case Transform::ihfft: return fft::ihfft(x, b, o);
      case Transform::fft2: return fft::fft2(x, b, no);
      case Transform::ifft2: return fft::ifft2(x, b, no);
      case Transform::rfft2: return fft::rfft2(x, b, no);
      case Transform::irfft2: return fft::irfft2(x, b, no);
      case Transform::fftn: return fft::fftn(x, b, no);
      case Transform::ifftn: return fft::ifftn(x, b, no);
      case Transform::rfftn: return fft::rfftn(x, b, no);
      case Transform::irfftn: return fft::irfftn(x, b, no);
    }
    return {};
  }
  std::string describe() const {
    std::ostringstream os;
    os << fft::transform_name(t);
    if (nd) {
      os << " s=" << (no.s ? detail::str(*no.s) : "-") << " axes=" << (no.axes ? detail::str(*no.axes) : "-")
         << " norm=" << fft::norm_name(no.norm);
    } else {
      os << " n=" << (o.n ? std::to_string(*o.n) : "-") << " axis=" << o.axis
         << " norm=" << fft::norm_name(o.norm);
    }
    return os.str();
  }
};

Call c1(Transform t, std::optional<std::int64_t> n, std::int64_t axis = 0) {
  return Call{t, false, fft::Options{.n = n, .axis = axis}, {}};
}
Call cn(Transform t, std::optional<Shape> s, std::optional<DimVec> axes = std::nullopt) {
  return Call{t, true, {}, fft::NdOptions{.s = s, .axes = axes}};
}

// An operand and the calls (lengths: default, crop, pad) to check on it.
struct Operand {
  Shape shape;
  DType dtype;
  std::vector<Call> calls;
};

std::vector<Operand> operands() {
  using T = Transform;
  const std::nullopt_t none = std::nullopt;
  return {
      {{6, 2}, DType::c128, {c1(T::fft, none), c1(T::fft, 4), c1(T::fft, 9)}},
      {{3, 5}, DType::f64, {c1(T::fft, none, -1), c1(T::fft, 8, -1)}},  // real input promotes
      {{2, 5}, DType::c128, {c1(T::ifft, none, 1), c1(T::ifft, 3, 1), c1(T::ifft, 8, 1)}},
      {{6, 2}, DType::f64, {c1(T::rfft, none), c1(T::rfft, 5), c1(T::rfft, 9), c1(T::rfft, 8)}},
      // irfft: n = 8 (default), 7 (crop to 4), 9 (5 entries), 12 (pad to 7)
      {{5, 2}, DType::c128, {c1(T::irfft, none), c1(T::irfft, 7), c1(T::irfft, 9), c1(T::irfft, 12)}},
      {{4}, DType::f64, {c1(T::irfft, 6), c1(T::irfft, 5)}},  // real input promotes
      {{4, 3}, DType::c128, {c1(T::hfft, none), c1(T::hfft, 5), c1(T::hfft, 9)}},
      {{7, 2}, DType::f64, {c1(T::ihfft, none), c1(T::ihfft, 6), c1(T::ihfft, 10)}},
      {{4, 3, 2}, DType::c128, {cn(T::fft2, none), cn(T::fft2, Shape{3, 5})}},
      {{3, 4}, DType::c128, {cn(T::ifft2, none), cn(T::ifft2, Shape{5, 2})}},
      {{4, 5, 2}, DType::f64, {cn(T::rfft2, none), cn(T::rfft2, Shape{3, 6}), cn(T::rfft2, Shape{5, 4})}},
      {{3, 4, 2}, DType::c128, {cn(T::irfft2, none), cn(T::irfft2, Shape{3, 7}), cn(T::irfft2, Shape{2, 5})}},
      {{3, 2, 4}, DType::c128, {cn(T::fftn, none), cn(T::fftn, Shape{5, 2}, DimVec{2, 0})}},
      {{3, 4}, DType::c128, {cn(T::ifftn, none), cn(T::ifftn, Shape{2, 6})}},
      {{4, 3, 5}, DType::f64,
       {cn(T::rfftn, none, DimVec{0, 2}), cn(T::rfftn, Shape{3, 8}, DimVec{0, 2}), cn(T::rfftn, Shape{2, 3}, DimVec{2, 1})}},
      {{3, 4, 2}, DType::c128,
       {cn(T::irfftn, none, DimVec{2, 0}), cn(T::irfftn, Shape{2, 5}, DimVec{2, 0}), cn(T::irfftn, Shape{3, 4, 6})}},
  };
}

// sum |y|^4, a smooth nonlinear real scalarisation.
Value quartic(const Value& y) {
  Value a2 = is_complex(y.dtype()) ? vops::real(vops::mul(y, vops::conj(y))) : vops::square(y);
  return vops::sum(vops::square(a2));
}

}  // namespace

// The transforms themselves (linear maps; complex or real outputs) and the
// quartic loss (second derivatives through the transpose rules).
TEST(FftAd, CheckerEveryTransformNormAndLength) {
  register_fft_once();
  std::uint64_t seed = 500;
  int count = 0;
  for (const Operand& s : operands())
    for (const Call& base : s.calls)
      for (Norm norm : kNorms) {
        const Call call = base.with_norm(norm);
        Tensor x = random_tensor(s.shape, s.dtype, ++seed);
        const std::string name = detail::str(call.describe(), " on ", s.dtype, s.shape);
        check_ad_case(AdCase{name, [call](const std::vector<Value>& v) { return call.apply(v[0]); }, {x}},
                      AdTolerances{.hvp = false});
        check_ad_case(AdCase{name + " |y|^4", [call](const std::vector<Value>& v) { return quartic(call.apply(v[0])); },
                             {x}});
        count += 2;
      }
  EXPECT_GE(count, 3 * 2 * 40);
}

// A transform composed with its own adjoint direction (x -> ifft(|fft x|^2 fft x))
// and two FFT nodes in one graph: rules compose.
TEST(FftAd, CheckerCompositions) {
  register_fft_once();
  Tensor z = random_tensor({6, 2}, DType::c128, 31);
  check_ad_case(AdCase{"ifft(|fft z|^2 fft z)",
                       [](const std::vector<Value>& v) {
                         Value f = fft::lower(v[0], Transform::fft, fft::Options{.norm = Norm::ortho});
                         Value m = vops::mul(vops::real(vops::mul(f, vops::conj(f))), f);
                         return fft::lower(m, Transform::ifft, fft::Options{});
                       },
                       {z}});
  Tensor x = random_tensor({7, 3}, DType::f64, 32);
  check_ad_case(AdCase{"irfft(rfft(x)^2, n=7)",
                       [](const std::vector<Value>& v) {
                         Value f = fft::lower(v[0], Transform::rfft, fft::Options{});
                         return fft::lower(vops::mul(f, f), Transform::irfft, fft::Options{.n = 7});
                       },
                       {x}});
}

// ---- handles agree with the Tensor API -----------------------------------------------------

TEST(FftAd, TracedAndEagerCallsMatchTensorApi) {
  CpuBackend cpu;
  Runtime rt = fft_runtime(cpu);
  EagerRuntime eager(cpu);
  std::uint64_t seed = 900;
  for (const Operand& s : operands())
    for (const Call& base : s.calls)
      for (Norm norm : kNorms) {
        const Call call = base.with_norm(norm);
        Tensor x = random_tensor(s.shape, s.dtype, ++seed);
        Tensor expected = call.eager_tensor(x, cpu);
        TracedTensor tx = TracedTensor::input("x", s.dtype, to_sym_shape(s.shape));
        TracedTensor ty(call.apply(tx.graph_value()));
        Program p = GraphCompiler().compile(ty);
        Tensor traced = rt.run_compiled(p, {{"x", x}})[0];
        EXPECT_TRUE(ft::close_to(traced, expected, 1e-13)) << "traced " << call.describe();
        EagerTensor ey(call.apply(eager.tensor(x).graph_value()));
        EXPECT_TRUE(ft::close_to(ey.value(), expected, 1e-13)) << "eager " << call.describe();
      }
}

// The public templates on both handle types, spelled as a user would.
TEST(FftAd, HandleFunctionsSpelledOut) {
  CpuBackend cpu;
  Runtime rt = fft_runtime(cpu);
  Tensor x = random_tensor({8, 2}, DType::f64, 3);
  TracedTensor tx = TracedTensor::input("x", DType::f64, {Dim(8), Dim(2)});
  std::vector<TracedTensor> outs{
      fft::fft(tx), fft::ifft(tx, {.n = 5}), fft::rfft(tx, {.norm = Norm::ortho}), fft::irfft(fft::rfft(tx), {.n = 8}),
      fft::hfft(fft::ihfft(tx), {.n = 8}), fft::ihfft(tx), fft::fft2(tx), fft::ifft2(tx, {.s = Shape{4, 2}}),
      fft::rfft2(tx), fft::irfft2(fft::rfft2(tx), {.s = Shape{8, 2}}), fft::fftn(tx), fft::ifftn(tx),
      fft::rfftn(tx, {.axes = DimVec{0}}), fft::irfftn(fft::rfftn(tx), {.s = Shape{8, 2}})};
  std::vector<Tensor> got = rt.run_compiled(GraphCompiler().compile(outs), {{"x", x}});
  std::vector<Tensor> want{fft::fft(x, cpu), fft::ifft(x, cpu, {.n = 5}), fft::rfft(x, cpu, {.norm = Norm::ortho}),
                           x, x, fft::ihfft(x, cpu), fft::fft2(x, cpu), fft::ifft2(x, cpu, {.s = Shape{4, 2}}),
                           fft::rfft2(x, cpu), x, fft::fftn(x, cpu), fft::ifftn(x, cpu),
                           fft::rfftn(x, cpu, {.axes = DimVec{0}}), x};
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(ft::close_to(got[i], want[i], 1e-13)) << "output " << i;

  EagerRuntime eager(cpu);
  EagerTensor ex = eager.tensor(x);
  EXPECT_TRUE(ft::close_to(fft::irfft(fft::rfft(ex), {.n = 8}).value(), x, 1e-13));
  EXPECT_TRUE(ft::close_to(fft::fftn(ex, {.s = Shape{6}}).value(), fft::fftn(x, cpu, {.s = Shape{6}}), 1e-13));
}

// ---- PyTorch reference gradients ----------------------------------------------------------------

namespace {

template <class H>
H call_reference(const nlohmann::json& c, const H& x) {
  const std::string op = c["op"];
  const Norm norm = c["norm"] == "ortho" ? Norm::ortho : c["norm"] == "forward" ? Norm::forward : Norm::backward;
  fft::Options o{.n = std::nullopt, .axis = c["axis"].get<std::int64_t>(), .norm = norm};
  if (!c["n"].is_null()) o.n = c["n"].get<std::int64_t>();
  fft::NdOptions no{.s = std::nullopt, .axes = std::nullopt, .norm = norm};
  if (!c["s"].is_null()) no.s = c["s"].get<std::vector<std::int64_t>>();
  if (!c["axes"].is_null()) no.axes = c["axes"].get<std::vector<std::int64_t>>();
  if (op == "fft") return fft::fft(x, o);
  if (op == "ifft") return fft::ifft(x, o);
  if (op == "rfft") return fft::rfft(x, o);
  if (op == "irfft") return fft::irfft(x, o);
  if (op == "hfft") return fft::hfft(x, o);
  if (op == "ihfft") return fft::ihfft(x, o);
  if (op == "fft2") return fft::fft2(x, no);
  if (op == "ifft2") return fft::ifft2(x, no);
  if (op == "rfft2") return fft::rfft2(x, no);
  if (op == "irfft2") return fft::irfft2(x, no);
  if (op == "fftn") return fft::fftn(x, no);
  if (op == "ifftn") return fft::ifftn(x, no);
  if (op == "rfftn") return fft::rfftn(x, no);
  if (op == "irfftn") return fft::irfftn(x, no);
  ADD_FAILURE() << "unknown op " << op;
  return x;
}

template <class H>
H reference_loss(const std::string& kind, const H& y, const H& w) {
  H g = kind == "abs2"     ? (y * y.conj()).real()
        : kind == "real"   ? y.real()
        : kind == "imag"   ? y.imag()
        : kind == "square" ? y * y
                           : y;
  return (w * g).sum();
}

struct RefCase {
  nlohmann::json c;
  Tensor x, w, grad;
  double loss;
  std::string name;
};

std::vector<RefCase> reference_cases() {
  std::ifstream in(std::string(TENFERRO_FFT_TEST_DATA_DIR) + "/fft_ad_reference.json");
  EXPECT_TRUE(in) << "missing fft_ad_reference.json";
  if (!in) return {};
  nlohmann::json data = nlohmann::json::parse(in);
  std::vector<RefCase> out;
  for (const auto& c : data["cases"]) {
    RefCase r;
    r.c = c;
    const DType dt = c["x_dtype"] == "c128" ? DType::c128 : DType::f64;
    r.x = ft::tensor_from_values(c["x_shape"].get<std::vector<std::int64_t>>(), dt, c["x"].get<std::vector<double>>());
    r.w = ft::tensor_from_values(c["w_shape"].get<std::vector<std::int64_t>>(), DType::f64,
                                 c["w"].get<std::vector<double>>());
    r.grad = ft::tensor_from_values(r.x.shape(), dt, c["grad"].get<std::vector<double>>());
    r.loss = c["loss_value"].get<double>();
    r.name = detail::str(c["op"].get<std::string>(), " norm=", c["norm"].get<std::string>(), " n=", c["n"].dump(),
                         " s=", c["s"].dump(), " axis=", c["axis"].dump(), " axes=", c["axes"].dump(),
                         " loss=", c["loss"].get<std::string>(), " x ", dt, r.x.shape());
    out.push_back(std::move(r));
  }
  return out;
}

double scalar_of(const Tensor& t) { return tenferro::testing::value_at(t, {}).real(); }

}  // namespace

TEST(FftAdReference, TracedGradientsMatchPyTorch) {
  CpuBackend cpu;
  Runtime rt = fft_runtime(cpu);
  std::vector<RefCase> cases = reference_cases();
  ASSERT_GE(cases.size(), 60u);
  for (const RefCase& r : cases) {
    TracedTensor x = TracedTensor::input("x", r.x.dtype(), to_sym_shape(r.x.shape()));
    TracedTensor loss = reference_loss(r.c["loss"].get<std::string>(), call_reference(r.c, x), TracedTensor::constant(r.w));
    TracedTensor g = grad(loss, x);
    std::vector<TracedTensor> outs{loss, g};
    std::vector<Tensor> got = rt.run_compiled(GraphCompiler().compile(outs), {{"x", r.x}});
    EXPECT_NEAR(scalar_of(got[0]), r.loss, 1e-10 * std::max(1.0, std::abs(r.loss))) << r.name;
    EXPECT_TRUE(ft::close_to(got[1], r.grad, 1e-10)) << r.name;
  }
}

TEST(FftAdReference, EagerBackwardMatchesPyTorch) {
  CpuBackend cpu;
  EagerRuntime eager(cpu);
  for (const RefCase& r : reference_cases()) {
    EagerTensor x = eager.tensor(r.x).requires_grad();
    EagerTensor loss = reference_loss(r.c["loss"].get<std::string>(), call_reference(r.c, x), eager.tensor(r.w));
    backward(loss);
    EXPECT_NEAR(scalar_of(loss.value()), r.loss, 1e-10 * std::max(1.0, std::abs(r.loss))) << r.name;
    ASSERT_TRUE(x.grad().defined()) << r.name;
    EXPECT_TRUE(ft::close_to(x.grad().value(), r.grad, 1e-10)) << r.name;
  }
}

// Functional eager VJP/JVP through an FFT: <v, J u> = <J^H v, u>.
TEST(FftAdReference, EagerFunctionalVjpJvpConsistent) {
  CpuBackend cpu;
  EagerRuntime eager(cpu);
  auto f = [](const std::vector<EagerTensor>& in) {
    return std::vector<EagerTensor>{fft::irfft(in[0], {.n = 9, .norm = Norm::ortho})};
  };
  Tensor z = random_tensor({5, 2}, DType::c128, 41), u = random_tensor({5, 2}, DType::c128, 42);
  Tensor v = random_tensor({9, 2}, DType::f64, 43);
  auto [ys, ju] = jvp(eager, f, {eager.tensor(z)}, {eager.tensor(u)});
  auto [ys2, jtv] = vjp(eager, f, {eager.tensor(z)}, {eager.tensor(v)});
  const double lhs = tenferro::testing::real_dot(v, ju[0].value());
  const double rhs = tenferro::testing::real_dot(jtv[0].value(), u);
  EXPECT_NEAR(lhs, rhs, 1e-12 * std::max(1.0, std::abs(lhs)));
  EXPECT_TRUE(ft::close_to(ys[0].value(), fft::irfft(z, cpu, {.n = 9, .norm = Norm::ortho}), 1e-13));
}

// ---- one program, two batch sizes ------------------------------------------------------------------

// loss = sum_k w_k |X_k|^2 with X = rfft(x, n = 6) along axis 0 of an
// [8, batch] input (batch symbolic). Written out:
//   dloss/dx[j, b] = 2 sum_k w_k Re(conj(X[k, b]) e^{-2 pi i j k / 6}) for j < 6, 0 for j >= 6,
// and since the loss is quadratic, its HVP in direction v is that gradient evaluated at v.
TEST(FftAd, OneProgramTwoBatchSizes) {
  CpuBackend cpu;
  Runtime rt = fft_runtime(cpu);
  const std::int64_t rows = 8, n = 6, m = n / 2 + 1;
  const double wk[] = {0.7, 1.3, 0.9, 1.1};
  Tensor w = Tensor::from_vec_col_major<double>({m, 1}, {wk[0], wk[1], wk[2], wk[3]});
  TracedTensor x = TracedTensor::input("x", DType::f64, {Dim(rows), Dim("batch")});
  TracedTensor v = TracedTensor::input("v", DType::f64, {Dim(rows), Dim("batch")});
  TracedTensor X = fft::rfft(x, {.n = n});
  TracedTensor loss = (X * X.conj()).real().mul(TracedTensor::constant(w)).sum();
  TracedTensor g = grad(loss, x);
  TracedTensor h = hvp(loss, x, v);
  TracedTensor d = jvp(loss, x, v);
  Program p = GraphCompiler().compile(std::vector<TracedTensor>{loss, g, h, d});

  auto grad_at = [&](const Tensor& a, std::int64_t batch) {
    std::vector<double> gv(static_cast<std::size_t>(rows * batch), 0.0);
    double lv = 0;
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t k = 0; k < m; ++k) {
        std::complex<double> Xk = 0;
        for (std::int64_t j = 0; j < n; ++j)
          Xk += tenferro::testing::value_at(a, {j, b}).real() *
                std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(j * k) / static_cast<double>(n));
        lv += wk[k] * std::norm(Xk);
        for (std::int64_t j = 0; j < n; ++j)
          gv[static_cast<std::size_t>(j + rows * b)] +=
              2 * wk[k] *
              (std::conj(Xk) * std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(j * k) / static_cast<double>(n)))
                  .real();
      }
    return std::pair{lv, Tensor::from_vec_col_major<double>({rows, batch}, gv)};
  };
  for (std::int64_t batch : {3, 5}) {
    Tensor xv = random_tensor({rows, batch}, DType::f64, 70 + static_cast<std::uint64_t>(batch));
    Tensor vv = random_tensor({rows, batch}, DType::f64, 80 + static_cast<std::uint64_t>(batch));
    std::vector<Tensor> out = rt.run_compiled(p, {{"x", xv}, {"v", vv}});
    auto [lv, gx] = grad_at(xv, batch);
    auto [unused, hv] = grad_at(vv, batch);
    (void)unused;
    EXPECT_NEAR(scalar_of(out[0]), lv, 1e-12 * lv) << "batch " << batch;
    EXPECT_TRUE(ft::close_to(out[1], gx, 1e-12)) << "grad, batch " << batch;
    EXPECT_TRUE(ft::close_to(out[2], hv, 1e-12)) << "hvp, batch " << batch;
    EXPECT_NEAR(scalar_of(out[3]), tenferro::testing::real_dot(gx, vv), 1e-12 * lv) << "jvp, batch " << batch;
    EXPECT_EQ(rt.last_bindings().at("batch"), batch);
  }
}

// ---- bad input -------------------------------------------------------------------------------------

TEST(FftAd, HandleErrors) {
  using tenferro::testing::throws_with;
  TracedTensor sym = TracedTensor::input("x", DType::c128, {Dim("n"), Dim(3)});
  EXPECT_TRUE(throws_with<ValueError>([&] { fft::fft(sym); }, {"fft.fft", "symbolic", "axis 0"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { fft::fft(sym, {.n = 4}); }, {"fft.fft", "symbolic"}));
  (void)fft::fft(sym, {.axis = 1});  // a symbolic batch axis is fine
  TracedTensor c = TracedTensor::input("c", DType::c128, {Dim(4), Dim(3)});
  EXPECT_TRUE(throws_with<DTypeError>([&] { fft::rfft(c); }, {"fft.rfft", "real input"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { fft::ihfft(c); }, {"fft.ihfft", "real input"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { fft::ifft(c, {.axis = 2}); }, {"fft.ifft", "axis 2", "out of range"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { fft::irfft(c, {.n = 0}); }, {"fft.irfft", "n must be >= 1"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { fft::fftn(c, {.axes = DimVec{1, -1}}); }, {"fft.fftn", "repeated"}));
  TracedTensor i = TracedTensor::input("i", DType::i64, {Dim(4)});
  EXPECT_TRUE(throws_with<DTypeError>([&] { fft::fft(i); }, {"fft.fft", "floating-point"}));
  // A traced FFT needs the family registered with the runtime that runs it.
  CpuBackend cpu;
  auto plain = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  Program p = GraphCompiler().compile(fft::fft(c));
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { plain.run_compiled(p, {{"c", Tensor::zeros({4, 3}, DType::c128)}}); },
                                              {"fft.fft", "register_family"}));
}

// ---- single precision and a closed form ------------------------------------------------------------

// The rules keep f32/c64 (weights in the real dtype of the cotangent); the
// gradients agree with the f64/c128 ones to single precision.
TEST(FftAd, SinglePrecisionGradients) {
  CpuBackend cpu;
  Runtime rt = fft_runtime(cpu);
  auto grad_of = [&](const Tensor& x, auto&& loss_of) {
    TracedTensor t = TracedTensor::input("x", x.dtype(), to_sym_shape(x.shape()));
    return rt.run_compiled(GraphCompiler().compile(grad(loss_of(t), t)), {{"x", x}})[0];
  };
  auto real_loss = [](const TracedTensor& t) {
    TracedTensor y = fft::irfft(fft::rfft(t, {.n = 7}).square(), {.n = 7, .norm = Norm::ortho});
    return (y * y).sum();
  };
  auto complex_loss = [](const TracedTensor& t) {
    TracedTensor y = fft::hfft(fft::ifft2(t, {.s = Shape{3, 5}}), {.axis = 1, .norm = Norm::forward});
    return (y * y).sum();
  };
  Tensor x = random_tensor({6, 2}, DType::f64, 5), z = random_tensor({4, 4}, DType::c128, 6);
  Tensor g64 = grad_of(x, real_loss), g32 = grad_of(ops::convert(x, DType::f32, cpu), real_loss);
  EXPECT_EQ(g32.dtype(), DType::f32);
  EXPECT_TRUE(ft::close_to(ops::convert(g32, DType::f64, cpu), g64, 2e-5));
  Tensor h128 = grad_of(z, complex_loss), h64 = grad_of(ops::convert(z, DType::c64, cpu), complex_loss);
  EXPECT_EQ(h64.dtype(), DType::c64);
  EXPECT_TRUE(ft::close_to(ops::convert(h64, DType::c128, cpu), h128, 2e-5));
}

// Parseval: sum |fft(z)|^2 = c^2 N sum |z|^2 with c the forward scale, so the
// gradient is 2 c^2 N z (N = 8: 16 z, 2 z, z / 4 for backward, ortho, forward).
TEST(FftAd, EagerParsevalGradient) {
  CpuBackend cpu;
  EagerRuntime eager(cpu);
  Tensor zv = random_tensor({8}, DType::c128, 9);
  const double factor[] = {16.0, 2.0, 0.25};
  for (int i = 0; i < 3; ++i) {
    EagerTensor z = eager.tensor(zv).requires_grad();
    EagerTensor f = fft::fft(z, {.norm = kNorms[i]});
    backward((f * f.conj()).real().sum());
    EXPECT_TRUE(ft::close_to(z.grad().value(), mul(zv, Scalar(factor[i]), cpu), 1e-13)) << fft::norm_name(kNorms[i]);
  }
}
