// Round trips, bad input, helpers, the family op, providers and the plan cache.
#include <thread>

#include "fft_test_util.hpp"

using namespace tenferro;
using namespace tenferro::fft;
using namespace tenferro::fft::testing;
using tenferro::testing::random_tensor;
using tenferro::testing::tensors_equal;
using tenferro::testing::throws_with;
using tenferro::testing::with_random_layout;

namespace {
bool have_provider() { return !available_providers().empty(); }
}  // namespace

// ---- round trips ---------------------------------------------------------------------------------

TEST(FftApi, RoundTripsF64) {
  CpuBackend cpu;
  for_each_provider([&] {
    for (std::int64_t n : {1, 2, 17, 1000, 1 << 16, 59049, 10007}) {
      Tensor x = random_tensor({n}, DType::c128, static_cast<std::uint64_t>(n));
      for (Norm norm : {Norm::backward, Norm::ortho, Norm::forward}) {
        Options o{.norm = norm};
        EXPECT_TRUE(close_to(ifft(fft::fft(x, cpu, o), cpu, o), x, 1e-12)) << n;
        Tensor r = random_tensor({n}, DType::f64, static_cast<std::uint64_t>(n) + 1);
        EXPECT_TRUE(close_to(irfft(rfft(r, cpu, o), cpu, {.n = n, .norm = norm}), r, 1e-12)) << n;
        EXPECT_TRUE(close_to(hfft(ihfft(r, cpu, o), cpu, {.n = n, .norm = norm}), r, 1e-12)) << n;
      }
    }
    Tensor x = with_random_layout(random_tensor({12, 9, 5}, DType::c128, 3), 4, 5);
    EXPECT_TRUE(close_to(ifftn(fftn(x, cpu), cpu), x, 1e-12));
    Tensor r = with_random_layout(random_tensor({12, 9, 5}, DType::f64, 5), 6, 3);
    for (DimVec axes : {DimVec{0, 1, 2}, DimVec{2, 0}, DimVec{1}}) {
      Shape s;
      for (auto a : axes) s.push_back(r.size(a));
      EXPECT_TRUE(close_to(irfftn(rfftn(r, cpu, {.axes = axes}), cpu, {.s = s, .axes = axes}), r,
                           1e-12))
          << axes;
    }
  });
}

TEST(FftApi, OrthoIsUnitary) {
  CpuBackend cpu;
  for_each_provider([&] {
    Tensor x = random_tensor({97, 3}, DType::c128, 9);
    Tensor y = fft::fft(x, cpu, {.norm = Norm::ortho});
    EXPECT_NEAR(static_cast<double>(real_dot(y, y)), static_cast<double>(real_dot(x, x)), 1e-12 * 97);
  });
}

// f32 in, f32 precision out (promotion to c64, not c128).
TEST(FftApi, SinglePrecision) {
  CpuBackend cpu;
  for_each_provider([&] {
    Tensor x = random_tensor({4096, 2}, DType::f32, 11);
    Tensor X = fft::fft(x, cpu);
    EXPECT_EQ(X.dtype(), DType::c64);
    Tensor back = real(ifft(X, cpu), cpu);
    EXPECT_TRUE(close_to(back, x, 1e-5));
    EXPECT_EQ(rfft(x, cpu).dtype(), DType::c64);
    EXPECT_EQ(irfft(rfft(x, cpu), cpu).dtype(), DType::f32);
  });
}

// The input is never written, whatever its layout.
TEST(FftApi, InputUnchanged) {
  CpuBackend cpu;
  for_each_provider([&] {
    for (int k = 0; k < tenferro::testing::kNumLayouts; ++k) {
      Tensor z = with_random_layout(random_tensor({6, 5, 4}, DType::c128, 21), 22, k);
      Tensor z0 = z.duplicate();
      irfftn(z, cpu, {.axes = DimVec{0, 2}});
      fftn(z, cpu);
      irfft(z, cpu, {.axis = 1});
      EXPECT_TRUE(tensors_equal(z, z0)) << "layout " << k;
      Tensor r = with_random_layout(random_tensor({6, 5, 4}, DType::f64, 23), 24, k);
      Tensor r0 = r.duplicate();
      rfftn(r, cpu);
      EXPECT_TRUE(tensors_equal(r, r0)) << "layout " << k;
    }
  });
}

