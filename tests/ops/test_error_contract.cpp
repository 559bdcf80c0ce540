// The error contract (tenferro/tensor/error.hpp) under hostile input: every
// bad call throws a tenferro::Error subclass whose message names the
// operation and the offending values, and changes nothing; inputs at the
// edge of int64 are computed exactly or rejected, never wrapped. One test
// per defect of issue 21 (the item number is in the test name).
#include <cmath>
#include <limits>

#include "support/cpu_runtime.hpp"
#include "support/test_support.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/ops.hpp"
#if TENFERRO_CONTRACT_EINSUM
#include "tenferro/einsum.hpp"
#endif
#if TENFERRO_CONTRACT_AD
#include "tenferro/ad.hpp"
#include "tenferro/runtime.hpp"
#include "tenferro/runtime/value_ops.hpp"
#endif

using namespace tenferro;
using namespace tenferro::testing;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

Tensor f64s(const Shape& shape, std::vector<double> v) { return Tensor::from_vec_col_major<double>(shape, v); }

// scatter(x [4], one start index, updates [2]): a window of 2 along axis 0.
const ScatterAttrs kWindow2{.update_window_dims = {0},
                            .inserted_window_dims = {},
                            .scatter_dims_to_operand_dims = {0},
                            .index_vector_dim = 0};

// Checks that `f` throws ValueError "<op>: tensor is undefined ...".
template <class F>
::testing::AssertionResult undefined_in(F&& f, const char* op) {
  return throws_with<ValueError>(std::forward<F>(f), {op, "tensor is undefined"});
}

}  // namespace

// Item 1: a start index near INT64_MAX made `start + extent <= size`
// overflow, so the window counted as inside and the write landed before the
// output buffer; at INT64_MAX itself an internal layout error was thrown.
// Windows outside the operand are skipped (ScatterAttrs).
TEST(ErrorContract, Item01ScatterStartNearInt64MaxIsSkipped) {
  CpuBackend cpu;
  const Tensor x = f64s({4}, {1, 2, 3, 4});
  const Tensor upd = f64s({2}, {10, 20});
  for (ScatterMode mode : {ScatterMode::add, ScatterMode::replace}) {
    ScatterAttrs attrs = kWindow2;
    attrs.mode = mode;
    for (std::int64_t start : {kMax, kMax - 1, kMax - 2, std::int64_t{3}, std::int64_t{-1},
                               std::numeric_limits<std::int64_t>::min()}) {
      SCOPED_TRACE(start);
      Tensor idx = Tensor::from_vec_col_major<std::int64_t>({1}, {start});
      Tensor out = ops::scatter(x, idx, upd, attrs, cpu);
      EXPECT_TRUE(tensors_equal(out, x));                   // the update was skipped
      EXPECT_TRUE(tensors_equal(x, f64s({4}, {1, 2, 3, 4})));  // and the operand is untouched
    }
  }
  // A batch mixing a window far outside with one inside applies only the latter.
  const Tensor idx = Tensor::from_vec_col_major<std::int64_t>({2, 1}, {kMax - 1, 1});
  const Tensor upd2 = f64s({2, 2}, {10, 20, 30, 40});  // batch 0: [10, 30], batch 1: [20, 40]
  ScatterAttrs batched{.update_window_dims = {1},
                       .inserted_window_dims = {},
                       .scatter_dims_to_operand_dims = {0},
                       .index_vector_dim = 1};
  EXPECT_TRUE(tensors_equal(ops::scatter(x, idx, upd2, batched, cpu), f64s({4}, {1, 22, 43, 4})));
  // int32 indices at their own maximum.
  const Tensor idx32 = Tensor::from_vec_col_major<std::int32_t>({1}, {std::numeric_limits<std::int32_t>::max()});
  EXPECT_TRUE(tensors_equal(ops::scatter(x, idx32, upd, kWindow2, cpu), x));
}

