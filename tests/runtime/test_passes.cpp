// Each compiler pass: the program text before and after, and unchanged results.
#include <iostream>

#include "support/test_support.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Runs both programs on the same inputs; results must be identical bit for bit.
void expect_same_results(const Program& a, const Program& b, const RunInputs& in) {
  CpuBackend backend;
  auto rt = Runtime::builder().register_engine(cpu_engine(backend)).build();
  auto ra = rt.run_compiled(a, in), rb = rt.run_compiled(b, in);
  ASSERT_EQ(ra.size(), rb.size());
  for (std::size_t i = 0; i < ra.size(); ++i) EXPECT_TRUE(tensors_equal(ra[i], rb[i])) << "output " << i;
}

void show(const char* pass, const Program& before, const Program& after) {
  std::cout << "---- " << pass << ": before\n" << before.to_text() << "---- after\n" << after.to_text();
}

}  // namespace

TEST(Passes, DeadCodeElimination) {
  auto a = TracedTensor::input("a", DType::f64, {Dim(3), Dim(4)});
  auto b = TracedTensor::input("b", DType::f64, {Dim(3), Dim(5)});
  // dot(transpose(a), b): after folding the transpose, the transpose is dead.
  auto c = a.transpose({1, 0}).matmul(b);
  Program before = passes::fold_transposes(GraphCompiler::lower({c}));
  Program after = passes::dead_code_elimination(before);
  show("dead code elimination", before, after);
  EXPECT_EQ(count(before.to_text(), "= transpose("), 1u);
  EXPECT_EQ(count(after.to_text(), "= transpose("), 0u);
  expect_same_results(before, after, {{"a", random_tensor({3, 4}, DType::f64, 1)}, {"b", random_tensor({3, 5}, DType::f64, 2)}});
}

TEST(Passes, CommonSubexpressionElimination) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
  auto y = x.exp() + x.exp();  // two separate exp nodes
  Program before = GraphCompiler::lower({y});
  Program after = passes::dead_code_elimination(passes::common_subexpression_elimination(before));
  show("common-subexpression elimination", before, after);
  EXPECT_EQ(count(before.to_text(), "= exp("), 2u);
  EXPECT_EQ(count(after.to_text(), "= exp("), 1u);
  expect_same_results(before, after, {{"x", random_tensor({5}, DType::f64, 3)}});
}

TEST(Passes, ConstantFolding) {
  auto k = TracedTensor::from_vec_col_major({2}, std::vector<double>{1.5, -2.0});
  auto x = TracedTensor::input("x", DType::f64, {Dim(2)});
  auto y = x * (k.exp() * k);  // exp(k) * k depends only on constants
  Program before = GraphCompiler::lower({y});
  Program after = passes::constant_folding(before);
  show("constant folding", before, after);
  EXPECT_EQ(count(after.to_text(), "constant (computed once per runtime)"), 2u);
  EXPECT_EQ(count(before.to_text(), "computed once"), 0u);
  expect_same_results(before, after, {{"x", random_tensor({2}, DType::f64, 4)}});
}

TEST(Passes, TransposeFoldingIntoDotGeneral) {
  auto a = TracedTensor::input("a", DType::f64, {Dim("k"), Dim("m")});
  auto b = TracedTensor::input("b", DType::f64, {Dim("n"), Dim("k")});
  auto c = a.transpose().matmul(b.transpose());  // a^T b^T
  Program before = GraphCompiler::lower({c});
  Program after = passes::dead_code_elimination(passes::fold_transposes(before));
  show("transpose folding", before, after);
  EXPECT_EQ(count(before.to_text(), "= transpose("), 2u);
  EXPECT_EQ(count(after.to_text(), "= transpose("), 0u);
  EXPECT_NE(after.to_text().find("lhs_contract=[0] rhs_contract=[1]"), std::string::npos) << after.to_text();
  expect_same_results(before, after, {{"a", random_tensor({4, 3}, DType::f64, 5)}, {"b", random_tensor({2, 4}, DType::f64, 6)}});
}

