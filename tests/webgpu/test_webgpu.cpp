// The WebGPU backend against the CPU backend: every primitive on every
// sample of the op database whose dtype the backend supports (random
// strided layouts, edge values), into the eager output and into other
// dense output layouts; the refusals (f64/c128/i64, ops without a kernel,
// mixed devices); transfers and the buffer cache; GEMM and reductions
// beyond one tile or workgroup; traced programs on backend_engine; the
// coverage table of docs/webgpu.md. Without an adapter the device tests
// skip ("no WebGPU adapter").
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include "support/op_db.hpp"
#include "support/reference.hpp"
#include "support/test_support.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/runtime.hpp"
#include "tenferro/webgpu.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// While wgpu probes for adapters, the Vulkan loader and EGL load Mesa's
// software drivers (lavapipe, swrast) and unload them again. Memory they
// keep for their lifetime is then reported by LeakSanitizer from an
// "<unknown module>" that no suppression can name (seen on AMD EPYC).
// Holding the drivers loaded for the life of the process keeps their names
// on those stacks, so tests/support/lsan.supp applies; where a driver is
// absent, dlopen fails and nothing changes.
const bool mesa_drivers_held = [] {
  for (const char* lib : {"libvulkan_lvp.so", "/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"})
    dlopen(lib, RTLD_NOW | RTLD_NODELETE);
  return true;
}();

bool has_adapter() {
  static const bool present = webgpu::unavailable_reason().empty();
  return present;
}

WebGpuBackend& gpu() {
  static WebGpuBackend* backend = new WebGpuBackend();  // shared by the tests, never destroyed
  return *backend;
}

#define TF_SKIP_WITHOUT_WEBGPU()                                                   \
  do {                                                                             \
    if (!has_adapter()) GTEST_SKIP() << "no WebGPU adapter (" << webgpu::unavailable_reason() << ")"; \
  } while (0)

bool storable(DType d) { return d == DType::f32 || d == DType::c64 || d == DType::i32 || d == DType::bool_; }

// A device tensor with the layout of host tensor `t` (its whole storage is uploaded).
Tensor upload_same_layout(const Tensor& t) {
  const std::int64_t capacity = static_cast<std::int64_t>(t.storage()->nbytes() / dtype_size(t.dtype()));
  Tensor whole(t.storage(), t.dtype(), {capacity}, {1}, 0);
  Tensor d = webgpu::to_device(whole, gpu());
  return Tensor(d.storage(), t.dtype(), t.shape(), t.strides(), t.offset());
}

Tensor fetch(const Tensor& t) { return webgpu::to_host(t, gpu()); }

std::vector<Tensor> upload_all(const std::vector<Tensor>& host) {
  std::vector<Tensor> d;
  for (const Tensor& t : host) d.push_back(upload_same_layout(t));
  return d;
}

// The dtype an op dispatches on (what webgpu::supports is asked).
DType key_dtype(const OpSample& s) {
  if ((s.kind == OpKind::select || s.kind == OpKind::clamp) && s.inputs.size() > 1) return s.inputs[1].dtype();
  return s.inputs.empty() ? DType::f32 : s.inputs[0].dtype();
}

// The CPU result is within reference_tolerance of the exact value; ours is
// computed in f32 by WGSL's built-ins (a few ulps on lavapipe): twice that
// tolerance plus 64 ulps of f32 for inexact ops. Ops that only move or
// select elements, and integer and bool results, stay exact.
::testing::AssertionResult matches_cpu(const Tensor& device_result, const Tensor& cpu_result, const OpSample& s) {
  Tensor got = fetch(device_result);
  Tolerance t = reference_tolerance(s.kind, s.attrs, s.inputs, cpu_result.dtype());
  double rtol = 2 * t.rtol, atol = 2 * t.atol;
  if (rtol > 0 || atol > 0) {
    rtol += 64 * dtype_eps(DType::f32);
    atol += 64 * dtype_eps(DType::f32) * atol;
  }
  return tensors_close(got, cpu_result, rtol, atol);
}

// Edge samples whose values WGSL leaves implementation-defined or whose
// f32 formulas differ from the C library's in the last bits at extremes:
// counted and reported, not compared (docs/webgpu.md lists them).
bool skipped_edge(const OpSample& s) {
  (void)s;
  return false;
}

