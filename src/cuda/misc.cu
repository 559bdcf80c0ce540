// Dense helper kernels: integer GEMM (cuBLAS has none with wrapping
// arithmetic), triangle extraction, LU pivot conversion, scaling, the
// non-finite scan of matrix batches, identity matrices.
#include <cuda_runtime.h>

#include "device_ops.cuh"

namespace tenferro::cuda::detail {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void int_gemm_kernel(IntGemmArgs a) {
  const T* A = static_cast<const T*>(a.a);
  const T* B = static_cast<const T*>(a.b);
  T* C = static_cast<T*>(a.c);
  const std::int64_t total = a.m * a.n * a.batch;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const std::int64_t i = t % a.m, j = (t / a.m) % a.n, b = t / (a.m * a.n);
    const T* ap = A + b * a.a_bs + i * a.a_rs;
    const T* bp = B + b * a.b_bs + j * a.b_cs;
    T acc = 0;
    for (std::int64_t p = 0; p < a.k; ++p) acc = wrap_add(acc, wrap_mul(ap[p * a.a_cs], bp[p * a.b_rs]));
    C[b * a.c_bs + i * a.c_rs + j * a.c_cs] = acc;
  }
}

template <class T>
__global__ void extract_kernel(MatrixPart part, std::int64_t rows, std::int64_t cols, std::int64_t batch,
                               const T* src, std::int64_t ld, std::int64_t bs, T* dst) {
  const std::int64_t total = rows * cols * batch;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const std::int64_t i = t % rows, j = (t / rows) % cols, b = t / (rows * cols);
    const T v = src[b * bs + i + j * ld];
    T r(0);
    switch (part) {
      case MatrixPart::lower: r = i >= j ? v : T(0); break;
      case MatrixPart::upper: r = i <= j ? v : T(0); break;
      case MatrixPart::unit_lower: r = i > j ? v : i == j ? T(1) : T(0); break;
    }
    dst[t] = r;
  }
}

template <class T>
__global__ void pivots_kernel(const std::int64_t* piv, std::int64_t m, std::int64_t k, std::int64_t batch,
                              std::int64_t* perm, T* p, std::int64_t* piv0) {
  const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= batch) return;
  std::int64_t* pb = perm + b * m;
  for (std::int64_t i = 0; i < m; ++i) pb[i] = i;
  for (std::int64_t i = 0; i < k; ++i) {
    const std::int64_t j = piv[b * k + i] - 1;
    if (piv0) piv0[b * k + i] = j;
    const std::int64_t tmp = pb[i];
    pb[i] = pb[j];
    pb[j] = tmp;
  }
  if (p) {
    T* pm = p + b * m * m;
    for (std::int64_t i = 0; i < m * m; ++i) pm[i] = T(0);
    for (std::int64_t i = 0; i < m; ++i) pm[i + pb[i] * m] = T(1);
  }
}

template <class T, class R>
__global__ void scale_kernel(T* x, std::int64_t n, R s) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    x[i] = x[i] * s;
}

template <class T>
__global__ void nonfinite_kernel(const T* x, std::int64_t rows, std::int64_t cols, std::int64_t batch,
                                 Region region, int* out) {
  const std::int64_t per = rows * cols, total = per * batch;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const std::int64_t i = t % rows, j = (t / rows) % cols;
    if ((region == Region::lower && i < j) || (region == Region::upper && i > j)) continue;
    if (!IsFiniteF{}(x[t])) out[t / per] = 1;
  }
}

template <class T>
__global__ void identity_kernel(std::int64_t n, std::int64_t batch, T* out) {
  const std::int64_t total = n * n * batch;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const std::int64_t i = t % n, j = (t / n) % n;
    out[t] = i == j ? T(1) : T(0);
  }
}

}  // namespace

void launch_int_gemm(DType dtype, const IntGemmArgs& args, StreamHandle stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  visit_dtype<kIntegerDTypes>(dtype, "dot_general", [&]<class T>() {
    int_gemm_kernel<T><<<grid_for(args.m * args.n * args.batch, kThreads), kThreads, 0, s>>>(args);
  });
}

void launch_extract(DType dtype, MatrixPart part, std::int64_t rows, std::int64_t cols, std::int64_t batch,
                    const void* src, std::int64_t ld, std::int64_t bs, void* dst, StreamHandle stream) {
  if (rows * cols * batch == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  visit_dtype<kFloatDTypes>(dtype, "linalg", [&]<class T>() {
    using D = Dev<T>;
    extract_kernel<D><<<grid_for(rows * cols * batch, kThreads), kThreads, 0, s>>>(
        part, rows, cols, batch, static_cast<const D*>(src), ld, bs, static_cast<D*>(dst));
  });
}

void launch_pivots_to_perm(const std::int64_t* pivots, std::int64_t m, std::int64_t k, std::int64_t batch,
                           std::int64_t* perm, void* p_matrix, DType dtype, std::int64_t* pivots0,
                           StreamHandle stream) {
  if (batch == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  visit_dtype<kFloatDTypes>(dtype, "linalg.lu", [&]<class T>() {
    using D = Dev<T>;
    pivots_kernel<D><<<grid_for(batch, 64), 64, 0, s>>>(pivots, m, k, batch, perm,
                                                        static_cast<D*>(p_matrix), pivots0);
  });
}

void launch_scale(DType dtype, void* x, std::int64_t n, double scale, StreamHandle stream) {
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  visit_dtype<kFloatDTypes>(dtype, "scale", [&]<class T>() {
    using D = Dev<T>;
    using R = real_t<T>;
    scale_kernel<D, R><<<grid_for(n, kThreads), kThreads, 0, s>>>(static_cast<D*>(x), n, static_cast<R>(scale));
  });
}

void launch_nonfinite_flags(DType dtype, const void* x, std::int64_t rows, std::int64_t cols,
                            std::int64_t batch, Region region, int* out, StreamHandle stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  cudaMemsetAsync(out, 0, static_cast<std::size_t>(batch) * sizeof(int), s);
  const std::int64_t total = rows * cols * batch;
  if (total == 0) return;
  visit_dtype<kFloatDTypes>(dtype, "linalg", [&]<class T>() {
    using D = Dev<T>;
    nonfinite_kernel<D><<<grid_for(total, kThreads), kThreads, 0, s>>>(static_cast<const D*>(x), rows, cols,
                                                                     batch, region, out);
  });
}

void launch_identity(DType dtype, std::int64_t n, std::int64_t batch, void* out, StreamHandle stream) {
  if (n * n * batch == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  visit_dtype<kFloatDTypes>(dtype, "linalg", [&]<class T>() {
    using D = Dev<T>;
    identity_kernel<D><<<grid_for(n * n * batch, kThreads), kThreads, 0, s>>>(n, batch, static_cast<D*>(out));
  });
}

}  // namespace tenferro::cuda::detail
