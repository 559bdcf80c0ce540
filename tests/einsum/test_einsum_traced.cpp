// Einsum on TracedTensor / EagerTensor handles: compiled programs against
// the eager Tensor einsum and a naive summation loop (all float dtypes),
// AD through einsum with the generic checker (FD JVP, <v, Ju> = <J^H v, u>,
// HVP), symbolic and data-dependent extents, and bad input.
#include <algorithm>
#include <array>
#include <cmath>

#include "ad/ad_check.hpp"
#include "einsum_reference.hpp"
#include "support/cpu_runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

double tol(DType d) { return 200 * dtype_eps(d); }

std::vector<std::int64_t> ranks_of(const std::vector<Shape>& shapes) {
  std::vector<std::int64_t> r;
  for (const Shape& s : shapes) r.push_back(static_cast<std::int64_t>(s.size()));
  return r;
}

// Traced inputs x0, x1, ... of the given dtype and constant shapes.
std::vector<TracedTensor> traced_inputs(const std::vector<Shape>& shapes, DType d) {
  std::vector<TracedTensor> in;
  for (std::size_t k = 0; k < shapes.size(); ++k)
    in.push_back(TracedTensor::input(detail::str("x", k), d, to_sym_shape(shapes[k])));
  return in;
}

// Tensors bound by the names of traced_inputs.
std::vector<std::pair<std::string, Tensor>> named(const std::vector<Tensor>& ops) {
  std::vector<std::pair<std::string, Tensor>> v;
  for (std::size_t k = 0; k < ops.size(); ++k) v.push_back({detail::str("x", k), ops[k]});
  return v;
}

int count_ops(const Program& p, const std::string& name) {
  int n = 0;
  for (const Instruction& in : p.code) n += in.name() == name;
  return n;
}

struct Case {
  const char* subscripts;
  std::vector<Shape> shapes;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> v = {
      {"ij,jk->ik", {{3, 4}, {4, 5}}},                            // matmul
      {"ij,jk", {{3, 4}, {4, 2}}},                                // implicit output
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},                   // batch first
      {"ijb,jkb->ikb", {{3, 4, 2}, {4, 5, 2}}},                   // batch trailing
      {"bij,bj->bi", {{6, 3, 2}, {6, 2}}},                        // batched matrix-vector
      {"ii->", {{4, 4}}},                                         // trace
      {"ii->i", {{4, 4}}},                                        // diagonal
      {"iij,kjj->ik", {{3, 3, 2}, {4, 2, 2}}},                    // diagonals in both operands
      {"ijij->", {{3, 2, 3, 2}}},                                 // double trace
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {3, 4, 2}}},          // ellipsis with broadcasting
      {"i,j->ij", {{3}, {4}}},                                    // outer product
      {"ij,ij->ij", {{3, 1}, {1, 4}}},                            // size-1 broadcasting
      {"ijk->kij", {{2, 3, 4}}},                                  // permutation only
      {"ijk->j", {{2, 3, 4}}},                                    // partial sum
      {",ij->ji", {{}, {2, 3}}},                                  // scalar operand
      {"αβ,βγ->γα", {{3, 4}, {4, 2}}},                            // Unicode labels
      {"abc,bd,cde,ef->af", {{2, 3, 4}, {3, 2}, {4, 2, 3}, {3, 5}}},  // 4-operand network
      {"ab,bc,cd,da->", {{2, 3}, {3, 4}, {4, 2}, {2, 2}}},        // ring
  };
  return v;
}

}  // namespace

TEST(EinsumTraced, CompiledMatchesEagerAndNaive) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  for (const Case& c : cases()) {
    EinsumSpec spec = parse_einsum(c.subscripts, ranks_of(c.shapes));
    for (DType d : float_dtypes()) {
      SCOPED_TRACE(detail::str(c.subscripts, " ", d));
      std::vector<Tensor> ops;
      for (std::size_t k = 0; k < c.shapes.size(); ++k) ops.push_back(random_tensor(c.shapes[k], d, 10 + k));
      std::vector<TracedTensor> in = traced_inputs(c.shapes, d);
      TracedTensor y = einsum(c.subscripts, in);
      EXPECT_EQ(y.dtype(), d);
      Program p = GraphCompiler().compile(y);
      std::vector<Tensor> out = rt.run_compiled(p, named(ops));
      ASSERT_EQ(out.size(), 1u);
      Tensor eager = einsum(c.subscripts, ops, cpu);
      EXPECT_TRUE(tensors_close(out[0], eager.contiguous(), tol(d), tol(d)));
      EXPECT_TRUE(tensors_close(out[0], naive_einsum(spec, ops, d), tol(d), tol(d)));
    }
  }
}

