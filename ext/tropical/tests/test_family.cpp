// The tropical family: kernels against an independent reference on every
// instruction-set variant, shape rules and their errors, and derivatives
// (finite differences at points with unique winners, tie splitting,
// eager and traced, compile once and run for new inputs).
#include <gtest/gtest.h>

#include <tenferro/ad.hpp>
#include <tenferro/runtime.hpp>

#include "common.hpp"

namespace {

using namespace tenferro;
using namespace tropical_test;
using tropical::DotAttrs;
using tropical::Semiring;

DotAttrs mm(Semiring s) { return {s, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}}; }

std::vector<std::string> variants() {
  std::vector<std::string> out;
  for (const char* isa : {"baseline", "avx2", "avx512"}) {
    try {
      tropical::set_cpu_kernel_isa(isa);
      out.push_back(isa);
    } catch (const ValueError&) {
    }
  }
  tropical::set_cpu_kernel_isa("auto");
  return out;
}

struct Case {
  Shape a, b;
  DotGeneralAttrs dims;
};

// Matrix products across the blocking edges (k > KC = 256, m and n not
// multiples of the tile), batch axes, several contracted axes, empty axes.
std::vector<Case> cases() {
  const DotGeneralAttrs mat{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
  return {
      {{1, 1}, {1, 1}, mat},
      {{7, 5}, {5, 3}, mat},
      {{33, 300}, {300, 19}, mat},
      {{70, 9}, {9, 41}, mat},
      {{3, 2}, {2, 3100}, mat},  // more than one column block (NC = 3072)
      {{5, 0}, {0, 4}, mat},     // empty contraction: the semiring's zero
      {{0, 3}, {3, 2}, mat},
      // batch 3 (leading in a, trailing in b), contracted axes (1, 2) against (1, 0)
      {{3, 4, 5, 6}, {6, 5, 2, 3}, {.lhs_batching_dimensions = {0}, .rhs_batching_dimensions = {3},
                                     .lhs_contracting_dimensions = {3, 2}, .rhs_contracting_dimensions = {0, 1}}},
      // outer product (nothing contracted) with a batch axis
      {{4, 2}, {3, 2}, {.lhs_batching_dimensions = {1}, .rhs_batching_dimensions = {1}}},
  };
}

template <class T>
void check_against_reference(const std::string& isa) {
  CpuBackend cpu;
  std::uint64_t seed = 1;
  for (const Case& c : cases())
    for (Semiring s : {Semiring::max_plus, Semiring::min_plus}) {
      Tensor a = random_tensor<T>(c.a, seed++), b = random_tensor<T>(c.b, seed++);
      const DotAttrs attrs{s, c.dims};
      Tensor got = tropical::dot_general(a, b, attrs, cpu);
      Tensor want = reference_dot<T>(a, b, attrs);
      EXPECT_EQ(max_diff(got, want), 0.0) << isa << " " << attrs << " a " << c.a << " b " << c.b;
      EXPECT_EQ(max_diff(tropical::dot_general_naive(a, b, attrs), want), 0.0) << "naive " << attrs;
    }
}

TEST(TropicalKernel, MatchesReferenceOnEveryVariantAndDtype) {
  const auto isas = variants();
  ASSERT_FALSE(isas.empty());
  for (const std::string& isa : isas) {
    tropical::set_cpu_kernel_isa(isa);
    check_against_reference<float>(isa);
    check_against_reference<double>(isa);
    check_against_reference<std::int32_t>(isa);
    check_against_reference<std::int64_t>(isa);
  }
  tropical::set_cpu_kernel_isa("auto");
}

TEST(TropicalKernel, StridedAndPermutedOperands) {
  CpuBackend cpu;
  Tensor a = random_tensor<double>({9, 40}, 11).permute({1, 0});               // [40, 9], strides [9, 1]
  Tensor b = random_tensor<double>({30, 12}, 12).slice({{0, 30, 3}, {0, 12, 1}});  // [10, 12], row stride 3
  Tensor b2 = random_tensor<double>({9, 10}, 13).flip({0});                        // negative stride
  for (Semiring s : {Semiring::max_plus, Semiring::min_plus}) {
    EXPECT_EQ(max_diff(tropical::dot_general(a, b2, mm(s), cpu), reference_dot<double>(a, b2, mm(s))), 0.0);
    DotAttrs t{s, {.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {1}}};
    Tensor bt = random_tensor<double>({12, 40}, 14);
    EXPECT_EQ(max_diff(tropical::dot_general(a, bt, t, cpu), reference_dot<double>(a, bt, t)), 0.0);
    EXPECT_EQ(max_diff(tropical::dot_general(b, b.permute({1, 0}), mm(s), cpu),
                       reference_dot<double>(b, b.permute({1, 0}), mm(s))),
              0.0);
  }
}

TEST(TropicalKernel, HandWorkedMatrixProduct) {
  CpuBackend cpu;
  // a = [[0, 2], [1, 3]], b = [[1, 0], [5, -1]] (column-major vectors).
  Tensor a = Tensor::from_vec_col_major<double>({2, 2}, {0, 1, 2, 3});
  Tensor b = Tensor::from_vec_col_major<double>({2, 2}, {1, 5, 0, -1});
  // max-plus: c00 = max(0+1, 2+5) = 7, c10 = max(1+1, 3+5) = 8, c01 = max(0+0, 2-1) = 1, c11 = max(1, 2) = 2
  EXPECT_EQ(tropical::matmul(Semiring::max_plus, a, b, cpu).to_vec_col_major<double>(),
            (std::vector<double>{7, 8, 1, 2}));
  // min-plus: c00 = 1, c10 = 2, c01 = 0, c11 = 1
  EXPECT_EQ(tropical::matmul(Semiring::min_plus, a, b, cpu).to_vec_col_major<double>(),
            (std::vector<double>{1, 2, 0, 1}));
  Tensor e = tropical::matmul(Semiring::max_plus, Tensor::zeros({2, 0}), Tensor::zeros({0, 3}), cpu);
  for (double v : e.to_vec_col_major<double>()) EXPECT_EQ(v, -std::numeric_limits<double>::infinity());
  Tensor ei = tropical::matmul(Semiring::min_plus, Tensor::zeros({2, 0}, DType::i32), Tensor::zeros({0, 3}, DType::i32), cpu);
  for (auto v : ei.to_vec_col_major<std::int32_t>()) EXPECT_EQ(v, std::numeric_limits<std::int32_t>::max());
}

// ---- errors ----------------------------------------------------------------------------

template <class E>
void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(TropicalErrors, BadOperandsNameTheOpAndValues) {
  CpuBackend cpu;
  Tensor a = Tensor::zeros({2, 3}), b = Tensor::zeros({3, 4});
  expect_error<DTypeError>([&] { (void)tropical::dot_general(a, Tensor::zeros({3, 4}, DType::f32), mm(Semiring::max_plus), cpu); },
                           "operands must have one dtype");
  expect_error<DTypeError>([&] { (void)tropical::dot_general(Tensor::zeros({2, 3}, DType::c128), Tensor::zeros({3, 4}, DType::c128), mm(Semiring::max_plus), cpu); },
                           "f32, f64, i32 or i64");
  expect_error<DTypeError>([&] { (void)tropical::dot_general(Tensor::zeros({2, 3}, DType::bool_), Tensor::zeros({3, 4}, DType::bool_), mm(Semiring::max_plus), cpu); },
                           "tropical.dot_general");
  expect_error<ShapeError>([&] { (void)tropical::dot_general(a, Tensor::zeros({4, 4}), mm(Semiring::max_plus), cpu); },
                           "contracting axes lhs 1 and rhs 0 have extents 3 and 4");
  expect_error<IndexError>([&] { (void)tropical::dot_general(a, b, {Semiring::max_plus, {.lhs_contracting_dimensions = {2}, .rhs_contracting_dimensions = {0}}}, cpu); },
                           "axis 2 is out of range");
  expect_error<ValueError>([&] { (void)tropical::dot_general(a, b, {Semiring::max_plus, {.lhs_contracting_dimensions = {1, 1}, .rhs_contracting_dimensions = {0, 1}}}, cpu); },
                           "named twice");
  expect_error<ValueError>([&] { (void)tropical::dot_general(a, b, {Semiring::max_plus, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {}}}, cpu); },
                           "as many lhs as rhs contracting");
  expect_error<ShapeError>([&] { (void)tropical::matmul(Semiring::max_plus, Tensor::zeros({2}), b, cpu); }, "tropical.matmul");
  expect_error<ValueError>([&] { tropical::set_cpu_kernel_isa("sse9"); }, "sse9");
  // The traced form checks at trace time, with symbolic extents.
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(3)});
  auto y = TracedTensor::input("y", DType::f64, {Dim(4), Dim("m")});
  expect_error<ShapeError>([&] { (void)tropical::dot_general(x, y, mm(Semiring::max_plus)); }, "extents 3 and 4");
}

