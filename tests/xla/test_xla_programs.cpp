// Whole programs through PJRT against the CPU runtime (an MLP loss and its
// gradient, grad-of-grad and HVP, einsum networks of the benchmark
// instances, FFT round trips), the executable cache, and the refusals: each
// a clear error after which the process keeps working.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "../einsum/instances.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/fft.hpp"
#include "tenferro/linalg.hpp"
#include "xla_test_util.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

std::vector<Tensor> on_both(const xla::PjrtRuntime& pjrt, const Program& p, const RunInputs& in, double scale = 1) {
  std::vector<Tensor> got = pjrt.run_compiled(p, in);
  EXPECT_TRUE(same_results(got, cpu_runtime().run_compiled(p, in), scale)) << p.to_text();
  return got;
}

TEST(XlaLowering, ReversedShapesInTheText) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(3)});
  Program p = GraphCompiler().compile((exp(x) * x).sum({0}));
  std::string text = xla::to_stablehlo(p, {{"x", Tensor::ones({5, 3})}});
  EXPECT_NE(text.find("@main(%arg0: tensor<3x5xf64>) -> (tensor<3xf64>)"), std::string::npos) << text;
  EXPECT_NE(text.find("dimensions = array<i64: 1>"), std::string::npos) << text;  // our axis 0
  // Symbols bind to the example inputs: another extent, another module.
  EXPECT_NE(xla::to_stablehlo(p, std::vector<Tensor>{Tensor::ones({7, 3})}).find("tensor<3x7xf64>"), std::string::npos);
}

TEST(XlaPrograms, ElementwiseChainRank3Strided) {
  TF_REQUIRE_PJRT(pjrt);
  auto x = TracedTensor::input("x", DType::f32, {Dim("a"), Dim("b"), Dim("c")});
  auto y = TracedTensor::input("y", DType::f32, {Dim("b"), Dim("a"), Dim("c")});
  Program p = GraphCompiler().compile({(tanh(x) * 2.0 + exp(-x)).sum({1}), x + y.transpose({1, 0, 2})});
  Tensor a = Tensor::normal({4, 3, 5}, DType::f32, 1);
  Tensor b = Tensor::normal({2, 5, 4, 3}, DType::f32, 2).select(0, 1).permute({2, 1, 0}).flip({0});  // [3, 4, 5], strided
  on_both(*pjrt, p, {{"x", a}, {"y", b}});
}

TEST(XlaPrograms, MlpLossAndGradient) {
  TF_REQUIRE_PJRT(pjrt);
  for (DType d : {DType::f32, DType::f64}) {
    auto x = TracedTensor::input("x", d, {Dim(6), Dim("batch")});
    auto w1 = TracedTensor::input("w1", d, {Dim(16), Dim(6)});
    auto w2 = TracedTensor::input("w2", d, {Dim(3), Dim(16)});
    auto t = TracedTensor::input("t", d, {Dim(3), Dim("batch")});
    TracedTensor h = tanh(matmul(w1, x));
    TracedTensor err = matmul(w2, h) - t;
    TracedTensor loss = (err * err).sum() * (1.0 / 30);
    std::vector<TracedTensor> g = grad(loss, {w1, w2});
    Program p = GraphCompiler().compile({loss, g[0], g[1]});
    RunInputs in{{"x", Tensor::normal({6, 10}, d, 3)},
                 {"w1", Tensor::normal({16, 6}, d, 4)},
                 {"w2", Tensor::normal({3, 16}, d, 5)},
                 {"t", Tensor::normal({3, 10}, d, 6)}};
    on_both(*pjrt, p, in, 16);
  }
}

