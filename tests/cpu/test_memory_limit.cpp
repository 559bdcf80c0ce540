// Note [Host memory limit] (tenferro/tensor/storage.hpp): a request that
// cannot be met fails with a MemoryError naming the op, the bytes and the
// limit, before any memory is touched; a budget set by the user holds for
// all live buffers together; the CPU backend's buffer cache gives its
// buffers back when the budget is reached.
#include <array>
#include <complex>
#include <cstdlib>

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

// Note [Buffer cache]: copies of a backend share its cache; cached_bytes
// counts what it keeps and empty_cache gives it back.
TEST(MemoryLimit, EmptyCacheGivesTheKeptBuffersBack) {
  CpuBackend cpu;
  CpuBackend copy = cpu;
  const std::size_t mib = std::size_t{1} << 20;
  const std::size_t base = host_memory_in_use();
  {
    auto a = cpu.allocate_storage(2 * mib), b = copy.allocate_storage(2 * mib),
         c = cpu.allocate_storage(3 * mib);
  }
  EXPECT_EQ(cpu.cached_bytes(), 7 * mib);
  EXPECT_EQ(copy.cached_bytes(), 7 * mib);
  EXPECT_EQ(host_memory_in_use(), base + 7 * mib);
  auto again = copy.allocate_storage(2 * mib);  // from the cache: nothing new
  EXPECT_EQ(host_memory_in_use(), base + 7 * mib);
  EXPECT_EQ(cpu.cached_bytes(), 5 * mib);
  copy.empty_cache();
  EXPECT_EQ(cpu.cached_bytes(), 0u);
  EXPECT_EQ(host_memory_in_use(), base + 2 * mib);  // the live buffer stays
  again.reset();
  EXPECT_EQ(cpu.cached_bytes(), 2 * mib);
  cpu.empty_cache();
  EXPECT_EQ(host_memory_in_use(), base);
}

// Note [Buffer cache]: a request with no kept buffer of its size takes the
// smallest kept one of up to 1.5 times its size; the buffer returns to the
// cache, or to the system when the cache is full, as its own size.
TEST(MemoryLimit, TheBufferCacheLendsABufferOfUpToOneAndAHalfTimesTheSize) {
  const std::size_t kib = std::size_t{1} << 10, mib = kib << 10;
  {
    CpuBackend cpu;
    const std::size_t base = host_memory_in_use();
    void *p3 = nullptr, *p25 = nullptr;
    {
      auto a = cpu.allocate_storage(3 * mib), b = cpu.allocate_storage(2560 * kib);
      p3 = a->data();
      p25 = b->data();
    }
    EXPECT_EQ(cpu.cached_bytes(), 5632 * kib);
    auto two = cpu.allocate_storage(2 * mib);  // the smaller of the two that fit
    EXPECT_EQ(two->data(), p25);
    EXPECT_EQ(two->nbytes(), 2 * mib);
    EXPECT_EQ(cpu.cached_bytes(), 3 * mib);
    EXPECT_EQ(host_memory_in_use(), base + 5632 * kib);  // nothing new
    auto small = cpu.allocate_storage(1900 * kib);       // 3 MiB is more than 1.5 times: fresh
    EXPECT_NE(small->data(), p3);
    EXPECT_EQ(host_memory_in_use(), base + 5632 * kib + 1900 * kib);
    small.reset();
    two.reset();  // back as 2.5 MiB
    EXPECT_EQ(cpu.cached_bytes(), 5632 * kib + 1900 * kib);
    auto exact = cpu.allocate_storage(2560 * kib);
    EXPECT_EQ(exact->data(), p25);
    exact.reset();
    cpu.empty_cache();
    EXPECT_EQ(host_memory_in_use(), base);
  }
  // A cache of 4 MiB: the lent 3 MiB buffer comes back when another 3 MiB
  // one is kept, so it is freed, as 3 MiB.
  ::setenv("TENFERRO_CPU_CACHE_MB", "4", 1);
  CpuBackend cpu;
  ::unsetenv("TENFERRO_CPU_CACHE_MB");
  const std::size_t base = host_memory_in_use();
  cpu.allocate_storage(3 * mib).reset();
  auto lent = cpu.allocate_storage(2 * mib);
  EXPECT_EQ(cpu.cached_bytes(), 0u);
  cpu.allocate_storage(3 * mib).reset();
  EXPECT_EQ(cpu.cached_bytes(), 3 * mib);
  EXPECT_EQ(host_memory_in_use(), base + 6 * mib);
  lent.reset();
  EXPECT_EQ(cpu.cached_bytes(), 3 * mib);
  EXPECT_EQ(host_memory_in_use(), base + 3 * mib);
  cpu.empty_cache();
  EXPECT_EQ(host_memory_in_use(), base);
}