// ---- bad input ----------------------------------------------------------------------------------

TEST(FftApi, BadInputThrowsClearErrors) {
  if (!have_provider()) GTEST_SKIP();
  CpuBackend cpu;
  Tensor x = random_tensor({4, 3}, DType::c128, 1);
  Tensor r = random_tensor({4, 3}, DType::f64, 2);
  Tensor x0 = x.duplicate();
  // axis out of range
  EXPECT_TRUE(throws_with<IndexError>([&] { fft::fft(x, cpu, {.axis = 2}); },
                                      {"fft.fft", "axis 2", "[4, 3]"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { rfft(r, cpu, {.axis = -3}); },
                                      {"fft.rfft", "axis -3", "f64[4, 3]"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { fftn(x, cpu, {.axes = DimVec{0, 5}}); },
                                      {"fft.fftn", "axis 5"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { fft2(Tensor::zeros({4}, DType::c64), cpu); },
                                      {"fft.fft2", "axis 1", "rank 1"}));
  // n <= 0
  EXPECT_TRUE(throws_with<ValueError>([&] { fft::fft(x, cpu, {.n = 0}); },
                                      {"fft.fft", "n must be >= 1", "got 0"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { irfft(x, cpu, {.n = -4}); },
                                      {"fft.irfft", "got -4"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { rfftn(r, cpu, {.s = Shape{4, 0}}); },
                                      {"fft.rfftn", "s = [4, 0]"}));
  // complex input to real transforms; integers anywhere
  EXPECT_TRUE(throws_with<DTypeError>([&] { rfft(x, cpu); }, {"fft.rfft", "c128[4, 3]", "real"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { ihfft(x, cpu); }, {"fft.ihfft", "c128"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { rfft2(x, cpu); }, {"fft.rfft2", "c128"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { fft::fft(Tensor::zeros({4}, DType::i32), cpu); },
                                      {"fft.fft", "i32[4]", "convert"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { irfft(Tensor::zeros({4}, DType::bool_), cpu); },
                                      {"fft.irfft", "bool"}));
  // default irfft length of a one-entry spectrum is 0
  EXPECT_TRUE(throws_with<ValueError>([&] { irfft(Tensor::zeros({1, 3}, DType::c128), cpu); },
                                      {"fft.irfft", "2 (m - 1) is 0", "pass n"}));
  // a real transform of length 0
  EXPECT_TRUE(throws_with<ValueError>([&] { rfft(Tensor::zeros({0}, DType::f64), cpu); },
                                      {"fft.rfft", "extent 0"}));
  // axes and s
  EXPECT_TRUE(throws_with<ValueError>([&] { fftn(x, cpu, {.axes = DimVec{1, -1}}); },
                                      {"fft.fftn", "repeated"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { fftn(x, cpu, {.s = Shape{4}, .axes = DimVec{0, 1}}); },
                                      {"fft.fftn", "s = [4]", "one entry per axis"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { fftn(x, cpu, {.s = Shape{4, 3, 2}}); },
                                      {"fft.fftn", "rank 2"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { fftn(x, cpu, {.axes = DimVec{}}); },
                                      {"fft.fftn", "at least one axis"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { fft::fft(Tensor(), cpu); }, {"fft.fft", "undefined"}));
  EXPECT_TRUE(tensors_equal(x, x0));
}

TEST(FftApi, FamilyOpChecksItsOperands) {
  if (!have_provider()) GTEST_SKIP();
  CpuBackend cpu;
  const FamilyOp& op = family().op("fft.fft");
  EXPECT_EQ(family().name, "fft");
  Tensor x = random_tensor({8, 3}, DType::f64, 1);
  auto call = [&](const FamilyAttrs& a, const Tensor& t) {
    return call_family(op, a, std::span<const Tensor>(&t, 1), cpu);
  };
  TransformAttrs good{.type = FftType::RFFT, .axes = {0}, .lengths = {8}};
  std::vector<Tensor> out = call(FamilyAttrs::of(good), x);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{5, 3}));
  EXPECT_EQ(FamilyAttrs::of(good).as<TransformAttrs>(), good);
  // The typed attributes print as program text shows them.
  std::ostringstream printed;
  printed << FamilyAttrs::of(good);
  EXPECT_EQ(printed.str(), "fft_type=RFFT axes=[0] fft_length=[8] norm=backward");
  // The family registers its CPU kernel into the backend's registry on first use.
  EXPECT_EQ(cpu.kernels().provider_names(op, DeviceKind::cpu), std::vector<std::string>{"fft"});
  EXPECT_EQ(op.ad, AdKind::linear);
  EXPECT_EQ(infer_transform(good, {DType::f64, {8, 3}}), (TensorMeta{DType::c128, {5, 3}}));
  EXPECT_EQ(infer_transform({.type = FftType::IRFFT, .axes = {1, 0}, .lengths = {3, 7}},
                            {DType::c64, {4, 3}}),
            (TensorMeta{DType::f32, {7, 3}}));

  // Symbolic extents (traced programs): the batch extent stays a symbol.
  ASSERT_TRUE(static_cast<bool>(op.sym_infer));
  SymMeta sym{DType::f64, {Dim(8), Dim("b")}};
  std::vector<SymMeta> sym_out = op.sym_infer(FamilyAttrs::of(good), std::span<const SymMeta>(&sym, 1));
  ASSERT_EQ(sym_out.size(), 1u);
  EXPECT_EQ(sym_out[0], (SymMeta{DType::c128, {Dim(5), Dim("b")}}));
  SymMeta sym_n{DType::f64, {Dim("n"), Dim(3)}};  // undecidable now: checked when run
  EXPECT_EQ(op.sym_infer(FamilyAttrs::of(good), std::span<const SymMeta>(&sym_n, 1))[0].shape[0], Dim(5));
  SymMeta sym_bad{DType::f64, {Dim(9), Dim("b")}};
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] { op.sym_infer(FamilyAttrs::of(good), std::span<const SymMeta>(&sym_bad, 1)); },
      {"fft.fft", "extent 9", "expected 8"}));

  // Attributes of another op's type are refused, not reinterpreted.
  EXPECT_TRUE(throws_with<InternalError>([&] { call(FamilyAttrs::of(NoFamilyAttrs{}), x); }, {"attributes"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] { transform(x, {.type = FftType::RFFT, .axes = {0}, .lengths = {9}}, cpu); },
      {"fft.fft", "extent 8", "expected 9"}));
  EXPECT_TRUE(throws_with<DTypeError>(
      [&] { transform(x, {.type = FftType::FFT, .axes = {0}, .lengths = {8}}, cpu); },
      {"fft.fft", "FFT takes complex", "f64[8, 3]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        transform(Tensor::zeros({4, 3}, DType::c128),
                  {.type = FftType::IRFFT, .axes = {0}, .lengths = {8}}, cpu);
      },
      {"fft.fft", "expected 5"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] { transform(x, {.type = FftType::RFFT, .axes = {0, 1}, .lengths = {8}}, cpu); },
      {"fft.fft", "one fft_length per axis"}));
  EXPECT_TRUE(throws_with<IndexError>(
      [&] { transform(x, {.type = FftType::RFFT, .axes = {-1}, .lengths = {3}}, cpu); },
      {"fft.fft", "axis -1"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] { transform(x, {.type = FftType::RFFT, .axes = {0, 0}, .lengths = {8, 8}}, cpu); },
      {"fft.fft", "repeated"}));
}

// ---- helpers --------------------------------------------------------------------------------------

TEST(FftApi, Frequencies) {
  auto vals = [](const Tensor& t) { return t.to_vec_col_major<double>(); };
  auto near = [](const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (std::abs(a[i] - b[i]) > 1e-15) return false;
    return true;
  };
  EXPECT_TRUE(near(vals(fftfreq(4)), {0, 0.25, -0.5, -0.25}));
  EXPECT_TRUE(near(vals(fftfreq(5, 0.1)), {0, 2, 4, -4, -2}));
  EXPECT_TRUE(near(vals(fftfreq(1)), {0}));
  EXPECT_TRUE(near(vals(rfftfreq(5)), {0, 0.2, 0.4}));
  EXPECT_TRUE(near(vals(rfftfreq(6, 2.0)), {0, 1.0 / 12, 2.0 / 12, 3.0 / 12}));
  Tensor f = fftfreq(8, 1.0, DType::f32);
  EXPECT_EQ(f.dtype(), DType::f32);
  EXPECT_EQ(f.at<float>({5}), -0.375f);
  EXPECT_TRUE(throws_with<ValueError>([] { fftfreq(0); }, {"fft.fftfreq", "got 0"}));
  EXPECT_TRUE(throws_with<ValueError>([] { rfftfreq(4, 0.0); }, {"fft.rfftfreq", "d"}));
  EXPECT_TRUE(throws_with<DTypeError>([] { fftfreq(4, 1.0, DType::c128); }, {"fft.fftfreq", "c128"}));
}

TEST(FftApi, Shifts) {
  CpuBackend cpu;
  auto seq = [](std::int64_t n) { return Tensor::arange(n, DType::f64); };
  auto vals = [](const Tensor& t) { return t.to_vec_col_major<double>(); };
  EXPECT_EQ(vals(fftshift(seq(5), cpu)), (std::vector<double>{3, 4, 0, 1, 2}));
  EXPECT_EQ(vals(ifftshift(seq(5), cpu)), (std::vector<double>{2, 3, 4, 0, 1}));
  EXPECT_EQ(vals(fftshift(seq(4), cpu)), (std::vector<double>{2, 3, 0, 1}));
  EXPECT_EQ(vals(ifftshift(seq(4), cpu)), (std::vector<double>{2, 3, 0, 1}));
  // fftshift(fftfreq(n)) is increasing
  EXPECT_EQ(vals(fftshift(fftfreq(5), cpu)), (std::vector<double>{-0.4, -0.2, 0, 0.2, 0.4}));
  // 2-D, all axes and one axis; column-major [2, 3] = [[0, 2, 4], [1, 3, 5]]
  Tensor m = Tensor::arange(6, DType::f64).reshape({2, 3});
  // rows swap (axis 0, n = 2), columns roll by 1: [[5, 1, 3], [4, 0, 2]]
  EXPECT_EQ(vals(fftshift(m, cpu)), (std::vector<double>{5, 4, 1, 0, 3, 2}));
  EXPECT_EQ(vals(fftshift(m, cpu, DimVec{-1})), (std::vector<double>{4, 5, 0, 1, 2, 3}));
  EXPECT_EQ(vals(ifftshift(m, cpu, DimVec{1})), (std::vector<double>{2, 3, 4, 5, 0, 1}));
  Tensor z = random_tensor({5, 4, 3}, DType::c64, 3);
  EXPECT_TRUE(tensors_equal(ifftshift(fftshift(z, cpu), cpu), z));
  // integer dtypes and extent-1 axes; the result never aliases the input
  Tensor i = Tensor::zeros({1, 1}, DType::i32);
  Tensor si = fftshift(i, cpu);
  EXPECT_FALSE(si.shares_storage_with(i));
  EXPECT_TRUE(throws_with<IndexError>([&] { fftshift(m, cpu, DimVec{2}); }, {"fft.fftshift", "axis 2"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { ifftshift(m, cpu, DimVec{0, -2}); },
                                      {"fft.ifftshift", "repeated"}));
}

// ---- providers and the plan cache ----------------------------------------------------------------

TEST(FftProvider, BuiltInProvidersMatchTheBuild) {
  std::vector<std::string> expected;
  std::string list = TENFERRO_FFT_EXPECTED_PROVIDERS;  // from CMake, ','-separated
  for (std::size_t p = 0; p < list.size();) {
    std::size_t q = list.find(',', p);
    if (q == std::string::npos) q = list.size();
    if (q > p) expected.push_back(list.substr(p, q - p));
    p = q + 1;
  }
  EXPECT_EQ(available_providers(), expected);
  EXPECT_EQ(std::string(provider_name()), expected.empty() ? "none" : expected.front());
  for (const auto& name : expected) EXPECT_TRUE(has_provider(name));
  EXPECT_FALSE(has_provider("mkl"));
  EXPECT_TRUE(throws_with<ValueError>([] { set_provider("mkl"); }, {"fft.set_provider", "'mkl'"}));
}

// Without a provider every transform throws UnimplementedError; the helpers still work.
TEST(FftProvider, NoProviderBuildThrows) {
  if (have_provider()) GTEST_SKIP() << "this build has an FFT provider";
  CpuBackend cpu;
  Tensor x = Tensor::ones({4}, DType::c128), r = Tensor::ones({4}, DType::f64);
  auto unimplemented = [](auto&& f, const char* op) {
    return throws_with<UnimplementedError>(f, {op, "no FFT provider"});
  };
  EXPECT_TRUE(unimplemented([&] { fft::fft(x, cpu); }, "fft.fft"));
  EXPECT_TRUE(unimplemented([&] { ifft(x, cpu); }, "fft.ifft"));
  EXPECT_TRUE(unimplemented([&] { rfft(r, cpu); }, "fft.rfft"));
  EXPECT_TRUE(unimplemented([&] { irfft(x, cpu); }, "fft.irfft"));
  EXPECT_TRUE(unimplemented([&] { hfft(x, cpu); }, "fft.hfft"));
  EXPECT_TRUE(unimplemented([&] { ihfft(r, cpu); }, "fft.ihfft"));
  Tensor x2 = Tensor::ones({4, 4}, DType::c128), r2 = Tensor::ones({4, 4}, DType::f64);
  EXPECT_TRUE(unimplemented([&] { fft2(x2, cpu); }, "fft.fft2"));
  EXPECT_TRUE(unimplemented([&] { ifft2(x2, cpu); }, "fft.ifft2"));
  EXPECT_TRUE(unimplemented([&] { rfft2(r2, cpu); }, "fft.rfft2"));
  EXPECT_TRUE(unimplemented([&] { irfft2(x2, cpu); }, "fft.irfft2"));
  EXPECT_TRUE(unimplemented([&] { fftn(x2, cpu); }, "fft.fftn"));
  EXPECT_TRUE(unimplemented([&] { ifftn(x2, cpu); }, "fft.ifftn"));
  EXPECT_TRUE(unimplemented([&] { rfftn(r2, cpu); }, "fft.rfftn"));
  EXPECT_TRUE(unimplemented([&] { irfftn(x2, cpu); }, "fft.irfftn"));
  EXPECT_TRUE(unimplemented(
      [&] { transform(x, {.type = FftType::FFT, .axes = {0}, .lengths = {4}}, cpu); }, "fft.fft"));
  EXPECT_EQ(fftshift(x, cpu).shape(), (Shape{4}));
  EXPECT_EQ(fftfreq(4).numel(), 4);
  EXPECT_EQ(plan_cache_stats().size, 0u);
}

TEST(FftProvider, RepeatedCallsReuseThePlan) {
  CpuBackend cpu;
  for_each_provider([&] {
    clear_plan_cache();
    Tensor x = random_tensor({64, 8}, DType::c128, 1);
    Tensor y1 = fft::fft(x, cpu);
    PlanCacheStats s = plan_cache_stats();
    EXPECT_EQ(s.misses, 1u);
    EXPECT_EQ(s.hits, 0u);
    EXPECT_EQ(s.size, 1u);
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(tensors_equal(fft::fft(x, cpu), y1));
    s = plan_cache_stats();
    EXPECT_EQ(s.misses, 1u);
    EXPECT_EQ(s.hits, 5u);
    // Another tensor with the same layout shares the plan; another layout,
    // kind, precision or axis set gets its own.
    fft::fft(random_tensor({64, 8}, DType::c128, 2), cpu);
    EXPECT_EQ(plan_cache_stats().misses, 1u);
    fft::fft(x.permute({1, 0}).contiguous().permute({1, 0}), cpu);
    fft::ifft(x, cpu);
    fft::fft(random_tensor({64, 8}, DType::c64, 3), cpu);
    fftn(x, cpu);
    s = plan_cache_stats();
    EXPECT_EQ(s.misses, 5u);
    EXPECT_EQ(s.size, 5u);
    // The thread count is part of the key.
    int threads = get_num_threads();
    set_num_threads(threads + 1);
    EXPECT_TRUE(close_to(fft::fft(x, cpu), y1, 1e-14));
    set_num_threads(threads);
    EXPECT_EQ(plan_cache_stats().misses, 6u);
  });
}

// Measured plans (FFTW_MEASURE) compute the same transforms; the effort is
// part of the plan key.
TEST(FftProvider, MeasuredPlans) {
  CpuBackend cpu;
  for_each_provider([&] {
    clear_plan_cache();
    Tensor x = with_random_layout(random_tensor({48, 5}, DType::c128, 31), 32, 5);
    Tensor r = random_tensor({27, 4}, DType::f32, 33);
    Tensor a = fft::fft(x, cpu), b = rfft(r, cpu), c = irfft(b, cpu, {.n = 27});
    set_plan_effort(PlanEffort::measure);
    EXPECT_TRUE(close_to(fft::fft(x, cpu), a, 1e-13));
    EXPECT_TRUE(close_to(rfft(r, cpu), b, 1e-5));
    EXPECT_TRUE(close_to(irfft(b, cpu, {.n = 27}), c, 1e-5));
    EXPECT_TRUE(close_to(fftn(x, cpu), ref_c2c(to_ref(x), {0, 1}, {48, 5}, Norm::backward, false),
                         DType::c128, 1e-12));
    EXPECT_EQ(plan_cache_stats().misses, 7u);
    set_plan_effort(PlanEffort::estimate);
  });
}

TEST(FftProvider, CacheIsBounded) {
  CpuBackend cpu;
  for_each_provider([&] {
    clear_plan_cache();
    set_plan_cache_capacity(2);
    for (std::int64_t n : {8, 9, 10, 11}) fft::fft(random_tensor({n}, DType::c128, 1), cpu);
    PlanCacheStats s = plan_cache_stats();
    EXPECT_EQ(s.size, 2u);
    EXPECT_EQ(s.capacity, 2u);
    EXPECT_EQ(s.evictions, 2u);
    fft::fft(random_tensor({11}, DType::c128, 1), cpu);  // most recent: still cached
    EXPECT_EQ(plan_cache_stats().hits, 1u);
    fft::fft(random_tensor({8}, DType::c128, 1), cpu);   // evicted: planned again
    EXPECT_EQ(plan_cache_stats().misses, 5u);
    EXPECT_TRUE(throws_with<ValueError>([] { set_plan_cache_capacity(0); },
                                        {"fft.set_plan_cache_capacity", "got 0"}));
    set_plan_cache_capacity(64);
    clear_plan_cache();
    EXPECT_EQ(plan_cache_stats().size, 0u);
  });
}

// Concurrent first calls plan safely and agree with a serial call.
TEST(FftProvider, ConcurrentCalls) {
  CpuBackend cpu;
  for_each_provider([&] {
    clear_plan_cache();
    Tensor x = random_tensor({1000, 4}, DType::c128, 8);
    Tensor r = random_tensor({999, 3}, DType::f32, 9);
    std::vector<Tensor> got(8), got_r(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        CpuBackend local;
        for (int i = 0; i < 10; ++i) {
          got[t] = fft::fft(x, local);
          got_r[t] = irfft(rfft(r, local), local, {.n = 999});
        }
      });
    for (auto& th : threads) th.join();
    Tensor expected = fft::fft(x, cpu);
    for (int t = 0; t < 8; ++t) {
      EXPECT_TRUE(tensors_equal(got[t], expected));
      EXPECT_TRUE(close_to(got_r[t], r, 1e-5));
    }
    EXPECT_EQ(plan_cache_stats().size, 3u);
  });
}

// With several threads, results equal the single-threaded ones.
TEST(FftProvider, ThreadedExecution) {
  CpuBackend cpu;
  for_each_provider([&] {
    int threads = get_num_threads();
    Tensor x = with_random_layout(random_tensor({256, 64, 3}, DType::c128, 4), 5, 2);
    Tensor r = random_tensor({128, 200}, DType::f64, 6);
    // long lines (threaded inside the four-step and Bluestein transforms)
    Tensor lx = random_tensor({65536, 2}, DType::c128, 7);
    Tensor lp = random_tensor({40009}, DType::c64, 8);
    Tensor lr = random_tensor({131072}, DType::f64, 9);
    set_num_threads(1);
    Tensor a = fftn(x, cpu), b = rfft2(r, cpu), c = irfft(b, cpu, {.n = 128});
    Tensor la = fft::fft(lx, cpu), lb = ifft(lp, cpu), lc = rfft(lr, cpu);
    set_num_threads(4);
    EXPECT_TRUE(close_to(fftn(x, cpu), a, 1e-13));
    EXPECT_TRUE(close_to(rfft2(r, cpu), b, 1e-13));
    EXPECT_TRUE(close_to(irfft(b, cpu, {.n = 128}), c, 1e-13));
    EXPECT_TRUE(close_to(fft::fft(lx, cpu), la, 1e-13));
    EXPECT_TRUE(close_to(ifft(lp, cpu), lb, 1e-6));
    EXPECT_TRUE(close_to(rfft(lr, cpu), lc, 1e-13));
    set_num_threads(threads);
  });
}
// Issue 21, item 18: a transform length whose buffer cannot exist was
// reported by the allocator as "empty: ..."; it is a ValueError naming the
// transform and the lengths.
TEST(ErrorContract, Item18FftHugeLengthNamesTheTransform) {
  CpuBackend be;
  const Tensor z = Tensor::zeros({4}, DType::c128), r = Tensor::zeros({4}, DType::f64);
  const std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  for (std::int64_t n : {kMax, std::int64_t{1} << 62, std::int64_t{1} << 60}) {
    SCOPED_TRACE(n);
    EXPECT_TRUE(throws_with<ValueError>([&] { fft::fft(z, be, {.n = n}); },
                                        {"fft.fft: transform lengths [", "more bytes than fit in memory"}));
    EXPECT_TRUE(throws_with<ValueError>([&] { fft::rfft(r, be, {.n = n}); }, {"fft.rfft: transform lengths ["}));
    EXPECT_TRUE(throws_with<ValueError>([&] { fft::irfft(z, be, {.n = n}); }, {"fft.irfft: transform lengths ["}));
    EXPECT_TRUE(throws_with<ValueError>([&] { fft::fftn(z.reshape({2, 2}), be, {.s = Shape{n, 2}}); },
                                        {"fft.fftn: ", "than fit in"}));
  }
  EXPECT_EQ(fft::fft(z, be, {.n = 8}).shape(), (Shape{8}));
}
