// Derivatives of the sparse family: eager backward and traced grad against
// central finite differences of an independent reference (f64, random
// points, with respect to the values and the dense operand), nnz as a
// symbol (compile once, run for two numbers of nonzeros), a symbolic row
// count, jvp, hvp (second order through both ops' rules) and the complex
// adjoint identity Re<ct, J u> = Re<J^H ct, u>.
#include <gtest/gtest.h>

#include <tenferro/ad.hpp>
#include <tenferro/runtime.hpp>

#include "common.hpp"

namespace {

using namespace tenferro;
using namespace sparse_test;

// loss = sum(w * A(values) dense), through the reference.
double loss_value(const Tensor& v, const Coo& coo, const Tensor& d, const Tensor& w, std::int64_t m) {
  const auto y = reference_coo<double>(v, coo.rows, coo.cols, d, m).to_vec_col_major<double>();
  const auto wv = w.to_vec_col_major<double>();
  double s = 0;
  for (std::size_t i = 0; i < y.size(); ++i) s += y[i] * wv[i];
  return s;
}

// Central differences of loss_value along every entry of values (wrt_values) or dense.
Tensor finite_difference(const Tensor& v, const Coo& coo, const Tensor& d, const Tensor& w, std::int64_t m,
                         bool wrt_values) {
  const Tensor& x = wrt_values ? v : d;
  auto xv = x.to_vec_col_major<double>();
  std::vector<double> g(xv.size());
  const double h = 1e-6;
  for (std::size_t i = 0; i < xv.size(); ++i) {
    auto plus = xv, minus = xv;
    plus[i] += h;
    minus[i] -= h;
    Tensor xp = Tensor::from_vec_col_major<double>(x.shape(), plus);
    Tensor xm = Tensor::from_vec_col_major<double>(x.shape(), minus);
    const double fp = wrt_values ? loss_value(xp, coo, d, w, m) : loss_value(v, coo, xp, w, m);
    const double fm = wrt_values ? loss_value(xm, coo, d, w, m) : loss_value(v, coo, xm, w, m);
    g[i] = (fp - fm) / (2 * h);
  }
  return Tensor::from_vec_col_major<double>(x.shape(), g);
}

Runtime sparse_runtime(CpuBackend& cpu) {
  return Runtime::builder().register_engine(cpu_engine(cpu)).register_family(sparse::family()).build();
}

TEST(SparseAD, EagerBackwardMatchesFiniteDifferences) {
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  std::uint64_t seed = 100;
  for (Shape dshape : {Shape{6, 4}, Shape{7}, Shape{5, 3, 2}}) {
    const std::int64_t m = 4, nnz = 11;
    Coo coo = random_coo<std::int64_t>(nnz, m, dshape[0], seed++);
    Tensor v = random_tensor<double>({nnz}, seed++), d = random_tensor<double>(dshape, seed++);
    Shape oshape = dshape;
    oshape[0] = m;
    Tensor w = random_tensor<double>(oshape, seed++);
    auto ev = rt.tensor(v).requires_grad(), ed = rt.tensor(d).requires_grad();
    auto loss = (sparse::coo_matmul(ev, rt.tensor(coo.rows), rt.tensor(coo.cols), ed, m) * rt.tensor(w)).sum();
    EXPECT_NEAR(loss.value().item().to<double>(), loss_value(v, coo, d, w, m), 1e-12);
    backward(loss);
    EXPECT_LT(max_diff(ev.grad().value(), finite_difference(v, coo, d, w, m, true)), 1e-7) << dshape;
    EXPECT_LT(max_diff(ed.grad().value(), finite_difference(v, coo, d, w, m, false)), 1e-7) << dshape;
  }
}

TEST(SparseAD, TracedGradWithSymbolicNnzCompiledOnceRunsForTwoPatterns) {
  CpuBackend cpu;
  auto rt = sparse_runtime(cpu);
  const std::int64_t m = 5;
  auto tv = TracedTensor::input("v", DType::f64, {Dim("nnz")});
  auto tr = TracedTensor::input("r", DType::i32, {Dim("nnz")});
  auto tc = TracedTensor::input("c", DType::i32, {Dim("nnz")});
  auto td = TracedTensor::input("d", DType::f64, {Dim("k"), Dim("n")});
  auto tw = TracedTensor::input("w", DType::f64, {Dim(m), Dim("n")});
  auto loss = (sparse::coo_matmul(tv, tr, tc, td, m) * tw).sum();
  auto g = grad(loss, std::vector<TracedTensor>{tv, td});
  Program p = GraphCompiler().compile({loss, g[0], g[1]});   // once
  std::uint64_t seed = 200;
  int runs = 0;
  for (auto [nnz, k, n] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{7, 4, 3}, {19, 6, 2}}) {
    Coo coo = random_coo<std::int32_t>(nnz, m, k, seed++);
    Tensor v = random_tensor<double>({nnz}, seed++), d = random_tensor<double>({k, n}, seed++);
    Tensor w = random_tensor<double>({m, n}, seed++);
    auto out = rt.run_compiled(p, {{"v", v}, {"r", coo.rows}, {"c", coo.cols}, {"d", d}, {"w", w}});
    EXPECT_NEAR(out[0].item().to<double>(), loss_value(v, coo, d, w, m), 1e-12);
    EXPECT_EQ(out[1].shape(), (Shape{nnz}));
    EXPECT_EQ(out[2].shape(), (Shape{k, n}));
    EXPECT_LT(max_diff(out[1], finite_difference(v, coo, d, w, m, true)), 1e-7) << "nnz " << nnz;
    EXPECT_LT(max_diff(out[2], finite_difference(v, coo, d, w, m, false)), 1e-7) << "nnz " << nnz;
    ++runs;
  }
  EXPECT_EQ(runs, 2);
}