// Note [Copies by slices] (src/cpu/dot_general.cpp): a batched product
// whose operand must be copied for BLAS (here the lhs, whose free axes m1 and
// m2 lie on either side of the contracting one) copies it slice by slice of
// the batch axes, so it runs in a budget of a few MiB above its operands and
// result, where one copy of the whole lhs needs 24 MiB. Two layouts of the
// batch axes: b2 (slowest) cut into ranges with a shorter last one, and
// both b2 and b1 sliced. f64 and c128 (8- and 16-byte elements), on one and
// two threads, against a naive loop at every 5th batch (every slice is
// checked; the full loop took most of a minute under ASan); the output is
// written once through a layout that BLAS cannot write either (m1 and n
// interleaved), which needs a scratch output too.
TEST(MemoryLimit, ALargeBatchedProductCopiesItsOperandsSliceBySlice) {
  using C = std::complex<double>;
  ThreadGuard guard;
  const std::int64_t m1 = 4, m2 = 6, k = 20, n = 12;
  for (auto [b1, b2] : {std::array<std::int64_t, 2>{7, 0}, {0, 3}})
    for (DType d : {DType::f64, DType::c128})
      for (bool scratch_out : {false, true})
        for (int threads : {1, 2}) {
          set_num_threads(threads);
          // lhs 24 MiB: b1 or b2 (whichever is 0) sized to reach it.
          const std::int64_t per_batch = m1 * k * m2,
                             batches = (std::int64_t{24} << 20) / dtype_size(d) / per_batch;
          const std::int64_t e1 = b1 > 0 ? b1 : batches / b2, e2 = b2 > 0 ? b2 : batches / b1;
          CpuBackend cpu;  // an empty buffer cache
          const Tensor a = random_tensor({m1, k, m2, e1, e2}, d, 7);
          const Tensor b = random_tensor({k, n, e1, e2}, d, 8);
          const DotGeneralAttrs dims{.lhs_batching_dimensions = {3, 4},
                                     .rhs_batching_dimensions = {2, 3},
                                     .lhs_contracting_dimensions = {1},
                                     .rhs_contracting_dimensions = {0}};
          // Output [e1, e2, m1, m2, n], stored as [m2, m1, e1, n, e2] or densely.
          const Tensor out = scratch_out
                                 ? Tensor::empty({m2, m1, e1, n, e2}, d).permute({2, 4, 1, 0, 3})
                                 : Tensor::empty({e1, e2, m1, m2, n}, d);
          {
            Budget budget(host_memory_in_use() + (std::size_t{8} << 20));
            const std::vector<Tensor> in{a, b};
            cpu.execute(OpKind::dot_general, dims, in, out);
          }
          const auto av = ops::convert(a, DType::c128, cpu).to_vec_col_major<C>();
          const auto bv = ops::convert(b, DType::c128, cpu).to_vec_col_major<C>();
          const auto cv = ops::convert(out, DType::c128, cpu).to_vec_col_major<C>();
          double worst = 0;
          for (std::int64_t q = 0; q < e1 * e2; q += 5)  // every slice, at every 5th batch
            for (std::int64_t j = 0; j < n; ++j)
              for (std::int64_t i = 0; i < m1 * m2; ++i) {
                const std::int64_t i1 = i % m1, i2 = i / m1;
                C want = 0;
                for (std::int64_t p = 0; p < k; ++p)
                  want += av[static_cast<std::size_t>(i1 + m1 * (p + k * (i2 + m2 * q)))] *
                          bv[static_cast<std::size_t>(p + k * (j + n * q))];
                worst = std::max(
                    worst,
                    std::abs(cv[static_cast<std::size_t>(q + e1 * e2 * (i + m1 * m2 * j))] - want));
              }
          EXPECT_LE(worst, 1e-13 * static_cast<double>(k))
              << d << " batch " << e1 << " x " << e2 << (scratch_out ? " scratch output " : " ")
              << threads << " threads";
        }
}