TEST(XlaPrograms, GradOfGradAndHvp) {
  TF_REQUIRE_PJRT(pjrt);
  auto x = TracedTensor::input("x", DType::f64, {Dim(5), Dim(4)});
  auto v = TracedTensor::input("v", DType::f64, {Dim(5), Dim(4)});
  TracedTensor f = (sin(x) * x * x * x).sum();
  TracedTensor g = grad(f, x);
  TracedTensor gg = grad((g * g).sum(), x);
  TracedTensor h = hvp(f, x, v);
  Program p = GraphCompiler().compile({g, gg, h});
  on_both(*pjrt, p, {{"x", Tensor::normal({5, 4}, DType::f64, 7)}, {"v", Tensor::normal({5, 4}, DType::f64, 8)}}, 16);
}

TEST(XlaPrograms, ComplexMatmulAndReductions) {
  TF_REQUIRE_PJRT(pjrt);
  for (DType d : {DType::c64, DType::c128}) {
    auto a = TracedTensor::input("a", d, {Dim(4), Dim(3), Dim(2)});
    auto b = TracedTensor::input("b", d, {Dim(3), Dim(5), Dim(2)});
    // batched over the last axis: c[i, k, t] = sum_j a[i, j, t] b[j, k, t]
    TracedTensor c = einsum("ijt,jkt->ikt", {a, b});
    Program p = GraphCompiler().compile({c, (c * conj(c)).sum({0, 2}), abs(c)});
    on_both(*pjrt, p, {{"a", Tensor::normal({4, 3, 2}, d, 9)}, {"b", Tensor::normal({3, 5, 2}, d, 10)}}, 16);
  }
}

TEST(XlaPrograms, EinsumNetworksOfTheBenchmarkInstances) {
  TF_REQUIRE_PJRT(pjrt);
  const std::vector<EinsumInstance> all = load_instances(TENFERRO_INSTANCES_DIR);
  int ran = 0;
  for (const EinsumInstance& inst : all) {
    if (inst.name != "lm_batch_likelihood_sentence_3_12d" && inst.name != "lm_batch_likelihood_brackets_4_4d") continue;
    std::vector<TracedTensor> ops;
    std::vector<std::pair<std::string, Tensor>> named;
    for (std::size_t k = 0; k < inst.shapes.size(); ++k) {
      Tensor t = instance_operand(inst, k);
      named.emplace_back(detail::str("t", k), t);
      ops.push_back(TracedTensor::input(named.back().first, DType::f64, to_sym_shape(t.shape())));
    }
    // (program inputs are ordered by first use: pass them by name)
    RunInputs feed(named);
    Program p = GraphCompiler().compile(einsum(inst.subscripts, ops));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Tensor> got = pjrt->run_compiled(p, feed);
    auto t1 = std::chrono::steady_clock::now();
    std::vector<Tensor> want = cpu_runtime().run_compiled(p, feed);
    auto t2 = std::chrono::steady_clock::now();
    std::printf("  %s: PJRT (compile + run) %.3f s, CPU runtime %.3f s, %zu instructions\n", inst.name.c_str(),
                std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(),
                p.code.size());
    // Long sums in another order: relative to the largest magnitude.
    double max_abs = 0;
    for (double v : want[0].contiguous().to_vec_col_major<double>()) max_abs = std::max(max_abs, std::abs(v));
    EXPECT_TRUE(tensors_close(got[0], want[0], 1e-10, 1e-10 * max_abs)) << inst.name;
    ++ran;
  }
  EXPECT_EQ(ran, 2);
}