struct Counts {
  int compared = 0, refused = 0;
};

void check_sample(const OpSample& s, std::mt19937_64& rng, Counts& n) {
  const DType d = key_dtype(s);
  bool all_storable = true;
  for (const Tensor& t : s.inputs) all_storable = all_storable && storable(t.dtype());
  CpuBackend cpu;
  if (!all_storable) {
    // Refused already by the upload, with the dtype in the message.
    for (const Tensor& t : s.inputs)
      if (!storable(t.dtype())) {
        std::ostringstream name;
        name << t.dtype();
        EXPECT_TRUE(throws_with<UnimplementedError>([&] { webgpu::to_device(t, gpu()); },
                                                    {"to_device", name.str(), "WGSL"}))
            << s;
      }
    ++n.refused;
    return;
  }
  Tensor want = ops::call(s.kind, s.attrs, s.inputs, cpu);
  std::vector<Tensor> in = upload_all(s.inputs);
  if (!webgpu::supports(s.kind, d) || !storable(want.dtype())) {
    if (want.numel() > 0) {  // an empty result runs no kernel
      std::ostringstream dt;
      dt << (storable(want.dtype()) ? d : want.dtype());
      EXPECT_TRUE(throws_with<UnimplementedError>([&] { ops::call(s.kind, s.attrs, in, gpu()); },
                                                  {op_name(s.kind), dt.str()}))
          << s;
    }
    ++n.refused;
    return;
  }
  if (skipped_edge(s)) return;
  ++n.compared;
  Tensor got = ops::call(s.kind, s.attrs, in, gpu());
  EXPECT_EQ(got.device(), gpu().device()) << s;
  EXPECT_TRUE(matches_cpu(got, want, s)) << s << " (eager call)";
  if (want.numel() == 0) return;
  // The kernel into a reversed and a shuffled dense output layout.
  if (want.ndim() >= 2) {
    DimVec order(want.shape().size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<DimVec> orders{DimVec(order.rbegin(), order.rend())};
    std::shuffle(order.begin(), order.end(), rng);
    orders.push_back(order);
    for (const DimVec& o : orders) {
      Strides st(want.shape().size());
      std::int64_t acc = 1;
      for (auto a : o) {
        st[static_cast<std::size_t>(a)] = acc;
        acc *= std::max<std::int64_t>(want.shape()[static_cast<std::size_t>(a)], 1);
      }
      Tensor out = gpu().empty_strided(want.dtype(), want.shape(), st);
      gpu().execute(s.kind, s.attrs, in, out);
      EXPECT_TRUE(matches_cpu(out, want, s)) << s << " executed into strides " << st;
    }
  }
  for (std::size_t i = 0; i < in.size(); ++i)
    EXPECT_TRUE(tensors_equal(fetch(in[i]), s.inputs[i])) << "input " << i << " modified by " << s;
}

std::vector<OpKind> all_ops() {
  std::vector<OpKind> v;
  for (int i = 0; i < kNumOps; ++i) v.push_back(static_cast<OpKind>(i));
  return v;
}

class WebGpuOps : public ::testing::TestWithParam<OpKind> {
 protected:
  void SetUp() override { TF_SKIP_WITHOUT_WEBGPU(); }
};

TEST_P(WebGpuOps, MatchesCpuOnEveryOpDbSample) {
  const OpKind kind = GetParam();
  std::mt19937_64 rng(static_cast<std::uint64_t>(kind) + 7);
  Counts n;
  for (const OpSample& s : op_samples(kind)) {
    try {
      check_sample(s, rng, n);
    } catch (const std::exception& e) {
      ADD_FAILURE() << s << " threw: " << e.what();
    }
  }
  bool any_supported = false;
  for (DType d : {DType::f32, DType::c64, DType::i32, DType::bool_}) any_supported |= webgpu::supports(kind, d);
  if (any_supported) EXPECT_GT(n.compared, 0) << op_name(kind) << ": no sample of a supported dtype";
  else EXPECT_EQ(n.compared, 0);
}

INSTANTIATE_TEST_SUITE_P(AllPrimitives, WebGpuOps, ::testing::ValuesIn(all_ops()),
                         [](const ::testing::TestParamInfo<OpKind>& i) { return std::string(op_name(i.param)); });

class WebGpu : public ::testing::Test {
 protected:
  void SetUp() override { TF_SKIP_WITHOUT_WEBGPU(); }
};

TEST_F(WebGpu, AdapterIsReported) {
  const auto& info = gpu().adapter_info();
  EXPECT_FALSE(info.adapter_type.empty());
  EXPECT_EQ(gpu().device().kind, DeviceKind::webgpu);
  std::ostringstream os;
  os << gpu().device();
  EXPECT_EQ(os.str(), std::string(gpu().name()));
  std::cout << "[ adapter ] " << info.device << " (" << info.adapter_type << ", " << info.backend_type << ")\n";
}

TEST_F(WebGpu, TransfersRoundTripEveryLayout) {
  for (DType d : {DType::f32, DType::c64, DType::i32, DType::bool_})
    for (int kind = 0; kind < kNumLayouts; ++kind) {
      Tensor h = with_random_layout(random_tensor({4, 3, 5}, d, 5 + kind), 9 + kind, kind);
      Tensor dev = webgpu::to_device(h, gpu());
      EXPECT_EQ(dev.device(), gpu().device());
      EXPECT_TRUE(dev.is_contiguous());
      EXPECT_TRUE(tensors_equal(fetch(dev), h)) << d << " layout " << kind;
      EXPECT_TRUE(tensors_equal(fetch(upload_same_layout(h)), h)) << d << " layout " << kind;
    }
  Tensor e = Tensor::zeros({0, 3}, DType::f32);
  EXPECT_EQ(fetch(webgpu::to_device(e, gpu())).shape(), (Shape{0, 3}));
  Tensor odd = random_tensor({3}, DType::bool_, 2);  // 3 bytes: padded to a word
  EXPECT_TRUE(tensors_equal(fetch(webgpu::to_device(odd, gpu())), odd));
}

TEST_F(WebGpu, RefusalsNameTheDtypeTheOpAndTheDevices) {
  Tensor h64 = random_tensor({3, 3}, DType::f64, 1);
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { webgpu::to_device(h64, gpu()); }, {"to_device", "f64", "WGSL"}));
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { webgpu::to_device(random_tensor({2}, DType::i64, 1), gpu()); },
                                              {"to_device", "i64"}));
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { webgpu::to_device(random_tensor({2}, DType::c128, 1), gpu()); },
                                              {"to_device", "c128"}));
  // An f64 output asked of a kernel (convert to f64).
  Tensor x = webgpu::to_device(random_tensor({3, 3}, DType::f32, 2), gpu());
  Tensor before = fetch(x);
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { ops::convert(x, DType::f64, gpu()); }, {"convert", "f64"}));
  // An op without a kernel.
  Tensor idx = webgpu::to_device(Tensor::from_vec_col_major<std::int32_t>({2}, {0, 2}), gpu());
  Tensor out = gpu().empty(DType::f32, {3, 3});
  const Tensor lgamma_in[] = {x};
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { gpu().execute(OpKind::lgamma, NoAttrs{}, lgamma_in, out); },
                                              {"lgamma", "WebGPU", "f32"}));
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { ops::erf(x, gpu()); }, {"erf", "WebGPU"}));
  // Mixed devices.
  Tensor h = random_tensor({3, 3}, DType::f32, 3);
  EXPECT_TRUE(throws_with<DeviceError>([&] { ops::add(h, x, gpu()); }, {"add", "cpu", "webgpu:"}));
  CpuBackend cpu;
  EXPECT_TRUE(throws_with<DeviceError>([&] { ops::add(x, x, cpu); }, {"add", "webgpu:", "cpu"}));
  Tensor host_out = Tensor::empty({3, 3}, DType::f32);
  const Tensor in[] = {x, x};
  EXPECT_TRUE(throws_with<DeviceError>([&] { gpu().execute(OpKind::add, NoAttrs{}, in, host_out); },
                                       {"add", "output", "cpu", "webgpu:"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { webgpu::to_device(x, gpu()); }, {"to_device", "webgpu:"}));
  // Two WebGPU backends are two devices.
  WebGpuBackend other;
  std::ostringstream mine, theirs;
  mine << gpu().device();
  theirs << other.device();
  EXPECT_TRUE(throws_with<DeviceError>([&] { ops::add(x, x, other); }, {"add", mine.str(), theirs.str()}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { webgpu::to_host(h, gpu()); }, {"to_host", "cpu", "webgpu:"}));
  // Nothing was changed by the failed calls.
  EXPECT_TRUE(tensors_equal(fetch(x), before));
}