// Note [Copies by slices] without batch axes: a 72 MiB lhs whose free axes
// m1 and m2 lie on either side of the contracting ones is copied by ranges
// of m2, within a budget of 8 MiB; the rhs, whose contracting axes k1 and k2
// lie on either side of its free one, is copied once, whole. With the
// operands in either order (the large one as rhs too), on one and two
// threads, against a naive loop at every 5th index of m2.
TEST(MemoryLimit, ALargeProductWithoutBatchAxesCopiesItsLargerOperandBySlices) {
  using C = std::complex<double>;
  ThreadGuard guard;
  const std::int64_t m1 = 8, k1 = 2, k2 = 2, n = 3;
  for (DType d : {DType::f64, DType::c128})
    for (bool swap : {false, true})
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        const std::int64_t m2 = (std::int64_t{72} << 20) / dtype_size(d) / (m1 * k1 * k2) + 5;
        CpuBackend cpu;
        const Tensor a = random_tensor({m1, k1, k2, m2}, d, 9);  // large
        const Tensor b = random_tensor({k1, n, k2}, d, 10);
        DotGeneralAttrs dims{.lhs_contracting_dimensions = {1, 2},
                             .rhs_contracting_dimensions = {0, 2}};
        if (swap) std::swap(dims.lhs_contracting_dimensions, dims.rhs_contracting_dimensions);
        // [m1, m2, n], or [n, m1, m2] with the operands swapped.
        const Tensor out = swap ? Tensor::empty({n, m1, m2}, d) : Tensor::empty({m1, m2, n}, d);
        {
          Budget budget(host_memory_in_use() + (std::size_t{8} << 20));
          const std::vector<Tensor> in =
              swap ? std::vector<Tensor>{b, a} : std::vector<Tensor>{a, b};
          cpu.execute(OpKind::dot_general, dims, in, out);
        }
        const auto av = ops::convert(a, DType::c128, cpu).to_vec_col_major<C>();
        const auto bv = ops::convert(b, DType::c128, cpu).to_vec_col_major<C>();
        const auto cv = ops::convert(out, DType::c128, cpu).to_vec_col_major<C>();
        double worst = 0;
        for (std::int64_t i2 = 0; i2 < m2; i2 += 5)  // every slice, at every 5th index
          for (std::int64_t i1 = 0; i1 < m1; ++i1)
            for (std::int64_t j = 0; j < n; ++j) {
              C want = 0;
              for (std::int64_t p2 = 0; p2 < k2; ++p2)
                for (std::int64_t p1 = 0; p1 < k1; ++p1)
                  want += av[static_cast<std::size_t>(i1 + m1 * (p1 + k1 * (p2 + k2 * i2)))] *
                          bv[static_cast<std::size_t>(p1 + k1 * (j + n * p2))];
              const std::int64_t at = swap ? j + n * (i1 + m1 * i2) : i1 + m1 * (i2 + m2 * j);
              worst = std::max(worst, std::abs(cv[static_cast<std::size_t>(at)] - want));
            }
        EXPECT_LE(worst, 1e-13 * static_cast<double>(k1 * k2))
            << d << (swap ? " large rhs " : " large lhs ") << threads << " threads";
      }
}
