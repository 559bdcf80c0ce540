// GPU benchmark harness (issue 8): ours and the peer in one process, on the
// same device buffers, timed with CUDA events.
//
//   bench_gpu --instances DIR [--json OUT] [--min-time SECONDS]
//
// 1. dot_general vs cuBLAS called directly: dgemm and zgemm 4096^2, and the
//    batched-matmul einsum instances (dot_general vs gemmStridedBatched).
// 2. The permutation patterns of permutation_patterns.json (transpose, and
//    the permuted view made contiguous) vs a device-to-device memcpy of the
//    same bytes: GB/s counting bytes read and written, and the ratio.
// 3. The larger einsum instances (log10 flops >= 8) along their stored
//    opt_flops path: our times go to the JSON for run.py, which adds
//    torch.einsum on CUDA along the same path.
// Each case: two warm-up runs, then runs until min-time has passed (at
// least 5, at most 200); the median is reported.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "../../tests/einsum/instances.hpp"
#include "tenferro/cuda.hpp"
#include "tenferro/einsum.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

double g_min_time = 0.3;

#define CHECK_CUDA(x)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

/// Median milliseconds of `f` (enqueued on `stream`), event-timed.
double time_ms(cudaStream_t stream, const std::function<void()>& f) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) f();
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> t;
  const auto start = std::chrono::steady_clock::now();
  while (t.size() < 5 ||
         (t.size() < 200 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < g_min_time)) {
    CHECK_CUDA(cudaEventRecord(a, stream));
    f();
    CHECK_CUDA(cudaEventRecord(b, stream));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

nlohmann::json g_out = nlohmann::json::object();

void gemm_section(CudaBackend& gpu, cublasHandle_t h, cudaStream_t s, const std::string& instances) {
  std::printf("## dot_general vs cuBLAS (same device buffers)\n\n");
  std::printf("| case | tenferro ms | cuBLAS ms | ratio cuBLAS/tenferro |\n|---|---|---|---|\n");
  auto report = [&](const std::string& name, double ours, double peer) {
    std::printf("| %s | %.3f | %.3f | %.3f |\n", name.c_str(), ours, peer, peer / ours);
    g_out["gemm"][name] = {{"tenferro_ms", ours}, {"cublas_ms", peer}, {"ratio", peer / ours}};
  };
  const std::int64_t n = 4096;
  const DotGeneralAttrs mm{{}, {}, {1}, {0}};
  for (DType d : {DType::f64, DType::c128}) {
    Tensor a = cuda::to_device(Tensor::uniform({n, n}, d, 1, -1, 1), gpu);
    Tensor b = cuda::to_device(Tensor::uniform({n, n}, d, 2, -1, 1), gpu);
    Tensor c = gpu.empty(d, {n, n});
    const double ours = time_ms(s, [&] { Tensor r = ops::dot_general(a, b, mm, gpu); });
    const int in = static_cast<int>(n);
    double peer;
    if (d == DType::f64) {
      const double one = 1, zero = 0;
      peer = time_ms(s, [&] {
        cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, in, in, in, &one, a.data<double>(), in, b.data<double>(), in, &zero,
                    c.data<double>(), in);
      });
    } else {
      const cuDoubleComplex one{1, 0}, zero{0, 0};
      peer = time_ms(s, [&] {
        cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, in, in, in, &one, static_cast<const cuDoubleComplex*>(a.data_ptr()), in,
                    static_cast<const cuDoubleComplex*>(b.data_ptr()), in, &zero,
                    static_cast<cuDoubleComplex*>(c.data_ptr()), in);
      });
    }
    report(d == DType::f64 ? "dgemm 4096^2" : "zgemm 4096^2", ours, peer);
  }
  // The batched-matmul instances: colmajor "jib,kjb->kib", C_b = B_b A_b.
  for (const char* name : {"bin_batched_matmul_b32_m64_n64_k64", "bin_batched_matmul_b32_m128_n128_k128"}) {
    std::vector<EinsumInstance> all = load_instances(instances);
    auto it = std::find_if(all.begin(), all.end(), [&](const EinsumInstance& e) { return e.name == name; });
    if (it == all.end()) continue;
    Tensor A = cuda::to_device(instance_operand(*it, 0), gpu), B = cuda::to_device(instance_operand(*it, 1), gpu);
    const std::int64_t J = A.shape()[0], I = A.shape()[1], K = B.shape()[0], nb = A.shape()[2];
    // dot_general(B, A): batch (2, 2), contract B's j (1) with A's j (0) -> [b, k, i].
    const DotGeneralAttrs bm{{2}, {2}, {1}, {0}};
    const double ours = time_ms(s, [&] { Tensor r = ops::dot_general(B, A, bm, gpu); });
    Tensor c = gpu.empty(DType::f64, {K, I, nb});
    const double one = 1, zero = 0;
    const double peer = time_ms(s, [&] {
      cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, int(K), int(I), int(J), &one, B.data<double>(), int(K),
                                K * J, A.data<double>(), int(J), J * I, &zero, c.data<double>(), int(K), K * I, int(nb));
    });
    report(std::string(name) + " (dot_general)", ours, peer);
    EinsumCache cache;
    const double ours_einsum = time_ms(s, [&] { Tensor r = einsum(it->spec, {A, B}, gpu, {.path = it->opt_flops}, &cache); });
    report(std::string(name) + " (einsum)", ours_einsum, peer);
  }
  std::printf("\n");
}