// Item 2: the in-storage check of Tensor(storage, dtype, shape, strides,
// offset) overflowed and accepted a view past the end of the storage.
TEST(ErrorContract, Item02TensorLayoutOverflowIsRejected) {
  const Tensor base = f64s({4}, {1, 2, 3, 4});
  const auto& storage = base.storage();
  EXPECT_TRUE(throws_with<ValueError>([&] { Tensor(storage, DType::f64, {3}, {1}, kMax - 1); },
                                      {"Tensor", "overflows int64", "9223372036854775806"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { Tensor(storage, DType::f64, {3}, {kMax}, 0); },
                                      {"Tensor", "overflows int64", "9223372036854775807"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] { Tensor(storage, DType::f64, {2, 2}, {kMax / 2 + 1, -(kMax / 2 + 1)}, kMax / 2 + 1); },
      {"Tensor", "overflows int64"}));
  // Without overflow, a far offset is still outside the storage.
  EXPECT_TRUE(throws_with<IndexError>([&] { Tensor(storage, DType::f64, {2}, {1}, kMax - 1); },
                                      {"Tensor", "outside a storage of 4 elements"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { Tensor(storage, DType::f64, {3}, {kMax / 2}, 0); },
                                      {"Tensor", "outside a storage of 4 elements"}));
  EXPECT_TRUE(tensors_equal(base, f64s({4}, {1, 2, 3, 4})));
  // The largest valid layouts still work.
  EXPECT_EQ(Tensor(storage, DType::f64, {1}, {kMax}, 3).to_vec_col_major<double>(), (std::vector<double>{4}));
  EXPECT_EQ(Tensor(storage, DType::f64, {2}, {-3}, 3).to_vec_col_major<double>(), (std::vector<double>{4, 1}));
}

// Item 3: an undefined Tensor segfaulted in to_vec_col_major, its views
// returned undefined handles reporting shapes, and its numel() was 1.
TEST(ErrorContract, Item03UndefinedTensorThrowsValueError) {
  const Tensor u;
  EXPECT_FALSE(u.defined());
  EXPECT_EQ(u.numel(), 0);
  EXPECT_EQ(u.ndim(), 0);
  EXPECT_TRUE(undefined_in([&] { u.to_vec_col_major<double>(); }, "to_vec_col_major"));
  EXPECT_TRUE(undefined_in([&] { u.to_vec_col_major<bool>(); }, "to_vec_col_major"));
  EXPECT_TRUE(undefined_in([&] { u.reshape({1}); }, "reshape"));
  EXPECT_TRUE(undefined_in([&] { u.reshape_copy({1}); }, "reshape_copy"));
  EXPECT_TRUE(undefined_in([&] { u.broadcast_to({2, 3}); }, "broadcast_to"));
  EXPECT_TRUE(undefined_in([&] { u.permute({}); }, "permute"));
  EXPECT_TRUE(undefined_in([&] { u.transpose(); }, "transpose"));
  EXPECT_TRUE(undefined_in([&] { u.slice(0, 0, 1); }, "slice"));
  EXPECT_TRUE(undefined_in([&] { u.slice(std::vector<SliceSpec>{}); }, "slice"));
  EXPECT_TRUE(undefined_in([&] { u.select(0, 0); }, "select"));
  EXPECT_TRUE(undefined_in([&] { u.diagonal(); }, "diagonal"));
  EXPECT_TRUE(undefined_in([&] { u.flip({}); }, "flip"));
  EXPECT_TRUE(undefined_in([&] { u.expand_dims(0); }, "expand_dims"));
  EXPECT_TRUE(undefined_in([&] { u.contiguous(); }, "contiguous"));
  EXPECT_TRUE(undefined_in([&] { u.duplicate(); }, "duplicate"));
  EXPECT_TRUE(undefined_in([&] { u.item(); }, "item"));
  EXPECT_TRUE(undefined_in([&] { u.at<double>({}); }, "at"));
  EXPECT_TRUE(undefined_in([&] { u.host_data<double>(); }, "host_data"));
  const Tensor t = f64s({1}, {5});
  EXPECT_TRUE(undefined_in([&] { t.copy_from(u); }, "copy_from"));
  EXPECT_TRUE(undefined_in([&] { u.copy_from(t); }, "copy_from"));
  EXPECT_TRUE(tensors_equal(t, f64s({1}, {5})));
}

// Item 8: INT64_MAX edge or interior padding overflowed in shape inference
// and pad silently returned an empty tensor.
TEST(ErrorContract, Item08PadOverflowIsValueError) {
  CpuBackend cpu;
  const Tensor x = f64s({3}, {1, 2, 3});
  const Tensor v = Tensor::scalar(0.5);
  auto pad = [&](std::int64_t lo, std::int64_t hi, std::int64_t interior) {
    return ops::pad(x, v, PadAttrs{{lo}, {hi}, {interior}}, cpu);
  };
  EXPECT_TRUE(throws_with<ValueError>([&] { pad(kMax, 0, 0); }, {"pad", "overflows int64", "9223372036854775807"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { pad(0, kMax, 0); }, {"pad", "overflows int64", "9223372036854775807"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { pad(0, 0, kMax); }, {"pad", "overflows int64", "9223372036854775807"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { pad(0, 0, kMax / 2); }, {"pad", "overflows int64"}));
  // On a single element the interior padding adds nothing, but INT64_MAX + 1
  // (the kernel's step) does not fit either.
  EXPECT_TRUE(throws_with<ValueError>([&] { ops::pad(f64s({1}, {1}), v, PadAttrs{{0}, {0}, {kMax}}, cpu); },
                                      {"pad", "interior padding", "9223372036854775807 + 1"}));
  EXPECT_TRUE(tensors_equal(x, f64s({3}, {1, 2, 3})));
  // Huge paddings whose total fits are computed exactly.
  EXPECT_TRUE(tensors_equal(pad(kMax, -kMax, 0), f64s({3}, {0.5, 0.5, 0.5})));
  EXPECT_TRUE(tensors_equal(pad(-kMax, kMax - 3, 0), f64s({0}, {})));
  // Interior padding kMax - 2 between two elements: positions lo and lo + kMax - 1.
  const Tensor x2 = f64s({2}, {1, 2});
  EXPECT_TRUE(tensors_equal(ops::pad(x2, v, PadAttrs{{-(kMax - 1)}, {0}, {kMax - 2}}, cpu), f64s({1}, {2})));
  EXPECT_TRUE(tensors_equal(ops::pad(x2, v, PadAttrs{{0}, {-(kMax - 1)}, {kMax - 2}}, cpu), f64s({1}, {1})));
  EXPECT_TRUE(tensors_equal(ops::pad(x2, v, PadAttrs{{1}, {-(kMax - 1)}, {kMax - 2}}, cpu), f64s({2}, {0.5, 1})));
}

// Item 9: a slice with step INT64_MAX computed its extent as -1.
TEST(ErrorContract, Item09SliceWithHugeStepHasOneElement) {
  CpuBackend cpu;
  const Tensor x = f64s({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor v = x.slice(1, 1, 5, kMax);
  EXPECT_EQ(v.shape(), (Shape{2, 1}));
  EXPECT_EQ(v.to_vec_col_major<double>(), (std::vector<double>{2, 3}));
  EXPECT_EQ(x.slice(1, 0, kSliceEnd, kMax).shape(), (Shape{2, 1}));
  EXPECT_EQ(x.slice(1, 5, 5, kMax).shape(), (Shape{2, 0}));
  EXPECT_EQ(x.slice(1, 0, 5, kMax - 1).to_vec_col_major<double>(), (std::vector<double>{0, 1}));
  Tensor s = ops::slice(x, {0, 1}, {2, 5}, {kMax, kMax}, cpu);
  EXPECT_EQ(s.shape(), (Shape{1, 1}));
  EXPECT_EQ(s.to_vec_col_major<double>(), (std::vector<double>{2}));
  EXPECT_EQ(ops::slice(x, {0, 0}, {2, 5}, {1, kMax}, cpu).to_vec_col_major<double>(), (std::vector<double>{0, 1}));
  EXPECT_TRUE(throws_with<ValueError>([&] { x.slice(1, 0, 5, 0); }, {"slice", "step must be positive, got 0"}));
}

#if TENFERRO_CONTRACT_EINSUM
// Item 16: effort above INT_MAX overflowed the annealer's restart count and
// behaved like effort 1.
TEST(ErrorContract, Item16EinsumEffortIsBounded) {
  const std::vector<Shape> shapes{{2, 3}, {3, 4}, {4, 5}};
  for (double effort : {3e9, 1e300, kMaxPathEffort * 2, std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::quiet_NaN(), -1.0}) {
    SCOPED_TRACE(effort);
    EXPECT_TRUE(throws_with<ValueError>(
        [&] { einsum_path("ij,jk,kl->il", shapes, {.optimizer = PathOptimizer::annealing, .effort = effort}); },
        {"einsum_path", "effort must lie in [0, 1e+06]"}));
  }
  EXPECT_TRUE(throws_with<ValueError>(
      [&] { einsum_path("ij,jk,kl->il", shapes, {.optimizer = PathOptimizer::annealing, .effort = 3e9}); },
      {"got 3e+09"}));
  EXPECT_EQ(einsum_path("ij,jk,kl->il", shapes, {.optimizer = PathOptimizer::annealing, .effort = 0.5}).pairs.size(),
            2u);
}
#endif

#if TENFERRO_CONTRACT_AD
// Item 17: a seed of the wrong dtype was reported as a ShapeError.
TEST(ErrorContract, Item17BackwardSeedDTypeIsDTypeError) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  auto x = rt.tensor(f64s({3}, {1, 2, 3})).requires_grad();
  auto y = x * x;
  auto seed32 = rt.tensor(Tensor::ones({3}, DType::f32));
  EXPECT_TRUE(throws_with<DTypeError>([&] { backward(y, seed32); }, {"backward", "seed f32[3]", "output f64[3]"}));
  EXPECT_FALSE(x.grad().defined());  // nothing accumulated
  auto seed_shape = rt.tensor(Tensor::ones({2}, DType::f64));
  EXPECT_TRUE(throws_with<ShapeError>([&] { backward(y, seed_shape); }, {"backward", "seed f64[2]", "output f64[3]"}));
  EXPECT_FALSE(x.grad().defined());
  backward(y, rt.tensor(f64s({3}, {1, 0, -1})));
  EXPECT_EQ(x.grad().value().to_vec_col_major<double>(), (std::vector<double>{2, 0, -6}));
}
#endif

#if TENFERRO_CONTRACT_AD
namespace {

// Every pass configuration the item-4 test compiles with.
std::vector<CompileOptions> pass_configurations() {
  std::vector<CompileOptions> out{CompileOptions{}};
  CompileOptions none{.constant_folding = false, .transpose_folding = false, .dot_dimension_sorting = false,
                      .cse = false, .dce = false, .fusion = false, .buffer_reuse = false,
                      .broadcast_dot_folding = false, .unit_product_folding = false};
  out.push_back(none);
  CompileOptions no_fusion;
  no_fusion.fusion = false;
  out.push_back(no_fusion);
  return out;
}

}  // namespace

// Item 4: an extent no input binds gave a rank-0 result after fusion and an
// internal error without it; it is a ShapeError naming the extent in every
// pass configuration (run_compiled checks the program's extents once per
// input signature).
TEST(ErrorContract, Item04UnboundExtentIsShapeError) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  // f64[n] with no input mentioning n.
  TracedTensor free(vops::full({Dim("n")}, Scalar(1.0), DType::f64));
  TracedTensor y = free * 3.0;
  auto x = TracedTensor::input("x", DType::f64, {Dim("k")});
  for (const CompileOptions& o : pass_configurations()) {
    SCOPED_TRACE(o.fusion);
    Program p = GraphCompiler(o).compile(y);
    EXPECT_TRUE(throws_with<ShapeError>([&] { rt.run_compiled(p); },
                                        {"run_compiled: instruction", "extent 'n'", "bound by no input",
                                         "(bindings: none)"}));
    Program q = GraphCompiler(o).compile({x.sum(), y});
    EXPECT_TRUE(throws_with<ShapeError>([&] { rt.run_compiled(q, {{"x", f64s({2}, {1, 2})}}); },
                                        {"extent 'n'", "(bindings: k=2)"}));
    // A program whose input was removed by hand: the same error, not a rank-0 result.
    Program g = GraphCompiler(o).compile(grad((x * 3.0).sum(), x));
    g.inputs.clear();
    g.renew_identity();
    EXPECT_TRUE(throws_with<ShapeError>([&] { rt.run_compiled(g); }, {"extent 'k'", "bound by no input"}));
  }
  // The message of a constant extent that disagrees does not read "3 = 3".
  auto c = TracedTensor::input("c", DType::f64, {Dim(3)});
  Program p = GraphCompiler().compile(c * 2.0);
  EXPECT_TRUE(throws_with<ShapeError>([&] { rt.run_compiled(p, {{"c", f64s({2}, {1, 2})}}); },
                                      {"input 'c' has extent 2 on axis 0 but the program expects 3 (shape [3])"}));
}

// Item 5: a gradient program dropped the inputs it does not read, so
// binding them failed with "no input named 'x'". Traced derivatives declare
// the inputs of the function they differentiate.
TEST(ErrorContract, Item05GradientProgramKeepsDeclaredInputs) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
  auto w = TracedTensor::input("w", DType::f64, {Dim("n")});
  for (const CompileOptions& o : pass_configurations()) {
    SCOPED_TRACE(o.fusion);
    Program p = GraphCompiler(o).compile(grad((x * 3.0).sum(), x));
    ASSERT_EQ(p.inputs.size(), 1u);
    EXPECT_EQ(p.inputs[0].name, "x");
    auto out = rt.run_compiled(p, {{"x", f64s({3}, {1, 2, 3})}});
    EXPECT_EQ(out[0].to_vec_col_major<double>(), (std::vector<double>{3, 3, 3}));
    out = rt.run_compiled(p, std::vector<Tensor>{f64s({2}, {5, 6})});  // by position
    EXPECT_EQ(out[0].to_vec_col_major<double>(), (std::vector<double>{3, 3}));
    EXPECT_TRUE(throws_with<ValueError>([&] { rt.run_compiled(p); }, {"run_compiled", "input 'x' is not bound"}));
    // d/dw of sum(x * w) = x reads x only; w is still an input.
    Program q = GraphCompiler(o).compile(grad((x * w).sum(), w));
    ASSERT_EQ(q.inputs.size(), 2u);
    out = rt.run_compiled(q, {{"x", f64s({2}, {4, 5})}, {"w", f64s({2}, {0, 0})}});
    EXPECT_EQ(out[0].to_vec_col_major<double>(), (std::vector<double>{4, 5}));
    // vjp and jvp declare their cotangent / tangent inputs too.
    auto c = TracedTensor::input("c", DType::f64, {Dim("n")});
    Program v = GraphCompiler(o).compile(vjp(x * 3.0, x, c));
    EXPECT_EQ(v.inputs.size(), 2u);
    out = rt.run_compiled(v, {{"x", f64s({2}, {4, 5})}, {"c", f64s({2}, {1, -1})}});
    EXPECT_EQ(out[0].to_vec_col_major<double>(), (std::vector<double>{3, -3}));
  }
}

// Item 15: max/min over an empty axis threw eagerly but returned -inf/+inf
// from a compiled program whose extent was symbolic. The shape rule of
// reduce_max/min refuses an empty reduced axis, so a compiled program
// refuses it when it plans its steps for the bound shapes, in every pass
// configuration, and the runtime then runs the same program for a good shape.
TEST(ErrorContract, Item15MaxMinOverAnEmptyAxisIsValueErrorEverywhere) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  const Tensor empty = Tensor::zeros({0, 2}, DType::f64);
  EXPECT_TRUE(throws_with<ValueError>([&] { tenferro::max(empty, {0}, cpu); },
                                      {"reduce_max", "axis 0 of shape [0, 2] is empty"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { tenferro::min(empty, cpu); }, {"reduce_min", "is empty"}));
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(2)});
  for (const CompileOptions& o : pass_configurations()) {
    SCOPED_TRACE(o.fusion);
    for (bool use_max : {true, false}) {
      Program p = GraphCompiler(o).compile(use_max ? (x * 2.0).max({0}) : (x * 2.0).min({0}));
      EXPECT_TRUE(throws_with<ValueError>([&] { rt.run_compiled(p, {{"x", empty}}); },
                                          {use_max ? "reduce_max" : "reduce_min", "axis 0 of shape [0, 2] is empty",
                                           "no identity"}));
      std::vector<Tensor> out = rt.run_compiled(p, {{"x", f64s({2, 2}, {1, -5, 3, 4})}});
      EXPECT_TRUE(tensors_equal(out[0], use_max ? f64s({2}, {2, 8}) : f64s({2}, {-10, 6})));
    }
  }
  // A constant empty extent is refused while tracing.
  auto c = TracedTensor::input("c", DType::f64, {Dim(0), Dim(2)});
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)c.max({0}); }, {"reduce_max", "is empty"}));
}