TEST(EinsumTraced, IntegerLabelsAndSpecForms) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  std::vector<Shape> shapes{{3, 4}, {4, 5}, {5, 2}};
  std::vector<Tensor> ops;
  for (std::size_t k = 0; k < shapes.size(); ++k) ops.push_back(random_tensor(shapes[k], DType::f64, 30 + k));
  std::vector<TracedTensor> in = traced_inputs(shapes, DType::f64);
  TracedTensor a = einsum({{7, 100}, {100, 3}, {3, 42}}, {42, 7}, in);
  TracedTensor b = einsum(parse_einsum("ij,jk,kl->li", {2, 2, 2}), in, {.optimizer = PathOptimizer::greedy});
  TracedTensor c = einsum("ij,jk,kl->li", in, {.path = {{0, 1}, {0, 1}}});
  std::vector<Tensor> out = rt.run_compiled(GraphCompiler().compile({a, b, c}), named(ops));
  Tensor expected = naive_einsum(parse_einsum("ij,jk,kl->li", {2, 2, 2}), ops, DType::f64);
  for (const Tensor& t : out) EXPECT_TRUE(tensors_close(t, expected, 1e-12, 1e-12));
}

TEST(EinsumTraced, MixedDtypesPromote) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  Tensor a = random_tensor({3, 4}, DType::f32, 1), b = random_tensor({4, 2}, DType::c128, 2);
  auto ta = TracedTensor::input("a", DType::f32, {Dim(3), Dim(4)});
  auto tb = TracedTensor::input("b", DType::c128, {Dim(4), Dim(2)});
  TracedTensor y = einsum("ij,jk->ik", {ta, tb});
  EXPECT_EQ(y.dtype(), DType::c128);
  Tensor got = rt.run_compiled(GraphCompiler().compile(y), {{"a", a}, {"b", b}})[0];
  EXPECT_TRUE(tensors_close(got, einsum("ij,jk->ik", {a, b}, cpu), 1e-6, 1e-6));
}

TEST(EinsumTraced, LowersToPrimitivesOfThePlan) {
  // Each pairwise step of the plan is one dot_general in the program; the
  // diagonal of a constant extent is a gather.
  std::vector<Shape> shapes{{2, 3, 4}, {3, 2}, {4, 2, 3}, {3, 5}};
  const char* sub = "abc,bd,cde,ef->af";
  EinsumSpec spec = parse_einsum(sub, ranks_of(shapes));
  EinsumPlan plan = EinsumPlan::build(spec, shapes, std::vector<DType>(4, DType::f64), einsum_path(spec, shapes));
  int plan_dots = 0;
  for (const EinsumInstr& in : plan.body()) plan_dots += in.op == EinsumOp::dot_general;
  EXPECT_EQ(plan_dots, 3);
  Program p = GraphCompiler::lower({einsum(sub, traced_inputs(shapes, DType::f64))});
  EXPECT_EQ(count_ops(p, "dot_general"), plan_dots) << p.to_text();
  Program t = GraphCompiler::lower({einsum("ii->", traced_inputs({{4, 4}}, DType::f64))});
  EXPECT_EQ(count_ops(t, "gather"), 1) << t.to_text();
  EXPECT_EQ(count_ops(t, "reduce_sum"), 1) << t.to_text();
  // The plan's permute_views compose: a batched product in dot_general's own
  // output order is that one instruction (no transpose pair).
  Program bm = GraphCompiler::lower({einsum("bij,bjk->bik", traced_inputs({{2, 32, 32}, {2, 32, 32}}, DType::f64))});
  EXPECT_EQ(count_ops(bm, "transpose"), 0) << bm.to_text();
  EXPECT_EQ(count_ops(bm, "dot_general"), 1) << bm.to_text();
  // Constant shapes plan exactly as given.
  EXPECT_EQ(einsum_planning_shapes(spec, {to_sym_shape(shapes[0]), to_sym_shape(shapes[1]),
                                          to_sym_shape(shapes[2]), to_sym_shape(shapes[3])}),
            shapes);
}

