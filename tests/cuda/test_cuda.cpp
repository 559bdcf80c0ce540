// Every CUDA kernel against the CPU backend: each primitive on every sample
// of the op database (all dtypes, random strided layouts, edge values), into
// the eager output and into other dense output layouts; transfers; the
// allocator; large permutations, reductions and contractions that take the
// tiled, multi-block and cuBLAS paths; the eager and traced runtimes.
// Without a device every test skips ("no CUDA device").
#include <algorithm>
#include <numeric>
#include <random>

#include "cuda_test_util.hpp"
#include "support/op_db.hpp"
#include "support/reference.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

std::vector<OpKind> all_ops() {
  std::vector<OpKind> v;
  for (int i = 0; i < kNumOps; ++i) v.push_back(static_cast<OpKind>(i));
  return v;
}

std::vector<Tensor> upload_all(const std::vector<Tensor>& host) {
  std::vector<Tensor> d;
  for (const Tensor& t : host) d.push_back(upload_same_layout(t));
  return d;
}

// The CPU result is itself within reference_tolerance of the exact value,
// and so is ours: allow twice that plus a few ulps of slack for the CUDA
// math library. Ops that only move or select elements stay exact.
::testing::AssertionResult matches_cpu(const Tensor& device_result, const Tensor& cpu_result, const OpSample& s) {
  Tensor got = fetch(device_result);
  Tolerance t = reference_tolerance(s.kind, s.attrs, s.inputs, cpu_result.dtype());
  double rtol = 2 * t.rtol, atol = 2 * t.atol;
  if (rtol > 0 || atol > 0) rtol += 8 * dtype_eps(cpu_result.dtype());
  return tensors_close(got, cpu_result, rtol, atol);
}

template <class F>
void for_each_sample(const std::vector<OpSample>& samples, F&& check) {
  for (const OpSample& s : samples) {
    try {
      check(s);
    } catch (const std::exception& e) {
      ADD_FAILURE() << s << " threw: " << e.what();
    }
  }
}

void check_sample(const OpSample& s, bool other_layouts, std::mt19937_64& rng) {
  CpuBackend cpu;
  Tensor want = ops::call(s.kind, s.attrs, s.inputs, cpu);
  std::vector<Tensor> in = upload_all(s.inputs);
  // 1. The eager call (which may return a view for some structural ops).
  Tensor got = ops::call(s.kind, s.attrs, in, gpu());
  EXPECT_EQ(got.device(), gpu().device()) << s;
  EXPECT_TRUE(matches_cpu(got, want, s)) << s << " (eager call)";
  if (want.numel() == 0) return;
  // 2. The kernel itself, into a column-major output and into permuted dense outputs.
  std::vector<DimVec> orders;
  DimVec identity(want.shape().size());
  std::iota(identity.begin(), identity.end(), 0);
  orders.push_back(identity);
  if (other_layouts && want.ndim() >= 2) {
    DimVec reversed(identity.rbegin(), identity.rend());
    DimVec shuffled = identity;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    orders.push_back(reversed);
    orders.push_back(shuffled);
  }
  for (const DimVec& order : orders) {
    Strides st(want.shape().size());
    std::int64_t acc = 1;
    for (auto a : order) {
      st[static_cast<std::size_t>(a)] = acc;
      acc *= std::max<std::int64_t>(want.shape()[static_cast<std::size_t>(a)], 1);
    }
    Tensor out = gpu().empty_strided(want.dtype(), want.shape(), st);
    gpu().execute(s.kind, s.attrs, in, out);
    EXPECT_TRUE(matches_cpu(out, want, s)) << s << " executed into strides " << st;
  }
  // 3. Inputs untouched.
  for (std::size_t i = 0; i < in.size(); ++i)
    EXPECT_TRUE(tensors_equal(fetch(in[i]), s.inputs[i])) << "input " << i << " modified by " << s;
}

class CudaOps : public ::testing::TestWithParam<OpKind> {
 protected:
  void SetUp() override { TF_SKIP_WITHOUT_CUDA(); }
};

TEST_P(CudaOps, MatchesCpuOnEveryOpDbSample) {
  const OpKind kind = GetParam();
  const std::vector<OpSample> samples = op_samples(kind);
  ASSERT_FALSE(samples.empty());
  std::mt19937_64 rng(static_cast<std::uint64_t>(kind) + 101);
  for_each_sample(samples, [&](const OpSample& s) { check_sample(s, true, rng); });
}

INSTANTIATE_TEST_SUITE_P(AllPrimitives, CudaOps, ::testing::ValuesIn(all_ops()),
                         [](const ::testing::TestParamInfo<OpKind>& i) { return std::string(op_name(i.param)); });