TEST_F(WebGpu, BufferCacheReusesBuffers) {
  WebGpuBackend be;
  EXPECT_EQ(be.cached_bytes(), 0u);
  { Tensor t = be.empty(DType::f32, {1 << 18}); }  // 1 MiB
  EXPECT_GE(be.cached_bytes(), std::size_t{1} << 20);
  const std::size_t cached = be.cached_bytes();
  { Tensor t = be.empty(DType::i32, {1 << 18}); }  // the same buffer again
  EXPECT_EQ(be.cached_bytes(), cached);
  be.empty_cache();
  EXPECT_EQ(be.cached_bytes(), 0u);
  Tensor survivor;
  {
    WebGpuBackend tmp;
    survivor = webgpu::to_device(Tensor::ones({8}, DType::f32), tmp);
  }
  EXPECT_EQ(survivor.device().kind, DeviceKind::webgpu);
}

TEST_F(WebGpu, InPlaceElementwise) {
  CpuBackend cpu;
  for (OpKind kind : {OpKind::add, OpKind::multiply, OpKind::exp, OpKind::negate})
    for (DType d : {DType::f32, DType::c64}) {
      Tensor a = random_tensor({17, 5, 3}, d, 11), b = random_tensor({17, 5, 3}, d, 12);
      const bool unary = op_info(kind).arity == 1;
      std::vector<Tensor> host = unary ? std::vector<Tensor>{a} : std::vector<Tensor>{a, b};
      Tensor want = ops::call(kind, NoAttrs{}, host, cpu);
      std::vector<Tensor> dev = upload_all(host);
      gpu().execute(kind, NoAttrs{}, dev, dev[0]);
      EXPECT_TRUE(matches_cpu(dev[0], want, OpSample{kind, NoAttrs{}, host, "in place"})) << op_name(kind) << d;
    }
}