// Item 6: a cotangent/tangent of another (symbolic) shape gave a
// wrong-shaped result or an internal "multiply" error when run; it is a
// ShapeError (DTypeError for the dtype) when the derivative is traced.
TEST(ErrorContract, Item06TangentShapeAndDTypeAreChecked) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
  auto m = TracedTensor::input("c", DType::f64, {Dim("m")});
  auto c2 = TracedTensor::from_vec_col_major({2}, std::vector<double>{1, 2});
  auto c32 = TracedTensor::input("c32", DType::f32, {Dim("n")});
  EXPECT_TRUE(throws_with<ShapeError>([&] { vjp(x * 3.0, x, m); },
                                      {"vjp", "cotangent has shape [m], expected [n]", "same symbols"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { vjp(x * x, x, m); }, {"vjp", "cotangent has shape [m]"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { jvp(x.sin(), x, m); }, {"jvp", "tangent has shape [m], expected [n]"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { vjp(x * 3.0, x, c2); }, {"vjp", "cotangent has shape [2], expected [n]"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { vjp(x * 3.0, x, c32); }, {"vjp", "cotangent has dtype f32, expected f64"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { jvp(x * 3.0, x, c32); }, {"jvp", "tangent has dtype f32, expected f64"}));
  auto x3 = TracedTensor::input("x3", DType::f64, {Dim(3)});
  EXPECT_TRUE(throws_with<ShapeError>([&] { vjp(x3 * 3.0, x3, c2); }, {"vjp", "cotangent has shape [2], expected [3]"}));
  // The same symbols are accepted.
  auto c = TracedTensor::input("c", DType::f64, {Dim("n")});
  EXPECT_NO_THROW(vjp(x * x, x, c));
  EXPECT_NO_THROW(jvp(x * x, x, c));
}
#endif
#if TENFERRO_CONTRACT_EINSUM && TENFERRO_CONTRACT_AD
// Item 13: traced einsum with a repeated label of extent 0 ("ii->i" on
// [0, 0]) was reported to fail with an internal gather error. On this
// branch it computes what eager einsum does, for constant and symbolic
// extents, with its gradient; the program keeps the operand as an input
// although an empty einsum reads none (it dropped it, like item 5).
TEST(ErrorContract, Item13TracedEinsumRepeatedLabelOfExtentZero) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  struct Case {
    const char* subscripts;
    Shape shape;
  };
  for (const Case& c : std::vector<Case>{{"ii->i", {0, 0}},
                                         {"ii->", {0, 0}},
                                         {"iij->j", {0, 0, 3}},
                                         {"iij->ij", {0, 0, 3}},
                                         {"jii->j", {2, 0, 0}},
                                         {"ii->i", {2, 2}}}) {
    SCOPED_TRACE(c.subscripts);
    std::vector<double> v(static_cast<std::size_t>(shape_numel(c.shape, "test")));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i + 1);
    const Tensor a = f64s(c.shape, v);
    const Tensor want = einsum(c.subscripts, {a}, cpu);
    SymShape constant, symbolic;
    for (std::int64_t d : c.shape) constant.push_back(Dim(d));
    for (std::size_t k = 0; k < c.shape.size(); ++k)  // the repeated label i is the symbol n
      symbolic.push_back(c.subscripts[k] == 'i' ? Dim("n") : Dim(c.shape[k]));
    for (const SymShape& s : {constant, symbolic}) {
      SCOPED_TRACE(::testing::PrintToString(s));
      auto x = TracedTensor::input("x", DType::f64, s);
      TracedTensor y = einsum(c.subscripts, {x});
      Program p = GraphCompiler().compile({y, grad(y.sum(), x)});
      ASSERT_EQ(p.inputs.size(), 1u);
      auto out = rt.run_compiled(p, {{"x", a}});
      EXPECT_TRUE(tensors_equal(out[0], want));
      EXPECT_EQ(out[1].shape(), c.shape);
    }
  }
  // The gradient of sum(diag(x)) is the identity pattern.
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim("n")});
  auto out = rt.run_compiled(GraphCompiler().compile(grad(einsum("ii->i", {x}).sum(), x)),
                             {{"x", Tensor::zeros({2, 2}, DType::f64)}});
  EXPECT_EQ(out[0].to_vec_col_major<double>(), (std::vector<double>{1, 0, 0, 1}));
}
#endif
// Item 18: messages that named the wrong thing. The factories report under
// their own name (they said "empty:"), from_vec_row_major under its name
// with the shape it was given (it said from_vec_col_major and [3, 2]).
TEST(ErrorContract, Item18FactoryMessagesNameTheFactory) {
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::zeros({-1, 2}); }, {"zeros: negative extent -1 in shape [-1, 2]"}));
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::ones({kMax, 3}); }, {"ones: shape [9223372036854775807, 3]"}));
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::full({kMax / 2, 1}, Scalar(1.0), DType::f64); },
                                      {"full: shape [4611686018427387903, 1] of f64 overflows the address space"}));
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::eye(-2); }, {"eye: negative extent -2"}));
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::eye(kMax); }, {"eye: shape [9223372036854775807, 9223372036854775807]"}));
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::empty({-1}, DType::f64); }, {"empty: negative extent -1"}));
  EXPECT_TRUE(throws_with<ShapeError>([] { Tensor::from_vec_row_major<double>({2, 3}, {1, 2}); },
                                      {"from_vec_row_major: shape [2, 3] needs 6 values, got 2"}));
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::from_vec_row_major<double>({-1, 3}, {1, 2}); },
                                      {"from_vec_row_major: negative extent -1 in shape [-1, 3]"}));
  EXPECT_TRUE(throws_with<ShapeError>([] { Tensor::from_vec_col_major<double>({2, 3}, {1, 2}); },
                                      {"from_vec_col_major: shape [2, 3] needs 6 values, got 2"}));
  EXPECT_EQ(Tensor::from_vec_row_major<double>({2, 3}, {1, 2, 3, 4, 5, 6}).to_vec_col_major<double>(),
            (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

#if TENFERRO_CONTRACT_EINSUM
// Item 18: a 100 kB subscript string gave a 200 kB message (the text was
// echoed twice, whole); einsum_echo keeps the start and the end.
TEST(ErrorContract, Item18EinsumEchoIsTruncated) {
  CpuBackend cpu;
  const Tensor v = Tensor::zeros({2}, DType::f64), m = Tensor::zeros({2, 2}, DType::f64);
  auto short_message = [](auto f, std::initializer_list<std::string> fragments) {
    try {
      f();
    } catch (const ValueError& e) {
      const std::string w = e.what();
      EXPECT_LT(w.size(), 1000u) << w.substr(0, 300);
      for (const std::string& frag : fragments) EXPECT_NE(w.find(frag), std::string::npos) << frag << " in " << w;
      return;
    }
    ADD_FAILURE() << "no ValueError";
  };
  const std::string many(100000, 'a');
  short_message([&] { einsum(many + "->b", {v}, cpu); },
                {"einsum: operand 0 has rank 1", "more code points)...", "name 100000 axes"});
  short_message([&] { einsum("ab->" + many, {m}, cpu); }, {"appears twice at position 5", "\"ab->aaa"});
  short_message([&] { einsum("ab,bc->ac" + std::string(100000, ' ') + "!", {m, m}, cpu); },
                {"invalid label character '!'", "at position 100009", "!\"\n"});
  // Short text is echoed whole, with its caret.
  short_message([&] { einsum("ab->aa", {m}, cpu); }, {"of subscripts \"ab->aa\"\n  \"ab->aa\"\n        ^"});
  EXPECT_EQ(einsum_echo(std::string(120, 'x')), std::string(120, 'x'));
  EXPECT_EQ(einsum_echo(std::string(60, 'x') + std::string(21, 'y') + std::string(40, 'z')),
            std::string(60, 'x') + "...(21 more code points)..." + std::string(40, 'z'));
}
#endif
