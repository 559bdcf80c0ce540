// Runtime design guarantees: one Runtime shared by threads, bounded caches
// keyed by program identity, errors that keep their type, bindings copied.
#include <cmath>
#include <thread>

#include "support/cpu_runtime.hpp"
#include "support/test_support.hpp"
#include "tenferro/linalg.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

const std::vector<double> kC = {0.5, -1.0, 0.25};                    // c, [3]
const std::vector<double> kW = {1.0, -2.0, 0.5, 3.0, 0.0, -1.5};     // w, [3, 2] column-major

// For x: f64[n, 3] the program returns s[j] = sum_i x[i, j]^2 exp(c[j])
// (exp(c) depends only on a constant: hoisted, computed once per runtime)
// and m = x w, f64[n, 2].
Program moments_program() {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(3)});
  auto c = TracedTensor::from_vec_col_major({3}, kC);
  auto w = TracedTensor::from_vec_col_major({3, 2}, kW);
  auto s = (x * x * c.exp()).reduce_sum({0});
  return GraphCompiler().compile({s, x.matmul(w)});
}

// Checks both outputs against naive loops over the input values.
::testing::AssertionResult moments_match(const Tensor& xv, const std::vector<Tensor>& out) {
  std::int64_t n = xv.shape()[0];
  if (out.size() != 2 || out[0].shape() != Shape{3} || out[1].shape() != Shape{n, 2})
    return ::testing::AssertionFailure() << "bad output shapes for n = " << n;
  for (std::int64_t j = 0; j < 3; ++j) {
    double want = 0;
    for (std::int64_t i = 0; i < n; ++i) want += xv.at<double>({i, j}) * xv.at<double>({i, j});
    want *= std::exp(kC[static_cast<std::size_t>(j)]);
    if (std::abs(out[0].at<double>({j}) - want) > 1e-13 * (1 + std::abs(want)))
      return ::testing::AssertionFailure() << "s[" << j << "] = " << out[0].at<double>({j}) << ", want " << want;
  }
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < 2; ++k) {
      double want = 0;
      for (std::int64_t j = 0; j < 3; ++j) want += xv.at<double>({i, j}) * kW[static_cast<std::size_t>(j + 3 * k)];
      if (std::abs(out[1].at<double>({i, k}) - want) > 1e-13 * (1 + std::abs(want)))
        return ::testing::AssertionFailure() << "m[" << i << ", " << k << "] = " << out[1].at<double>({i, k})
                                             << ", want " << want;
    }
  return ::testing::AssertionSuccess();
}

}  // namespace

TEST(RunCompiled, OneRuntimeRunsOneProgramFromSeveralThreads) {
  Program p = moments_program();
  auto y = TracedTensor::input("y", DType::f64, {Dim("k")});
  Program q = GraphCompiler().compile(y.exp().sum());  // a second program sharing the caches
  CpuBackend backend(1);
  Runtime rt = cpu_runtime(backend);
  constexpr int kThreads = 6, kRuns = 200;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back([&, t] {
      Runtime mine = rt;  // a copy shares the caches: the same as using `rt` itself
      for (int r = 0; r < kRuns && failures[static_cast<std::size_t>(t)].empty(); ++r) {
        std::int64_t n = 1 + (7 * t + 3 * r) % 9;  // shapes differ between threads and runs
        Tensor xv = random_tensor({n, 3}, DType::f64, static_cast<std::uint64_t>(1000 * t + r));
        auto out = (r % 2 ? mine : rt).run_compiled(p, {{"x", xv}});
        if (auto ok = moments_match(xv, out); !ok) failures[static_cast<std::size_t>(t)] = ok.message();
        Tensor yv = random_tensor({n + 2}, DType::f64, static_cast<std::uint64_t>(7000 + 1000 * t + r));
        double want = 0;
        for (std::int64_t i = 0; i < n + 2; ++i) want += std::exp(yv.at<double>({i}));
        double got = rt.run_compiled(q, std::vector<Tensor>{yv})[0].item().to<double>();
        if (std::abs(got - want) > 1e-13 * want)
          failures[static_cast<std::size_t>(t)] = detail::str("q: ", got, " want ", want);
        DimBindings last = rt.last_bindings();  // a copy: safe while other runs write it
        if (last.size() != 1) failures[static_cast<std::size_t>(t)] = "last_bindings has other symbols";
      }
    });
  for (std::thread& w : workers) w.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[static_cast<std::size_t>(t)], "") << "thread " << t;
  EXPECT_EQ(rt.cached_programs(), 2u);
  // Still correct on one thread afterwards.
  Tensor xv = random_tensor({4, 3}, DType::f64, 5);
  EXPECT_TRUE(moments_match(xv, rt.run_compiled(p, {{"x", xv}})));
  EXPECT_EQ(rt.last_bindings(), (DimBindings{{"n", 4}}));
}

