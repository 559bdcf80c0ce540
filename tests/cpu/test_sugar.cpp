// The user-facing functions of tenferro/ops/sugar.hpp against naive loops:
// NumPy broadcasting, dtype promotion, matmul (vectors, matrices, batches,
// broadcast batches), reductions with negative axes, norm (without
// overflow), trace, where, scalar overloads, and the Tensor / TypedTensor
// methods that forward to them.
#include <cmath>
#include <functional>
#include <limits>

#include "support/test_support.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

using C = std::complex<double>;

// Index of `t` that NumPy broadcasting reads for output index `idx` (trailing axes aligned).
DimVec broadcast_index(const Tensor& t, const DimVec& idx) {
  DimVec j;
  const std::size_t lead = idx.size() - static_cast<std::size_t>(t.ndim());
  for (std::size_t k = 0; k < static_cast<std::size_t>(t.ndim()); ++k)
    j.push_back(t.shape()[k] == 1 ? 0 : idx[lead + k]);
  return j;
}

// out[idx] = f(a[..], b[..]) with NumPy broadcasting, values in complex<double>.
Tensor naive_broadcast(const Tensor& a, const Tensor& b, const Shape& out_shape, DType out_dtype,
                       const std::function<C(C, C)>& f) {
  std::vector<C> v;
  for (const DimVec& idx : all_indices(out_shape))
    v.push_back(f(value_at(a, broadcast_index(a, idx)), value_at(b, broadcast_index(b, idx))));
  return tensor_from_values(out_shape, out_dtype, v);
}

// Elementwise tolerance: a few ulps for floats, exact for integers and bool.
double tol(DType d) { return is_float(d) ? 8 * dtype_eps(d) : 0.0; }

TEST(Sugar, BroadcastShapesFollowNumPy) {
  EXPECT_EQ(broadcast_shapes({3, 1}, {1, 2}), (Shape{3, 2}));
  EXPECT_EQ(broadcast_shapes({2, 3}, {3}), (Shape{2, 3}));
  EXPECT_EQ(broadcast_shapes({}, {2, 3}), (Shape{2, 3}));
  EXPECT_EQ(broadcast_shapes({4, 1, 5}, {3, 1}), (Shape{4, 3, 5}));
  EXPECT_EQ(broadcast_shapes({0, 1}, {1, 3}), (Shape{0, 3}));
  EXPECT_EQ(broadcast_shapes({1}, {0}), (Shape{0}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [] {
        broadcast_shapes({2, 3}, {2}, "add");
      },
      {"add", "[2, 3]", "[2]", "3 vs 2"}));
  EXPECT_TRUE(
      throws_with<ShapeError>([] { broadcast_shapes({0}, {2}); }, {"broadcast_shapes", "[0]", "[2]"}));
}