TEST_F(WebGpu, FusedChainsMatchCpuInOnePass) {
  // out = compare(GT, exp(a) * b + c, b) selects between it and tanh(a); c is a rank-0 scalar.
  FusedElementwise k;
  k.num_inputs = 3;
  k.steps.push_back({OpKind::exp, NoAttrs{}, {-1}, DType::f32});
  k.steps.push_back({OpKind::multiply, NoAttrs{}, {0, -2}, DType::f32});
  k.steps.push_back({OpKind::add, NoAttrs{}, {1, -3}, DType::f32});
  k.steps.push_back({OpKind::compare, CompareAttrs{ComparisonDirection::GT}, {2, -2}, DType::bool_});
  k.steps.push_back({OpKind::tanh, NoAttrs{}, {-1}, DType::f32});
  k.steps.push_back({OpKind::select, NoAttrs{}, {3, 2, 4}, DType::f32});
  Tensor a = random_tensor({33, 7}, DType::f32, 1), b = with_random_layout(random_tensor({33, 7}, DType::f32, 2), 3, 2);
  Tensor c = Tensor::scalar(0.5f);
  CpuBackend cpu;
  Tensor want = Tensor::empty({33, 7}, DType::f32);
  const Tensor hin[] = {a, b, c};
  cpu.execute_fused(k, hin, want);
  std::vector<Tensor> din = upload_all({a, b, c});
  Tensor out = gpu().empty_strided(DType::f32, {33, 7}, {7, 1});
  gpu().execute_fused(k, din, out);
  EXPECT_TRUE(tensors_close(fetch(out), want, 64 * dtype_eps(DType::f32), 0));
  // A complex chain: conj(x) * x -> real.
  FusedElementwise kc;
  kc.num_inputs = 1;
  kc.steps.push_back({OpKind::conj, NoAttrs{}, {-1}, DType::c64});
  kc.steps.push_back({OpKind::multiply, NoAttrs{}, {0, -1}, DType::c64});
  kc.steps.push_back({OpKind::real, NoAttrs{}, {1}, DType::f32});
  Tensor x = random_tensor({40}, DType::c64, 4);
  Tensor wc = Tensor::empty({40}, DType::f32);
  const Tensor xin[] = {x};
  cpu.execute_fused(kc, xin, wc);
  Tensor oc = gpu().empty(DType::f32, {40});
  std::vector<Tensor> dx = upload_all({x});
  gpu().execute_fused(kc, dx, oc);
  EXPECT_TRUE(tensors_close(fetch(oc), wc, 64 * dtype_eps(DType::f32), 0));
  // Refusal inside a chain: an f64 step.
  FusedElementwise kd = kc;
  kd.steps.back().dtype = DType::f64;
  Tensor o64 = gpu().empty(DType::f32, {40});
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { gpu().execute_fused(kd, dx, o64); }, {"real", "f64"}));
}