TEST(XlaPrograms, FftRoundTripsAndNorms) {
  TF_REQUIRE_PJRT(pjrt);
  for (DType d : {DType::f64, DType::f32}) {
    const DType c = complex_dtype(d);
    const double tol = d == DType::f64 ? 1e-13 : 1e-5;
    auto x = TracedTensor::input("x", d, {Dim(16), Dim(6), Dim(3)});
    auto z = TracedTensor::input("z", c, {Dim(5), Dim(4), Dim(6)});
    TracedTensor X = fft::rfft(x, {.axis = 0});                                        // [9, 6, 3]
    TracedTensor back = fft::irfft(X, {.n = 16, .axis = 0});                           // [16, 6, 3]
    TracedTensor Z = fft::fftn(z, {.axes = DimVec{2, 0}, .norm = fft::Norm::ortho});   // non-leading, reordered axes
    TracedTensor zb = fft::ifftn(Z, {.axes = DimVec{2, 0}, .norm = fft::Norm::ortho});
    TracedTensor R = fft::rfftn(x, {.axes = DimVec{2, 1}, .norm = fft::Norm::forward});  // halves axis 1
    Program p = GraphCompiler().compile({X, back, Z, zb, R});
    Tensor xv = Tensor::normal({16, 6, 3}, d, 11), zv = Tensor::normal({5, 4, 6}, c, 12);
    std::vector<Tensor> got = on_both(*pjrt, p, {{"x", xv}, {"z", zv}}, 16);
    EXPECT_TRUE(tensors_close(got[1], xv, tol, tol)) << d;
    EXPECT_TRUE(tensors_close(got[3], zv, tol, tol)) << d;
  }
}

TEST(XlaPjrt, CachesOneExecutablePerProgramAndShapes) {
  TF_REQUIRE_PJRT(pjrt);
  auto x = TracedTensor::input("x", DType::i64, {Dim("n")});
  Program p = GraphCompiler().compile((x * x).sum());
  const std::size_t before = pjrt->cached_executables();
  for (int k = 0; k < 3; ++k) on_both(*pjrt, p, std::vector<Tensor>{Tensor::arange(7, DType::i64)});
  EXPECT_EQ(pjrt->cached_executables(), before + 1);
  on_both(*pjrt, p, std::vector<Tensor>{Tensor::arange(9, DType::i64)});
  EXPECT_EQ(pjrt->cached_executables(), before + 2);
  std::printf("PJRT C API %d.%d, platform %s\n", pjrt->api_version().first, pjrt->api_version().second,
              pjrt->platform_name().c_str());
  EXPECT_EQ(pjrt->api_version().first, 0);
  EXPECT_EQ(pjrt->platform_name(), "cpu");
}

// The program keeps working after each refusal.
void still_works(const xla::PjrtRuntime& pjrt) {
  auto x = TracedTensor::input("x", DType::f64, {Dim(3)});
  Program p = GraphCompiler().compile(x * 2.0);
  EXPECT_TRUE(tensors_equal(pjrt.run_compiled(p, std::vector<Tensor>{Tensor::arange(3)})[0],
                            Tensor::from_vec_col_major<double>({3}, {0, 2, 4})));
}

TEST(XlaRefusals, UnlowerableFamilyOp) {
  TF_REQUIRE_PJRT(pjrt);
  auto a = TracedTensor::input("a", DType::f64, {Dim(4), Dim(3)});
  auto [u, s, vh] = linalg::svd(a);
  Program p = GraphCompiler().compile(s.sum());
  Tensor av = Tensor::normal({4, 3}, DType::f64, 1);
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { xla::to_stablehlo(p, std::vector<Tensor>{av}); },
                                              {"linalg.svd", "no StableHLO lowering"}));
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { pjrt->run_compiled(p, std::vector<Tensor>{av}); }, {"linalg.svd"}));
  EXPECT_EQ(pjrt->cached_executables(), pjrt->cached_executables());
  still_works(*pjrt);
}

TEST(XlaRefusals, DataDependentAndUnboundExtents) {
  TF_REQUIRE_PJRT(pjrt);
  // svd_truncated: its rank is a symbol that only the data binds.
  auto a = TracedTensor::input("a", DType::f64, {Dim(4), Dim(4)});
  auto [u, s, vh] = linalg::svd_truncated(a, {.max_rank = 2});
  Program p = GraphCompiler().compile(s * 2.0);
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { xla::to_stablehlo(p, std::vector<Tensor>{Tensor::eye(4)}); }, {"linalg.svd"}));
  // A program whose intermediate extent names a symbol no input binds.
  auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
  Program q = GraphCompiler(CompileOptions{.fusion = false}).compile(exp(x) + 1.0);
  q.slot_meta[static_cast<std::size_t>(q.code.front().outputs[0])].shape = {Dim("r")};
  q.renew_identity();
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { pjrt->run_compiled(q, std::vector<Tensor>{Tensor::ones({3})}); },
                                              {"extent r", "StableHLO needs static shapes"}));
  still_works(*pjrt);
}

