#pragma once
/// \file
/// `WebGpuBackend`: WGSL compute kernels on one WebGPU adapter (wgpu-native),
/// for f32, c64 (pairs of f32), i32 and bool tensors.
///
/// ```cpp
/// #include <tenferro/webgpu.hpp>
/// using namespace tenferro;
/// if (webgpu::unavailable_reason().empty()) {
///   WebGpuBackend gpu;                                   // first adapter (lavapipe: "llvmpipe")
///   Tensor a = webgpu::to_device(Tensor::ones({256, 256}, DType::f32), gpu);
///   Tensor c = matmul(a, a, gpu);                        // tiled WGSL GEMM
///   Tensor h = webgpu::to_host(c, gpu);                  // synchronous download
///   bool ok = webgpu::supports(OpKind::exp, DType::f64); // false: WGSL has no f64
/// }
/// ```
/// Work is submitted to the device's one queue in program order and runs
/// asynchronously; `to_host` and `synchronize()` wait for it. Buffers come
/// from a cache owned by the backend: a freed tensor's buffer is reused by
/// later allocations of a similar size (compiled programs that run again
/// reuse their buffers). Tensors never move silently: an op on a host
/// tensor with a WebGPU backend, or on tensors of two devices, throws a
/// `DeviceError` naming both devices.
///
/// Coverage (`webgpu::supports`, the table in docs/webgpu.md): dtypes f32,
/// c64, i32 and bool; f64, c128 and i64 are refused with an
/// `UnimplementedError` naming the dtype (WGSL has no 64-bit types), already
/// by `to_device`. Elementwise ops but the special functions (erf, lgamma,
/// Bessel, ...), reductions, dot_general (batched tiled GEMM) and the
/// structural ops (transpose, reshape, broadcast_in_dim, slice, reverse,
/// pad, concatenate, and gather, scatter and the dynamic slices with i32
/// indices) run on the device. A refused call throws before anything is
/// written.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "tenferro/ops/backend.hpp"

namespace tenferro {

namespace webgpu {

/// Why no WebGPU adapter can be used ("" when one can): wgpu-native's
/// message from the adapter request. Never throws.
std::string unavailable_reason();
/// Whether the backend's kernels run primitive `op` on operands of dtype
/// `dtype` (the first operand's dtype; for `convert` both ends must be
/// supported, for `select` the value dtype).
bool supports(OpKind op, DType dtype);

/// What wgpu-native reports about the adapter.
struct AdapterInfo {
  std::string vendor, architecture, device, description;
  std::string backend_type;  ///< "Vulkan", "Metal", ...
  std::string adapter_type;  ///< "CPU" (lavapipe), "DiscreteGPU", "IntegratedGPU", "Unknown"
};

namespace detail {
struct State;
}

}  // namespace webgpu

class WebGpuBackend final : public Backend {
 public:
  /// A backend on the first adapter wgpu-native offers (high-performance
  /// preference), with its own device and queue. Throws DeviceError with
  /// wgpu-native's reason when there is no adapter or the device request
  /// fails.
  WebGpuBackend();
  ~WebGpuBackend() override;
  WebGpuBackend(const WebGpuBackend&) = delete;
  WebGpuBackend& operator=(const WebGpuBackend&) = delete;

  /// "webgpu:0", "webgpu:1", ... (one index per backend object)
  std::string_view name() const override { return name_; }
  Device device() const override { return Device::webgpu(index_); }
  /// A device buffer from the cache (uninitialised).
  std::shared_ptr<Storage> allocate_storage(std::size_t nbytes) override;
  /// Uploads a host constant (`webgpu::to_device`).
  Tensor from_host(const Tensor& host) override;
  /// A fused elementwise chain as one WGSL kernel (one read and one write
  /// per element); step by step when it has more inputs than the device
  /// binds per shader.
  void execute_fused(const FusedElementwise& kernel, std::span<const Tensor> inputs, const Tensor& output) override;

  /// Waits until all submitted work has finished.
  void synchronize();
  const webgpu::AdapterInfo& adapter_info() const { return info_; }
  /// Bytes held by the buffer cache (free buffers kept for reuse).
  std::size_t cached_bytes() const;
  /// Bytes of buffers handed out to live storages.
  std::size_t allocated_bytes() const;
  /// Releases the cached free buffers.
  void empty_cache();

  /// Internal state shared with the module's kernels.
  webgpu::detail::State& state() const { return *state_; }

 private:
  void register_kernels();
  int index_;
  std::string name_;
  webgpu::AdapterInfo info_;
  std::shared_ptr<webgpu::detail::State> state_;
};

namespace webgpu {

/// A copy of host tensor `host` on `backend`'s device (any layout in; the
/// copy is column-major). UnimplementedError for f64, c128 and i64,
/// DeviceError for a tensor that is not on the host.
Tensor to_device(const Tensor& host, WebGpuBackend& backend);
/// A column-major host copy of device tensor `device_tensor` (any layout);
/// waits for the queue. DeviceError for a tensor of another device.
Tensor to_host(const Tensor& device_tensor, WebGpuBackend& backend);

}  // namespace webgpu

}  // namespace tenferro
