// The AD surface: traced grad/vjp/jvp/hvp and their compositions, eager
// backward with accumulation, functional eager vjp/jvp, and bad input.
#include <cmath>

#include "ad_check.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

std::vector<Tensor> run(const std::vector<TracedTensor>& outs, const RunInputs& in = {}) {
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  return rt.run_compiled(GraphCompiler().compile(outs), in);
}

}  // namespace

TEST(TracedAd, QuickstartB) {
  auto x = TracedTensor::from_vec_col_major({3}, std::vector<double>{1.0, 2.0, 3.0});
  auto y = (x * x).reduce_sum({0});
  auto dy = grad(y, x);
  auto tangent = TracedTensor::from_vec_col_major({3}, std::vector<double>{0.1, 1.0, -2.0});
  auto directional = jvp(y, x, tangent);
  auto out = run({y, dy, directional});
  EXPECT_EQ(out[0].item().to<double>(), 14.0);
  EXPECT_EQ(out[1].to_vec_col_major<double>(), (std::vector<double>{2, 4, 6}));
  EXPECT_NEAR(out[2].item().to<double>(), -7.8, 1e-14);
}

TEST(TracedAd, GradientProgramCompiledOnceRunsForAnyExtent) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
  auto y = (x.sin() * x).sum();
  auto g = grad(y, x);  // cos(x) x + sin(x)
  Program p = GraphCompiler().compile(g);
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  for (std::int64_t n : {1, 4, 9}) {
    Tensor xv = random_tensor({n}, DType::f64, n);
    Tensor gv = rt.run_compiled(p, {{"x", xv}})[0];
    for (std::int64_t i = 0; i < n; ++i) {
      double a = xv.at<double>({i});
      EXPECT_NEAR(gv.at<double>({i}), std::cos(a) * a + std::sin(a), 1e-14);
    }
  }
}

TEST(TracedAd, SeveralInputsHvpAndHigherOrder) {
  auto a = TracedTensor::input("a", DType::f64, {Dim(3)});
  auto b = TracedTensor::input("b", DType::f64, {Dim(3)});
  auto y = (a * a * b).sum();  // dy/da = 2ab, dy/db = a^2
  auto g = grad(y, {a, b});
  auto v = TracedTensor::from_vec_col_major({3}, std::vector<double>{1, -1, 2});
  auto h = hvp(y, a, v);                 // d/da (2ab) v = 2 b v
  auto jj = jvp(jvp(y, a, v), a, v);     // second directional derivative: 2 sum(b v^2)
  auto gg = grad(grad(y, a).sum(), a);   // d/da sum(2ab) = 2b
  Tensor av = Tensor::from_vec_col_major<double>({3}, {1, 2, 3}), bv = Tensor::from_vec_col_major<double>({3}, {4, 5, 6});
  auto out = run({g[0], g[1], h, jj, gg}, {{"a", av}, {"b", bv}});
  EXPECT_EQ(out[0].to_vec_col_major<double>(), (std::vector<double>{8, 20, 36}));
  EXPECT_EQ(out[1].to_vec_col_major<double>(), (std::vector<double>{1, 4, 9}));
  EXPECT_EQ(out[2].to_vec_col_major<double>(), (std::vector<double>{8, -10, 24}));
  EXPECT_DOUBLE_EQ(out[3].item().to<double>(), 2 * (4 * 1 + 5 * 1 + 6 * 4));
  EXPECT_EQ(out[4].to_vec_col_major<double>(), (std::vector<double>{8, 10, 12}));
}

TEST(TracedAd, ComplexGradientFollowsPyTorch) {
  // L = |z|^2 summed: PyTorch's z.grad is 2 z (jax.grad would give 2 conj(z)).
  auto z = TracedTensor::input("z", DType::c128, {Dim(2)});
  auto loss = (z.conj() * z).real().sum();
  Tensor zv = Tensor::from_vec_col_major<std::complex<double>>({2}, {{3, 4}, {-1, 2}});
  Tensor g = run({grad(loss, z)}, {{"z", zv}})[0];
  EXPECT_EQ(g.at<std::complex<double>>({0}), std::complex<double>(6, 8));
  EXPECT_EQ(g.at<std::complex<double>>({1}), std::complex<double>(-2, 4));
  // And abs: d|z|/dz in PyTorch's convention is z / |z|.
  Tensor ga = run({grad(z.abs().sum(), z)}, {{"z", zv}})[0];
  EXPECT_NEAR(std::abs(ga.at<std::complex<double>>({0}) - std::complex<double>(0.6, 0.8)), 0, 1e-15);
}

