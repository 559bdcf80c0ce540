// GEMM throughput: matmul of n x n matrices on the CPU backend (BLAS) and on
// the WebGPU backend (the tiled WGSL GEMM), same process, same inputs.
// Device timings exclude transfers and include the wait for the queue
// (synchronize after each product). Prints one markdown row per (dtype, n):
//   | dtype | n | CPU GFLOP/s | WebGPU GFLOP/s | WebGPU / CPU |
// and checks every device result against the CPU's (max relative error).
//   bench_webgpu_gemm [n ...]          (default 128 256 512)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tenferro/cpu.hpp"
#include "tenferro/webgpu.hpp"

using namespace tenferro;

namespace {

template <class F>
double seconds_per_call(F&& f) {
  f();  // warm-up (pipeline compilation, buffer cache)
  using clock = std::chrono::steady_clock;
  int reps = 1;
  for (;;) {
    auto t0 = clock::now();
    for (int i = 0; i < reps; ++i) f();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > 0.5 || reps >= 1 << 16) return s / reps;
    reps *= 2;
  }
}

double max_rel_error(const Tensor& got, const Tensor& want) {
  const Tensor& g = got;
  double num = 0, den = 0;
  const std::int64_t n = want.numel();
  if (want.dtype() == DType::f32) {
    const float* a = static_cast<const float*>(g.data_ptr());
    const float* b = static_cast<const float*>(want.data_ptr());
    for (std::int64_t i = 0; i < n; ++i) {
      num = std::max(num, static_cast<double>(std::abs(a[i] - b[i])));
      den = std::max(den, static_cast<double>(std::abs(b[i])));
    }
  } else {
    const auto* a = static_cast<const std::complex<float>*>(g.data_ptr());
    const auto* b = static_cast<const std::complex<float>*>(want.data_ptr());
    for (std::int64_t i = 0; i < n; ++i) {
      num = std::max(num, static_cast<double>(std::abs(a[i] - b[i])));
      den = std::max(den, static_cast<double>(std::abs(b[i])));
    }
  }
  return den > 0 ? num / den : num;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::int64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  if (sizes.empty()) sizes = {128, 256, 512};
  const std::string reason = webgpu::unavailable_reason();
  if (!reason.empty()) {
    std::fprintf(stderr, "no WebGPU adapter: %s\n", reason.c_str());
    return 1;
  }
  CpuBackend cpu;
  WebGpuBackend gpu;
  const auto& info = gpu.adapter_info();
  std::printf("adapter: %s (%s, %s); CPU threads: %d\n\n", info.device.c_str(), info.adapter_type.c_str(),
              info.backend_type.c_str(), get_num_threads());
  std::printf("| dtype | n | CPU GFLOP/s | WebGPU GFLOP/s | WebGPU / CPU | max rel. error |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (DType d : {DType::f32, DType::c64})
    for (std::int64_t n : sizes) {
      Tensor a = Tensor::normal({n, n}, d, 1), b = Tensor::normal({n, n}, d, 2);
      Tensor da = webgpu::to_device(a, gpu), db = webgpu::to_device(b, gpu);
      Tensor want = matmul(a, b, cpu);
      const double t_cpu = seconds_per_call([&] { (void)matmul(a, b, cpu); });
      const double t_gpu = seconds_per_call([&] {
        (void)matmul(da, db, gpu);
        gpu.synchronize();
      });
      const double flops = (d == DType::c64 ? 8.0 : 2.0) * static_cast<double>(n) * n * n;
      const double err = max_rel_error(webgpu::to_host(matmul(da, db, gpu), gpu), want);
      std::printf("| %s | %lld | %.2f | %.2f | %.3f | %.1e |\n", d == DType::f32 ? "f32" : "c64",
                  static_cast<long long>(n), flops / t_cpu * 1e-9, flops / t_gpu * 1e-9, t_cpu / t_gpu, err);
    }
  return 0;
}
