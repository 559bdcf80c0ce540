// Traced programs: compile once, run with changing extents, errors, eager handles.
#include <cmath>

#include "support/cpu_runtime.hpp"
#include "support/test_support.hpp"
#include "tenferro/ops/kernels.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// A family op whose output length depends on the data: the positive
// elements of a 1-D f64 tensor, in order.
const OpFamily& positive_family() {
  static const OpFamily family{
      "test",
      {FamilyOp{.name = "test.positive",
                .num_inputs = 1,
                .num_outputs = 1,
                .infer =
                    [](const FamilyAttrs&, std::span<const TensorMeta> in) {
                      TF_CHECK(in[0].dtype == DType::f64 && in[0].shape.size() == 1, ShapeError,
                               "test.positive", "needs f64[n]");
                      return std::vector<TensorMeta>{{DType::f64, {kDynamicDim}}};
                    },
                .sym_infer =
                    [](const FamilyAttrs&, std::span<const SymMeta>) {
                      return std::vector<SymMeta>{{DType::f64, {Dim::fresh("count")}}};
                    }}},
      [](const OpFamily& f, KernelRegistry& registry) {
        registry.add(f.op("test.positive"), DeviceKind::cpu, "test",
                     [](const FamilyAttrs&, std::span<const Tensor> in, Backend&) {
                       std::vector<double> v;
                       for (double x : in[0].to_vec_col_major<double>())
                         if (x > 0) v.push_back(x);
                       std::int64_t n = static_cast<std::int64_t>(v.size());
                       return std::vector<Tensor>{Tensor::from_vec_col_major<double>({n}, v)};
                     });
      }};
  return family;
}

}  // namespace

TEST(Traced, QuickstartSumOfSquares) {
  auto x = TracedTensor::from_vec_col_major({3}, std::vector<double>{1.0, 2.0, 3.0});
  auto y = (x * x).reduce_sum({0});
  GraphCompiler compiler;
  auto program = compiler.compile(y);
  CpuBackend backend;
  auto runtime = cpu_runtime(backend);
  auto outputs = runtime.run_compiled(program, {});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].shape(), Shape{});
  EXPECT_EQ(outputs[0].item().to<double>(), 14.0);
  // Running again uses the cached constant results and gives the same value.
  EXPECT_EQ(runtime.run_compiled(program, {})[0].item().to<double>(), 14.0);
}

TEST(Traced, SymbolicExtentsRunForAnyBinding) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(3)});
  auto y = (x * x + 1.0).reduce_sum({0});  // f64[3]
  Program p = GraphCompiler().compile(y);
  EXPECT_NE(p.to_text().find("f64[n, 3]"), std::string::npos) << p.to_text();
  CpuBackend backend;
  auto rt = cpu_runtime(backend);
  for (std::int64_t n : {1, 2, 7, 0}) {
    Tensor xv = random_tensor({n, 3}, DType::f64, 10 + n);
    Tensor out = rt.run_compiled(p, {{"x", xv}})[0];
    ASSERT_EQ(out.shape(), Shape{3});
    for (std::int64_t j = 0; j < 3; ++j) {
      double want = 0;
      for (std::int64_t i = 0; i < n; ++i) want += xv.at<double>({i, j}) * xv.at<double>({i, j}) + 1.0;
      EXPECT_NEAR(out.at<double>({j}), want, 1e-14 * (1 + std::abs(want)));
    }
    EXPECT_EQ(rt.last_bindings().at("n"), n);
  }
}

TEST(Traced, SymbolicReshapeAndMatmul) {
  Dim n("n"), m("m");
  auto a = TracedTensor::input("a", DType::f64, {n, m});
  auto b = TracedTensor::input("b", DType::f64, {m, Dim(2)});
  auto c = a.matmul(b).reshape({n * 2});  // column-major flattening
  Program p = GraphCompiler().compile(c);
  EXPECT_NE(p.to_text().find("f64[2*n]"), std::string::npos) << p.to_text();
  CpuBackend backend;
  auto rt = cpu_runtime(backend);
  for (auto [nn, mm] : {std::pair<std::int64_t, std::int64_t>{2, 3}, {4, 1}}) {
    Tensor av = random_tensor({nn, mm}, DType::f64, 1), bv = random_tensor({mm, 2}, DType::f64, 2);
    Tensor out = rt.run_compiled(p, std::vector<Tensor>{av, bv})[0];
    ASSERT_EQ(out.shape(), Shape{nn * 2});
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t i = 0; i < nn; ++i) {
        double want = 0;
        for (std::int64_t k = 0; k < mm; ++k) want += av.at<double>({i, k}) * bv.at<double>({k, j});
        EXPECT_NEAR(out.at<double>({i + nn * j}), want, 1e-14);
      }
  }
}

