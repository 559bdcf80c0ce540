// Eager einsum against a naive summation loop: every notation feature, all
// float dtypes, random operand layouts, every optimizer, slicing, and the
// primitive-only (traced-style) emitter.
#include <cmath>

#include "einsum_reference.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

struct Case {
  const char* subscripts;
  std::vector<Shape> shapes;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> v = {
      {"ij,jk->ik", {{3, 4}, {4, 5}}},                    // matrix product
      {"ij,jk", {{3, 4}, {4, 2}}},                        // implicit output
      {"ba", {{3, 2}}},                                    // implicit transpose
      {"ij->ji", {{3, 4}}},                                // permutation only
      {"ij->", {{3, 4}}},                                  // full sum
      {"ij->j", {{3, 4}}},                                 // partial sum
      {"ii->i", {{4, 4}}},                                 // diagonal
      {"ii->", {{4, 4}}},                                  // trace
      {"iii->i", {{3, 3, 3}}},                             // triple diagonal
      {"iji->j", {{3, 2, 3}}},                             // diagonal of non-adjacent axes, summed
      {"iij,kjj->ik", {{3, 3, 2}, {4, 2, 2}}},             // diagonals in both operands
      {"ij,ij->ij", {{3, 4}, {3, 4}}},                     // Hadamard
      {"ij,ij->i", {{3, 4}, {3, 4}}},                      // row-wise dot
      {"ij,ij->", {{3, 4}, {3, 4}}},                       // Frobenius inner product
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},            // batched matmul, batch first
      {"ijb,jkb->ikb", {{3, 4, 2}, {4, 5, 2}}},            // batched matmul, batch trailing
      {"bij,bjk->kib", {{2, 3, 4}, {2, 4, 5}}},            // batched, permuted output
      {"i,j->ij", {{3}, {4}}},                             // outer product
      {"i,i->", {{5}, {5}}},                               // dot product
      {",->", {{}, {}}},                                   // scalars
      {",ij->ij", {{}, {2, 3}}},                           // scalar times matrix
      {"ij,->ji", {{2, 3}, {}}},                           // matrix times scalar, transposed
      {"...ij,...jk->...ik", {{2, 3, 4}, {4, 5}}},         // ellipsis of different ranks
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {3, 4, 2}}},   // ellipsis broadcasting 1 -> 3
      {"i...,...->i...", {{2, 3}, {4, 1, 3}}},             // NumPy's example
      {"...,...->...", {{2, 1}, {3}}},                     // broadcast product
      {"ij,ij->ij", {{3, 1}, {1, 4}}},                     // size-1 broadcasting
      {"ij,jk->ik", {{3, 1}, {4, 5}}},                     // broadcasting a contracted label
      {"ij,kj->ikj", {{2, 1}, {3, 4}}},                    // broadcast axis kept in the output
      {"αβ,βγ->γα", {{3, 4}, {4, 2}}},                     // Greek labels
      {"жи,иё->ёж", {{2, 3}, {3, 4}}},                     // Cyrillic labels
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}},          // chain
      {"ij,ik,il->i", {{3, 2}, {3, 4}, {3, 2}}},           // hyperedge kept
      {"ij,ik,il->", {{3, 2}, {3, 4}, {3, 2}}},            // hyperedge summed
      {"ijk,jl->il", {{2, 3, 4}, {3, 5}}},                 // label of one operand summed first
      {"abc,cd,dbe->ae", {{2, 3, 4}, {4, 2}, {2, 3, 3}}},  // mixed
      {"ab,bc,cd,de,ea->", {{2, 3}, {3, 2}, {2, 4}, {4, 3}, {3, 2}}},  // ring
      {"abcd,dcef->fbea", {{2, 3, 2, 3}, {3, 2, 2, 4}}},   // multi-axis contraction
      {"ij,jk->ik", {{0, 3}, {3, 4}}},                     // empty result
      {"ij,jk->ik", {{2, 0}, {0, 4}}},                     // empty contraction: zeros
      {"ij,ij->", {{0, 2}, {0, 2}}},                       // empty sum: zero
  };
  return v;
}

