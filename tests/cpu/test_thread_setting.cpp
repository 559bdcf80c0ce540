// Note [One thread setting] (tenferro/ops/backend.hpp): set_num_threads is
// one process-wide value. OpenMP keeps its pool size per thread, so before
// the fix a std::thread started after set_num_threads ran its kernels (and
// OpenMP-built BLAS) with OpenMP's default instead.
#include <omp.h>

#include <filesystem>
#include <string>
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

// OpenBLAS's own view, where tenferro runs on OpenBLAS (weak: absent with
// another BLAS).
extern "C" int openblas_get_num_threads() __attribute__((weak));

// blas_info names the library file that answers tenferro's GEMM calls and,
// for OpenBLAS, its build and core type; set_num_threads reaches it.
TEST(BlasInfo, NamesTheLoadedLibraryAndFollowsTheThreadSetting) {
  const std::string info = blas_info();
  const std::size_t comma = info.rfind(", ");
  const std::string file = comma == std::string::npos ? info : info.substr(comma + 2);
  EXPECT_TRUE(std::filesystem::exists(file)) << info;
  if (openblas_get_num_threads == nullptr) GTEST_SKIP() << "not OpenBLAS: " << info;
  EXPECT_NE(info.find("OpenBLAS"), std::string::npos) << info;
  EXPECT_NE(info.find(", core "), std::string::npos) << info;
  EXPECT_NE(file.find("openblas"), std::string::npos) << info;
  ThreadGuard guard;
  for (int n : {1, 2}) {
    set_num_threads(n);
    EXPECT_EQ(openblas_get_num_threads(), n);
  }
}
