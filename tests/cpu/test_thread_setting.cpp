// Note [One thread setting] (tenferro/ops/backend.hpp): set_num_threads is
// one process-wide value. OpenMP keeps its pool size per thread, so before
// the fix a std::thread started after set_num_threads ran its kernels (and
// OpenMP-built BLAS) with OpenMP's default instead.
#include <omp.h>

#include <thread>

#include "support/test_support.hpp"
#include "tenferro/cpu.hpp"

using namespace tenferro;
using namespace tenferro::testing;

TEST(ThreadSetting, IsSeenByThreadsStartedLater) {
  const int before = get_num_threads();
  set_num_threads(7);  // not a default of any machine this runs on
  EXPECT_EQ(get_num_threads(), 7);
  int seen = 0, pool_after_kernel = 0;
  double sum = 0;
  std::thread worker([&] {
    seen = get_num_threads();
    CpuBackend cpu;  // the worker's own backend
    Tensor x = Tensor::ones({300, 300});
    sum = tenferro::sum(matmul(x, x, cpu), cpu).item().to<double>();  // BLAS runs on this thread
    pool_after_kernel = omp_get_max_threads();            // what OpenMP-built BLAS used
  });
  worker.join();
  EXPECT_EQ(seen, 7);
  EXPECT_EQ(pool_after_kernel, 7);
  EXPECT_EQ(sum, 300.0 * 300.0 * 300.0);
  set_num_threads(before);
  EXPECT_EQ(get_num_threads(), before);
  EXPECT_TRUE(throws_with<ValueError>([] { set_num_threads(0); }, {"set_num_threads", "0"}));
  EXPECT_EQ(get_num_threads(), before);  // unchanged by the refused call
}