double tol(DType d, double terms) { return 50 * dtype_eps(d) * std::max(1.0, terms); }

// Product of the extents of the labels that the output lacks.
double summed_terms(const EinsumSpec& spec, const std::vector<Shape>& shapes) {
  auto sizes = einsum_label_sizes(spec, shapes);
  double t = 1;
  for (std::int64_t l = 0; l < spec.num_labels(); ++l)
    if (std::find(spec.output.begin(), spec.output.end(), l) == spec.output.end())
      t *= static_cast<double>(sizes[static_cast<std::size_t>(l)]);
  return t;
}

std::vector<std::int64_t> ranks_of(const std::vector<Shape>& shapes) {
  std::vector<std::int64_t> r;
  for (const Shape& s : shapes) r.push_back(static_cast<std::int64_t>(s.size()));
  return r;
}

}  // namespace

TEST(EinsumEval, EveryNotationFeatureAllDtypesAllLayouts) {
  CpuBackend cpu;
  std::uint64_t seed = 1;
  for (const Case& c : cases()) {
    EinsumSpec spec = parse_einsum(c.subscripts, ranks_of(c.shapes));
    const double terms = summed_terms(spec, c.shapes);
    for (DType d : float_dtypes()) {
      std::vector<Tensor> ops;
      for (const Shape& s : c.shapes) ops.push_back(random_tensor(s, d, seed++));
      Tensor expected = naive_einsum(spec, ops, d);
      for (int layout = 0; layout < kNumLayouts; ++layout) {
        std::vector<Tensor> laid;
        for (const Tensor& t : ops) laid.push_back(with_random_layout(t, seed++, layout));
        Tensor got = einsum(c.subscripts, laid, cpu);
        EXPECT_TRUE(tensors_close(got, expected, tol(d, terms), tol(d, terms)))
            << c.subscripts << " dtype " << d << " layout " << layout;
        for (std::size_t k = 0; k < ops.size(); ++k) EXPECT_TRUE(tensors_equal(laid[k], ops[k]));  // untouched
      }
    }
  }
}

TEST(EinsumEval, IntegerDtypesAreExact) {
  CpuBackend cpu;
  for (DType d : {DType::i32, DType::i64}) {
    std::vector<Tensor> ops{random_tensor({3, 4, 2}, d, 3), random_tensor({4, 5, 2}, d, 4)};
    EinsumSpec spec = parse_einsum("ijb,jkb->kib", {3, 3});
    EXPECT_TRUE(tensors_equal(einsum(spec, ops, cpu), naive_einsum(spec, ops, d))) << d;
  }
}

TEST(EinsumEval, MixedDtypesPromote) {
  CpuBackend cpu;
  const std::vector<std::pair<DType, DType>> mixes = {{DType::f32, DType::f64},
                                                      {DType::f32, DType::c64},
                                                      {DType::f64, DType::c64},
                                                      {DType::c64, DType::c128},
                                                      {DType::i64, DType::f32}};
  for (auto [da, db] : mixes) {
    Tensor a = random_tensor({3, 4}, da, 5), b = random_tensor({4, 2}, db, 6);
    const DType want = promote_types(da, db);
    EinsumSpec spec = parse_einsum("ij,jk->ki", {2, 2});
    Tensor got = einsum(spec, {a, b}, cpu);
    EXPECT_EQ(got.dtype(), want) << da << " x " << db;
    EXPECT_TRUE(tensors_close(got, naive_einsum(spec, {a, b}, want), tol(want, 4), tol(want, 4)));
  }
}

TEST(EinsumEval, IntegerLabelFormMatchesStringForm) {
  CpuBackend cpu;
  for (DType d : float_dtypes()) {
    Tensor a = random_tensor({3, 4, 2}, d, 7), b = random_tensor({4, 5}, d, 8);
    Tensor s = einsum("ijk,jl->lik", {a, b}, cpu);
    Tensor i = einsum({{10, 200, 3000}, {200, 40000}}, {40000, 10, 3000}, {a, b}, cpu);
    EXPECT_TRUE(tensors_close(i, s, tol(d, 4), tol(d, 4))) << d;
  }
}