// Scatter-add with duplicate i32 indices (the op database's add samples use
// i64 indices, which the backend refuses): rows 1 and 3 of a [5, 3]
// operand receive 2 and 1 updated rows; atomic float adds may round in
// another order than the CPU's.
TEST_F(WebGpu, ScatterAddAccumulatesDuplicateIndices) {
  CpuBackend cpu;
  for (DType d : {DType::f32, DType::c64, DType::i32}) {
    Tensor x = random_tensor({5, 3}, d, 1), u = random_tensor({4, 3}, d, 2);
    Tensor idx = Tensor::from_vec_col_major<std::int32_t>({4}, {1, 3, 1, 7});  // 7: outside, skipped
    ScatterAttrs a{{1}, {0}, {0}, 1, ScatterMode::add};
    const std::vector<Tensor> host{x, idx, u};
    Tensor want = ops::call(OpKind::scatter, a, host, cpu);
    Tensor got = ops::call(OpKind::scatter, a, upload_all(host), gpu());
    EXPECT_TRUE(tensors_close(fetch(got), want, 8 * dtype_eps(DType::f32), 0)) << d;
  }
}

TEST_F(WebGpu, GemmBeyondOneTileMatchesCpu) {
  CpuBackend cpu;
  for (DType d : {DType::f32, DType::c64, DType::i32}) {
    Tensor a = random_tensor({150, 70}, d, 1), b = random_tensor({70, 133}, d, 2);
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

TEST_F(WebGpu, ReductionsBeyondOneWorkgroupMatchCpu) {
  CpuBackend cpu;
  struct Case {
    Shape shape;
    DimVec axes;
  };
  std::vector<Case> cases{{{20000}, {0}}, {{300, 70}, {0}}, {{300, 70}, {1}}, {{16, 9, 11}, {0, 2}}};
  for (const Case& c : cases)
    for (OpKind k : {OpKind::reduce_sum, OpKind::reduce_prod, OpKind::reduce_max, OpKind::reduce_min}) {
      Tensor h = k == OpKind::reduce_prod ? Tensor::uniform(c.shape, DType::f32, 5, 0.999, 1.001)
                                          : with_random_layout(random_tensor(c.shape, DType::f32, 4), 8, 2);
      OpSample s{k, AxesAttrs{c.axes}, {h}, "large"};
      Tensor want = ops::call(k, s.attrs, s.inputs, cpu);
      Tensor got = ops::call(k, s.attrs, upload_all(s.inputs), gpu());
      EXPECT_TRUE(matches_cpu(got, want, s)) << s;
    }
}

TEST_F(WebGpu, EagerRuntimeAndVjpOnDeviceTensors) {
  EagerRuntime rt(gpu());
  Tensor xh = random_tensor({5, 4}, DType::c64, 3), yh = random_tensor({5, 4}, DType::c64, 4);
  EagerTensor x = rt.tensor(webgpu::to_device(xh, gpu())), y = rt.tensor(webgpu::to_device(yh, gpu()));
  EagerTensor z = (x * y).reduce_sum({0});
  EXPECT_EQ(z.value().device(), gpu().device());
  CpuBackend cpu;
  Tensor want = ops::reduce_sum(ops::multiply(xh, yh, cpu), {0}, cpu);
  EXPECT_TRUE(tensors_close(fetch(z.value()), want, 1e-5, 1e-6));
  // d/dx <ct, x * y> = conj(y) ct (PyTorch's convention).
  Tensor ct = random_tensor({5, 4}, DType::c64, 9);
  auto [outs, grads] = vjp(rt, [](const std::vector<EagerTensor>& v) { return std::vector<EagerTensor>{v[0] * v[1]}; },
                              {x, y}, {rt.tensor(webgpu::to_device(ct, gpu()))});
  Tensor gx_want = ops::multiply(ops::conj(yh, cpu), ct, cpu);
  EXPECT_TRUE(tensors_close(fetch(grads[0].value()), gx_want, 1e-5, 1e-6));
}

// A two-layer tanh MLP: loss = sum((w2 tanh(w1 x + b1) - y)^2); its value
// and its gradients with respect to w1, b1 and w2, compiled once and run on
// the CPU and on the WebGPU engine (four times: later runs reuse buffers).
TEST_F(WebGpu, TracedMlpForwardAndGradientMatchCpu) {
  const std::int64_t in = 12, hid = 20, outn = 5, batch = 9;
  auto x = TracedTensor::input("x", DType::f32, {Dim(in), Dim(batch)});
  auto y = TracedTensor::input("y", DType::f32, {Dim(outn), Dim(batch)});
  auto w1 = TracedTensor::input("w1", DType::f32, {Dim(hid), Dim(in)});
  auto b1 = TracedTensor::input("b1", DType::f32, {Dim(hid), Dim(1)});
  auto w2 = TracedTensor::input("w2", DType::f32, {Dim(outn), Dim(hid)});
  auto h = tanh(matmul(w1, x) + b1);
  auto r = matmul(w2, h) - y;
  auto loss = (r * r).sum();
  std::vector<TracedTensor> outs{loss};
  for (const TracedTensor& g : grad(loss, {w1, b1, w2})) outs.push_back(g);
  Program p = GraphCompiler().compile(outs);
  CpuBackend cpu;
  Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_engine(backend_engine(gpu())).build();
  std::vector<std::pair<std::string, Tensor>> host{{"x", random_tensor({in, batch}, DType::f32, 1)},
                                                   {"y", random_tensor({outn, batch}, DType::f32, 2)},
                                                   {"w1", random_tensor({hid, in}, DType::f32, 3)},
                                                   {"b1", random_tensor({hid, 1}, DType::f32, 4)},
                                                   {"w2", random_tensor({outn, hid}, DType::f32, 5)}};
  std::vector<Tensor> want = rt.run_compiled(p, RunInputs(host));
  std::vector<std::pair<std::string, Tensor>> dev;
  for (auto& [name, t] : host) dev.emplace_back(name, webgpu::to_device(t, gpu()));
  std::vector<std::size_t> held;  // device bytes (live + cached) after each run
  for (int run = 0; run < 4; ++run) {
    std::vector<Tensor> got = rt.run_compiled(p, RunInputs(dev));
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].device(), gpu().device());
      EXPECT_TRUE(tensors_close(fetch(got[i]), want[i], 1e-4, 1e-5)) << "output " << i << " run " << run;
    }
    held.push_back(gpu().allocated_bytes() + gpu().cached_bytes());
  }
  // Later runs take their buffers from the cache: after the first runs
  // (which may still add a block where a free one was taken by a smaller
  // request), the device holds no more.
  EXPECT_LE(held[1], held[0] + held[0] / 10) << held[0] << " -> " << held[1];
  EXPECT_EQ(held[3], held[2]) << held[2] << " -> " << held[3];
}