TEST(SparseAD, SymbolicRowCountBoundByAnotherInput) {
  CpuBackend cpu;
  auto rt = sparse_runtime(cpu);
  auto tv = TracedTensor::input("v", DType::f64, {Dim("nnz")});
  auto tr = TracedTensor::input("r", DType::i64, {Dim("nnz")});
  auto tc = TracedTensor::input("c", DType::i64, {Dim("nnz")});
  auto td = TracedTensor::input("d", DType::f64, {Dim("k"), Dim("n")});
  auto tw = TracedTensor::input("w", DType::f64, {Dim("m"), Dim("n")});
  auto loss = (sparse::coo_matmul(tv, tr, tc, td, Dim("m")) * tw).sum();
  auto g = grad(loss, std::vector<TracedTensor>{tv, td});
  Program p = GraphCompiler().compile({loss, g[0], g[1]});
  std::uint64_t seed = 300;
  for (std::int64_t m : {3, 8}) {
    const std::int64_t nnz = 2 * m, k = 5, n = 2;
    Coo coo = random_coo<std::int64_t>(nnz, m, k, seed++);
    Tensor v = random_tensor<double>({nnz}, seed++), d = random_tensor<double>({k, n}, seed++);
    Tensor w = random_tensor<double>({m, n}, seed++);
    auto out = rt.run_compiled(p, {{"v", v}, {"r", coo.rows}, {"c", coo.cols}, {"d", d}, {"w", w}});
    EXPECT_NEAR(out[0].item().to<double>(), loss_value(v, coo, d, w, m), 1e-12) << "m " << m;
    EXPECT_LT(max_diff(out[1], finite_difference(v, coo, d, w, m, true)), 1e-7) << "m " << m;
    EXPECT_LT(max_diff(out[2], finite_difference(v, coo, d, w, m, false)), 1e-7) << "m " << m;
  }
}