TEST(EinsumTraced, SlicedPlanInTracedProgram) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  const char* sub = "ab,bcd,dce,ef->af";
  std::vector<Shape> shapes{{3, 4}, {4, 5, 6}, {6, 5, 4}, {4, 3}};
  EinsumSpec spec = parse_einsum(sub, ranks_of(shapes));
  PathOptions opt{.optimizer = PathOptimizer::greedy, .memory_limit = 10};
  ASSERT_GT(einsum_path(spec, shapes, opt).num_slices, 1);
  for (DType d : {DType::f64, DType::c64}) {
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < shapes.size(); ++k) ops.push_back(random_tensor(shapes[k], d, 40 + k));
    TracedTensor y = einsum(sub, traced_inputs(shapes, d), opt);
    Tensor got = rt.run_compiled(GraphCompiler().compile(y), named(ops))[0];
    EXPECT_TRUE(tensors_close(got, naive_einsum(spec, ops, d), 10 * tol(d), 10 * tol(d))) << d;
  }
}

TEST(EinsumTraced, PlanCacheServesRepeatedTraces) {
  EinsumCache cache;
  std::vector<Shape> shapes{{3, 4}, {4, 5}};
  for (int i = 0; i < 3; ++i) (void)einsum("ij,jk->ik", traced_inputs(shapes, DType::f64), {}, {}, &cache);
  EXPECT_EQ(cache.misses(), 1);
  EXPECT_EQ(cache.hits(), 2);
}

// ---- symbolic and data-dependent extents ---------------------------------------------

TEST(EinsumTraced, SymbolicExtentsRunForSeveralBindings) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  auto a = TracedTensor::input("a", DType::f64, {Dim("n"), Dim(4)});
  auto b = TracedTensor::input("b", DType::f64, {Dim(4), Dim("m")});
  auto c = TracedTensor::input("c", DType::f64, {Dim("m"), Dim("n")});
  auto s = TracedTensor::input("s", DType::f64, {Dim("r"), Dim("q"), Dim("r"), Dim("q")});
  TracedTensor chain = einsum("ij,jk,kl->il", {a, b, c});       // [n, n]
  TracedTensor trace = einsum("ij,jk,ki->", {a, b, c});         // symbolic diagonal of a product
  TracedTensor dtr = einsum("ijij->", {s});                     // symbolic diagonals (pad form)
  TracedTensor diag = einsum("ii->i", {chain});                 // [n]
  EXPECT_EQ(chain.shape(), (SymShape{Dim("n"), Dim("n")}));
  EXPECT_EQ(diag.shape(), (SymShape{Dim("n")}));
  Program p = GraphCompiler().compile({chain, trace, dtr, diag});
  for (auto [n, m, r, q] : {std::array<std::int64_t, 4>{3, 5, 2, 3}, std::array<std::int64_t, 4>{6, 2, 4, 1}}) {
    SCOPED_TRACE(detail::str("n=", n, " m=", m, " r=", r, " q=", q));
    Tensor av = random_tensor({n, 4}, DType::f64, 1), bv = random_tensor({4, m}, DType::f64, 2);
    Tensor cv = random_tensor({m, n}, DType::f64, 3), sv = random_tensor({r, q, r, q}, DType::f64, 4);
    std::vector<Tensor> out = rt.run_compiled(p, {{"a", av}, {"b", bv}, {"c", cv}, {"s", sv}});
    Tensor e_chain = einsum("ij,jk,kl->il", {av, bv, cv}, cpu);
    EXPECT_TRUE(tensors_close(out[0], e_chain.contiguous(), 1e-12, 1e-12));
    EXPECT_TRUE(tensors_close(out[1], einsum("ij,jk,ki->", {av, bv, cv}, cpu), 1e-12, 1e-12));
    EXPECT_TRUE(tensors_close(out[2], naive_einsum(parse_einsum("ijij->", {4}), {sv}, DType::f64), 1e-12, 1e-12));
    EXPECT_TRUE(tensors_close(out[3], einsum("ii->i", {e_chain}, cpu).contiguous(), 1e-12, 1e-12));
  }
}

