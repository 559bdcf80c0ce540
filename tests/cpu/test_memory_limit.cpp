// Note [Host memory limit] (tenferro/tensor/storage.hpp): a request that
// cannot be met fails with a MemoryError naming the op, the bytes and the
// limit, before any memory is touched; a budget set by the user holds for
// all live buffers together; the CPU backend's buffer cache gives its
// buffers back when the budget is reached.
#include "support/test_support.hpp"
#include "tenferro/cpu.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// Sets a budget for one test and restores the default rule afterwards.
struct Budget {
  explicit Budget(std::size_t bytes) { set_host_memory_limit(bytes); }
  ~Budget() { set_host_memory_limit(0); }
};

}  // namespace

TEST(MemoryLimit, AFactoryOverTheAvailableMemoryFailsBeforeAllocating) {
  std::size_t before = host_memory_in_use();
  // 2^40 doubles: 8 TiB, more than this machine (or any CI machine) has.
  EXPECT_TRUE(throws_with<MemoryError>([] { (void)Tensor::empty({std::int64_t{1} << 40}, DType::f64); },
                                       {"empty: ", "8796093022208 bytes (8 TiB) requested",
                                        "the memory available now"}));
  EXPECT_TRUE(throws_with<MemoryError>([] { (void)Tensor::zeros({std::int64_t{1} << 20, std::int64_t{1} << 20}); },
                                       {"zeros: ", "8796093022208 bytes"}));
  try {
    (void)Tensor::ones({std::int64_t{1} << 40}, DType::c128);
    ADD_FAILURE() << "no error";
  } catch (const MemoryError& e) {
    EXPECT_EQ(e.requested_bytes(), std::size_t{16} << 40);
    EXPECT_GT(e.limit_bytes(), 0u);
    EXPECT_LT(e.limit_bytes(), e.requested_bytes());
    EXPECT_EQ(e.code(), ErrorCode::ResourceExhausted);
  }
  EXPECT_EQ(host_memory_in_use(), before);  // nothing kept
}

TEST(MemoryLimit, AContractionWhoseOutputCannotFitFailsCleanly) {
  CpuBackend cpu;
  // [2^19, 1] x [1, 2^19]: 4 MiB operands, a 2 TiB output.
  Tensor a = Tensor::ones({std::int64_t{1} << 19, 1});
  Tensor b = Tensor::ones({1, std::int64_t{1} << 19});
  std::size_t before = host_memory_in_use();
  EXPECT_TRUE(throws_with<MemoryError>([&] { (void)matmul(a, b, cpu); }, {"2199023255552 bytes (2 TiB) requested"}));
  EXPECT_EQ(host_memory_in_use(), before);
  // The backend is still usable.
  Tensor c = matmul(b, a, cpu);
  EXPECT_EQ(c.item().to<double>(), static_cast<double>(std::int64_t{1} << 19));
}

TEST(MemoryLimit, ABudgetCountsAllLiveBuffers) {
  std::size_t base = host_memory_in_use();
  Budget budget(base + (std::size_t{1} << 20));  // 1 MiB above what is in use now
  EXPECT_EQ(host_memory_limit(), base + (std::size_t{1} << 20));
  Tensor first = Tensor::zeros({80 * 1024}, DType::f64);  // 640 KiB: fits
  EXPECT_EQ(host_memory_in_use(), base + 640 * 1024);
  try {
    (void)Tensor::zeros({80 * 1024}, DType::f64);  // another 640 KiB: 384 KiB are left
    ADD_FAILURE() << "no error";
  } catch (const MemoryError& e) {
    EXPECT_EQ(e.requested_bytes(), 640u * 1024);
    EXPECT_EQ(e.limit_bytes(), 384u * 1024);
    EXPECT_NE(std::string(e.what()).find("zeros: 655360 bytes (640 KiB) requested, but 384 KiB of tenferro's host "
                                         "memory budget of"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(host_memory_in_use(), base + 640 * 1024);  // the refused request left no trace
  first = Tensor();                                    // freed: the budget is back
  EXPECT_EQ(host_memory_in_use(), base);
  Tensor second = Tensor::zeros({80 * 1024}, DType::f64);
  EXPECT_EQ(second.at<double>({0}), 0.0);
}

TEST(MemoryLimit, TheBufferCacheGivesItsBuffersBackUnderABudget) {
  CpuBackend cpu;
  Tensor x = random_tensor({512, 512}, DType::f64, 1);  // 2 MiB
  Tensor v = random_tensor({256, 512}, DType::f64, 2);  // 1 MiB
  {
    // Three results alive at once, then freed: the backend's cache keeps them.
    Tensor r1 = add(x, x, cpu), r2 = add(x, x, cpu), r3 = add(x, x, cpu);
  }
  std::size_t base = host_memory_in_use();
  Budget budget(base);                // nothing more than what is held now
  Tensor y = add(x, x, cpu);          // a cached buffer: no new memory
  EXPECT_EQ(host_memory_in_use(), base);
  Tensor s = add(v, v, cpu);          // 1 MiB of another size: the cache gives its other buffers back
  EXPECT_EQ(host_memory_in_use(), base - (std::size_t{4} << 20) + (std::size_t{1} << 20));
  EXPECT_DOUBLE_EQ(y.at<double>({3, 7}), 2 * x.at<double>({3, 7}));
  EXPECT_DOUBLE_EQ(s.at<double>({5, 9}), 2 * v.at<double>({5, 9}));
}

// Note [Buffer cache]: buffers from 128 KiB (glibc's mmap threshold) are
// kept for reuse; smaller ones go back to malloc.
TEST(MemoryLimit, TheBufferCacheKeepsBuffersFrom128KiB) {
  CpuBackend cpu;
  const std::size_t base = host_memory_in_use();
  auto big = cpu.allocate_storage(std::size_t{128} << 10);
  void* p = big->data();
  big.reset();
  EXPECT_EQ(host_memory_in_use(), base + (std::size_t{128} << 10));  // held by the cache
  auto again = cpu.allocate_storage(std::size_t{128} << 10);
  EXPECT_EQ(again->data(), p);
  again.reset();
  const std::size_t held = host_memory_in_use();
  auto small = cpu.allocate_storage((std::size_t{128} << 10) - 64);
  small.reset();
  EXPECT_EQ(host_memory_in_use(), held);  // freed, not kept
}