TEST(EinsumEval, EveryOptimizerAndUserPathsGiveTheSameResult) {
  CpuBackend cpu;
  const char* sub = "ab,bc,cd,de,ef,fa->";
  std::vector<Shape> shapes{{2, 3}, {3, 4}, {4, 2}, {2, 3}, {3, 2}, {2, 2}};
  EinsumSpec spec = parse_einsum(sub, ranks_of(shapes));
  for (DType d : float_dtypes()) {
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < shapes.size(); ++k) ops.push_back(random_tensor(shapes[k], d, 20 + k));
    Tensor expected = naive_einsum(spec, ops, d);
    for (PathOptimizer o : {PathOptimizer::automatic, PathOptimizer::greedy, PathOptimizer::optimal,
                            PathOptimizer::annealing})
      EXPECT_TRUE(tensors_close(einsum(sub, ops, cpu, {.optimizer = o}), expected, tol(d, 100), tol(d, 100)))
          << path_optimizer_name(o);
    // Left-to-right and "last two first" user paths.
    PathOptions left{.path = {{0, 1}, {0, 4}, {0, 3}, {0, 2}, {0, 1}}};
    PathOptions right{.path = {{4, 5}, {3, 4}, {2, 3}, {1, 2}, {0, 1}}};
    EXPECT_TRUE(tensors_close(einsum(sub, ops, cpu, left), expected, tol(d, 100), tol(d, 100)));
    EXPECT_TRUE(tensors_close(einsum(sub, ops, cpu, right), expected, tol(d, 100), tol(d, 100)));
  }
}

TEST(EinsumEval, SlicedContractionMatches) {
  CpuBackend cpu;
  // A chain whose middle intermediate is large; a tight memory limit slices.
  const char* sub = "ab,bcd,dce,ef->af";
  std::vector<Shape> shapes{{3, 4}, {4, 5, 6}, {6, 5, 4}, {4, 3}};
  EinsumSpec spec = parse_einsum(sub, ranks_of(shapes));
  for (DType d : float_dtypes()) {
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < shapes.size(); ++k) ops.push_back(random_tensor(shapes[k], d, 40 + k));
    Tensor expected = naive_einsum(spec, ops, d);
    for (PathOptimizer o : {PathOptimizer::greedy, PathOptimizer::optimal, PathOptimizer::annealing}) {
      PathOptions opt{.optimizer = o, .memory_limit = 10};
      ContractionPath p = einsum_path(spec, shapes, opt);
      EXPECT_GT(p.num_slices, 1) << path_optimizer_name(o);
      Tensor got = einsum(sub, ops, cpu, opt);
      EXPECT_TRUE(tensors_close(got, expected, tol(d, 200), tol(d, 200))) << path_optimizer_name(o) << " " << d;
    }
  }
}

TEST(EinsumEval, PrimitiveOnlyEmitterMatchesViews) {
  // The emitter a traced program would use: transpose for permute_view,
  // gather for diagonal.
  CpuBackend cpu;
  for (const char* sub : {"iij,kjj->ik", "iii->i", "iji->j", "bij,bjk->kib", "ij->ji", "ijk,jl->lik"}) {
    std::vector<Shape> shapes;
    if (std::string(sub) == "iij,kjj->ik") shapes = {{3, 3, 2}, {4, 2, 2}};
    if (std::string(sub) == "iii->i") shapes = {{3, 3, 3}};
    if (std::string(sub) == "iji->j") shapes = {{3, 2, 3}};
    if (std::string(sub) == "bij,bjk->kib") shapes = {{2, 3, 4}, {2, 4, 5}};
    if (std::string(sub) == "ij->ji") shapes = {{3, 4}};
    if (std::string(sub) == "ijk,jl->lik") shapes = {{2, 3, 4}, {3, 5}};
    EinsumSpec spec = parse_einsum(sub, ranks_of(shapes));
    for (DType d : float_dtypes()) {
      std::vector<Tensor> ops;
      std::vector<DType> dtypes;
      for (std::size_t k = 0; k < shapes.size(); ++k) {
        ops.push_back(random_tensor(shapes[k], d, 60 + k));
        dtypes.push_back(d);
      }
      EinsumPlan plan = EinsumPlan::build(spec, shapes, dtypes, einsum_path(spec, shapes));
      EagerEmitter strict{cpu, false};
      Tensor got = run_plan(plan, std::span<const Tensor>(ops), strict);
      EXPECT_TRUE(got.is_contiguous() || got.ndim() <= 1) << sub;
      EXPECT_TRUE(tensors_close(got, naive_einsum(spec, ops, d), tol(d, 10), tol(d, 10))) << sub << " " << d;
    }
  }
}

