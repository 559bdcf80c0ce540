#pragma once
// Private state of a CudaBackend and the helpers its host code shares:
// CUDA error checks, the device guard, the caching allocator, library
// handles, and the host-side kernel entry points (dispatched by execute).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>

#include "launch.hpp"
#include "tenferro/cuda/cuda_backend.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::cuda::detail {

/// Throws BackendError "<op>: <what> failed: <CUDA error string>" unless ok.
void check_cuda(cudaError_t status, const char* op, const char* what);
void check_cublas(cublasStatus_t status, const char* op, const char* what);
void check_cusolver(cusolverStatus_t status, const char* op, const char* what);

/// Makes `device` current for the scope (restores the previous one).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
  int device_;
};

/// Caching allocator over cudaMalloc for one device and one stream: freed
/// blocks are kept in size-ordered free lists and reused for later requests
/// (safe because every user of the blocks runs on the same stream). Request
/// sizes are rounded (512 B up to 1 MiB, 2 MiB above); a free block is
/// reused when it is at most twice the rounded request. When cudaMalloc
/// fails, the cache is returned to the driver and the allocation retried.
class Allocator {
 public:
  explicit Allocator(int device);
  ~Allocator();
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  /// `nbytes` of device memory as a Storage that returns it to this cache;
  /// `self` is kept alive by the storage.
  static std::shared_ptr<Storage> allocate(const std::shared_ptr<Allocator>& self, std::size_t nbytes,
                                           const char* op);
  void release_cache();
  std::size_t cached_bytes() const;
  std::size_t allocated_bytes() const;

 private:
  static void free_block(void* data, std::size_t nbytes, void* context);
  int device_;
  mutable std::mutex mutex_;
  std::multimap<std::size_t, void*> free_;
  std::unordered_map<void*, std::size_t> live_;  // block -> its size
  std::size_t cached_ = 0, in_use_ = 0;
};

struct FftPlanCache;  // fft.cpp
void destroy_fft_cache(FftPlanCache* cache);

struct BackendState {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::shared_ptr<Allocator> allocator;
  cublasHandle_t cublas = nullptr;        // created on first use
  cusolverDnHandle_t cusolver = nullptr;  // created on first use
  std::unique_ptr<FftPlanCache, void (*)(FftPlanCache*)> fft{nullptr, &destroy_fft_cache};
  std::mutex handle_mutex;

  cublasHandle_t cublas_handle();
  cusolverDnHandle_t cusolver_handle();
  StreamHandle stream_handle() const { return stream; }
};

// ---- host entry points of the kernel families (dispatched by CudaBackend::execute) ----
void elementwise(CudaBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in,
                 const Tensor& out);
void reduce(CudaBackend& be, OpKind kind, const DimVec& axes, const Tensor& in, const Tensor& out);
void dot_general(CudaBackend& be, const DotGeneralAttrs& attrs, const Tensor& lhs, const Tensor& rhs,
                 const Tensor& out);
void structural(CudaBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in,
                const Tensor& out);

/// dst = src elementwise (same shape and dtype; any layouts; no overlap), on
/// the backend's stream: cudaMemcpyAsync when both are the same contiguous
/// run, the tiled transpose when their fast axes differ, else the strided copy.
/// `src_delta`/`dst_delta`: optional device int64 offsets (dynamic slices).
void copy(CudaBackend& be, const Tensor& dst, const Tensor& src, const std::int64_t* src_delta = nullptr,
          const std::int64_t* dst_delta = nullptr);
/// A column-major contiguous version of device tensor `t` (itself when it is one).
Tensor contiguous(CudaBackend& be, const Tensor& t);
/// A view of `t`'s storage with another layout.
Tensor restride(const Tensor& t, Shape shape, Strides strides, std::int64_t offset);
/// Fills a device tensor (any layout without stride-0 axes) with zeros.
void fill_zero(CudaBackend& be, const Tensor& t);

}  // namespace tenferro::cuda::detail