class Cuda : public CudaTest {};

TEST_F(Cuda, LargeSamplesMatchCpu) {
  std::mt19937_64 rng(7);
  for_each_sample(parallel_op_samples(), [&](const OpSample& s) { check_sample(s, false, rng); });
}

TEST_F(Cuda, InPlaceElementwise) {
  for (OpKind kind : {OpKind::add, OpKind::multiply, OpKind::exp, OpKind::negate, OpKind::divide}) {
    for (DType d : float_dtypes()) {
      Tensor a = random_tensor({17, 5, 3}, d, 11), b = random_tensor({17, 5, 3}, d, 12);
      CpuBackend cpu;
      const bool unary = op_info(kind).arity == 1;
      std::vector<Tensor> host = unary ? std::vector<Tensor>{a} : std::vector<Tensor>{a, b};
      Tensor want = ops::call(kind, NoAttrs{}, host, cpu);
      std::vector<Tensor> dev = upload_all(host);
      gpu().execute(kind, NoAttrs{}, dev, dev[0]);
      OpSample s{kind, NoAttrs{}, host, "in place"};
      EXPECT_TRUE(matches_cpu(dev[0], want, s)) << s;
    }
  }
}

TEST_F(Cuda, TransfersRoundTripEveryDtypeAndLayout) {
  for (DType d : all_dtypes())
    for (int kind = 0; kind < kNumLayouts; ++kind) {
      Tensor h = with_random_layout(random_tensor({4, 3, 5}, d, 5 + kind), 9 + kind, kind);
      Tensor dev = cuda::to_device(h, gpu());
      EXPECT_EQ(dev.device(), Device::cuda(0));
      EXPECT_TRUE(dev.is_contiguous());
      Tensor back = cuda::to_host(dev, gpu());
      gpu().synchronize();
      EXPECT_TRUE(back.device().is_cpu());
      EXPECT_TRUE(tensors_equal(back, h)) << d << " layout " << kind;
      // A strided device tensor is made contiguous on the device first.
      Tensor view = upload_same_layout(h);
      EXPECT_TRUE(tensors_equal(cuda::download(view, gpu()), h)) << d << " layout " << kind;
      EXPECT_TRUE(tensors_equal(cuda::download(cuda::duplicate(view, gpu()), gpu()), h));
      EXPECT_TRUE(tensors_equal(cuda::to(cuda::to(h, Device::cuda(0), gpu()), Device::cpu(), gpu()), h) ||
                  (gpu().synchronize(), tensors_equal(cuda::download(cuda::upload(h, gpu()), gpu()), h)));
    }
  // Empty and rank-0 tensors.
  Tensor e = Tensor::zeros({0, 3}, DType::f32);
  EXPECT_EQ(cuda::download(cuda::to_device(e, gpu()), gpu()).shape(), (Shape{0, 3}));
  Tensor s = Tensor::scalar(std::complex<double>(1, -2));
  EXPECT_TRUE(tensors_equal(cuda::download(cuda::to_device(s, gpu()), gpu()), s));
  // Pinned (to_host) sources upload too.
  Tensor pinned = cuda::download(cuda::to_device(random_tensor({64}, DType::f64, 3), gpu()), gpu());
  EXPECT_TRUE(tensors_equal(cuda::download(cuda::to_device(pinned, gpu()), gpu()), pinned));
}