// Regression (found by tests/fuzz, seed 91587): with the transpose folded, the
// contraction reads `a*a` in its own layout and the GEMM mapping orders the
// three contracting axes by those strides, so its 27 terms are summed in
// another order than over the transposed copy. The fold still happens; the
// result stays within a sum's error bound (the documented exception to
// bit-for-bit passes, tenferro/runtime/compiler.hpp).
TEST(Passes, TransposeFoldingMayReorderAContractionsSum) {
  auto a = TracedTensor::input("a", DType::f64, {Dim(3), Dim(3), Dim(3)});
  auto t = (a * a).transpose({0, 2, 1});
  TracedTensor r(vops::reverse(a.graph_value(), {1}));
  auto c = t.dot_general(r, {.lhs_contracting_dimensions = {2, 0, 1}, .rhs_contracting_dimensions = {1, 0, 2}});
  Program before = GraphCompiler::lower({c});
  Program after = passes::dead_code_elimination(passes::fold_transposes(before));
  EXPECT_EQ(count(after.to_text(), "= transpose("), 0u) << after.to_text();
  CpuBackend backend;
  auto rt = Runtime::builder().register_engine(cpu_engine(backend)).build();
  Tensor av = random_tensor({3, 3, 3}, DType::f64, 91587);
  Tensor got = rt.run_compiled(after, {{"a", av}})[0], plain = rt.run_compiled(before, {{"a", av}})[0];
  double want = 0, bound = 0;  // sum_{ijk} a[i,k,j]^2 a[i,2-k,j]... by the attributes' pairing
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 3; ++k) {
        // lhs t[i, j, k] = a[i, k, j]^2 pairs (lhs 2, 0, 1) with (rhs 1, 0, 2): t[i, j, k] * r[i, k, j], r = reverse(a, 1).
        double term = av.at<double>({i, k, j}) * av.at<double>({i, k, j}) * av.at<double>({i, 2 - k, j});
        want += term;
        bound += std::abs(term);
      }
  EXPECT_NEAR(got.item().to<double>(), want, 32 * 2.3e-16 * bound);
  EXPECT_NEAR(plain.item().to<double>(), want, 32 * 2.3e-16 * bound);
}

TEST(Passes, DotDimensionSorting) {
  auto a = TracedTensor::input("a", DType::f64, {Dim(2), Dim(3), Dim(4)});
  auto b = TracedTensor::input("b", DType::f64, {Dim(4), Dim(3), Dim(5)});
  // Contract (a2, b0) and (a1, b1), listed in reverse lhs order.
  auto c = a.dot_general(b, {.lhs_contracting_dimensions = {2, 1}, .rhs_contracting_dimensions = {0, 1}});
  Program before = GraphCompiler::lower({c});
  Program after = passes::sort_dot_dimensions(before);
  show("dot-dimension sorting", before, after);
  EXPECT_NE(before.to_text().find("lhs_contract=[2, 1] rhs_contract=[0, 1]"), std::string::npos);
  EXPECT_NE(after.to_text().find("lhs_contract=[1, 2] rhs_contract=[1, 0]"), std::string::npos) << after.to_text();
  expect_same_results(before, after, {{"a", random_tensor({2, 3, 4}, DType::f64, 7)}, {"b", random_tensor({4, 3, 5}, DType::f64, 8)}});
}

// Regression (found by the program fuzzer): contracting axes of a broadcast
// operand have stride 0, a tie when the plan orders the pairs by stride; ties
// went by the attributes' order, which dimension sorting changes, so the 4
// pairs were summed in another order. Ties now go by axis number.
TEST(Passes, DotDimensionSortingOverABroadcastOperandIsBitForBit) {
  auto x = TracedTensor::input("x", DType::c128, {Dim(3), Dim(1), Dim(2)});
  TracedTensor b(vops::broadcast_in_dim(x.graph_value(), {3, 3, 2, 3}, {0, 1, 2}));
  auto c = b.dot_general(b, {.lhs_contracting_dimensions = {2, 3, 0, 1}, .rhs_contracting_dimensions = {2, 0, 1, 3}});
  Program before = GraphCompiler::lower({c});
  Program after = passes::sort_dot_dimensions(before);
  EXPECT_NE(after.to_text().find("lhs_contract=[0, 1, 2, 3] rhs_contract=[1, 3, 2, 0]"), std::string::npos) << after.to_text();
  for (std::uint64_t seed = 0; seed < 20; ++seed)
    expect_same_results(before, after, {{"x", random_tensor({3, 1, 2}, DType::c128, seed)}});
}

