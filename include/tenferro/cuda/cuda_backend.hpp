#pragma once
/// \file
/// `CudaBackend`: kernels for every primitive on one NVIDIA GPU.
///
/// ```cpp
/// #include <tenferro/cuda.hpp>
/// using namespace tenferro;
/// if (cuda::device_count() > 0) {
///   CudaBackend gpu(0);                                  // device 0, its own stream
///   Tensor a = cuda::to_device(Tensor::ones({256, 256}), gpu);
///   Tensor c = matmul(a, a, gpu);                        // cuBLAS, on gpu's stream
///   Tensor h = cuda::to_host(c, gpu);                    // asynchronous copy
///   gpu.synchronize();                                   // now h may be read
/// }
/// ```
/// A backend owns one CUDA stream on its device; every kernel, cuBLAS /
/// cuSOLVER / cuFFT call and transfer it issues is enqueued on that stream,
/// in order, and returns without waiting. `synchronize()` waits for all of
/// them. Device memory comes from a caching allocator over plain
/// `cudaMalloc` (never managed memory): a freed buffer returns to the
/// backend's cache and is reused by later work on the same stream.
/// Tensors never move between host and device silently: an op on a host
/// tensor with a CUDA backend (or on tensors of two devices) throws a
/// `DeviceError` naming both devices; use `cuda::to_device` / `cuda::to_host`.
///
/// The backend's kernels are the provider "cuda" of every primitive in its
/// `kernels()` registry (tenferro/ops/kernels.hpp); family ops bring their
/// CUDA kernels themselves (fft.fft: cuFFT).
///
/// Note [One stream per backend]: tensors made by one backend may be used by
/// another backend of the same device only after `synchronize()` on the
/// first; within one backend, stream order makes every use safe.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "tenferro/ops/backend.hpp"

namespace tenferro {

namespace cuda {

/// Number of CUDA devices visible to this process (0 without a device or
/// driver; never throws).
int device_count();
/// Why no device is usable ("" when at least one is): the CUDA runtime's
/// error string, e.g. "no CUDA-capable device is detected".
std::string unavailable_reason();

namespace detail {
struct BackendState;
}

}  // namespace cuda

class CudaBackend final : public Backend {
 public:
  /// A backend on CUDA device `ordinal` with a new non-blocking stream.
  /// Throws DeviceError (with the CUDA error string) when the device does
  /// not exist or no driver is present.
  explicit CudaBackend(int ordinal = 0);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  /// "cuda:0", "cuda:1", ...
  std::string_view name() const override { return name_; }
  Device device() const override { return Device::cuda(ordinal_); }
  /// Device memory from the caching allocator (uninitialised).
  std::shared_ptr<Storage> allocate_storage(std::size_t nbytes) override;
  /// Uploads a host constant (asynchronously, on this backend's stream).
  Tensor from_host(const Tensor& host) override;

  /// Waits until all work enqueued on this backend's stream has finished;
  /// throws BackendError if any of it failed.
  void synchronize();
  /// The backend's stream, as a `cudaStream_t` (for interoperating code).
  void* stream() const;
  int ordinal() const { return ordinal_; }
  /// Bytes held by the allocator's cache (free blocks kept for reuse).
  std::size_t cached_bytes() const;
  /// Bytes currently handed out to live storages.
  std::size_t allocated_bytes() const;
  /// Returns the cached free blocks to the driver (cudaFree).
  void empty_cache();

  /// Internal state shared with the module's kernels (handles, caches).
  cuda::detail::BackendState& state() const { return *state_; }

 private:
  void register_kernels();
  int ordinal_;
  std::string name_;
  std::unique_ptr<cuda::detail::BackendState> state_;
};

}  // namespace tenferro