TEST(EinsumTraced, PlanningShapesFollowTheRule) {
  EinsumSpec s = parse_einsum("ij,jk,kl->il", {2, 2, 2});
  // Symbols take the default, or their hint; a constant in another operand wins.
  auto p = einsum_planning_shapes(s, {{Dim("n"), Dim(3)}, {Dim("x"), Dim("m")}, {Dim("m"), Dim(1)}});
  EXPECT_EQ(p, (std::vector<Shape>{{64, 3}, {3, 64}, {64, 1}}));
  auto q = einsum_planning_shapes(s, {{Dim("n"), Dim(3)}, {Dim(3), Dim("m") * Dim("n")}, {Dim("m") * Dim("n"), Dim(1)}},
                                  {.hints = {{"m", 5}}, .default_extent = 2});
  EXPECT_EQ(q, (std::vector<Shape>{{2, 3}, {3, 10}, {10, 1}}));
  // A hint below 2 is raised to 2 (symbols never broadcast).
  auto r = einsum_planning_shapes(parse_einsum("i->", {1}), {{Dim("n")}}, {.hints = {{"n", 1}}});
  EXPECT_EQ(r, (std::vector<Shape>{{2}}));
}

TEST(EinsumTraced, LabelExtentsAndADerivedEmitter) {
  EinsumSpec s = parse_einsum("ij,jk,kl->il", {2, 2, 2});
  // A constant other than 1 wins over a symbol; a label seen only as 1 is 1.
  EinsumLabelExtents e = einsum_label_extents(s, {{Dim("n"), Dim(3)}, {Dim("x"), Dim("m")}, {Dim("m"), Dim(1)}});
  EXPECT_EQ(e.dims, (std::vector<Dim>{Dim("n"), Dim(3), Dim("m"), Dim(1)}));
  EXPECT_EQ(e.planning_shapes, (std::vector<Shape>{{64, 3}, {3, 64}, {64, 1}}));
  EXPECT_THROW(einsum_label_extents(s, {{Dim(2), Dim(3)}}), ValueError);
  // An emitter derived from EinsumValueEmitter: run_plan calls its members.
  struct Counting : EinsumValueEmitter {
    int dots = 0, reductions = 0;
    Value dot_general(const Value& a, const Value& b, const DotGeneralAttrs& d) {
      ++dots;
      return EinsumValueEmitter::dot_general(a, b, d);
    }
    Value reduce_sum(const Value& a, const DimVec& axes) {
      ++reductions;
      return EinsumValueEmitter::reduce_sum(a, axes);
    }
  };
  EinsumSpec t = parse_einsum("ij,jk,kl->i", {2, 2, 2});
  std::vector<Value> in{graph::input("a", DType::f64, {Dim("n"), Dim(3)}), graph::input("b", DType::f64, {Dim(3), Dim(4)}),
                        graph::input("c", DType::f64, {Dim(4), Dim(5)})};
  EinsumLabelExtents te = einsum_label_extents(t, {in[0].shape(), in[1].shape(), in[2].shape()});
  EinsumPlan plan = EinsumPlan::build(t, te.planning_shapes, {DType::f64, DType::f64, DType::f64},
                                      einsum_path(t, te.planning_shapes));
  Counting emit{{te.dims}};
  Value got = run_plan(plan, std::span<const Value>(in), emit);
  EXPECT_EQ(emit.dots, 2);
  EXPECT_EQ(emit.reductions, 1);  // l is summed in the prologue
  Value want = einsum_value(t, in);
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  Program p = GraphCompiler().compile({TracedTensor(got), TracedTensor(want)});
  auto out = rt.run_compiled(p, {{"a", random_tensor({6, 3}, DType::f64, 1)}, {"b", random_tensor({3, 4}, DType::f64, 2)},
                                 {"c", random_tensor({4, 5}, DType::f64, 3)}});
  EXPECT_EQ(out[0].shape(), (Shape{6}));
  EXPECT_EQ(out[0].to_vec_col_major<double>(), out[1].to_vec_col_major<double>());
}