TEST(Traced, SeveralOutputsShareWork) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
  auto e = x.exp();
  auto s1 = e.sum();
  auto s2 = (e * 2.0).sum();
  Program p = GraphCompiler().compile({s1, s2});
  std::string text = p.to_text();
  // One exp for both outputs.
  EXPECT_EQ(text.find("exp"), text.rfind("exp")) << text;
  CpuBackend backend;
  auto out = cpu_runtime(backend).run_compiled(p, {{"x", Tensor::from_vec_col_major<double>({2}, {0.0, 1.0})}});
  EXPECT_NEAR(out[0].item().to<double>(), 1 + std::exp(1.0), 1e-15);
  EXPECT_NEAR(out[1].item().to<double>(), 2 * (1 + std::exp(1.0)), 1e-15);
}

// Note [Input order]: the second output reaches more nodes and is lowered
// first, but the inputs stay in the order the outputs as given meet them,
// which is the order run_compiled binds a positional list in. (Before the
// fix the program listed y before x, and this run failed: "input 'y' has
// dtype f64 but the program declares f32".)
TEST(Traced, InputOrderFollowsTheOutputsAsGiven) {
  auto x = TracedTensor::input("x", DType::f64, {Dim(2)});
  auto y = TracedTensor::input("y", DType::f32, {Dim(2)});
  auto cheap = x.sum();
  auto deep = (y.exp() * 2.0f).exp().sum();
  Program p = GraphCompiler().compile({cheap, deep});
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_EQ(p.inputs[0].name, "x");
  EXPECT_EQ(p.inputs[1].name, "y");
  CpuBackend backend;
  auto out = cpu_runtime(backend).run_compiled(
      p, std::vector<Tensor>{Tensor::from_vec_col_major<double>({2}, {1.0, 2.5}),
                             Tensor::from_vec_col_major<float>({2}, {0.0f, -1.0f})});
  EXPECT_EQ(out[0].item().to<double>(), 3.5);
  const double want = std::exp(2.0) + std::exp(2 * std::exp(-1.0));
  EXPECT_NEAR(out[1].item().to<double>(), want, 1e-5 * want);
}

