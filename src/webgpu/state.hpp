// Private state of a WebGpuBackend: the wgpu-native handles, the buffer
// cache, the pipeline cache, and the helpers the kernels dispatch with.
#pragma once

#include <webgpu.h>
#include <wgpu.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tenferro/tensor/tensor.hpp"
#include "tenferro/webgpu/webgpu_backend.hpp"

namespace tenferro::webgpu::detail {

/// A compiled compute pipeline and its bind-group layout.
struct Pipeline {
  WGPUComputePipeline pipeline = nullptr;
  WGPUBindGroupLayout layout = nullptr;
};

/// One buffer bound to a dispatch: binding i + 1 (binding 0 is the i32
/// metadata array).
struct Binding {
  WGPUBuffer buffer;
  std::uint64_t size;  ///< bytes, a multiple of 4
};

struct State {
  WGPUInstance instance = nullptr;
  WGPUAdapter adapter = nullptr;
  WGPUDevice device = nullptr;
  WGPUQueue queue = nullptr;
  WGPULimits limits{};
  std::string name;
  // Errors wgpu-native reports through the uncaptured-error callback,
  // turned into BackendError by the next check_errors().
  std::string pending_error;
  std::recursive_mutex mutex;  // one thread at a time talks to the device

  // Buffer cache: size (rounded) -> free buffers; live buffers and their size.
  std::multimap<std::uint64_t, WGPUBuffer> free_buffers;
  std::unordered_map<WGPUBuffer, std::uint64_t> live_buffers;
  std::size_t cached = 0, in_use = 0;

  std::unordered_map<std::string, Pipeline> pipelines;
  WGPUBuffer dummy = nullptr;  // bound in place of an empty tensor's (absent) buffer
  WGPUBuffer dummy_buffer();

  ~State();
  /// Throws BackendError naming `op` when wgpu-native reported an error.
  void check_errors(const char* op);
  /// A pipeline for WGSL `source` (entry point "main"), compiled once.
  const Pipeline& pipeline(const std::string& source, const char* op);
  /// Encodes and submits one dispatch of `p` with metadata `meta` (binding
  /// 0) and `bindings` (1, 2, ...).
  void dispatch(const Pipeline& p, const std::vector<std::int32_t>& meta, const std::vector<Binding>& bindings,
                std::uint32_t gx, std::uint32_t gy, std::uint32_t gz, const char* op);
  /// A buffer of at least `nbytes` (rounded up) from the cache or the device.
  WGPUBuffer acquire(std::uint64_t nbytes, std::uint64_t& rounded, const char* op);
  /// Copies `nbytes` from `src` to `dst` on the queue.
  void copy_buffer(WGPUBuffer src, std::uint64_t src_off, WGPUBuffer dst, std::uint64_t dst_off, std::uint64_t nbytes);
  /// Reads `nbytes` at `offset` of `buffer` into `out` (waits).
  void read_buffer(WGPUBuffer buffer, std::uint64_t offset, std::uint64_t nbytes, void* out, const char* op);
  /// Waits for all submitted work.
  void wait_idle();
};

/// The WGPUBuffer of a device tensor's storage.
inline WGPUBuffer buffer_of(const Tensor& t) { return static_cast<WGPUBuffer>(t.storage()->data()); }
/// The bound size of a storage's buffer (its bytes rounded up to 4, at least 4).
inline std::uint64_t bound_size(const Tensor& t) {
  std::uint64_t n = t.storage()->nbytes();
  return n < 4 ? 4 : (n + 3) / 4 * 4;
}

// ---- kernels (kernels.cpp) ----
void elementwise(WebGpuBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out);
/// A fused elementwise chain in one pass (tenferro/ops/fused.hpp).
void fused(WebGpuBackend& be, const FusedElementwise& k, std::span<const Tensor> in, const Tensor& out);
void reduce(WebGpuBackend& be, OpKind kind, const DimVec& axes, const Tensor& in, const Tensor& out);
void dot_general(WebGpuBackend& be, const DotGeneralAttrs& attrs, const Tensor& lhs, const Tensor& rhs,
                 const Tensor& out);
void structural(WebGpuBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out);
/// out = in elementwise (any layouts of equal shape, equal dtype).
void copy(WebGpuBackend& be, const Tensor& in, const Tensor& out);
/// Throws UnimplementedError when `op` on `dtype` is not covered.
void check_supported(OpKind op, DType dtype, DType out_dtype);

}  // namespace tenferro::webgpu::detail
