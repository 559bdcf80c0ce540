// The einsum buffer pool's backend (src/einsum/pool.hpp, Note [Einsum
// buffer reuse]): allocations are recycled by exact size, and every other
// call reaches the wrapped backend, including execute_fused and from_host.
#include "pool.hpp"
#include "support/test_support.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/ops/kernels.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// A CPU backend that counts the calls that reach it.
class Recorder final : public Backend {
 public:
  std::string_view name() const override { return "recorder"; }
  Device device() const override { return Device::cpu(); }
  std::shared_ptr<Storage> allocate_storage(std::size_t nbytes) override {
    ++allocations;
    return cpu.allocate_storage(nbytes);
  }
  void execute(OpKind kind, const Attrs& attrs, std::span<const Tensor> inputs, const Tensor& output) override {
    ++executes;
    cpu.execute(kind, attrs, inputs, output);
  }
  void execute_fused(const FusedElementwise& kernel, std::span<const Tensor> inputs,
                     const Tensor& output) override {
    ++fused;
    cpu.execute_fused(kernel, inputs, output);
  }
  Tensor from_host(const Tensor& host) override {
    ++uploads;
    return host.duplicate();
  }
  CpuBackend cpu;
  int allocations = 0, executes = 0, fused = 0, uploads = 0;
};

// The pool's backend runs the kernels of the backend it wraps: one registry,
// so a provider added to the wrapped backend is seen through the pool.
TEST(EinsumPool, SharesTheWrappedBackendsKernels) {
  CpuBackend cpu;
  detail::PooledBackend pooled(cpu, std::make_shared<detail::BufferPool>(std::size_t{1} << 20));
  EXPECT_EQ(&pooled.kernels(), &cpu.kernels());
  int calls = 0;
  cpu.kernels().add(OpKind::negate, DeviceKind::cpu, "count",
                    [&](OpKind, const Attrs&, std::span<const Tensor>, const Tensor&, Backend&) {
                      ++calls;
                      return false;  // decline: the CPU kernel runs it
                    });
  const Tensor a = random_tensor({3, 4}, DType::f64, 1);
  Tensor out = pooled.empty(DType::f64, {3, 4});
  const Tensor in[] = {a};
  pooled.kernels().run(OpKind::negate, DeviceKind::cpu, NoAttrs{}, in, out, pooled);
  EXPECT_EQ(calls, 1);
  std::vector<std::complex<double>> want;
  for (const DimVec& i : all_indices({3, 4})) want.push_back(-value_at(a, i));
  EXPECT_TRUE(tensors_close(out, tensor_from_values({3, 4}, DType::f64, want), 0, 0));
}

TEST(EinsumPool, ForwardsExecuteFusedAndFromHost) {
  Recorder inner;
  detail::PooledBackend pooled(inner, std::make_shared<detail::BufferPool>(std::size_t{1} << 20));
  EXPECT_EQ(pooled.name(), "recorder");

  // out = exp(a) * b, one fused kernel on the inner backend, no step-by-step execute.
  FusedElementwise k;
  k.num_inputs = 2;
  k.steps.push_back({OpKind::exp, NoAttrs{}, {-1}, DType::f64});
  k.steps.push_back({OpKind::multiply, NoAttrs{}, {0, -2}, DType::f64});
  const Tensor a = random_tensor({3, 4}, DType::f64, 1), b = random_tensor({3, 4}, DType::f64, 2);
  Tensor out = pooled.empty(DType::f64, {3, 4});
  const Tensor in[] = {a, b};
  pooled.execute_fused(k, in, out);
  EXPECT_EQ(inner.fused, 1);
  EXPECT_EQ(inner.executes, 0);
  std::vector<std::complex<double>> want;
  for (const DimVec& i : all_indices({3, 4})) want.push_back(std::exp(value_at(a, i)) * value_at(b, i));
  EXPECT_TRUE(tensors_close(out, tensor_from_values({3, 4}, DType::f64, want), 4 * dtype_eps(DType::f64), 0));

  // from_host reaches the inner backend (the default would return `host` itself).
  const Tensor host = Tensor::full({2}, Scalar(2.5), DType::f64);
  const Tensor up = pooled.from_host(host);
  EXPECT_EQ(inner.uploads, 1);
  EXPECT_FALSE(up.shares_storage_with(host));
  EXPECT_TRUE(tensors_equal(up, host));
}

TEST(EinsumPool, RecyclesStoragesOfTheSameSize) {
  Recorder inner;
  auto pool = std::make_shared<detail::BufferPool>(std::size_t{1} << 20);
  detail::PooledBackend pooled(inner, pool);
  void* first = nullptr;
  {
    Tensor t = pooled.empty(DType::f64, {8, 8});
    first = t.data_ptr();
  }
  EXPECT_EQ(pool->held_bytes(), 8u * 8u * sizeof(double));
  Tensor again = pooled.empty(DType::f64, {4, 16});  // same byte size: the same storage
  EXPECT_EQ(again.data_ptr(), first);
  EXPECT_EQ(inner.allocations, 1);
  Tensor other = pooled.empty(DType::f64, {3});  // another size: a fresh allocation
  EXPECT_EQ(inner.allocations, 2);
  EXPECT_EQ(pool->held_bytes(), 0u);
}

}  // namespace