TEST(TracedAd, BadInput) {
  auto x = TracedTensor::input("x", DType::f64, {Dim(3)});
  auto y = x * 2.0;
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)grad(y, x); }, {"grad", "rank-0"}));
  auto zc = TracedTensor::input("z", DType::c128, {});
  EXPECT_TRUE(throws_with<DTypeError>([&] { (void)grad(zc * zc, zc); }, {"grad", "real"}));
  auto xi = TracedTensor::input("i", DType::i64, {Dim(3)});
  EXPECT_TRUE(throws_with<DTypeError>([&] { (void)grad(xi.convert(DType::f64).sum(), xi); }, {"i64"}));
  // With respect to a tensor the output does not depend on: zeros.
  auto other = TracedTensor::input("w", DType::f64, {Dim(2)});
  // The gradient program reads neither x nor w but takes both (declared inputs).
  Tensor g = run({grad(y.sum(), other)}, {{"x", Tensor::zeros({3}, DType::f64)}, {"w", Tensor::zeros({2}, DType::f64)}})[0];
  EXPECT_EQ(g.to_vec_col_major<double>(), (std::vector<double>{0, 0}));
}

TEST(EagerAd, BackwardAccumulatesAndZeroGrad) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  auto x = rt.tensor(Tensor::from_vec_col_major<double>({3}, {1, 2, 3})).requires_grad();
  auto loss = (x * x).sum();
  backward(loss);
  EXPECT_EQ(x.grad().value().to_vec_col_major<double>(), (std::vector<double>{2, 4, 6}));
  backward((x * 3.0).sum());  // accumulates
  EXPECT_EQ(x.grad().value().to_vec_col_major<double>(), (std::vector<double>{5, 7, 9}));
  x.zero_grad();
  EXPECT_FALSE(x.grad().defined());
  auto d = x.detach();
  EXPECT_TRUE(throws_with<ValueError>([&] { backward((d * d).sum()); }, {"backward", "requires grad"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { backward(x * 2.0); }, {"backward", "rank-0", "seed"}));
  // Seeded backward of a non-scalar.
  auto y = x * x;
  backward(y, rt.tensor(Tensor::from_vec_col_major<double>({3}, {1, 0, -1})));
  EXPECT_EQ(x.grad().value().to_vec_col_major<double>(), (std::vector<double>{2, 0, -6}));
}

TEST(EagerAd, NoGradScopeRecordsNothing) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  auto x = rt.tensor(Tensor::ones({2})).requires_grad();
  EagerTensor y;
  {
    graph::NoGradGuard guard;
    y = (x * x).sum();
  }
  EXPECT_TRUE(y.is_leaf());
  EXPECT_TRUE(throws_with<ValueError>([&] { backward(y); }, {"requires grad"}));
}

TEST(EagerAd, MatchesTracedGradients) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  Tensor av = random_tensor({3, 3}, DType::c128, 5), bv = random_tensor({3, 2}, DType::c128, 6);
  auto f = [](auto a, auto b) { return (a.matmul(b).exp() * a.matmul(b).conj()).real().sum(); };
  auto a = rt.tensor(av).requires_grad(), b = rt.tensor(bv).requires_grad();
  backward(f(a, b));
  auto ta = TracedTensor::input("a", DType::c128, {Dim(3), Dim(3)}), tb = TracedTensor::input("b", DType::c128, {Dim(3), Dim(2)});
  auto g = grad(f(ta, tb), {ta, tb});
  auto out = run({g[0], g[1]}, {{"a", av}, {"b", bv}});
  EXPECT_TRUE(tensors_close(a.grad().value(), out[0], 1e-13, 1e-13));
  EXPECT_TRUE(tensors_close(b.grad().value(), out[1], 1e-13, 1e-13));
}

