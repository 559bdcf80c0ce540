// The linalg family as a table: every op is present with inference and a
// CPU kernel, inference agrees with what the kernel returns, and the eager
// functions are the family ops (same results as call_family).
#include <limits>
#include <set>
#include <sstream>

#include "linalg_test_util.hpp"
#include "tenferro/ops/kernels.hpp"
#include "tenferro/runtime.hpp"

namespace tenferro {
namespace {

using namespace linalg_testing;

const std::vector<std::string> kOpNames{"linalg.svd",
                                        "linalg.svdvals",
                                        "linalg.svd_truncated",
                                        "linalg.qr",
                                        "linalg.lu",
                                        "linalg.lu_factor",
                                        "linalg.lu_solve",
                                        "linalg.cholesky",
                                        "linalg.eigh",
                                        "linalg.eig",
                                        "linalg.eigvals",
                                        "linalg.solve",
                                        "linalg.triangular_solve",
                                        "linalg.inv",
                                        "linalg.det",
                                        "linalg.slogdet",
                                        "linalg.lstsq",
                                        "linalg.pinv",
                                        "linalg.matrix_exp",
                                        "linalg.matrix_rank",
                                        "linalg.vector_norm",
                                        "linalg.matrix_norm",
                                        "linalg.cond",
                                        // used by the derivative rules (tenferro/linalg/traced.hpp)
                                        "linalg.band",
                                        "linalg.matrix_exp_frechet",
                                        // used by svd_truncated and solve on graph values
                                        "linalg.svd_rank_limit",
                                        "linalg.solve_factored",
                                        // used by the SVD derivative rules
                                        "linalg.dual_basis"};

TEST(LinalgFamily, EveryOpIsPresentOnce) {
  CpuBackend cpu;
  const OpFamily& f = linalg::family();
  std::set<std::string> cuda_ops;
  EXPECT_EQ(f.name, "linalg");
  EXPECT_EQ(&f, &linalg::family()) << "built once";
  std::set<std::string> names;
  for (const FamilyOp& op : f.ops) {
    EXPECT_TRUE(names.insert(op.name).second) << "duplicate " << op.name;
    EXPECT_TRUE(static_cast<bool>(op.infer)) << op.name;
    EXPECT_EQ(op.family, &f) << op.name;
    EXPECT_EQ(cpu.kernels().provider_names(op, DeviceKind::cpu), std::vector<std::string>{"lapack"}) << op.name;
    const auto cuda = cpu.kernels().provider_names(op, DeviceKind::cuda);
    if (!cuda.empty()) {
      EXPECT_EQ(cuda, std::vector<std::string>{"cusolver"}) << op.name;
      cuda_ops.insert(op.name);
    }
  }
  EXPECT_EQ(names, std::set<std::string>(kOpNames.begin(), kOpNames.end()));
  // cuSOLVER kernels: registered by the family when built with the cuda module.
  const std::set<std::string> cusolver{"linalg.svd", "linalg.svdvals",  "linalg.qr",       "linalg.lu",
                                       "linalg.lu_factor", "linalg.cholesky", "linalg.eigh", "linalg.solve",
                                       "linalg.solve_factored", "linalg.dual_basis"};
  EXPECT_TRUE(cuda_ops.empty() || cuda_ops == cusolver);
}

// A provider added to a backend's registry runs linalg ops eagerly and in
// compiled programs, before the family's LAPACK kernel; when it declines,
// LAPACK runs the call.
TEST(LinalgFamily, KernelsComeFromTheBackendsRegistry) {
  CpuBackend cpu;
  const FamilyOp& solve = linalg::family().op("linalg.solve");
  int accepted = 0, declined = 0;
  // Accepts f32 only, answering x = b (a stand-in kernel that is easy to tell apart).
  cpu.kernels().add(solve, DeviceKind::cpu, "test",
                    [&](const FamilyAttrs&, std::span<const Tensor> in,
                        Backend&) -> std::optional<std::vector<Tensor>> {
                      if (in[1].dtype() != DType::f32) {
                        ++declined;
                        return std::nullopt;
                      }
                      ++accepted;
                      return std::vector<Tensor>{in[1].duplicate()};
                    });
  EXPECT_EQ(cpu.kernels().provider_names(solve, DeviceKind::cpu), (std::vector<std::string>{"test", "lapack"}));
  const Tensor a = to_tensor({random_hpd(3, false, 1)}, {}, DType::f64);
  const Tensor b = testing::random_tensor({3, 2}, DType::f64, 2);
  const Tensor a32 = convert(a, DType::f32, cpu), b32 = convert(b, DType::f32, cpu);
  // f32: the test provider (x = b, not the solution).
  Tensor x32 = linalg::solve(a32, b32, cpu);
  EXPECT_EQ(accepted, 1);
  EXPECT_TRUE(testing::tensors_close(x32, b32, 0, 0));
  // f64: declined, LAPACK solves: a x = b.
  Tensor x64 = linalg::solve(a, b, cpu);
  EXPECT_EQ(declined, 1);
  EXPECT_TRUE(testing::tensors_close(matmul(a, x64, cpu), b, 1e-12, 1e-12));
  // A compiled program on a runtime over this backend uses the same registry
  // (the op itself: linalg::solve on graph values records lu_factor and
  // solve_factored, Note [Solves that keep the factors]).
  auto ta = TracedTensor::input("a", DType::f32, {Dim(3), Dim(3)});
  auto tb = TracedTensor::input("b", DType::f32, {Dim(3), Dim(2)});
  Program p = GraphCompiler().compile(TracedTensor(graph::apply_family(solve, {}, {ta.graph_value(), tb.graph_value()})[0]));
  Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(linalg::family()).build();
  std::vector<Tensor> out = rt.run_compiled(p, {{"a", a32}, {"b", b32}});
  EXPECT_EQ(accepted, 2);
  EXPECT_TRUE(testing::tensors_close(out[0], b32, 0, 0));
}

// Sample operands for each op (f64 and c64, batched [.., .., 2]).
std::vector<Tensor> sample_inputs(const std::string& name, DType d) {
  Tensor sq = to_tensor({random_hpd(4, is_complex(d), 1), random_hpd(4, is_complex(d), 2)}, {2}, d);
  Tensor rect =
      to_tensor({random_mat(5, 3, is_complex(d), 3), random_mat(5, 3, is_complex(d), 4)}, {2}, d);
  if (name == "linalg.solve" || name == "linalg.triangular_solve")
    return {sq, testing::random_tensor({4, 2, 2}, d, 5)};
  if (name == "linalg.lstsq") return {rect, testing::random_tensor({5, 2, 2}, d, 6)};
  if (name == "linalg.lu_solve") {
    CpuBackend cpu;
    auto [lu, piv] = linalg::lu_factor(sq, cpu);
    return {lu, piv, testing::random_tensor({4, 3, 2}, d, 7)};
  }
  if (name == "linalg.vector_norm") return {testing::random_tensor({6, 2}, d, 8)};
  if (name == "linalg.solve_factored") {
    CpuBackend cpu;
    auto [lu, piv] = linalg::lu_factor(sq, cpu);
    return {sq, lu, piv, testing::random_tensor({4, 2, 2}, d, 5)};
  }
  if (name == "linalg.svd_rank_limit") {
    CpuBackend cpu;
    auto [u, s, vh] = linalg::svd(rect, cpu);
    return {u, s, vh};
  }
  if (name == "linalg.matrix_exp_frechet") return {sq, testing::random_tensor({4, 4, 2}, d, 9)};
  const std::set<std::string> square{"linalg.cholesky", "linalg.eigh",      "linalg.eig",
                                     "linalg.eigvals",  "linalg.inv",       "linalg.det",
                                     "linalg.slogdet",  "linalg.matrix_exp"};
  return {square.count(name) ? sq : rect};
}

TEST(LinalgFamily, InferenceMatchesKernelOutputs) {
  CpuBackend cpu;
  const OpFamily& f = linalg::family();
  for (DType d : {DType::f64, DType::c64})
    for (const FamilyOp& op : f.ops) {
      SCOPED_TRACE(op.name + " " + dtype_name(d));
      std::vector<Tensor> in = sample_inputs(op.name, d);
      ASSERT_EQ(static_cast<int>(in.size()), op.num_inputs);
      std::vector<TensorMeta> metas;
      for (const Tensor& t : in) metas.push_back({t.dtype(), t.shape()});
      std::vector<TensorMeta> inferred = op.infer({}, metas);
      std::vector<Tensor> out = call_family(op, {}, in, cpu);
      ASSERT_EQ(out.size(), inferred.size());
      EXPECT_EQ(static_cast<int>(out.size()), op.num_outputs);
      for (std::size_t i = 0; i < out.size(); ++i) {
        EXPECT_EQ(out[i].dtype(), inferred[i].dtype);
        ASSERT_EQ(out[i].ndim(), static_cast<std::int64_t>(inferred[i].shape.size()));
        for (std::size_t k = 0; k < inferred[i].shape.size(); ++k)
          if (inferred[i].shape[k] != kDynamicDim) {
            EXPECT_EQ(out[i].shape()[k], inferred[i].shape[k]);
          }
        EXPECT_TRUE(out[i].is_contiguous()) << "outputs are column-major";
      }
    }
}

TEST(LinalgFamily, EmptyBatchesRunEveryOp) {
  // A batch axis of extent 0: every op returns outputs with that axis and no error.
  CpuBackend cpu;
  const OpFamily& f = linalg::family();
  for (const FamilyOp& op : f.ops) {
    SCOPED_TRACE(op.name);
    std::vector<Tensor> in = sample_inputs(op.name, DType::f64);
    for (Tensor& t : in) {
      Shape s = t.shape();
      s.back() = 0;  // [.., .., 2] -> [.., .., 0]
      t = Tensor::zeros(s, t.dtype());
    }
    std::vector<Tensor> out = call_family(op, {}, in, cpu);
    for (const Tensor& o : out) {
      if (o.ndim() > 0) {
        EXPECT_EQ(o.shape().back(), 0);
      }
    }
  }
}

TEST(LinalgFamily, TruncatedRankIsDynamic) {
  const FamilyOp& op = linalg::family().op("linalg.svd_truncated");
  std::vector<TensorMeta> in{{DType::f64, {6, 4, 3}}};
  std::vector<TensorMeta> out = op.infer(FamilyAttrs::of(linalg::SvdTruncatedOptions{.max_rank = 2}), in);
  EXPECT_EQ(out[0].shape, (Shape{6, kDynamicDim, 3}));
  EXPECT_EQ(out[1].shape, (Shape{kDynamicDim, 3}));
  EXPECT_EQ(out[2].shape, (Shape{kDynamicDim, 4, 3}));
}

// linalg.svd_rank_limit keeps the first min(max_rank, r) triplets: a
// constant extent when r is one, else a data-dependent one.
TEST(LinalgFamily, RankLimitKeepsAPrefix) {
  CpuBackend cpu;
  const FamilyOp& op = linalg::family().op("linalg.svd_rank_limit");
  Tensor a = testing::random_tensor({6, 4, 3}, DType::f64, 21);
  auto [u, s, vh] = linalg::svd(a, cpu);
  auto limit = [](std::int64_t r) { return FamilyAttrs::of(linalg::RankLimit{.max_rank = r}); };
  auto run = [&](std::int64_t r, const std::vector<Tensor>& in) { return call_family(op, limit(r), in, cpu); };
  std::vector<Tensor> out = run(2, {u, s, vh});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape(), (Shape{6, 2, 3}));
  EXPECT_EQ(out[1].shape(), (Shape{2, 3}));
  EXPECT_EQ(out[2].shape(), (Shape{2, 4, 3}));
  for (std::int64_t b = 0; b < 3; ++b)
    for (std::int64_t j = 0; j < 2; ++j) {
      EXPECT_EQ(out[1].at<double>({j, b}), s.at<double>({j, b}));
      for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(out[0].at<double>({i, j, b}), u.at<double>({i, j, b}));
      for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(out[2].at<double>({j, i, b}), vh.at<double>({j, i, b}));
    }
  // A limit above the rank (or -1) keeps everything, in fresh memory.
  for (std::int64_t r : {-1, 4, 9}) {
    std::vector<Tensor> all = run(r, {u, s, vh});
    EXPECT_TRUE(testing::tensors_equal(all[0], u));
    EXPECT_TRUE(testing::tensors_equal(all[1], s));
    EXPECT_TRUE(testing::tensors_equal(all[2], vh));
    EXPECT_NE(all[0].storage(), u.storage());
  }
  EXPECT_EQ(run(0, {u, s, vh})[1].shape(), (Shape{0, 3}));
  // Inference: min(max_rank, r) for a known r; data-dependent for a dynamic or symbolic one.
  std::vector<TensorMeta> known{{DType::f64, {6, 4, 3}}, {DType::f64, {4, 3}}, {DType::f64, {4, 5, 3}}};
  EXPECT_EQ(op.infer(limit(2), known)[0].shape, (Shape{6, 2, 3}));
  std::vector<TensorMeta> dynamic{
      {DType::f64, {6, kDynamicDim}}, {DType::f64, {kDynamicDim}}, {DType::f64, {kDynamicDim, 5}}};
  EXPECT_EQ(op.infer(limit(2), dynamic)[1].shape, (Shape{kDynamicDim}));
  const Dim r("r");
  std::vector<SymMeta> sym{{DType::c64, {Dim(6), r}}, {DType::f32, {r}}, {DType::c64, {r, Dim(5)}}};
  auto limited = op.sym_infer(limit(2), sym);
  EXPECT_TRUE(limited[1].shape[0].is_symbol());
  EXPECT_NE(limited[1].shape[0], r);
  EXPECT_EQ(limited[0].shape, (SymShape{Dim(6), limited[1].shape[0]}));
  EXPECT_EQ(op.sym_infer(limit(-1), sym)[2].shape, (SymShape{r, Dim(5)}));
  // Bad operands and attributes.
  EXPECT_TRUE(testing::throws_with<ValueError>([&] { run(-2, {u, s, vh}); },
                                               {"linalg.svd_rank_limit", "max_rank", "-2"}));
  EXPECT_TRUE(testing::throws_with<ShapeError>([&] { run(1, {u, s.slice(0, 0, 2), vh}); },
                                               {"linalg.svd_rank_limit", "[r, batch...]"}));
  EXPECT_TRUE(testing::throws_with<DTypeError>(
      [&] { run(1, {u, Tensor::zeros({4, 3}, DType::f32), vh}); },
      {"linalg.svd_rank_limit", "f32"}));
}

// linalg.band: entry (i, j) kept when lo <= j - i <= hi, zero otherwise,
// against that rule element by element: wide and tall matrices, a batch, a
// transposed (row-major) operand, bands that miss the matrix, and offsets
// far outside it (kNoLimit and the int64 extremes).
TEST(LinalgFamily, BandKeepsTheChosenDiagonals) {
  CpuBackend cpu;
  const FamilyOp& op = linalg::family().op("linalg.band");
  const std::int64_t big = std::numeric_limits<std::int64_t>::max(), small = std::numeric_limits<std::int64_t>::min();
  const std::pair<std::int64_t, std::int64_t> bands[] = {
      {0, 0}, {-linalg::kNoLimit, -1}, {1, linalg::kNoLimit}, {-2, 1}, {3, 2}, {-9, -7}, {8, 20},
      {-linalg::kNoLimit, linalg::kNoLimit}, {small, big}, {small, small}, {big, big}, {-1, big}};
  for (const Shape& shape : {Shape{5, 7}, Shape{7, 5, 3}})
    for (bool transposed : {false, true}) {
      Tensor a = testing::random_tensor(shape, DType::f64, 5);
      if (transposed) {  // the same values, read through a row-major layout
        Shape t = shape;
        std::swap(t[0], t[1]);
        DimVec perm{1, 0};
        if (shape.size() == 3) perm.push_back(2);
        a = testing::random_tensor(t, DType::f64, 5).permute(perm);
      }
      for (auto [lo, hi] : bands) {
        SCOPED_TRACE(::testing::Message() << "shape " << shape << " transposed " << transposed << " lo " << lo
                                          << " hi " << hi);
        Tensor out = call_family(op, FamilyAttrs::of(linalg::BandAttrs{.lo = lo, .hi = hi}), std::vector<Tensor>{a}, cpu)[0];
        ASSERT_EQ(out.shape(), shape);
        const std::int64_t batch = shape.size() == 3 ? shape[2] : 1;
        for (std::int64_t b = 0; b < batch; ++b)
          for (std::int64_t j = 0; j < shape[1]; ++j)
            for (std::int64_t i = 0; i < shape[0]; ++i) {
              DimVec idx{i, j};
              if (shape.size() == 3) idx.push_back(b);
              const std::int64_t off = j - i;
              EXPECT_EQ(out.at<double>(idx), off >= lo && off <= hi ? a.at<double>(idx) : 0.0);
            }
      }
    }
}

// linalg.solve_factored: x = op(a)^-1 b from lu_factor(a)'s factors, for
// each op, checked by the residual op(a) x - b.
TEST(LinalgFamily, SolveFactoredSolvesWithTheFactors) {
  CpuBackend cpu;
  const FamilyOp& op = linalg::family().op("linalg.solve_factored");
  for (DType d : {DType::f64, DType::c128, DType::f32}) {
    Tensor a = testing::random_tensor({5, 5, 3}, d, 51), b = testing::random_tensor({5, 2, 3}, d, 52);
    auto [lu, piv] = linalg::lu_factor(a, cpu);
    for (linalg::Transpose t : {linalg::Transpose::none, linalg::Transpose::transpose, linalg::Transpose::adjoint}) {
      SCOPED_TRACE(std::string(dtype_name(d)) + " " + std::to_string(static_cast<int>(t)));
      Tensor x = call_family(op, FamilyAttrs::of(t), std::vector<Tensor>{a, lu, piv, b}, cpu)[0];
      ASSERT_EQ(x.shape(), b.shape());
      const double tol = d == DType::f32 ? 1e-4 : 1e-11;
      for (std::int64_t k = 0; k < 3; ++k)
        for (std::int64_t j = 0; j < 2; ++j)
          for (std::int64_t i = 0; i < 5; ++i) {
            std::complex<double> r = -testing::value_at(b, {i, j, k});
            for (std::int64_t l = 0; l < 5; ++l) {
              std::complex<double> e = t == linalg::Transpose::none ? testing::value_at(a, {i, l, k}) : testing::value_at(a, {l, i, k});
              if (t == linalg::Transpose::adjoint) e = std::conj(e);
              r += e * testing::value_at(x, {l, j, k});
            }
            EXPECT_LE(std::abs(r), tol) << i << " " << j << " " << k;
          }
    }
  }
  Tensor a = testing::random_tensor({3, 3}, DType::f64, 53), b = testing::random_tensor({3}, DType::f64, 54);
  auto [lu, piv] = linalg::lu_factor(a, cpu);
  auto run = [&](const std::vector<Tensor>& in) { return call_family(op, {}, in, cpu); };
  EXPECT_TRUE(testing::tensors_close(run({a, lu, piv, b})[0], linalg::solve(a, b, cpu), 1e-12, 1e-12));
  EXPECT_TRUE(testing::throws_with<ShapeError>([&] { run({Tensor::zeros({3, 2}), lu, piv, b}); },
                                               {"linalg.solve_factored", "square"}));
  EXPECT_TRUE(testing::throws_with<ShapeError>(
      [&] { run({a, Tensor::zeros({2, 2}), piv, b}); }, {"linalg.solve_factored", "lu [2, 2]", "a [3, 3]"}));
  EXPECT_TRUE(testing::throws_with<ShapeError>([&] { run({a, lu, piv, Tensor::zeros({4})}); },
                                               {"linalg.solve_factored", "[4]"}));
  Tensor singular = Tensor::from_vec_col_major<double>({2, 2}, {1, 2, 2, 4});
  auto [slu, spiv] = linalg::lu_factor(singular, cpu);
  EXPECT_TRUE(testing::throws_with<LinalgError>([&] { run({singular, slu, spiv, Tensor::ones({2})}); },
                                                {"linalg.solve_factored", "a", "singular"}));
}

// One inference serves concrete and symbolic extents: over constant
// extents, symbolic inference gives exactly the concrete shapes, with each
// data-dependent extent (kDynamicDim) a symbol shared by every output.
TEST(LinalgFamily, SymbolicInferenceIsTheConcreteOne) {
  const OpFamily& f = linalg::family();
  for (const FamilyOp& op : f.ops) {
    SCOPED_TRACE(op.name);
    ASSERT_TRUE(static_cast<bool>(op.sym_infer));
    std::vector<TensorMeta> metas;
    std::vector<SymMeta> syms;
    for (const Tensor& t : sample_inputs(op.name, DType::f64)) {
      metas.push_back({t.dtype(), t.shape()});
      syms.push_back({t.dtype(), to_sym_shape(t.shape())});
    }
    std::vector<TensorMeta> concrete = op.infer({}, metas);
    std::vector<SymMeta> symbolic = op.sym_infer({}, syms);
    ASSERT_EQ(concrete.size(), symbolic.size());
    std::set<std::string> dynamic_symbols;
    for (std::size_t i = 0; i < concrete.size(); ++i) {
      EXPECT_EQ(concrete[i].dtype, symbolic[i].dtype);
      ASSERT_EQ(concrete[i].shape.size(), symbolic[i].shape.size());
      for (std::size_t k = 0; k < concrete[i].shape.size(); ++k) {
        const Dim& d = symbolic[i].shape[k];
        if (concrete[i].shape[k] == kDynamicDim) {
          ASSERT_TRUE(d.is_symbol()) << d;
          dynamic_symbols.insert(d.symbol());
        } else {
          EXPECT_EQ(d, Dim(concrete[i].shape[k])) << "output " << i << " axis " << k;
        }
      }
    }
    EXPECT_LE(dynamic_symbols.size(), 1u) << "one data-dependent extent per op";
  }
}

TEST(LinalgFamily, SymbolicExtents) {
  const OpFamily& f = linalg::family();
  const Dim m("m"), n("n");
  // svd of [m, n]: k = min(m, n) is not decidable, so a fresh symbol; of [n, n] it is n.
  std::vector<SymMeta> rect{{DType::c128, {m, n, Dim(3)}}};
  auto usv = f.op("linalg.svd").sym_infer(FamilyAttrs::of(linalg::SvdAttrs{}), rect);
  ASSERT_EQ(usv.size(), 3u);
  const Dim k = usv[1].shape[0];
  EXPECT_TRUE(k.is_symbol());
  EXPECT_NE(k, m);
  EXPECT_NE(k, n);
  EXPECT_EQ(usv[0].shape, (SymShape{m, k, Dim(3)}));
  EXPECT_EQ(usv[1].dtype, DType::f64);
  EXPECT_EQ(usv[2].shape, (SymShape{k, n, Dim(3)}));
  auto full = f.op("linalg.svd").sym_infer(FamilyAttrs::of(linalg::SvdAttrs{.full_matrices = true}), rect);
  EXPECT_EQ(full[0].shape, (SymShape{m, m, Dim(3)}));
  EXPECT_EQ(full[2].shape, (SymShape{n, n, Dim(3)}));
  std::vector<SymMeta> sq{{DType::f64, {n, n}}};
  EXPECT_EQ(f.op("linalg.svdvals").sym_infer({}, sq)[0].shape, (SymShape{n}));
  EXPECT_EQ(f.op("linalg.qr").sym_infer(FamilyAttrs::of(linalg::QrMode::r), sq)[0].shape,
            (SymShape{Dim(0), Dim(0)}));
  // lstsq: residuals exist only when m > n, unknown for symbols.
  std::vector<SymMeta> ls{{DType::f64, {m, n}}, {DType::f64, {m, Dim(2)}}};
  auto x = f.op("linalg.lstsq").sym_infer({}, ls);
  EXPECT_EQ(x[0].shape, (SymShape{n, Dim(2)}));
  EXPECT_TRUE(x[1].shape[0].is_symbol());
  EXPECT_NE(x[1].shape[0], Dim(2));
  // Checks that symbols decide are made; undecidable ones pass.
  std::vector<SymMeta> not_square{{DType::f64, {Dim(3), Dim(4)}}};
  EXPECT_THROW(f.op("linalg.det").sym_infer({}, not_square), ShapeError);
  EXPECT_EQ(f.op("linalg.det").sym_infer({}, std::vector<SymMeta>{{DType::f64, {m, n}}})[0].shape,
            SymShape{});
  std::vector<SymMeta> bad_rhs{{DType::f64, {n, n}}, {DType::f64, {n + 1, Dim(2)}}};
  EXPECT_THROW(f.op("linalg.solve").sym_infer({}, bad_rhs), ShapeError);
  std::vector<SymMeta> integer{{DType::i64, {n, n}}};
  EXPECT_THROW(f.op("linalg.inv").sym_infer({}, integer), DTypeError);
}

// The `ad` kind of each op agrees with the rules its declaration gave.
TEST(LinalgFamily, DerivativeRulesMatchTheAdKind) {
  const std::set<std::string> not_differentiable{"linalg.matrix_rank"};
  const std::set<std::string> with_transpose{"linalg.solve", "linalg.solve_factored", "linalg.triangular_solve",
                                             "linalg.lu_solve",
                                             "linalg.band", "linalg.matrix_exp_frechet"};
  for (const FamilyOp& op : linalg::family().ops) {
    SCOPED_TRACE(op.name);
    const bool differentiable = !not_differentiable.count(op.name);
    EXPECT_EQ(static_cast<bool>(op.jvp), differentiable);
    EXPECT_EQ(op.ad, !differentiable ? AdKind::none : op.name == "linalg.band" ? AdKind::linear : AdKind::nonlinear);
    EXPECT_EQ(static_cast<bool>(op.transpose), with_transpose.count(op.name) == 1);
  }
}

TEST(LinalgFamily, TypedAttributesCompareAndPrint) {
  using linalg::SvdAttrs;
  EXPECT_EQ(FamilyAttrs::of(SvdAttrs{}), FamilyAttrs::of(SvdAttrs{}));
  EXPECT_FALSE(FamilyAttrs::of(SvdAttrs{}) == FamilyAttrs::of(SvdAttrs{.full_matrices = true}));
  EXPECT_FALSE(FamilyAttrs::of(linalg::TriangleOptions{}) == FamilyAttrs::of(linalg::LuOptions{}));
  auto text = [](const FamilyAttrs& a) {
    std::ostringstream os;
    os << a;
    return os.str();
  };
  EXPECT_EQ(text(FamilyAttrs::of(SvdAttrs{.full_matrices = true})), "full_matrices=true degenerate=reconstruct");
  EXPECT_EQ(text(FamilyAttrs::of(linalg::TriangularSolveOptions{.left = false})),
            "lower=true left=false unit_diagonal=false");
  EXPECT_EQ(text(FamilyAttrs::of(linalg::QrMode::complete)), "mode=complete");
  EXPECT_EQ(text(FamilyAttrs::of(linalg::Transpose::adjoint)), "trans=C");
  EXPECT_EQ(text(FamilyAttrs::of(linalg::MatrixNormAttrs{-linalg::kInf})), "ord=-inf");
  EXPECT_EQ(text(FamilyAttrs::of(linalg::CondAttrs{})), "ord=2");
  EXPECT_EQ(text(FamilyAttrs::of(linalg::RankTolerance{.rtol = 0.5, .atol = 1})), "rtol=0.5 atol=1");
  EXPECT_EQ(linalg::NormOrder(2), linalg::NormOrder(2.0));
  EXPECT_FALSE(linalg::NormOrder("fro") == linalg::NormOrder(2));
  // Empty attributes read as the op's defaults.
  EXPECT_EQ(FamilyAttrs{}.as<linalg::MatrixNormAttrs>().ord, linalg::NormOrder::fro());
  EXPECT_EQ(FamilyAttrs{}.as<linalg::CondAttrs>().ord, linalg::NormOrder(2));
}

TEST(LinalgFamily, EagerFunctionsAreTheFamilyOps) {
  CpuBackend cpu;
  const OpFamily& f = linalg::family();
  Tensor a = testing::random_tensor({5, 4, 3}, DType::c128, 11);
  auto eager = linalg::svd(a, cpu, {.full_matrices = true});
  std::vector<Tensor> in{a};
  auto direct = call_family(f.op("linalg.svd"), FamilyAttrs::of(linalg::SvdAttrs{.full_matrices = true}), in, cpu);
  EXPECT_TRUE(testing::tensors_equal(eager.u, direct[0]));
  EXPECT_TRUE(testing::tensors_equal(eager.s, direct[1]));
  EXPECT_TRUE(testing::tensors_equal(eager.vh, direct[2]));
  Tensor h = to_tensor({random_hpd(3, false, 1)}, {}, DType::f64);
  std::vector<Tensor> hin{h};
  auto w = call_family(f.op("linalg.eigh"), FamilyAttrs::of(linalg::TriangleOptions{.lower = false}), hin, cpu);
  EXPECT_TRUE(testing::tensors_equal(linalg::eigh(h, cpu, {.lower = false}).eigenvalues, w[0]));
}

}  // namespace
}  // namespace tenferro