// ---- derivatives ------------------------------------------------------------------------

// loss(a, b) = sum(w * (a (x) b)) for a fixed weight w.
double loss_value(const Tensor& a, const Tensor& b, const Tensor& w, const DotAttrs& attrs, CpuBackend& cpu) {
  Tensor c = tropical::dot_general(a, b, attrs, cpu);
  double s = 0;
  auto cv = c.to_vec_col_major<double>(), wv = w.to_vec_col_major<double>();
  for (std::size_t i = 0; i < cv.size(); ++i) s += cv[i] * wv[i];
  return s;
}

// Central differences of loss along every entry of `x` (which is a or b).
Tensor finite_difference(const Tensor& a, const Tensor& b, const Tensor& w, const DotAttrs& attrs, bool wrt_a) {
  CpuBackend cpu;
  const Tensor& x = wrt_a ? a : b;
  Tensor g = Tensor::zeros(x.shape());
  auto xv = x.to_vec_col_major<double>();
  const double h = 1e-6;
  for (std::size_t i = 0; i < xv.size(); ++i) {
    auto plus = xv, minus = xv;
    plus[i] += h;
    minus[i] -= h;
    Tensor xp = Tensor::from_vec_col_major<double>(x.shape(), plus), xm = Tensor::from_vec_col_major<double>(x.shape(), minus);
    const double fp = wrt_a ? loss_value(xp, b, w, attrs, cpu) : loss_value(a, xp, w, attrs, cpu);
    const double fm = wrt_a ? loss_value(xm, b, w, attrs, cpu) : loss_value(a, xm, w, attrs, cpu);
    g.host_data<double>()[i] = (fp - fm) / (2 * h);
  }
  return g;
}