TEST(RunCompiled, CachesAreKeyedByProgramIdentityAndBounded) {
  CpuBackend backend;
  Runtime rt = cpu_runtime(backend);
  Tensor xv = random_tensor({5, 3}, DType::f64, 3);
  Program p = moments_program();
  EXPECT_TRUE(moments_match(xv, rt.run_compiled(p, {{"x", xv}})));
  EXPECT_EQ(rt.cached_programs(), 1u);
  // A copy is the same program: same identity, same cache entry.
  Program copy = p;
  EXPECT_EQ(copy.id(), p.id());
  EXPECT_TRUE(moments_match(xv, rt.run_compiled(copy, {{"x", xv}})));
  EXPECT_EQ(rt.cached_programs(), 1u);
  // A program compiled again, or renewed after a hand edit, is another one.
  Program again = moments_program();
  EXPECT_NE(again.id(), p.id());
  copy.renew_identity();
  EXPECT_NE(copy.id(), p.id());
  EXPECT_TRUE(moments_match(xv, rt.run_compiled(copy, {{"x", xv}})));
  EXPECT_EQ(rt.cached_programs(), 2u);
  {
    Program temporary = moments_program();
    EXPECT_TRUE(moments_match(xv, rt.run_compiled(temporary, {{"x", xv}})));
    EXPECT_EQ(rt.cached_programs(), 3u);
  }
  // `temporary` is gone: the next miss drops its entry while adding `again`.
  EXPECT_TRUE(moments_match(xv, rt.run_compiled(again, {{"x", xv}})));
  EXPECT_EQ(rt.cached_programs(), 3u);  // p, copy, again
  copy = Program();                      // the renewed program dies too
  {
    // Many live programs: the least recently used entries are evicted.
    std::vector<Program> many;
    for (std::size_t i = 0; i < Runtime::kMaxCachedPrograms + 5; ++i) many.push_back(moments_program());
    for (const Program& m : many) EXPECT_TRUE(moments_match(xv, rt.run_compiled(m, {{"x", xv}})));
    EXPECT_EQ(rt.cached_programs(), Runtime::kMaxCachedPrograms);
    // An evicted program still runs (and is cached again).
    EXPECT_TRUE(moments_match(xv, rt.run_compiled(p, {{"x", xv}})));
    EXPECT_EQ(rt.cached_programs(), Runtime::kMaxCachedPrograms);
  }
  // Every program above but p is dead: the next miss sweeps them all.
  Program last = moments_program();
  EXPECT_TRUE(moments_match(xv, rt.run_compiled(last, {{"x", xv}})));
  EXPECT_EQ(rt.cached_programs(), 2u);
  // Many shapes of one program: plans stay bounded and every run is right.
  for (std::int64_t n = 1; n <= static_cast<std::int64_t>(Runtime::kMaxPlansPerProgram) + 3; ++n) {
    Tensor xn = random_tensor({n, 3}, DType::f64, static_cast<std::uint64_t>(n));
    ASSERT_TRUE(moments_match(xn, rt.run_compiled(p, {{"x", xn}})));
  }
}