TEST(EinsumTraced, DifferentSymbolsOfOneLabelAreCheckedAtRunTime) {
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  auto a = TracedTensor::input("a", DType::f64, {Dim(2), Dim("n")});
  auto b = TracedTensor::input("b", DType::f64, {Dim("m"), Dim(3)});
  Program p = GraphCompiler().compile(einsum("ij,jk->ik", {a, b}));
  Tensor av = random_tensor({2, 4}, DType::f64, 1), bv = random_tensor({4, 3}, DType::f64, 2);
  EXPECT_TRUE(tensors_close(rt.run_compiled(p, {{"a", av}, {"b", bv}})[0], einsum("ij,jk->ik", {av, bv}, cpu),
                            1e-12, 1e-12));
  EXPECT_THROW(rt.run_compiled(p, {{"a", av}, {"b", random_tensor({5, 3}, DType::f64, 3)}}), Error);
  // The runtime stays usable.
  EXPECT_NO_THROW(rt.run_compiled(p, {{"a", av}, {"b", bv}}));
}

// ---- AD through einsum ---------------------------------------------------------------

namespace {

AdCase einsum_case(const char* sub, const std::vector<Shape>& shapes, DType d, std::uint64_t seed) {
  std::vector<Tensor> in;
  for (std::size_t k = 0; k < shapes.size(); ++k) in.push_back(random_tensor(shapes[k], d, seed + k));
  std::string s = sub;
  return {detail::str(sub, " ", d), [s](const std::vector<Value>& xs) { return einsum_value(s, xs); }, in};
}

}  // namespace

TEST(EinsumTracedAd, GenericChecker) {
  const std::vector<Case> ad_cases = {
      {"ij,jk->ik", {{3, 4}, {4, 2}}},
      {"bij,bjk->bik", {{2, 3, 2}, {2, 2, 3}}},
      {"bij,bj->bi", {{3, 3, 2}, {3, 2}}},
      {"ii->", {{3, 3}}},
      {"iij,kjj->ik", {{3, 3, 2}, {2, 2, 2}}},
      {"...ij,...jk->...ik", {{2, 1, 2, 3}, {3, 3, 2}}},
      {"i,j->ij", {{3}, {2}}},
      {"ij,ij->i", {{3, 2}, {3, 2}}},
      {"abc,bd,cde,ef->af", {{2, 3, 2}, {3, 2}, {2, 2, 3}, {3, 2}}},
  };
  std::uint64_t seed = 100;
  for (DType d : {DType::f64, DType::c128})
    for (const Case& c : ad_cases) check_ad_case(einsum_case(c.subscripts, c.shapes, d, seed += 10));
}

TEST(EinsumTracedAd, GradientOfSymbolicTraceIsIdentity) {
  // d tr(A) / dA = I through the pad form of a symbolic diagonal, and
  // d tr(A B) / dA = B^T.
  CpuBackend cpu;
  Runtime rt = cpu_runtime(cpu);
  auto a = TracedTensor::input("a", DType::f64, {Dim("n"), Dim("n")});
  auto b = TracedTensor::input("b", DType::f64, {Dim("n"), Dim("n")});
  TracedTensor ga = grad(einsum("ii->", {a}), a);
  TracedTensor gab = grad(einsum("ij,ji->", {a, b}), a);
  TracedTensor gsq = grad(einsum("ij,jk,ki->", {a, a, b}), b);   // d tr(A A B)/dB = (A A)^T
  Program p = GraphCompiler().compile({ga, gab, gsq});
  for (std::int64_t n : {2, 5}) {
    Tensor av = random_tensor({n, n}, DType::f64, 5), bv = random_tensor({n, n}, DType::f64, 6);
    std::vector<Tensor> out = rt.run_compiled(p, {{"a", av}, {"b", bv}});
    EXPECT_TRUE(tensors_close(out[0], Tensor::eye(n), 0, 0)) << n;
    EXPECT_TRUE(tensors_close(out[1], bv.permute({1, 0}).contiguous(), 1e-14, 1e-14)) << n;
    Tensor aa = naive_einsum(parse_einsum("ij,jk->ki", {2, 2}), {av, av}, DType::f64);
    EXPECT_TRUE(tensors_close(out[2], aa, 1e-12, 1e-12)) << n;
  }
}