TEST(EinsumEval, DiagonalGatherMatchesTensorDiagonal) {
  CpuBackend cpu;
  Tensor x = random_tensor({3, 2, 3, 4}, DType::f64, 70);
  DiagonalGather g = diagonal_gather(x.shape(), 0, 2);
  EXPECT_EQ(g.index_shape, (Shape{3, 2}));
  Tensor idx = Tensor::from_vec_col_major<std::int64_t>(g.index_shape, g.index_values);
  EXPECT_TRUE(tensors_equal(ops::gather(x, idx, g.attrs, cpu), x.diagonal(0, 2).contiguous()));
  EXPECT_TRUE(throws_with<ShapeError>([&] { diagonal_gather(x.shape(), 0, 1); }, {"diagonal_gather", "differ in extent"}));
}

TEST(EinsumEval, ResultViews) {
  CpuBackend cpu;
  Tensor a = random_tensor({30, 40}, DType::f64, 80), b = random_tensor({40, 50}, DType::f64, 81);
  // A pure permutation is a view of the operand (like NumPy's einsum).
  Tensor t = einsum("ij->ji", {a}, cpu);
  EXPECT_TRUE(t.shares_storage_with(a));
  // The last (GEMM-sized) product is laid out so that the requested order is dense.
  EXPECT_TRUE(einsum("ij,jk->ki", {a, b}, cpu).is_contiguous());
  EXPECT_TRUE(einsum("ij,jk->ik", {a, b}, cpu).is_contiguous());
  // Batch axes are slowest in a dot_general result: "bik" is a permuted view.
  Tensor x = random_tensor({2, 3, 4}, DType::f64, 82), y = random_tensor({2, 4, 5}, DType::f64, 83);
  Tensor z = einsum("bij,bjk->bik", {x, y}, cpu);
  EXPECT_FALSE(z.is_contiguous());
  EXPECT_TRUE(z.permute({1, 2, 0}).is_contiguous());
  EXPECT_TRUE(tensors_close(z, naive_einsum(parse_einsum("bij,bjk->bik", {3, 3}), {x, y}, DType::f64), 1e-13, 1e-13));
}

TEST(EinsumEvalErrors, BadOperands) {
  CpuBackend cpu;
  Tensor a = random_tensor({3, 4}, DType::f64, 90);
  const Tensor before = a.duplicate();
  EXPECT_TRUE(throws_with<DTypeError>([&] { einsum("ij,jk->ik", {a, Tensor::zeros({4, 2}, DType::bool_)}, cpu); },
                                      {"einsum", "operand 1 has dtype bool", "\"ij,jk->ik\""}));
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum("ij,jk->ik", {a, Tensor()}, cpu); },
                                      {"operand 1 is an undefined tensor"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum("ij,jk->ik", {a}, cpu); }, {"name 2 operands but 1"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { einsum("ij,jk->ik", {a, a}, cpu); }, {"label 'j' has extent 4"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum("ij,jk->ik", {a, a.permute({1, 0})}, cpu, {.path = {{0, 0}}}); },
                                      {"einsum_path", "step 0 (0, 0)"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] { einsum("ij,jk->ik", {a, a.permute({1, 0})}, cpu, {.path = {{0, 1}, {0, 1}}}); },
      {"the path has 2 steps but 2 operands need 1"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum({{0, 1}, {1, -2}}, {0}, {a, a}, cpu); }, {"is negative"}));
  EXPECT_TRUE(tensors_equal(a, before));
}