// An einsum network (a matrix-product-state contraction), eager on the
// device and traced through backend_engine, against the CPU.
TEST_F(WebGpu, EinsumNetworkMatchesCpu) {
  CpuBackend cpu;
  const std::string eq = "ab,bcd,de,cef->af";
  std::vector<Tensor> host{random_tensor({6, 5}, DType::f32, 1), random_tensor({5, 4, 7}, DType::f32, 2),
                           random_tensor({7, 3}, DType::f32, 3), random_tensor({4, 3, 8}, DType::f32, 4)};
  Tensor want = einsum(eq, host, cpu);
  std::vector<Tensor> dev;
  for (const Tensor& t : host) dev.push_back(webgpu::to_device(t, gpu()));
  EXPECT_TRUE(tensors_close(fetch(einsum(eq, dev, gpu())), want, 1e-5, 1e-5));
  // Complex operands, with a trace-like repeated label on one operand.
  std::vector<Tensor> hc{random_tensor({4, 5}, DType::c64, 5), random_tensor({5, 6}, DType::c64, 6)};
  Tensor wc = einsum("ij,jk->ik", hc, cpu);
  std::vector<Tensor> dc{webgpu::to_device(hc[0], gpu()), webgpu::to_device(hc[1], gpu())};
  EXPECT_TRUE(tensors_close(fetch(einsum("ij,jk->ik", dc, gpu())), wc, 1e-5, 1e-5));
  // Traced.
  std::vector<TracedTensor> ops;
  for (std::size_t i = 0; i < host.size(); ++i) {
    std::vector<Dim> dims;
    for (auto e : host[i].shape()) dims.push_back(Dim(e));
    ops.push_back(TracedTensor::input("t" + std::to_string(i), DType::f32, dims));
  }
  Program p = GraphCompiler().compile(einsum(eq, ops));
  Runtime rt = Runtime::builder().register_engine(backend_engine(gpu())).build();
  std::vector<Tensor> got = rt.run_compiled(p, RunInputs(dev));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(tensors_close(fetch(got[0]), want, 1e-5, 1e-5));
}