TEST(EagerAd, FunctionalVjpAndJvp) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  auto f = [](const std::vector<EagerTensor>& in) { return std::vector<EagerTensor>{in[0] * in[1], in[0].exp()}; };
  auto a = rt.tensor(Tensor::from_vec_col_major<double>({2}, {1, 2}));
  auto b = rt.tensor(Tensor::from_vec_col_major<double>({2}, {3, 4}));
  auto c0 = rt.tensor(Tensor::from_vec_col_major<double>({2}, {1, 1}));
  auto c1 = rt.tensor(Tensor::from_vec_col_major<double>({2}, {0, 1}));
  auto [outs, cts] = vjp(rt, f, {a, b}, {c0, c1});
  EXPECT_EQ(outs[0].value().to_vec_col_major<double>(), (std::vector<double>{3, 8}));
  EXPECT_NEAR(cts[0].value().at<double>({0}), 3, 1e-15);               // b + 0 * e^a
  EXPECT_NEAR(cts[0].value().at<double>({1}), 4 + std::exp(2.0), 1e-14);
  EXPECT_EQ(cts[1].value().to_vec_col_major<double>(), (std::vector<double>{1, 2}));
  auto [outs2, dirs] = jvp(rt, f, {a, b}, {c0, c1});  // d(ab) = b da + a db; d(e^a) = e^a da
  EXPECT_EQ(dirs[0].value().to_vec_col_major<double>(), (std::vector<double>{3, 4 + 2}));
  EXPECT_NEAR(dirs[1].value().at<double>({1}), std::exp(2.0), 1e-14);
}

// Note [Operands without tangents] (tenferro/ops/family.hpp): forward mode
// computes no tangent for a value that only such operands use. Here
// "nd.boom"'s rule throws when called; "nd.use" reads only its first
// operand's tangent when it declares its second one without tangents, and
// both when it does not.
TEST(TracedAd, OperandsWithoutTangentsGetNone) {
  auto same_first = []<class D>(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) {
    return std::vector<BasicTensorMeta<D>>{in[0]};
  };
  auto boom = [](const NoFamilyAttrs&, std::span<const Value>, std::span<const Value>, std::span<const Value>)
      -> std::vector<Value> { throw std::runtime_error("nd.boom's rule ran"); };
  auto first = [](const NoFamilyAttrs&, std::span<const Value>, std::span<const Value>, std::span<const Value> t) {
    return std::vector<Value>{t[0]};
  };
  const FamilyOp boom_op = define_family_op<NoFamilyAttrs>(
      {.name = "nd.boom", .ad = AdKind::nonlinear}, same_first, FamilyRules<NoFamilyAttrs>{.jvp = boom});
  const FamilyOp use = define_family_op<NoFamilyAttrs>(
      {.name = "nd.use", .num_inputs = 2, .ad = AdKind::nonlinear, .nondiff_inputs = {1}}, same_first,
      FamilyRules<NoFamilyAttrs>{.jvp = first});
  const FamilyOp use_all = define_family_op<NoFamilyAttrs>(
      {.name = "nd.use_all", .num_inputs = 2, .ad = AdKind::nonlinear}, same_first,
      FamilyRules<NoFamilyAttrs>{.jvp = first});
  auto x = TracedTensor::input("x", DType::f64, {Dim(3)});
  auto t = TracedTensor::input("t", DType::f64, {Dim(3)});
  const Value xv = x.graph_value(), tv = t.graph_value();
  const Value side = graph::apply_family(boom_op, {}, {xv})[0];
  const Value y = graph::apply_family(use, {}, {xv, side})[0];
  std::vector<Value> d = ad::jvp(std::vector<Value>{y}, std::vector<Value>{xv}, std::vector<Value>{tv});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].node, tv.node) << "the tangent of x, through nd.use's first operand";
  // A value that something else differentiates still gets its tangent.
  const Value y2 = graph::apply_family(use_all, {}, {xv, side})[0];
  EXPECT_TRUE(throws_with<std::runtime_error>(
      [&] { ad::jvp(std::vector<Value>{y2}, std::vector<Value>{xv}, std::vector<Value>{tv}); }, {"nd.boom's rule ran"}));
  const Value both = graph::apply(OpKind::add, NoAttrs{}, {y, side});
  EXPECT_TRUE(throws_with<std::runtime_error>(
      [&] { ad::jvp(std::vector<Value>{both}, std::vector<Value>{xv}, std::vector<Value>{tv}); }, {"nd.boom's rule ran"}));
}