TEST(EinsumTracedAd, EagerHandleBackward) {
  CpuBackend cpu;
  EagerRuntime eager(cpu);
  Tensor xv = random_tensor({2, 3}, DType::f64, 8), wv = random_tensor({3, 4}, DType::f64, 9);
  EagerTensor x = eager.tensor(xv).requires_grad();
  EagerTensor w = eager.tensor(wv);
  // loss = sum_ik (x w)_ik^2; d loss / dx = 2 (x w) w^T.
  EagerTensor y = einsum("ij,jk->ik", {x, w});
  EXPECT_TRUE(tensors_close(y.value(), naive_einsum(parse_einsum("ij,jk->ik", {2, 2}), {xv, wv}, DType::f64),
                            1e-14, 1e-14));
  EagerTensor loss = einsum({{0, 1}, {0, 1}}, {}, {y, y});
  backward(loss);
  Tensor xw = naive_einsum(parse_einsum("ij,jk->ik", {2, 2}), {xv, wv}, DType::f64);
  Tensor expect = naive_einsum(parse_einsum("ik,jk->ij", {2, 2}), {xw, wv}, DType::f64);
  EXPECT_TRUE(tensors_close(x.grad().value(), mul(expect, Scalar(2.0), cpu), 1e-13, 1e-13));
}

// ---- bad input -----------------------------------------------------------------------

TEST(EinsumTracedErrors, MalformedAndMismatched) {
  auto a = TracedTensor::input("a", DType::f64, {Dim(2), Dim(3)});
  auto b = TracedTensor::input("b", DType::f64, {Dim(3), Dim("n")});
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)einsum("ij,jk->ik->", {a, b}); }, {"ij,jk->ik->"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)einsum("ij,j$->ik", {a, b}); }, {"ij,j$->ik"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)einsum("ij,jk->ik", {a}); }, {"ij,jk->ik"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)einsum("ij,jk,kl->il", {a, b}); }, {"ij,jk,kl->il"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)einsum("ijk,jk->i", {a, b}); }, {"ijk,jk->i"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)einsum({{0, 1}, {1, 2}, {2, 3}}, {0, 3}, {a, b}); },
                                      {"operands"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)einsum({{0, 1, 2}, {1, 2}}, {0}, {a, b}); }, {"rank"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { (void)einsum("ij,ik->jk", {a, b}); }, {"einsum"}));
  EXPECT_THROW((void)einsum("ij,jk->ik", {a, TracedTensor()}), ValueError);
  auto flags = TracedTensor::input("f", DType::bool_, {Dim(3), Dim(2)});
  EXPECT_THROW((void)einsum("ij,jk->ik", {a, flags}), DTypeError);
  // Slicing a symbolic label is refused.
  auto p = TracedTensor::input("p", DType::f64, {Dim(2), Dim("n")});
  auto q = TracedTensor::input("q", DType::f64, {Dim("n"), Dim("m")});
  auto r = TracedTensor::input("r", DType::f64, {Dim("m"), Dim(2)});
  EXPECT_TRUE(throws_with<ValueError>(
      [&] { (void)einsum("ij,jk,kl->il", {p, q, r}, {.memory_limit = 4}); }, {"symbolic", "slices"}));
  // The eager-handle form reports the same errors.
  CpuBackend cpu;
  EagerRuntime eager(cpu);
  EagerTensor e = eager.tensor(Tensor::ones({2, 3}));
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)einsum("ij,jk->ik", {e}); }, {"ij,jk->ik"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { (void)einsum("ij,jk->i-k", {e, e}); }, {"ij,jk->i-k"}));
}