TEST(SparseAD, JvpMatchesFiniteDifferences) {
  CpuBackend cpu;
  auto rt = sparse_runtime(cpu);
  const std::int64_t m = 4, nnz = 9, k = 5, n = 3;
  Coo coo = random_coo<std::int64_t>(nnz, m, k, 400);
  Tensor v = random_tensor<double>({nnz}, 401), d = random_tensor<double>({k, n}, 402);
  Tensor w = random_tensor<double>({m, n}, 403);
  Tensor dv = random_tensor<double>({nnz}, 404), dd = random_tensor<double>({k, n}, 405);
  auto tv = TracedTensor::input("v", DType::f64, {Dim("nnz")});
  auto td = TracedTensor::input("d", DType::f64, {Dim(k), Dim(n)});
  auto uv = TracedTensor::input("uv", DType::f64, {Dim("nnz")});
  auto ud = TracedTensor::input("ud", DType::f64, {Dim(k), Dim(n)});
  auto tr = TracedTensor(graph::constant(coo.rows)), tc = TracedTensor(graph::constant(coo.cols));
  auto loss = (sparse::coo_matmul(tv, tr, tc, td, m) * TracedTensor(graph::constant(w))).sum();
  Program p = GraphCompiler().compile({jvp(loss, tv, uv), jvp(loss, td, ud)});
  auto out = rt.run_compiled(p, {{"v", v}, {"d", d}, {"uv", dv}, {"ud", dd}});
  const double h = 1e-6;
  auto shifted = [&](const Tensor& x, const Tensor& u, double s) {
    auto xv = x.to_vec_col_major<double>(), uvv = u.to_vec_col_major<double>();
    for (std::size_t i = 0; i < xv.size(); ++i) xv[i] += s * uvv[i];
    return Tensor::from_vec_col_major<double>(x.shape(), xv);
  };
  const double fd_v = (loss_value(shifted(v, dv, h), coo, d, w, m) - loss_value(shifted(v, dv, -h), coo, d, w, m)) / (2 * h);
  const double fd_d = (loss_value(v, coo, shifted(d, dd, h), w, m) - loss_value(v, coo, shifted(d, dd, -h), w, m)) / (2 * h);
  EXPECT_NEAR(out[0].item().to<double>(), fd_v, 1e-7);
  EXPECT_NEAR(out[1].item().to<double>(), fd_d, 1e-7);
}

// loss = sum(y * y), y = A(values) dense: its gradient is linear in each of
// values and dense, so central differences of the gradient are exact up to
// rounding; hvp runs jvp over the transposes (sddmm and coo_matmul's).
TEST(SparseAD, HvpMatchesFiniteDifferencesOfTheGradient) {
  CpuBackend cpu;
  auto rt = sparse_runtime(cpu);
  const std::int64_t m = 4, nnz = 10, k = 5, n = 3;
  Coo coo = random_coo<std::int64_t>(nnz, m, k, 500);
  Tensor v = random_tensor<double>({nnz}, 501), d = random_tensor<double>({k, n}, 502);
  Tensor uv = random_tensor<double>({nnz}, 503), ud = random_tensor<double>({k, n}, 504);
  auto tv = TracedTensor::input("v", DType::f64, {Dim("nnz")});
  auto td = TracedTensor::input("d", DType::f64, {Dim("k"), Dim("n")});
  auto tuv = TracedTensor::input("uv", DType::f64, {Dim("nnz")});
  auto tud = TracedTensor::input("ud", DType::f64, {Dim("k"), Dim("n")});
  auto tr = TracedTensor::input("r", DType::i64, {Dim("nnz")});
  auto tc = TracedTensor::input("c", DType::i64, {Dim("nnz")});
  auto y = sparse::coo_matmul(tv, tr, tc, td, m);
  auto loss = (y * y).sum();
  auto g = grad(loss, std::vector<TracedTensor>{tv, td});
  Program pg = GraphCompiler().compile({g[0], g[1]});
  Program ph = GraphCompiler().compile({hvp(loss, tv, tuv), hvp(loss, td, tud)});
  auto bind = [&](const Tensor& vv, const Tensor& dd) {
    return rt.run_compiled(pg, {{"v", vv}, {"d", dd}, {"r", coo.rows}, {"c", coo.cols}});
  };
  auto out = rt.run_compiled(ph, {{"v", v}, {"d", d}, {"uv", uv}, {"ud", ud}, {"r", coo.rows}, {"c", coo.cols}});
  auto axpy = [](const Tensor& x, const Tensor& u, double s) {
    auto xv = x.to_vec_col_major<double>(), uvv = u.to_vec_col_major<double>();
    for (std::size_t i = 0; i < xv.size(); ++i) xv[i] += s * uvv[i];
    return Tensor::from_vec_col_major<double>(x.shape(), xv);
  };
  auto central = [&](const Tensor& gp, const Tensor& gm) {
    auto a = gp.to_vec_col_major<double>(), b = gm.to_vec_col_major<double>();
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = (a[i] - b[i]) / 2e-3;
    return Tensor::from_vec_col_major<double>(gp.shape(), a);
  };
  const double h = 1e-3;   // the gradient is linear in v: no truncation error
  auto gvp = bind(axpy(v, uv, h), d), gvm = bind(axpy(v, uv, -h), d);
  auto gdp = bind(v, axpy(d, ud, h)), gdm = bind(v, axpy(d, ud, -h));
  EXPECT_LT(max_diff(out[0], central(gvp[0], gvm[0])), 1e-9);
  EXPECT_LT(max_diff(out[1], central(gdp[1], gdm[1])), 1e-9);
  // And the Hessian is not trivially zero.
  double norm = 0;
  for (double e : out[0].to_vec_col_major<double>()) norm += std::abs(e);
  EXPECT_GT(norm, 1e-3);
}