void permutation_section(CudaBackend& gpu, cudaStream_t s, const std::string& instances) {
  std::ifstream in(instances + "/permutation_patterns.json");
  nlohmann::json j = nlohmann::json::parse(in);
  std::printf("## Permutations vs device-to-device memcpy (GB/s = bytes read + written / time)\n\n");
  std::printf("| pattern | transpose GB/s | to-contiguous GB/s | memcpy GB/s | ratio transpose/memcpy | ratio "
              "to-contiguous/memcpy |\n|---|---|---|---|---|---|\n");
  for (const auto& p : j.at("patterns")) {
    const auto parts = p.value("participants_gpu", std::vector<std::string>{});
    const bool tr = std::find(parts.begin(), parts.end(), "tenferro-cuda-transpose") != parts.end();
    const bool tc = std::find(parts.begin(), parts.end(), "tenferro-cuda-to-contiguous") != parts.end();
    if (!tr && !tc) continue;
    const std::string id = p.at("id").get<std::string>();
    Shape shape;
    for (const auto& e : p.at("shape")) shape.push_back(e.get<std::int64_t>());
    DimVec perm;
    for (const auto& e : p.at("perm")) perm.push_back(e.get<std::int64_t>());
    // out[i_0..i_k] = src[i_perm0..i_permk]: tenferro's transpose takes the inverse permutation.
    DimVec inv(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
    Strides st = col_major_strides(shape);
    if (p.at("src_layout").at("kind") == "explicit_strides") {
      st.clear();
      for (const auto& e : p.at("src_layout").at("strides")) st.push_back(e.get<std::int64_t>());
    }
    std::int64_t span = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) span += (shape[i] - 1) * st[i];
    const std::int64_t n = shape_numel(shape);
    Tensor storage = gpu.empty(DType::f64, {span});
    CHECK_CUDA(cudaMemsetAsync(storage.data_ptr(), 0, static_cast<std::size_t>(span) * 8, s));
    Tensor src(storage.storage(), DType::f64, shape, st, 0);
    Tensor dst = gpu.empty(DType::f64, {n});
    const double bytes = 2.0 * static_cast<double>(n) * 8;
    const double t_memcpy = time_ms(s, [&] {
      cudaMemcpyAsync(dst.data_ptr(), storage.data_ptr(), static_cast<std::size_t>(n) * 8, cudaMemcpyDeviceToDevice, s);
    });
    const double t_tr = tr ? time_ms(s, [&] { Tensor r = ops::transpose(src, inv, gpu); }) : NAN;
    const double t_tc = tc ? time_ms(s, [&] { Tensor r = cuda::duplicate(src.permute(inv), gpu); }) : NAN;
    auto gbps = [&](double ms) { return bytes / (ms * 1e-3) / 1e9; };
    std::printf("| %s | %.0f | %.0f | %.0f | %.3f | %.3f |\n", id.c_str(), gbps(t_tr), gbps(t_tc), gbps(t_memcpy),
                t_memcpy / t_tr, t_memcpy / t_tc);
    g_out["permutation"][id] = {{"transpose_ms", t_tr}, {"to_contiguous_ms", t_tc}, {"memcpy_ms", t_memcpy},
                                {"transpose_gbps", gbps(t_tr)}, {"to_contiguous_gbps", gbps(t_tc)},
                                {"memcpy_gbps", gbps(t_memcpy)}};
  }
  std::printf("\n");
}

void einsum_section(CudaBackend& gpu, cudaStream_t s, const std::string& instances) {
  std::printf("## Einsum instances (log10 flops >= 8, opt_flops path) on the GPU: tenferro times\n\n");
  std::printf("| instance | log10 flops | tenferro ms |\n|---|---|---|\n");
  for (const EinsumInstance& inst : load_instances(instances)) {
    ContractionCost cost = contraction_cost(inst.spec, inst.shapes, inst.opt_flops);
    if (std::log10(cost.flops) < 8) continue;
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < inst.shapes.size(); ++k) ops.push_back(cuda::to_device(instance_operand(inst, k), gpu));
    EinsumCache cache;
    const PathOptions opts{.path = inst.opt_flops};
    const double ms = time_ms(s, [&] { Tensor r = einsum(inst.spec, ops, gpu, opts, &cache); });
    std::printf("| %s | %.2f | %.3f |\n", inst.name.c_str(), std::log10(cost.flops), ms);
    g_out["einsum"][inst.name] = {{"tenferro_ms", ms}, {"log10_flops", std::log10(cost.flops)}};
    std::fflush(stdout);
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string instances, json_out, only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--instances=", 12)) instances = argv[i] + 12;
    else if (!std::strncmp(argv[i], "--json=", 7)) json_out = argv[i] + 7;
    else if (!std::strncmp(argv[i], "--min-time=", 11)) g_min_time = std::atof(argv[i] + 11);
    else if (!std::strncmp(argv[i], "--only=", 7)) only = argv[i] + 7;
    else {
      std::fprintf(stderr, "usage: bench_gpu --instances=DIR [--json=OUT] [--min-time=S] [--only=gemm|perm|einsum]\n");
      return 2;
    }
  }
  if (cuda::device_count() == 0) {
    std::fprintf(stderr, "bench_gpu: no CUDA device (%s)\n", cuda::unavailable_reason().c_str());
    return 1;
  }
  CudaBackend gpu(0);
  cudaStream_t s = static_cast<cudaStream_t>(gpu.stream());
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetStream(h, s);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("# tenferro CUDA benchmarks on %s (%d SMs)\n\n", prop.name, prop.multiProcessorCount);
  g_out["device"] = prop.name;
  if (only.empty() || only == "gemm") gemm_section(gpu, h, s, instances);
  if (only.empty() || only == "perm") permutation_section(gpu, s, instances);
  if (only.empty() || only == "einsum") einsum_section(gpu, s, instances);
  cublasDestroy(h);
  if (!json_out.empty()) std::ofstream(json_out) << g_out.dump(1) << "\n";
  return 0;
}