TEST(Traced, BadInputsAreClearErrorsAndTheRuntimeStaysUsable) {
  Dim n("n");
  auto x = TracedTensor::input("x", DType::f64, {n});
  auto y = TracedTensor::input("y", DType::f64, {n});
  Program p = GraphCompiler().compile(x + y);
  CpuBackend backend;
  auto rt = cpu_runtime(backend);
  Tensor a = Tensor::ones({3}), b = Tensor::ones({4});
  EXPECT_TRUE(throws_with<ValueError>([&] { rt.run_compiled(p, {{"x", a}}); }, {"input 'y' is not bound"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { rt.run_compiled(p, {{"x", a}, {"y", a}, {"z", a}}); },
                                      {"no input named 'z'"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { rt.run_compiled(p, {{"x", a}, {"y", Tensor::ones({3}, DType::f32)}}); },
                                      {"input 'y'", "f32", "f64"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { rt.run_compiled(p, {{"x", a}, {"y", b}}); },
                                      {"input 'y'", "n = 3"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { rt.run_compiled(p, std::vector<Tensor>{a}); }, {"takes 2 inputs"}));
  // Still usable.
  Tensor out = rt.run_compiled(p, {{"x", a}, {"y", a}})[0];
  EXPECT_TRUE(tensors_equal(out, Tensor::full({3}, Scalar(2.0), DType::f64)));
}

TEST(Traced, ShapeErrorsNameTheInstructionBeforeAnyKernelRuns) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
  auto y = TracedTensor::input("y", DType::f64, {Dim("m")});
  // The broadcasting sugar needs equal (or unit) extents when tracing...
  EXPECT_TRUE(throws_with<ShapeError>([&] { (void)(x * y); }, {"multiply", "n vs m"}));
  // ...while a primitive over n and m cannot be decided until the run checks it.
  TracedTensor prod(graph::apply(OpKind::multiply, NoAttrs{}, {x.exp().graph_value(), y.graph_value()}));
  Program p = GraphCompiler({.fusion = false}).compile(prod);
  CpuBackend backend;
  auto rt = cpu_runtime(backend);
  EXPECT_TRUE(throws_with<ShapeError>([&] { rt.run_compiled(p, {{"x", Tensor::ones({2})}, {"y", Tensor::ones({3})}}); },
                                      {"run_compiled: instruction", "multiply", "[2]", "[3]"}));
  EXPECT_EQ(rt.run_compiled(p, {{"x", Tensor::zeros({2})}, {"y", Tensor::ones({2})}})[0].to_vec_col_major<double>(),
            (std::vector<double>{1, 1}));
}

TEST(Traced, DataDependentExtentsAreBoundWhenTheyRun) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
  TracedTensor positive(graph::apply_family(positive_family().ops[0], {}, {x.graph_value()})[0]);
  Dim k = positive.shape()[0];
  EXPECT_FALSE(k.is_constant());
  auto doubled = positive * 2.0;  // f64[k]
  TracedTensor with_one(vops::concatenate({doubled.graph_value(), vops::full({Dim(1)}, Scalar(1.0), DType::f64)}, 0));
  EXPECT_EQ(with_one.shape()[0], k + 1);
  auto total = with_one.sum();
  Program prog = GraphCompiler().compile({with_one, total});
  CpuBackend backend;
  auto rt = Runtime::builder().register_engine(cpu_engine(backend)).register_family(positive_family()).build();
  auto out = rt.run_compiled(prog, {{"x", Tensor::from_vec_col_major<double>({3}, {1, -2, 3})}});
  EXPECT_EQ(out[0].to_vec_col_major<double>(), (std::vector<double>{2, 6, 1}));
  EXPECT_EQ(out[1].item().to<double>(), 9.0);
  out = rt.run_compiled(prog, {{"x", Tensor::from_vec_col_major<double>({2}, {-1, -1})}});
  EXPECT_EQ(out[0].to_vec_col_major<double>(), (std::vector<double>{1}));
  EXPECT_EQ(out[1].item().to<double>(), 1.0);
  // A runtime that does not know the family refuses before running anything.
  auto plain = Runtime::builder().register_engine(cpu_engine(backend)).build();
  EXPECT_TRUE(throws_with<UnimplementedError>(
      [&] { plain.run_compiled(prog, {{"x", Tensor::ones({2})}}); }, {"test.positive", "register_family"}));
}

TEST(Traced, FamilyOpWithoutAKernelIsRefusedBeforeRunning) {
  // A registered family whose op has no kernel on the engine's device: the
  // error names the instruction, the engine and the device.
  static const OpFamily bare{
      "bare",
      {FamilyOp{.name = "bare.copy",
                .num_inputs = 1,
                .num_outputs = 1,
                .infer = [](const FamilyAttrs&, std::span<const TensorMeta> in) { return std::vector<TensorMeta>{in[0]}; }}}};
  auto x = TracedTensor::input("x", DType::f64, {Dim(2)});
  Program prog = GraphCompiler().compile(TracedTensor(graph::apply_family(bare.ops[0], {}, {x.graph_value()})[0]));
  CpuBackend backend;
  auto rt = Runtime::builder().register_engine(cpu_engine(backend)).register_family(bare).build();
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { rt.run_compiled(prog, {{"x", Tensor::ones({2})}}); },
                                              {"run_compiled: instruction %", "= bare.copy: engine 'cpu': ",
                                               "has no kernel for cpu"}));
}

TEST(Traced, ProgramTextAndDot) {
  auto x = TracedTensor::input("x", DType::f32, {Dim("n")});
  Program p = GraphCompiler().compile((x.exp() * x).sum());
  std::string text = p.to_text();
  EXPECT_NE(text.find("program(x: f32[n])"), std::string::npos) << text;
  EXPECT_NE(text.find("reduce_sum"), std::string::npos) << text;
  std::string dot = p.to_dot();
  EXPECT_EQ(dot.rfind("digraph program {", 0), 0u);
  EXPECT_NE(dot.find("->"), std::string::npos);
}

TEST(Eager, OperationsRunImmediately) {
  CpuBackend backend;
  EagerRuntime rt(backend);
  auto a = rt.tensor(Tensor::from_vec_col_major<double>({2, 2}, {1, 2, 3, 4}));
  auto b = rt.tensor(Tensor::from_vec_col_major<double>({2}, {10, 20}));
  auto c = (a + b).sum({0});  // b broadcasts along axis 0 (trailing alignment): [[11,23],[12,24]] -> [23, 47]
  EXPECT_EQ(c.value().to_vec_col_major<double>(), (std::vector<double>{23, 47}));
  auto m = a.matmul(a);  // [[7, 15], [10, 22]]
  EXPECT_EQ(m.value().to_vec_col_major<double>(), (std::vector<double>{7, 10, 15, 22}));
  // No requires_grad anywhere: results keep no history.
  EXPECT_TRUE(m.is_leaf());
}