// Note [WebGPU coverage table]: the table of docs/webgpu.md between the
// coverage markers is this function's output; the test below fails when
// they differ and writes the fresh table to the build folder
// (tests/webgpu/webgpu_coverage.md) to paste.
std::string coverage_table() {
  const DType cols[] = {DType::f32, DType::c64, DType::i32, DType::bool_, DType::f64, DType::c128, DType::i64};
  std::ostringstream os;
  os << "| primitive | f32 | c64 | i32 | bool | f64 | c128 | i64 |\n|---|---|---|---|---|---|---|---|\n";
  int ops = 0, pairs = 0, in_set = 0;
  for (OpKind k : all_ops()) {
    os << "| `" << op_name(k) << "` |";
    bool any = false;
    for (DType d : cols) {
      const bool allowed = op_info(k).dtypes.contains(d);
      const bool yes = webgpu::supports(k, d);
      EXPECT_TRUE(!yes || allowed) << op_name(k) << " " << d;
      in_set += allowed;
      pairs += yes;
      any |= yes;
      os << " " << (yes ? "yes" : allowed ? "refused" : "") << " |";
    }
    ops += any;
    os << "\n";
  }
  os << "\n" << ops << " of " << kNumOps << " primitives run on WebGPU, " << pairs << " of " << in_set
     << " (primitive, dtype) pairs of the op table.\n";
  return os.str();
}

TEST(WebGpuCoverage, DocsTableIsTheRegistrysTable) {
  const std::string table = coverage_table();
  const char* doc_path = std::getenv("TENFERRO_WEBGPU_DOC");
  ASSERT_NE(doc_path, nullptr) << "TENFERRO_WEBGPU_DOC (set by CTest) names docs/webgpu.md";
  std::ifstream in(doc_path);
  ASSERT_TRUE(in) << doc_path;
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string doc = buf.str(), begin = "<!-- coverage:begin -->\n", end = "<!-- coverage:end -->";
  const auto b = doc.find(begin), e = doc.find(end);
  ASSERT_TRUE(b != std::string::npos && e != std::string::npos && b < e) << "coverage markers missing in " << doc_path;
  const std::string checked_in = doc.substr(b + begin.size(), e - b - begin.size());
  std::ofstream("webgpu_coverage.md") << table;
  EXPECT_EQ(checked_in, table) << "docs/webgpu.md's coverage table is stale: paste webgpu_coverage.md "
                                  "(written to the test's working folder)";
}

}  // namespace