TEST(XlaRefusals, UnlowerablePrimitive) {
  TF_REQUIRE_PJRT(pjrt);
  auto x = TracedTensor::input("x", DType::f64, {Dim(3)});
  Program p = GraphCompiler().compile(TracedTensor(graph::apply(OpKind::i0, NoAttrs{}, {x.graph_value()})));
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { pjrt->run_compiled(p, std::vector<Tensor>{Tensor::ones({3})}); },
                                              {"i0", "no StableHLO lowering"}));
  still_works(*pjrt);
}

TEST(XlaRefusals, BadInputs) {
  TF_REQUIRE_PJRT(pjrt);
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim("n")});
  Program p = GraphCompiler().compile(x + 1.0);
  EXPECT_TRUE(throws_with<DTypeError>([&] { pjrt->run_compiled(p, std::vector<Tensor>{Tensor::ones({2, 2}, DType::f32)}); },
                                      {"PjrtRuntime::run_compiled", "input 'x' has dtype f32"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { pjrt->run_compiled(p, std::vector<Tensor>{Tensor::ones({2, 3})}); },
                                      {"PjrtRuntime::run_compiled: input 'x'", "extent 3"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { pjrt->run_compiled(p, {{"y", Tensor::ones({2, 2})}}); },
                                      {"no input named 'y'"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { pjrt->run_compiled(p, std::vector<Tensor>{}); }, {"takes 1 inputs"}));
  still_works(*pjrt);
}

TEST(XlaRefusals, BadPlugins) {
  EXPECT_TRUE(throws_with<BackendError>([] { xla::PjrtRuntime::load("/nonexistent/plugin.so"); },
                                        {"no PJRT plugin file at '/nonexistent/plugin.so'"}));
  const std::string text = (std::filesystem::temp_directory_path() / "tenferro_not_a_plugin.so").string();
  std::ofstream(text) << "not an ELF file\n";
  EXPECT_TRUE(throws_with<BackendError>([&] { xla::PjrtRuntime::load(text); }, {"cannot open the PJRT plugin", text}));
  std::remove(text.c_str());
  EXPECT_TRUE(throws_with<BackendError>([] { xla::PjrtRuntime::load(TENFERRO_NOT_PJRT_LIBRARY); },
                                        {"has no symbol GetPjrtApi"}));
  EXPECT_TRUE(throws_with<BackendError>([] { xla::PjrtRuntime::load(TENFERRO_FAKE_PJRT_PLUGIN); },
                                        {"C API version 7.3", "major versions must agree"}));
  if (const xla::PjrtRuntime* pjrt = pjrt_or_null()) still_works(*pjrt);
}

TEST(XlaRefusals, FromEnvWithoutTheVariable) {
  const char* old = std::getenv("TENFERRO_PJRT_PLUGIN");
  std::string keep = old ? old : "";
  unsetenv("TENFERRO_PJRT_PLUGIN");
  EXPECT_TRUE(throws_with<ValueError>([] { xla::PjrtRuntime::from_env(); }, {"TENFERRO_PJRT_PLUGIN is not set"}));
  if (old) setenv("TENFERRO_PJRT_PLUGIN", keep.c_str(), 1);
}

}  // namespace

namespace {

// The coverage table of docs/xla.md: primitives and (primitive, dtype)
// pairs lowered. Fails if the count falls below the documented one.
TEST(XlaLowering, CoverageTable) {
  int ops = 0, pairs = 0, refused = 0;
  std::string table = "| primitive | dtypes lowered |\n|---|---|\n";
  for (int k = 0; k < kNumOps; ++k) {
    const OpKind kind = static_cast<OpKind>(k);
    std::string dts;
    int n = 0;
    for (DType d : all_dtypes())
      if (op_info(kind).dtypes.contains(d) && xla::lowerable(kind, d)) {
        dts += (n++ ? ", " : "") + std::string(dtype_name(d));
      }
    pairs += n;
    if (n > 0) ++ops;
    else ++refused;
    table += "| `" + std::string(op_name(kind)) + "` | " + (n ? dts : "refused") + " |\n";
  }
  std::cout << table << ops << " of " << kNumOps << " primitives, " << pairs << " (primitive, dtype) pairs; "
            << refused << " refused\n";
  EXPECT_GE(ops, 59);
  EXPECT_GE(pairs, 270);
}

}  // namespace

namespace {

// An outside family op with a lowering to primitives (the extension seam):
// "xlatest.pair"(a, b) = (log1p(exp(a)) + b, a b), two outputs, and
// "xlatest.nested"(a) = pair(a, a) written with the first op, so that the
// lowering has to recurse. No kernel: only the StableHLO path can run it.
struct SameMetas {
  template <class D>
  std::vector<BasicTensorMeta<D>> operator()(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) const {
    return std::vector<BasicTensorMeta<D>>(in.size() == 2 ? 2 : 1, in[0]);
  }
};

const OpFamily& test_family() {
  static const OpFamily f{
      "xlatest",
      {define_family_op<NoFamilyAttrs>(
           {.name = "xlatest.pair", .num_inputs = 2, .num_outputs = 2}, SameMetas{},
           {.lower = [](const NoFamilyAttrs&, std::span<const Value> in) {
              return std::vector<Value>{vops::add(vops::log1p(vops::exp(in[0])), in[1]), vops::mul(in[0], in[1])};
            }}),
       define_family_op<NoFamilyAttrs>(
           {.name = "xlatest.nested", .num_inputs = 1, .num_outputs = 1}, SameMetas{},
           {.lower = [](const NoFamilyAttrs&, std::span<const Value> in) {
              return std::vector<Value>{
                  graph::apply_family(test_family().op("xlatest.pair"), FamilyAttrs::of(NoFamilyAttrs{}), {in[0], in[0]})[0]};
            }})}};
  return f;
}

TEST(XlaFamilies, LoweringToPrimitivesRunsThroughPjrt) {
  TF_REQUIRE_PJRT(pjrt);
  auto a = TracedTensor::input("a", DType::f64, {Dim("n"), Dim(3)});
  auto b = TracedTensor::input("b", DType::f64, {Dim("n"), Dim(3)});
  std::vector<Value> pair = graph::apply_family(test_family().op("xlatest.pair"), FamilyAttrs::of(NoFamilyAttrs{}),
                                                {a.graph_value(), b.graph_value()});
  Value nested = graph::apply_family(test_family().op("xlatest.nested"), FamilyAttrs::of(NoFamilyAttrs{}), {a.graph_value()})[0];
  Program p = GraphCompiler().compile({TracedTensor(pair[0]), TracedTensor(pair[1]), TracedTensor(nested)});
  // The same expressions in primitives, on the CPU runtime.
  Program q = GraphCompiler().compile({log1p(exp(a)) + b, a * b, log1p(exp(a)) + a});
  RunInputs in{{"a", Tensor::normal({4, 3}, DType::f64, 1)}, {"b", Tensor::normal({4, 3}, DType::f64, 2)}};
  EXPECT_TRUE(same_results(pjrt->run_compiled(p, in), cpu_runtime().run_compiled(q, in)));
  // The CPU runtime cannot run p (no kernel, family not registered): only the lowering can.
  EXPECT_THROW(cpu_runtime().run_compiled(p, in), UnimplementedError);
}

}  // namespace