TEST(Passes, ElementwiseFusion) {
  auto a = TracedTensor::input("a", DType::f64, {Dim("n")});
  auto b = TracedTensor::input("b", DType::f64, {Dim("n")});
  auto c = TracedTensor::input("c", DType::f64, {Dim("n")});
  auto y = a.exp() * b + c * 2.0;
  Program before = GraphCompiler::lower({y});
  Program after = passes::dead_code_elimination(passes::fuse_elementwise(before));
  show("elementwise fusion", before, after);
  EXPECT_EQ(count(after.to_text(), "= fused{"), 1u) << after.to_text();
  EXPECT_EQ(count(after.to_text(), "= exp(%"), 0u);
  EXPECT_EQ(count(after.to_text(), "= broadcast_in_dim(%"), 0u);  // the scalar 2 is a kernel input
  for (std::int64_t n : {1, 5, 5000}) {
    expect_same_results(before, after, {{"a", random_tensor({n}, DType::f64, 9)},
                                        {"b", random_tensor({n}, DType::f64, 10)},
                                        {"c", random_tensor({n}, DType::f64, 11)}});
  }
}

TEST(Passes, FusionKeepsSharedIntermediates) {
  auto a = TracedTensor::input("a", DType::f32, {Dim(4)});
  auto e = a.exp();
  auto y1 = e * a, y2 = e + a;  // e has two users: it stays materialised
  Program after = passes::fuse_elementwise(GraphCompiler::lower({y1, y2}));
  EXPECT_EQ(count(after.to_text(), "= exp(%"), 1u) << after.to_text();
  expect_same_results(GraphCompiler::lower({y1, y2}), after, {{"a", random_tensor({4}, DType::f32, 12)}});
}

TEST(Passes, FusionDoesNotHoldTermsOfAnAccumulation) {
  // acc = t_0 + t_1 + ... + t_7 with each term a contraction computed between
  // the adds (Note [Fusion and liveness]): fusing the chain into one kernel
  // would keep all 8 terms alive at once; the adds stay separate instead,
  // and the fused program holds no more bytes at once than the unfused one.
  auto x = TracedTensor::input("x", DType::f64, {Dim(8), Dim(8)});
  TracedTensor acc = x.matmul(x);
  TracedTensor term = acc;
  for (int k = 1; k < 8; ++k) {
    term = term.matmul(x);
    acc = acc + term.tanh();
  }
  GraphCompiler fused, unfused({.fusion = false});
  Program pf = fused.compile(acc), pu = unfused.compile(acc);
  const std::int64_t matrix = 8 * 8 * 8;
  EXPECT_LE(peak_live_bytes(pf).value(), peak_live_bytes(pu).value()) << pf.to_text();
  EXPECT_LE(peak_live_bytes(pf).value(), 6 * matrix) << pf.to_text();
  EXPECT_GE(count(pf.to_text(), "= fused{"), 7u) << pf.to_text();  // tanh + add pairs still fuse
  CpuBackend cpu;
  expect_same_results(pu, pf,
                      {{"x", mul(random_tensor({8, 8}, DType::f64, 14), Scalar(0.3), cpu)}});
}

TEST(Passes, BufferLivenessAndInPlaceReuse) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
  auto t = x.reshape({Dim("n"), Dim(1)}).matmul(x.reshape({Dim(1), Dim("n")}));  // outer product
  auto y = (t.exp() + 1.0).sum();
  Program before = passes::fuse_elementwise(GraphCompiler::lower({y}));
  Program after = passes::assign_buffers(before);
  show("buffer assignment", before, after);
  EXPECT_NE(after.to_text().find("; in place of %"), std::string::npos) << after.to_text();
  EXPECT_NE(after.to_text().find("; release %"), std::string::npos);
  expect_same_results(before, after, {{"x", random_tensor({6}, DType::f64, 13)}});
}

TEST(Passes, FullPipelineIsBitForBitTheTracedProgram) {
  auto x = TracedTensor::input("x", DType::c128, {Dim("n"), Dim("n")});
  auto y = TracedTensor::input("y", DType::c128, {Dim("n"), Dim("n")});
  auto z = ((x.matmul(y.transpose()) * x).exp() - x.conj() * 3.0).sum({1});
  Program plain = GraphCompiler::lower({z});
  Program opt = GraphCompiler().compile(z);
  for (std::int64_t n : {1, 3, 40})
    expect_same_results(plain, opt, {{"x", random_tensor({n, n}, DType::c128, 14)}, {"y", random_tensor({n, n}, DType::c128, 15)}});
}