TEST(TropicalAD, EagerBackwardMatchesFiniteDifferences) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  const DotAttrs batched{Semiring::max_plus, {.lhs_batching_dimensions = {2}, .rhs_batching_dimensions = {0},
                                              .lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {1}}};
  for (const DotAttrs& attrs : {mm(Semiring::max_plus), mm(Semiring::min_plus), batched}) {
    const bool bat = attrs == batched;
    Tensor a = random_tensor<double>(bat ? Shape{4, 6, 2} : Shape{5, 7}, 21);
    Tensor b = random_tensor<double>(bat ? Shape{2, 6, 3} : Shape{7, 4}, 22);
    Tensor w = random_tensor<double>(bat ? Shape{2, 4, 3} : Shape{5, 4}, 23);
    auto ea = rt.tensor(a).requires_grad(), eb = rt.tensor(b).requires_grad();
    auto loss = (tropical::dot_general(ea, eb, attrs) * rt.tensor(w)).sum();
    backward(loss);
    EXPECT_LT(max_diff(ea.grad().value(), finite_difference(a, b, w, attrs, true)), 1e-6) << attrs;
    EXPECT_LT(max_diff(eb.grad().value(), finite_difference(a, b, w, attrs, false)), 1e-6) << attrs;
  }
}

TEST(TropicalAD, TracedGradCompiledOnceRunsForNewInputsAndShapes) {
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(tropical::family()).build();
  auto x = TracedTensor::input("a", DType::f64, {Dim("m"), Dim("k")});
  auto y = TracedTensor::input("b", DType::f64, {Dim("k"), Dim("n")});
  auto w = TracedTensor::input("w", DType::f64, {Dim("m"), Dim("n")});
  const DotAttrs attrs = mm(Semiring::min_plus);
  auto loss = (tropical::dot_general(x, y, attrs) * w).sum();
  auto g = grad(loss, std::vector<TracedTensor>{x, y});
  Program p = GraphCompiler().compile({loss, g[0], g[1]});
  std::uint64_t seed = 40;
  for (Shape dims : {Shape{5, 7, 4}, Shape{3, 11, 6}}) {
    Tensor a = random_tensor<double>({dims[0], dims[1]}, seed++), b = random_tensor<double>({dims[1], dims[2]}, seed++);
    Tensor wt = random_tensor<double>({dims[0], dims[2]}, seed++);
    auto out = rt.run_compiled(p, {{"a", a}, {"b", b}, {"w", wt}});
    EXPECT_NEAR(out[0].item().to<double>(), loss_value(a, b, wt, attrs, cpu), 1e-9);
    EXPECT_LT(max_diff(out[1], finite_difference(a, b, wt, attrs, true)), 1e-6);
    EXPECT_LT(max_diff(out[2], finite_difference(a, b, wt, attrs, false)), 1e-6);
  }
}