TEST(Sugar, BroadcastingArithmeticMatchesNaiveLoops) {
  CpuBackend cpu;
  const std::vector<std::pair<Shape, Shape>> shapes{
      {{3, 1}, {1, 2}}, {{2, 3}, {3}},    {{}, {2, 3}}, {{4, 1, 5}, {3, 1}},
      {{2, 3}, {2, 3}}, {{0, 1}, {1, 3}}, {{1}, {}}};
  struct Op {
    const char* name;
    std::function<Tensor(const Tensor&, const Tensor&, Backend&)> f;
    std::function<C(C, C)> ref;
  };
  const std::vector<Op> opsv{
      {"add", [](const Tensor& a, const Tensor& b, Backend& be) { return add(a, b, be); },
       [](C x, C y) { return x + y; }},
      {"sub", [](const Tensor& a, const Tensor& b, Backend& be) { return sub(a, b, be); },
       [](C x, C y) { return x - y; }},
      {"mul", [](const Tensor& a, const Tensor& b, Backend& be) { return mul(a, b, be); },
       [](C x, C y) { return x * y; }},
      {"div", [](const Tensor& a, const Tensor& b, Backend& be) { return div(a, b, be); },
       [](C x, C y) { return x / y; }}};
  std::uint64_t seed = 1;
  for (DType d : float_dtypes())
    for (const auto& [sa, sb] : shapes)
      for (const Op& op : opsv) {
        Tensor a = with_random_layout(random_tensor(sa, d, seed), seed + 1);
        seed += 2;
        Tensor b = with_random_layout(random_tensor(sb, d, seed), seed + 1);
        seed += 2;
        Tensor got = op.f(a, b, cpu);
        Tensor want = naive_broadcast(a, b, broadcast_shapes(sa, sb), d, op.ref);
        EXPECT_TRUE(tensors_close(got, want, tol(d), tol(d))) << op.name << " " << d << sa << " " << sb;
        // The other operand order broadcasts the same way.
        Tensor got2 = op.f(b, a, cpu);
        Tensor want2 = naive_broadcast(b, a, broadcast_shapes(sb, sa), d, op.ref);
        EXPECT_TRUE(tensors_close(got2, want2, tol(d), tol(d))) << op.name << " " << d << sb << " " << sa;
      }
  Tensor a = Tensor::ones({2, 3}), b = Tensor::ones({2});
  EXPECT_TRUE(throws_with<ShapeError>([&] { add(a, b, cpu); }, {"add", "[2, 3]", "[2]"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { mul(a, b, cpu); }, {"multiply", "[2, 3]", "[2]"}));
}

TEST(Sugar, IntegerArithmeticKeepsPrimitiveSemantics) {
  CpuBackend cpu;
  auto a = Tensor::from_vec_col_major<std::int32_t>({4}, {7, -7, 5, 2147483647});
  auto b = Tensor::from_vec_col_major<std::int32_t>({4}, {2, 2, 0, 1});
  EXPECT_EQ(div(a, b, cpu).to_vec_col_major<std::int32_t>(),
            (std::vector<std::int32_t>{3, -3, -1, 2147483647}));
  EXPECT_EQ(add(a, b, cpu).to_vec_col_major<std::int32_t>(),
            (std::vector<std::int32_t>{9, -5, 5, -2147483647 - 1}));
  EXPECT_EQ(sub(a, b, cpu).to_vec_col_major<std::int32_t>(),
            (std::vector<std::int32_t>{5, -9, 5, 2147483646}));
  EXPECT_EQ(neg(a, cpu).to_vec_col_major<std::int32_t>(),
            (std::vector<std::int32_t>{-7, 7, -5, -2147483647}));
  EXPECT_EQ(square(b, cpu).to_vec_col_major<std::int32_t>(), (std::vector<std::int32_t>{4, 4, 0, 1}));
}

TEST(Sugar, DtypePromotion) {
  EXPECT_EQ(promote_types(DType::f32, DType::f64), DType::f64);
  EXPECT_EQ(promote_types(DType::i64, DType::f32), DType::f32);
  EXPECT_EQ(promote_types(DType::c64, DType::f64), DType::c128);
  EXPECT_EQ(promote_types(DType::c64, DType::f32), DType::c64);
  EXPECT_EQ(promote_types(DType::i32, DType::i64), DType::i64);
  EXPECT_EQ(promote_types(DType::bool_, DType::i32), DType::i32);
  EXPECT_EQ(promote_types(DType::bool_, DType::bool_), DType::bool_);
  EXPECT_EQ(promote_types(DType::i64, DType::c64), DType::c64);
  for (DType x : all_dtypes())
    for (DType y : all_dtypes()) EXPECT_EQ(promote_types(x, y), promote_types(y, x)) << x << " " << y;
  CpuBackend cpu;
  auto i = Tensor::from_vec_col_major<std::int32_t>({2}, {1, 2});
  auto f = Tensor::from_vec_col_major<float>({2}, {0.5f, 0.25f});
  Tensor s = add(i, f, cpu);
  EXPECT_EQ(s.dtype(), DType::f32);
  EXPECT_EQ(s.to_vec_col_major<float>(), (std::vector<float>{1.5f, 2.25f}));
  auto z = Tensor::from_vec_col_major<std::complex<float>>({2}, {{1, 1}, {0, 2}});
  auto d = Tensor::from_vec_col_major<double>({1}, {2.0});
  Tensor p = mul(z, d, cpu);
  EXPECT_EQ(p.dtype(), DType::c128);
  EXPECT_EQ(p.to_vec_col_major<C>(), (std::vector<C>{{2, 2}, {0, 4}}));
  auto bools = Tensor::from_vec_col_major<bool>({2}, {true, false});
  auto i64 = Tensor::from_vec_col_major<std::int64_t>({2}, {10, 20});
  Tensor q = add(bools, i64, cpu);
  EXPECT_EQ(q.dtype(), DType::i64);
  EXPECT_EQ(q.to_vec_col_major<std::int64_t>(), (std::vector<std::int64_t>{11, 20}));
}

TEST(Sugar, ScalarOverloads) {
  CpuBackend cpu;
  auto f = Tensor::from_vec_col_major<float>({2}, {1.0f, -2.0f});
  Tensor a = add(f, 2.5, cpu);
  EXPECT_EQ(a.dtype(), DType::f32);
  EXPECT_EQ(a.to_vec_col_major<float>(), (std::vector<float>{3.5f, 0.5f}));
  auto i = Tensor::from_vec_col_major<std::int64_t>({2}, {3, -4});
  Tensor b = add(i, 3, cpu);
  EXPECT_EQ(b.dtype(), DType::i64);
  EXPECT_EQ(b.to_vec_col_major<std::int64_t>(), (std::vector<std::int64_t>{6, -1}));
  Tensor c = add(i, 0.5, cpu);
  EXPECT_EQ(c.dtype(), DType::f64);
  EXPECT_EQ(c.to_vec_col_major<double>(), (std::vector<double>{3.5, -3.5}));
  Tensor z = mul(f, C(0, 1), cpu);
  EXPECT_EQ(z.dtype(), DType::c64);
  EXPECT_EQ(z.to_vec_col_major<std::complex<float>>(), (std::vector<std::complex<float>>{{0, 1}, {0, -2}}));
  auto zc = Tensor::from_vec_col_major<std::complex<double>>({1}, {C(1, 2)});
  Tensor w = mul(zc, 2, cpu);
  EXPECT_EQ(w.dtype(), DType::c128);
  EXPECT_EQ(w.item().to<C>(), C(2, 4));
}

// ---- matmul ------------------------------------------------------------------

// Naive [m, k, batch...] x [k, n, batch...] with broadcast batch axes.
Tensor naive_matmul(const Tensor& a, const Tensor& b) {
  Shape ab(a.shape().begin() + 2, a.shape().end()), bb(b.shape().begin() + 2, b.shape().end());
  Shape batch = broadcast_shapes(ab, bb);
  const std::int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  Shape out{m, n};
  for (auto e : batch) out.push_back(e);
  std::vector<C> v;
  for (const DimVec& idx : all_indices(out)) {
    DimVec bi(idx.begin() + 2, idx.end());
    auto sub = [&](const Tensor& t, std::int64_t i, std::int64_t j) {
      DimVec tb(t.shape().begin() + 2, t.shape().end());
      DimVec full{i, j};
      const std::size_t lead = bi.size() - tb.size();
      for (std::size_t q = 0; q < tb.size(); ++q) full.push_back(tb[q] == 1 ? 0 : bi[lead + q]);
      return value_at(t, full);
    };
    C acc = 0;
    for (std::int64_t p = 0; p < k; ++p) acc += sub(a, idx[0], p) * sub(b, p, idx[1]);
    v.push_back(acc);
  }
  return tensor_from_values(out, promote_types(a.dtype(), b.dtype()), v);
}

TEST(Sugar, MatmulMatricesAndBatches) {
  CpuBackend cpu;
  const std::vector<std::pair<Shape, Shape>> cases{
      {{3, 4}, {4, 2}},    {{3, 4, 5}, {4, 2, 5}},       {{3, 4, 5}, {4, 2}},
      {{3, 4}, {4, 2, 5}}, {{2, 3, 1, 3}, {3, 2, 2, 1}}, {{1, 1}, {1, 1}},
      {{3, 0}, {0, 2}},    {{20, 30, 2}, {30, 25, 2}}};
  std::uint64_t seed = 100;
  for (DType d : float_dtypes())
    for (const auto& [sa, sb] : cases) {
      Tensor a = with_random_layout(random_tensor(sa, d, seed), seed + 1);
      seed += 2;
      Tensor b = with_random_layout(random_tensor(sb, d, seed), seed + 1);
      seed += 2;
      Tensor got = matmul(a, b, cpu);
      Tensor want = naive_matmul(a, b);
      double k = static_cast<double>(sa[1]) + 1;
      EXPECT_TRUE(tensors_close(got, want, tol(d), tol(d) * k)) << d << sa << " x " << sb;
    }
}

TEST(Sugar, MatmulVectorsAndMixedDtypes) {
  CpuBackend cpu;
  auto m = Tensor::from_vec_col_major<double>({2, 3}, {1, 2, 3, 4, 5, 6});  // [[1, 3, 5], [2, 4, 6]]
  auto v3 = Tensor::from_vec_col_major<double>({3}, {1, 0, -1});
  auto v2 = Tensor::from_vec_col_major<double>({2}, {1, 1});
  Tensor mv = matmul(m, v3, cpu);
  EXPECT_EQ(mv.shape(), (Shape{2}));
  EXPECT_EQ(mv.to_vec_col_major<double>(), (std::vector<double>{-4, -4}));
  Tensor vm = matmul(v2, m, cpu);
  EXPECT_EQ(vm.shape(), (Shape{3}));
  EXPECT_EQ(vm.to_vec_col_major<double>(), (std::vector<double>{3, 7, 11}));
  Tensor vv = matmul(v3, v3, cpu);
  EXPECT_EQ(vv.shape(), (Shape{}));
  EXPECT_EQ(vv.item().to<double>(), 2.0);
  // vector times a batch of matrices: [3] x [3, 2, 4] -> [2, 4]
  Tensor batch = random_tensor({3, 2, 4}, DType::f64, 5);
  Tensor vb = matmul(v3, batch, cpu);
  EXPECT_EQ(vb.shape(), (Shape{2, 4}));
  for (std::int64_t j = 0; j < 2; ++j)
    for (std::int64_t b = 0; b < 4; ++b)
      EXPECT_NEAR(vb.at<double>({j, b}), batch.at<double>({0, j, b}) - batch.at<double>({2, j, b}), 1e-15);
  // f32 x c128 promotes to c128
  auto f = Tensor::from_vec_col_major<float>({1, 2}, {1, 2});
  auto z = Tensor::from_vec_col_major<C>({2, 1}, {C(0, 1), C(1, 0)});
  Tensor fz = matmul(f, z, cpu);
  EXPECT_EQ(fz.dtype(), DType::c128);
  EXPECT_EQ(fz.item().to<C>(), C(2, 1));
  // integer matmul
  auto ia = Tensor::from_vec_col_major<std::int64_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(matmul(ia, ia, cpu).to_vec_col_major<std::int64_t>(), (std::vector<std::int64_t>{7, 10, 15, 22}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { matmul(m, m, cpu); }, {"matmul", "[2, 3]", "[2, 3]"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { matmul(Tensor::scalar<double>(1), m, cpu); },
                                      {"matmul", "rank >= 1", "[]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        matmul(Tensor::ones({2, 3, 4}), Tensor::ones({3, 2, 5}), cpu);
      },
      {"matmul", "[4]", "[5]"}));
}

// ---- reductions -------------------------------------------------------------------

// Naive reduction of `x` over `axes` (already normalized) with `f`, starting from `init`.
Tensor naive_reduce(const Tensor& x, const DimVec& axes, DType out, C init, const std::function<C(C, C)>& f) {
  Shape s;
  for (std::int64_t i = 0; i < x.ndim(); ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end())
      s.push_back(x.shape()[static_cast<std::size_t>(i)]);
  std::vector<C> acc(static_cast<std::size_t>(shape_numel(s)), init);
  for (const DimVec& idx : all_indices(x.shape())) {
    DimVec oi;
    for (std::int64_t i = 0; i < x.ndim(); ++i)
      if (std::find(axes.begin(), axes.end(), i) == axes.end())
        oi.push_back(idx[static_cast<std::size_t>(i)]);
    std::int64_t lin = 0, st = 1;
    for (std::size_t q = 0; q < oi.size(); ++q) lin += oi[q] * st, st *= s[q];
    acc[static_cast<std::size_t>(lin)] = f(acc[static_cast<std::size_t>(lin)], value_at(x, idx));
  }
  return tensor_from_values(s, out, acc);
}

TEST(Sugar, ReductionsOverAxesIncludingNegative) {
  CpuBackend cpu;
  const std::vector<std::pair<DimVec, DimVec>> axes{
      {{0}, {0}}, {{-1}, {2}}, {{-3, 1}, {0, 1}}, {{2, 0}, {2, 0}}, {{}, {}}};
  std::uint64_t seed = 7;
  auto sum_f = [](C a, C b) { return a + b; };
  auto prod_f = [](C a, C b) { return a * b; };
  auto max_f = [](C a, C b) { return C(std::max(a.real(), b.real())); };
  auto min_f = [](C a, C b) { return C(std::min(a.real(), b.real())); };
  for (DType d : all_dtypes())
    for (const auto& [given, norm] : axes) {
      Tensor x = with_random_layout(random_tensor({3, 2, 4}, d, seed), seed + 1);
      seed += 2;
      DType sum_dtype = d == DType::bool_ ? DType::i64 : d;
      EXPECT_TRUE(
          tensors_close(sum(x, given, cpu), naive_reduce(x, norm, sum_dtype, 0, sum_f), tol(d), tol(d) * 8))
          << "sum " << d << given;
      EXPECT_TRUE(
          tensors_close(prod(x, given, cpu), naive_reduce(x, norm, sum_dtype, 1, prod_f), tol(d) * 8, 0))
          << "prod " << d << given;
      DType mean_dtype = is_float(d) ? d : DType::f64;
      double count = 1;
      for (auto a : norm) count *= double(x.shape()[static_cast<std::size_t>(a)]);
      Tensor want_mean = naive_reduce(x, norm, mean_dtype, 0, [&](C a, C b) { return a + b / count; });
      EXPECT_TRUE(tensors_close(mean(x, given, cpu), want_mean, tol(mean_dtype), tol(mean_dtype) * 8))
          << "mean " << d << given;
      if (!kRealDTypes.contains(d)) continue;
      const double inf = std::numeric_limits<double>::infinity();
      EXPECT_TRUE(tensors_equal(max(x, given, cpu), naive_reduce(x, norm, d, -inf, max_f)))
          << "max " << d << given;
      EXPECT_TRUE(tensors_equal(min(x, given, cpu), naive_reduce(x, norm, d, inf, min_f)))
          << "min " << d << given;
    }
}

TEST(Sugar, WholeTensorReductionsAndErrors) {
  CpuBackend cpu;
  auto x = Tensor::from_vec_col_major<double>({2, 3}, {1, -2, 3, 4, -5, 6});
  EXPECT_EQ(sum(x, cpu).item().to<double>(), 7.0);
  EXPECT_EQ(prod(x, cpu).item().to<double>(), 720.0);
  EXPECT_EQ(max(x, cpu).item().to<double>(), 6.0);
  EXPECT_EQ(min(x, cpu).item().to<double>(), -5.0);
  EXPECT_DOUBLE_EQ(mean(x, cpu).item().to<double>(), 7.0 / 6.0);
  EXPECT_EQ(sum(x, cpu).shape(), Shape{});
  auto bools = Tensor::from_vec_col_major<bool>({4}, {true, true, false, true});
  Tensor nb = sum(bools, cpu);
  EXPECT_EQ(nb.dtype(), DType::i64);
  EXPECT_EQ(nb.item().to<std::int64_t>(), 3);
  auto ints = Tensor::from_vec_col_major<std::int32_t>({2}, {1, 2});
  Tensor m = mean(ints, cpu);
  EXPECT_EQ(m.dtype(), DType::f64);
  EXPECT_EQ(m.item().to<double>(), 1.5);
  EXPECT_TRUE(std::isnan(mean(Tensor::zeros({0}), cpu).item().to<double>()));
  EXPECT_EQ(sum(Tensor::zeros({0, 3}), {0}, cpu).to_vec_col_major<double>(), (std::vector<double>{0, 0, 0}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        max(Tensor::zeros({2, 0}), {1}, cpu);
      },
      {"max", "axis 1", "[2, 0]", "identity"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { min(Tensor::zeros({0}), cpu); }, {"min", "[0]"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { sum(x, {2}, cpu); }, {"axis 2", "rank 2"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { mean(x, {-3}, cpu); }, {"mean", "axis -3", "rank 2"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { sum(x, {1, -1}, cpu); }, {"repeats axis 1"}));
  EXPECT_TRUE(
      throws_with<DTypeError>([&] { max(Tensor::zeros({2}, DType::c64), cpu); }, {"reduce_max", "c64"}));
}

// ---- norm, trace, where ----------------------------------------------------------------

TEST(Sugar, NormMatchesNaiveAndDoesNotOverflow) {
  CpuBackend cpu;
  std::uint64_t seed = 3;
  for (DType d : float_dtypes()) {
    Tensor x = with_random_layout(random_tensor({5, 4, 3}, d, seed), seed + 1);
    seed += 2;
    long double ss = 0;
    for (const DimVec& idx : all_indices(x.shape()))
      ss += std::norm(std::complex<long double>(value_at(x, idx)));
    Tensor n = norm(x, cpu);
    EXPECT_EQ(n.dtype(), real_dtype(d));
    EXPECT_EQ(n.shape(), Shape{});
    EXPECT_NEAR(value_at(n, {}).real(), static_cast<double>(std::sqrt(ss)),
                64 * dtype_eps(d) * static_cast<double>(std::sqrt(ss)));
  }
  // Squares of these overflow (or underflow) the dtype; the norm must not.
  auto huge = Tensor::from_vec_col_major<double>({2}, {3e300, 4e300});
  EXPECT_NEAR(norm(huge, cpu).item().to<double>() / 5e300, 1.0, 1e-15);
  auto tiny = Tensor::from_vec_col_major<double>({2}, {3e-300, -4e-300});
  EXPECT_NEAR(norm(tiny, cpu).item().to<double>() / 5e-300, 1.0, 1e-15);
  auto huge32 = Tensor::from_vec_col_major<std::complex<float>>({2}, {{3e30f, 0}, {0, 4e30f}});
  EXPECT_NEAR(norm(huge32, cpu).item().to<double>() / 5e30, 1.0, 1e-6);
  auto ints = Tensor::from_vec_col_major<std::int32_t>({2}, {3, -4});
  Tensor ni = norm(ints, cpu);
  EXPECT_EQ(ni.dtype(), DType::f64);
  EXPECT_EQ(ni.item().to<double>(), 5.0);
  EXPECT_EQ(norm(Tensor::zeros({0, 3}), cpu).item().to<double>(), 0.0);
  EXPECT_EQ(norm(Tensor::zeros({3}), cpu).item().to<double>(), 0.0);
  EXPECT_EQ(norm(Tensor::scalar<double>(-2.5), cpu).item().to<double>(), 2.5);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(norm(Tensor::from_vec_col_major<double>({2}, {1, -inf}), cpu).item().to<double>(), inf);
  EXPECT_TRUE(
      std::isnan(norm(Tensor::from_vec_col_major<double>({2}, {1, std::nan("")}), cpu).item().to<double>()));
}

TEST(Sugar, TraceBatchedAndRectangular) {
  CpuBackend cpu;
  for (DType d : float_dtypes()) {
    Tensor x = with_random_layout(random_tensor({3, 3, 4, 2}, d, 11), 12);
    Tensor t = trace(x, cpu);
    EXPECT_EQ(t.shape(), (Shape{4, 2}));
    for (const DimVec& b : all_indices({4, 2})) {
      C want = 0;
      for (std::int64_t i = 0; i < 3; ++i) want += value_at(x, {i, i, b[0], b[1]});
      EXPECT_NEAR(std::abs(value_at(t, b) - want), 0.0, 8 * dtype_eps(d)) << d << b;
    }
  }
  auto r = Tensor::from_vec_col_major<std::int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});  // diag 1, 4
  EXPECT_EQ(trace(r, cpu).item().to<std::int64_t>(), 5);
  EXPECT_EQ(trace(Tensor::zeros({0, 3}), cpu).item().to<double>(), 0.0);
  EXPECT_TRUE(throws_with<ShapeError>([&] { trace(Tensor::ones({3}), cpu); }, {"trace", "rank >= 2", "[3]"}));
}

TEST(Sugar, WhereBroadcastsAndPromotes) {
  CpuBackend cpu;
  auto cond = Tensor::from_vec_col_major<bool>({3, 1}, {true, false, true});
  auto a = Tensor::from_vec_col_major<float>({1, 2}, {1, 2});
  Tensor b = random_tensor({3, 2}, DType::f64, 4);
  Tensor w = where(cond, a, b, cpu);
  EXPECT_EQ(w.dtype(), DType::f64);
  ASSERT_EQ(w.shape(), (Shape{3, 2}));
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      EXPECT_EQ(w.at<double>({i, j}),
                cond.at<bool>({i, 0}) ? double(a.at<float>({0, j})) : b.at<double>({i, j}));
  Tensor s = where(Tensor::scalar<bool>(false), a, Tensor::scalar<double>(7), cpu);
  EXPECT_EQ(s.to_vec_col_major<double>(), (std::vector<double>{7, 7}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { where(b, a, b, cpu); }, {"where", "bool", "f64"}));
  EXPECT_TRUE(
      throws_with<ShapeError>([&] { where(Tensor::ones({4}, DType::bool_), a, b, cpu); }, {"where", "[4]"}));
}

// ---- unary functions and methods ------------------------------------------------------------

TEST(Sugar, UnaryFunctionsChooseDtypes) {
  CpuBackend cpu;
  auto i = Tensor::from_vec_col_major<std::int32_t>({2}, {0, 4});
  Tensor e = exp(i, cpu);
  EXPECT_EQ(e.dtype(), DType::f64);
  EXPECT_EQ(e.to_vec_col_major<double>(), (std::vector<double>{1.0, std::exp(4.0)}));
  EXPECT_EQ(sqrt(i, cpu).to_vec_col_major<double>(), (std::vector<double>{0.0, 2.0}));
  EXPECT_EQ(log(i, cpu).at<double>({1}), std::log(4.0));
  auto z = Tensor::from_vec_col_major<std::complex<float>>({2}, {{3, 4}, {0, -1}});
  Tensor az = abs(z, cpu);
  EXPECT_EQ(az.dtype(), DType::f32);
  EXPECT_EQ(az.to_vec_col_major<float>(), (std::vector<float>{5, 1}));
  EXPECT_EQ(real(z, cpu).to_vec_col_major<float>(), (std::vector<float>{3, 0}));
  EXPECT_EQ(imag(z, cpu).to_vec_col_major<float>(), (std::vector<float>{4, -1}));
  EXPECT_EQ(conj(z, cpu).to_vec_col_major<std::complex<float>>(),
            (std::vector<std::complex<float>>{{3, -4}, {0, 1}}));
  auto r = Tensor::from_vec_col_major<double>({2, 2}, {1, -2, 3, -4});
  EXPECT_TRUE(tensors_equal(real(r, cpu), r));
  EXPECT_TRUE(tensors_equal(conj(r, cpu), r));
  Tensor ir = imag(r, cpu);
  EXPECT_EQ(ir.shape(), (Shape{2, 2}));
  EXPECT_EQ(ir.to_vec_col_major<double>(), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(abs(i, cpu).dtype(), DType::i32);
}

TEST(Sugar, TypedTensorOverloadsGiveTypedResults) {
  CpuBackend cpu;
  auto t = TypedTensor<std::complex<double>>::from_vec_col_major({2, 2}, {{1, 1}, {2, 0}, {0, 3}, {1, -1}});
  TypedTensor<std::complex<double>> tt = matmul(t, t, cpu);
  TypedTensor<double> n = norm(t, cpu);
  TypedTensor<double> re = real(t, cpu);
  TypedTensor<double> im = imag(t, cpu);
  TypedTensor<double> mag = abs(t, cpu);
  EXPECT_EQ(tt.at({0, 0}), C(1, 1) * C(1, 1) + C(0, 3) * C(2, 0));
  EXPECT_NEAR(n.item(), std::sqrt(2.0 + 4 + 9 + 2), 1e-15);
  EXPECT_EQ(re.to_vec_col_major(), (std::vector<double>{1, 2, 0, 1}));
  EXPECT_EQ(im.to_vec_col_major(), (std::vector<double>{1, 0, 3, -1}));
  EXPECT_NEAR(mag.at({1, 1}), std::sqrt(2.0), 1e-15);
  EXPECT_EQ(trace(t, cpu).item(), C(2, 0));
  auto d = TypedTensor<double>::from_vec_col_major({2, 2}, {1, 2, 3, 4});
  TypedTensor<double> s = sum(add(d, d, cpu), {0}, cpu);
  EXPECT_EQ(s.to_vec_col_major(), (std::vector<double>{6, 14}));
  EXPECT_EQ(sum(mul(d, d, cpu), cpu).item(), 30.0);
  EXPECT_EQ(max(sub(d, d, cpu), cpu).item(), 0.0);
  EXPECT_EQ(prod(div(d, d, cpu), {1}, cpu).to_vec_col_major(), (std::vector<double>{1, 1}));
}

}  // namespace