TEST(RunCompiled, LastBindingsIsACopy) {
  CpuBackend backend;
  Runtime rt = cpu_runtime(backend);
  Program p = moments_program();
  rt.run_compiled(p, {{"x", random_tensor({2, 3}, DType::f64, 1)}});
  DimBindings first = rt.last_bindings();
  rt.run_compiled(p, {{"x", random_tensor({6, 3}, DType::f64, 1)}});
  EXPECT_EQ(first, (DimBindings{{"n", 2}}));  // unchanged by the later run
  EXPECT_EQ(rt.last_bindings(), (DimBindings{{"n", 6}}));
  // A failed run leaves the last successful bindings.
  EXPECT_THROW(rt.run_compiled(p, {{"x", random_tensor({2, 4}, DType::f64, 1)}}), ShapeError);
  EXPECT_EQ(rt.last_bindings(), (DimBindings{{"n", 6}}));
}

TEST(RunCompiled, ErrorContextIsAddedInPlace) {
  try {
    try {
      TF_THROW(IndexError, "select", "index 4 out of range [0, 3)");
    } catch (Error& e) {
      e.prepend_context("outer: ");
      throw;
    }
  } catch (const IndexError& e) {
    EXPECT_EQ(std::string(e.what()), "outer: select: index 4 out of range [0, 3)");
    EXPECT_EQ(e.code(), ErrorCode::OutOfRange);
    const std::runtime_error& base = e;
    EXPECT_EQ(std::string(base.what()), e.what());  // what() is virtual: the base sees the context
  }
}

TEST(RunCompiled, SingularTracedSolveIsALinalgError) {
  auto a = TracedTensor::input("a", DType::f64, {Dim(3), Dim(3), Dim("batch")});
  auto b = TracedTensor::input("b", DType::f64, {Dim(3), Dim(1), Dim("batch")});
  Program p = GraphCompiler().compile(linalg::solve(a, b));
  CpuBackend backend;
  Runtime rt = Runtime::builder().register_engine(cpu_engine(backend)).register_family(linalg::family()).build();
  // Batch 0: 2 I. Batch 1: diag(1, 0, 1), whose LU has a zero pivot in column
  // 1 whatever the row exchanges (column 1 is zero below row 0): info 2.
  std::vector<double> av(18, 0.0);
  av[0] = av[4] = av[8] = 2.0;
  av[9] = av[17] = 1.0;
  Tensor bt = Tensor::from_vec_col_major<double>({3, 1, 2}, {1, 2, 3, 4, 5, 6});
  bool caught = false;
  try {
    rt.run_compiled(p, {{"a", Tensor::from_vec_col_major<double>({3, 3, 2}, av)}, {"b", bt}});
  } catch (const LinalgError& e) {
    caught = true;
    EXPECT_EQ(e.batch_index(), 1);
    EXPECT_EQ(e.info(), 2);
    EXPECT_EQ(e.code(), ErrorCode::BackendFailure);
    std::string m = e.what();
    EXPECT_EQ(m.rfind("run_compiled: instruction %", 0), 0u) << m;
    // solve on graph values is lu_factor then linalg.solve_factored, which
    // finds the zero pivot (Note [Solves that keep the factors]).
    EXPECT_NE(m.find("= linalg.solve_factored: "), std::string::npos) << m;
    // The op is named once: its own message starts with its name.
    EXPECT_EQ(m.find("linalg.solve_factored: linalg.solve_factored"), std::string::npos) << m;
    EXPECT_EQ(m.find("linalg.solve_factored"), m.rfind("linalg.solve_factored")) << m;
    EXPECT_NE(m.find("operand a"), std::string::npos) << m;
    EXPECT_NE(m.find("singular"), std::string::npos) << m;
  }
  EXPECT_TRUE(caught);
  // The runtime and program stay usable: diag(1, 4, 1) in batch 1 solves.
  av[13] = 4.0;
  Tensor x = rt.run_compiled(p, {{"a", Tensor::from_vec_col_major<double>({3, 3, 2}, av)}, {"b", bt}})[0];
  EXPECT_EQ(x.to_vec_col_major<double>(), (std::vector<double>{0.5, 1.0, 1.5, 4.0, 1.25, 6.0}));
}