TEST(TropicalAD, JvpMatchesFiniteDifferencesAndHvpIsZero) {
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(tropical::family()).build();
  auto x = TracedTensor::input("a", DType::f64, {Dim(4), Dim(6)});
  auto v = TracedTensor::input("v", DType::f64, {Dim(4), Dim(6)});
  Tensor bt = random_tensor<double>({6, 5}, 52);
  Tensor wt = random_tensor<double>({4, 5}, 53);
  auto b = TracedTensor(graph::constant(bt));
  auto loss = (tropical::dot_general(x, b, mm(Semiring::max_plus)) * TracedTensor(graph::constant(wt))).sum();
  auto dl = jvp(loss, x, v);
  auto hv = hvp(loss, x, v);
  Program p = GraphCompiler().compile({dl, hv});
  Tensor a = random_tensor<double>({4, 6}, 50), dir = random_tensor<double>({4, 6}, 51);
  auto out = rt.run_compiled(p, {{"a", a}, {"v", dir}});
  const double h = 1e-6;
  auto av = a.to_vec_col_major<double>(), dv = dir.to_vec_col_major<double>();
  auto ap = av, am = av;
  for (std::size_t i = 0; i < av.size(); ++i) {
    ap[i] += h * dv[i];
    am[i] -= h * dv[i];
  }
  const double fd = (loss_value(Tensor::from_vec_col_major<double>({4, 6}, ap), bt, wt, mm(Semiring::max_plus), cpu) -
                     loss_value(Tensor::from_vec_col_major<double>({4, 6}, am), bt, wt, mm(Semiring::max_plus), cpu)) /
                    (2 * h);
  EXPECT_NEAR(out[0].item().to<double>(), fd, 1e-6);
  for (double e : out[1].to_vec_col_major<double>()) EXPECT_EQ(e, 0.0);  // piecewise linear
}

TEST(TropicalAD, TiesSplitEvenlyAndInfiniteOutputsHaveZeroDerivative) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  const double inf = std::numeric_limits<double>::infinity();
  // Row 0 of a ties on both terms for column 0 of b (0+0 = 1+(-1)), column 1
  // has a unique winner (k = 1: 1 + 5 > 0 + 0); row 1 is all +inf in min-plus.
  Tensor a = Tensor::from_vec_col_major<double>({2, 2}, {0, inf, 1, inf});
  Tensor b = Tensor::from_vec_col_major<double>({2, 2}, {0, -1, 0, 5});
  auto ea = rt.tensor(a).requires_grad(), eb = rt.tensor(b).requires_grad();
  backward(tropical::dot_general(ea, eb, mm(Semiring::max_plus)).slice(0, Dim(0), Dim(1)).sum());
  // d c00 / d a00 = d c00 / d a01 = 1/2; c01 adds 1 to a01; b: c00 splits over b00 and b10, c01 -> b11.
  EXPECT_EQ(ea.grad().value().to_vec_col_major<double>(), (std::vector<double>{0.5, 0, 1.5, 0}));
  EXPECT_EQ(eb.grad().value().to_vec_col_major<double>(), (std::vector<double>{0.5, 0.5, 0, 1}));
  auto fa = rt.tensor(a).requires_grad();
  backward(tropical::dot_general(fa, rt.tensor(b), mm(Semiring::min_plus)).sum());
  // min-plus: row 1 of c is +inf (derivative 0); row 0: c00 = min(0, 0) ties, c01 = min(0, 6) at k = 0.
  EXPECT_EQ(fa.grad().value().to_vec_col_major<double>(), (std::vector<double>{1.5, 0, 0.5, 0}));
}

TEST(TropicalAD, DerivativeOpsRejectBadOperands) {
  CpuBackend cpu;
  const auto& f = tropical::family();
  Tensor a = Tensor::zeros({2, 3}), b = Tensor::zeros({3, 4}), c = Tensor::zeros({2, 4});
  const FamilyAttrs w = FamilyAttrs::of(tropical::WinnerAttrs{mm(Semiring::max_plus), tropical::Side::lhs});
  expect_error<ShapeError>([&] { (void)call_family(f.op("tropical.winner_tangent"), w, {{Tensor::zeros({3, 2}), a, b, c}}, cpu); },
                           "tangent");
  expect_error<ShapeError>([&] { (void)call_family(f.op("tropical.winner_cotangent"), w, {{c, a, b, Tensor::zeros({2, 5})}}, cpu); },
                           "product operand");
  expect_error<DTypeError>([&] { (void)call_family(f.op("tropical.winner_tangent"), w,
                                                   {{Tensor::zeros({2, 3}, DType::i32), Tensor::zeros({2, 3}, DType::i32),
                                                     Tensor::zeros({3, 4}, DType::i32), Tensor::zeros({2, 4}, DType::i32)}}, cpu); },
                           "f32 and f64");
}

}  // namespace