// Note [Products with a broadcast scalar] (src/runtime/compiler.cpp): a
// dot_general with an operand broadcast from a rank-0 value s becomes
// broadcast(sum(y) * s). Each case against the unrewritten product (the
// result may differ in the last bits: the sum is reordered): broadcast on
// either side, batch axes whose output positions are out of y's order, two
// contracted axes, real and complex.
TEST(Passes, BroadcastScalarDotsBecomeSums) {
  struct Case {
    Shape x, y;  // x is broadcast from s
    bool x_is_lhs;
    DotGeneralAttrs dims;
  };
  const Case cases[] = {
      {{4, 6}, {5, 6}, true, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {1}}},
      {{6, 4}, {5, 6}, false, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}},
      {{2, 7, 4}, {3, 7, 2}, false,
       {.lhs_batching_dimensions = {2}, .rhs_batching_dimensions = {0}, .lhs_contracting_dimensions = {1},
        .rhs_contracting_dimensions = {1}}},
      {{3, 2, 5, 4}, {4, 6, 3, 2}, true,
       {.lhs_batching_dimensions = {1}, .rhs_batching_dimensions = {3}, .lhs_contracting_dimensions = {3, 0},
        .rhs_contracting_dimensions = {0, 2}}},
  };
  CpuBackend backend;
  auto rt = Runtime::builder().register_engine(cpu_engine(backend)).build();
  std::uint64_t seed = 40;
  for (DType d : {DType::f64, DType::c128})
    for (const Case& c : cases) {
      SymShape xs, ys;
      for (auto e : c.x) xs.push_back(Dim(e));
      for (auto e : c.y) ys.push_back(Dim(e));
      auto s = TracedTensor::input("s", d, {});
      auto y = TracedTensor::input("y", d, ys);
      TracedTensor x(vops::broadcast_in_dim(s.graph_value(), xs, {}));
      auto out = c.x_is_lhs ? x.dot_general(y, c.dims) : y.dot_general(x, c.dims);
      Program before = GraphCompiler::lower({out});
      Program after = passes::dead_code_elimination(passes::fold_broadcast_dots(before));
      EXPECT_EQ(count(after.to_text(), "= dot_general("), 0u) << after.to_text();
      EXPECT_EQ(count(after.to_text(), "= reduce_sum("), 1u) << after.to_text();
      const RunInputs in{{"s", random_tensor({}, d, ++seed)}, {"y", random_tensor(c.y, d, ++seed)}};
      Tensor want = rt.run_compiled(before, in)[0], got = rt.run_compiled(after, in)[0];
      EXPECT_EQ(got.shape(), want.shape());
      EXPECT_TRUE(tensors_close(got, want, 1e-13, 1e-13)) << d << " case y " << c.y;
      // The whole pipeline applies it too; turning it off keeps the product.
      EXPECT_EQ(count(GraphCompiler().compile({out}).to_text(), "= dot_general("), 0u);
      EXPECT_EQ(count(GraphCompiler({.broadcast_dot_folding = false}).compile({out}).to_text(), "= dot_general("), 1u);
    }
}

// Note [Products with ones]: multiply by a broadcast constant 1 becomes its
// other operand for real and integer dtypes; complex products, products by
// another constant and products that are program outputs stay.
TEST(Passes, ProductsWithOnesFold) {
  for (DType d : {DType::f64, DType::f32, DType::i64, DType::c128}) {
    auto x = TracedTensor::input("x", d, {Dim(3), Dim(4)});
    auto broadcast = [&](double v) {
      auto s = TracedTensor::constant(Tensor::full({}, Scalar(v), d));
      return TracedTensor(vops::broadcast_in_dim(s.graph_value(), {Dim(3), Dim(4)}, {}));
    };
    const TracedTensor by_one = x * broadcast(1.0), by_two = x * broadcast(2.0);
    const TracedTensor sums = (broadcast(1.0) * by_one).sum() + by_two.sum();  // ones on both sides
    Program before = GraphCompiler::lower({sums, by_one});
    Program after = passes::dead_code_elimination(passes::fold_unit_products(before));
    show("products with ones", before, after);
    // Kept: x * 2, and x * 1 (a program output); complex: all three.
    EXPECT_EQ(count(after.to_text(), "= multiply("), is_complex(d) ? 3u : 2u) << d;
    EXPECT_EQ(count(before.to_text(), "= multiply("), 3u);
    expect_same_results(before, after, {{"x", random_tensor({3, 4}, d, 61)}});
    const Program sums_only = GraphCompiler().compile({sums});
    EXPECT_EQ(count(sums_only.to_text(), "multiply("), is_complex(d) ? 3u : 1u) << sums_only.to_text();
    EXPECT_EQ(count(GraphCompiler({.unit_product_folding = false}).compile({sums}).to_text(), "multiply("), 3u);
  }
}