TEST_F(Cuda, MixedDevicesAreErrorsThatNameBothDevices) {
  Tensor h = random_tensor({3, 3}, DType::f64, 1);
  Tensor d = cuda::to_device(h, gpu());
  EXPECT_TRUE(throws_with<DeviceError>([&] { ops::add(h, d, gpu()); }, {"add", "cpu", "cuda:0"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { ops::add(d, d, *new CpuBackend()); }, {"add", "cuda:0", "cpu"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { matmul(d, h, gpu()); }, {"cpu", "cuda:0"}));
  Tensor host_out = Tensor::empty({3, 3}, DType::f64);
  const Tensor in[] = {d, d};
  EXPECT_TRUE(throws_with<DeviceError>([&] { gpu().execute(OpKind::add, NoAttrs{}, in, host_out); },
                                       {"add", "output", "cpu", "cuda:0"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { cuda::to_device(d, gpu()); }, {"to_device", "cuda:0"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { cuda::to_host(h, gpu()); }, {"to_host", "cpu", "cuda:0"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { (void)d.at<double>({0, 0}); }, {"cuda:0"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { CudaBackend b(cuda::device_count()); },
                                       {"CudaBackend", "no CUDA device", "invalid device ordinal"}));
  // Nothing was changed by the failed calls.
  EXPECT_TRUE(tensors_equal(fetch(d), h));
}

TEST_F(Cuda, AllocatorCachesAndReusesBlocks) {
  CudaBackend be(0);
  EXPECT_EQ(be.cached_bytes(), 0u);
  {
    Tensor t = be.empty(DType::f64, {1 << 17});  // 1 MiB
    EXPECT_GE(be.allocated_bytes(), std::size_t{1} << 20);
  }
  EXPECT_GE(be.cached_bytes(), std::size_t{1} << 20);
  const std::size_t cached = be.cached_bytes();
  {
    Tensor t = be.empty(DType::f32, {1 << 18});  // the same 1 MiB block again
    EXPECT_LT(be.cached_bytes(), cached);
  }
  be.empty_cache();
  EXPECT_EQ(be.cached_bytes(), 0u);
  // A tensor outliving its backend keeps the allocator alive.
  Tensor survivor;
  {
    CudaBackend tmp(0);
    survivor = cuda::to_device(Tensor::ones({8}), tmp);
    tmp.synchronize();
  }
  EXPECT_EQ(fetch(survivor).to_vec_col_major<double>(), std::vector<double>(8, 1.0));
}

// Permutations large enough for the tiled transpose, with strided sources.
TEST_F(Cuda, PermutationsMatchCpuExactly) {
  CpuBackend cpu;
  struct Case {
    Shape shape;
    DimVec perm;
  };
  std::vector<Case> cases{{{256, 192}, {1, 0}},
                          {{64, 48, 40}, {2, 0, 1}},
                          {{64, 48, 40}, {1, 0, 2}},
                          {{64, 48, 40}, {2, 1, 0}},
                          {{16, 8, 8, 4, 8, 4}, {5, 0, 4, 1, 3, 2}},
                          {Shape(12, 2), {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
                          {Shape(8, 3), {1, 2, 3, 4, 5, 6, 7, 0}},
                          {{3, 1000, 7}, {1, 2, 0}}};
  for (const Case& c : cases)
    for (DType d : {DType::f32, DType::f64, DType::c128, DType::bool_})
      for (int layout : {0, 2, 3}) {
        Tensor h = with_random_layout(random_tensor(c.shape, d, 3), 17, layout);
        Tensor want = ops::transpose(h, c.perm, cpu);
        Tensor got = ops::transpose(upload_same_layout(h), c.perm, gpu());
        EXPECT_TRUE(tensors_equal(fetch(got), want)) << c.shape << " perm " << c.perm << " " << d << " layout " << layout;
      }
}

TEST_F(Cuda, ReductionsOnEveryStrategyMatchCpu) {
  CpuBackend cpu;
  struct Case {
    Shape shape;
    DimVec axes;
  };
  std::vector<Case> cases{{{1 << 20}, {0}},         {{4096, 300}, {0}},    {{4096, 300}, {1}},
                          {{3, 100000}, {1}},       {{100000, 3}, {0}},    {{64, 64, 64}, {0, 2}},
                          {{7, 9, 11, 13}, {1, 3}}, {{2, 3, 4}, {0, 1, 2}}};
  for (const Case& c : cases)
    for (DType d : float_dtypes())
      for (OpKind k : {OpKind::reduce_sum, OpKind::reduce_prod, OpKind::reduce_max, OpKind::reduce_min}) {
        if (!op_info(k).dtypes.contains(d)) continue;
        // Products of many factors near 1 stay finite.
        Tensor h = k == OpKind::reduce_prod ? Tensor::uniform(c.shape, d, 5, 0.999, 1.001)
                                            : with_random_layout(random_tensor(c.shape, d, 4), 8, 2);
        OpSample s{k, AxesAttrs{c.axes}, {h}, "large"};
        Tensor want = ops::call(k, s.attrs, s.inputs, cpu);
        Tensor got = ops::call(k, s.attrs, upload_all(s.inputs), gpu());
        EXPECT_TRUE(matches_cpu(got, want, s)) << s;
      }
}

TEST_F(Cuda, DotGeneralThroughCublasMatchesCpu) {
  CpuBackend cpu;
  for (DType d : float_dtypes()) {
    // Plain, transposed operands, batched with a broadcast batch, multi-axis contraction.
    Tensor a = random_tensor({96, 80}, d, 1), b = random_tensor({80, 72}, d, 2);
    std::vector<OpSample> samples{
        {OpKind::dot_general, DotGeneralAttrs{{}, {}, {1}, {0}}, {a, b}, "matmul"},
        {OpKind::dot_general, DotGeneralAttrs{{}, {}, {0}, {1}}, {a.permute({1, 0}), b.permute({1, 0})}, "transposed"},
        {OpKind::dot_general, DotGeneralAttrs{{2}, {2}, {1}, {0}},
         {random_tensor({16, 24, 9}, d, 3), ops::broadcast_in_dim(random_tensor({24, 20}, d, 4), {24, 20, 9}, {0, 1}, cpu)},
         "broadcast batch"},
        {OpKind::dot_general, DotGeneralAttrs{{3}, {0}, {0, 2}, {3, 1}},
         {random_tensor({6, 5, 7, 4}, d, 5), random_tensor({4, 7, 3, 6}, d, 6)}, "two contracting axes"}};
    for (const OpSample& s : samples) {
      Tensor want = ops::call(s.kind, s.attrs, s.inputs, cpu);
      Tensor got = ops::call(s.kind, s.attrs, upload_all(s.inputs), gpu());
      EXPECT_TRUE(matches_cpu(got, want, s)) << s;
    }
  }
}

TEST_F(Cuda, FusedChainsMatchCpu) {
  // The backend's fused path (the step-by-step default) on device buffers.
  FusedElementwise k;
  k.num_inputs = 3;
  k.steps.push_back({OpKind::exp, NoAttrs{}, {-1}, DType::f64});
  k.steps.push_back({OpKind::multiply, NoAttrs{}, {0, -2}, DType::f64});
  k.steps.push_back({OpKind::add, NoAttrs{}, {1, -3}, DType::f64});
  Tensor a = random_tensor({33, 7}, DType::f64, 1), b = random_tensor({33, 7}, DType::f64, 2);
  Tensor c = Tensor::scalar(0.5);
  CpuBackend cpu;
  Tensor want = Tensor::empty({33, 7}, DType::f64);
  const Tensor hin[] = {a, b, c};
  cpu.execute_fused(k, hin, want);
  std::vector<Tensor> din = upload_all({a, b, c});
  Tensor out = gpu().empty(DType::f64, {33, 7});
  gpu().execute_fused(k, din, out);
  EXPECT_TRUE(tensors_close(fetch(out), want, 16 * dtype_eps(DType::f64), 0));
}

TEST_F(Cuda, EagerRuntimeAndVjpOnDeviceTensors) {
  EagerRuntime rt(gpu());
  Tensor xh = random_tensor({5, 4}, DType::c128, 3), yh = random_tensor({5, 4}, DType::c128, 4);
  EagerTensor x = rt.tensor(cuda::to_device(xh, gpu())), y = rt.tensor(cuda::to_device(yh, gpu()));
  EagerTensor z = (x * y).reduce_sum({0});
  EXPECT_EQ(z.value().device(), Device::cuda(0));
  CpuBackend cpu;
  Tensor want = ops::reduce_sum(ops::multiply(xh, yh, cpu), {0}, cpu);
  EXPECT_TRUE(tensors_close(fetch(z.value()), want, 64 * dtype_eps(DType::c128), 0));
  // Reverse mode with an explicit device cotangent: d/dx <ct, x * y> = conj(y) ct (PyTorch's convention).
  Tensor ct = random_tensor({5, 4}, DType::c128, 9);
  auto [outs, grads] = vjp(rt, [](const std::vector<EagerTensor>& v) { return std::vector<EagerTensor>{v[0] * v[1]}; },
                              {x, y}, {rt.tensor(cuda::to_device(ct, gpu()))});
  Tensor gx_want = ops::multiply(ops::conj(yh, cpu), ct, cpu);
  EXPECT_TRUE(tensors_close(fetch(grads[0].value()), gx_want, 64 * dtype_eps(DType::c128), 0));
}

TEST_F(Cuda, TracedProgramsRunOnTheCudaEngine) {
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(3)});
  auto w = TracedTensor::input("w", DType::f64, {Dim(3), Dim(2)});
  auto y = (x * x).matmul(w).reduce_sum({0});
  Program p = GraphCompiler().compile(y);
  CpuBackend cpu;
  Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_engine(backend_engine(gpu())).build();
  for (std::int64_t n : {1, 7, 300}) {
    Tensor xh = random_tensor({n, 3}, DType::f64, static_cast<std::uint64_t>(n)), wh = random_tensor({3, 2}, DType::f64, 2);
    Tensor want = rt.run_compiled(p, {{"x", xh}, {"w", wh}})[0];
    std::vector<Tensor> got =
        rt.run_compiled(p, {{"x", cuda::to_device(xh, gpu())}, {"w", cuda::to_device(wh, gpu())}});
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].device(), Device::cuda(0));
    EXPECT_TRUE(tensors_close(fetch(got[0]), want, 64 * dtype_eps(DType::f64), 1e-14));
  }
}

}  // namespace