// Complex dtypes: jvp is the op applied to the tangent, and vjp its adjoint
// for the real inner product: Re<ct, J u> = Re<J^H ct, u>.
template <class T>
void check_complex_adjoint(DType dt, double tol) {
  CpuBackend cpu;
  auto rt = sparse_runtime(cpu);
  const std::int64_t m = 4, nnz = 9, k = 5, n = 3;
  Coo coo = random_coo<std::int64_t>(nnz, m, k, 600);
  Tensor v = random_tensor<T>({nnz}, 601), d = random_tensor<T>({k, n}, 602);
  Tensor a = random_tensor<T>({m, n}, 603);
  Tensor uv = random_tensor<T>({nnz}, 604), ud = random_tensor<T>({k, n}, 605), ua = random_tensor<T>({m, n}, 606);
  Tensor ct = random_tensor<T>({m, n}, 607), cts = random_tensor<T>({nnz}, 608);
  auto tv = TracedTensor::input("v", dt, {Dim("nnz")});
  auto td = TracedTensor::input("d", dt, {Dim(k), Dim(n)});
  auto ta = TracedTensor::input("a", dt, {Dim(m), Dim(n)});
  auto tr = TracedTensor::input("r", DType::i64, {Dim("nnz")});
  auto tc = TracedTensor::input("c", DType::i64, {Dim("nnz")});
  auto tuv = TracedTensor::input("uv", dt, {Dim("nnz")});
  auto tud = TracedTensor::input("ud", dt, {Dim(k), Dim(n)});
  auto tua = TracedTensor::input("ua", dt, {Dim(m), Dim(n)});
  auto tct = TracedTensor::input("ct", dt, {Dim(m), Dim(n)});
  auto tcts = TracedTensor::input("cts", dt, {Dim("nnz")});
  auto y = sparse::coo_matmul(tv, tr, tc, td, m);
  auto s = sparse::sddmm(ta, td, tr, tc);
  Program p = GraphCompiler().compile({jvp(y, tv, tuv), vjp(y, tv, tct), jvp(y, td, tud), vjp(y, td, tct),
                                       jvp(s, ta, tua), vjp(s, ta, tcts), jvp(s, td, tud), vjp(s, td, tcts)});
  auto out = rt.run_compiled(p, {{"v", v}, {"d", d}, {"a", a}, {"r", coo.rows}, {"c", coo.cols}, {"uv", uv},
                                 {"ud", ud}, {"ua", ua}, {"ct", ct}, {"cts", cts}});
  // jvp of a bilinear op is the op with the tangent in place of the operand.
  EXPECT_LT(max_diff(out[0], reference_coo<T>(uv, coo.rows, coo.cols, d, m)), tol);
  EXPECT_LT(max_diff(out[2], reference_coo<T>(v, coo.rows, coo.cols, ud, m)), tol);
  EXPECT_LT(max_diff(out[4], reference_sddmm<T>(ua, d, coo.rows, coo.cols)), tol);
  EXPECT_LT(max_diff(out[6], reference_sddmm<T>(a, ud, coo.rows, coo.cols)), tol);
  EXPECT_NEAR(real_inner(ct, out[0]), real_inner(out[1], uv), tol);
  EXPECT_NEAR(real_inner(ct, out[2]), real_inner(out[3], ud), tol);
  EXPECT_NEAR(real_inner(cts, out[4]), real_inner(out[5], ua), tol);
  EXPECT_NEAR(real_inner(cts, out[6]), real_inner(out[7], ud), tol);
  if constexpr (is_complex_t<T>::value) {
    // ... which the transpose without the conjugation would not satisfy.
    Tensor unconjugated = reference_coo<T>(v, coo.cols, coo.rows, ct, k);
    EXPECT_GT(std::abs(real_inner(ct, out[2]) - real_inner(unconjugated, ud)), 1e-3);
  }
}

TEST(SparseAD, ComplexAdjointsForTheRealInnerProduct) {
  check_complex_adjoint<std::complex<double>>(DType::c128, 1e-12);
  check_complex_adjoint<std::complex<float>>(DType::c64, 1e-4);
  check_complex_adjoint<double>(DType::f64, 1e-12);
}

}  // namespace
