#pragma once
/// \file
/// Explicit host <-> device transfers (the only way a tensor changes device).
///
/// ```cpp
/// using namespace tenferro;
/// CudaBackend gpu;
/// Tensor x = Tensor::uniform({3, 4}, DType::f32, 1);
/// Tensor d = cuda::to_device(x, gpu);         // enqueued on gpu's stream
/// Tensor y = cuda::to_host(d, gpu);           // enqueued; pinned host memory
/// gpu.synchronize();                          // y is complete from here on
/// Tensor z = cuda::download(d, gpu);          // to_host + synchronize
/// ```
/// Every transfer is asynchronous on the backend's stream. A strided source
/// is first made column-major contiguous on its own device; the result is
/// always a fresh column-major tensor. `to_host` writes into page-locked
/// (pinned) host memory, so the copy really overlaps: read the result only
/// after `synchronize()`. The source of `to_device` may be changed or freed
/// as soon as the call returns.

#include "tenferro/cuda/cuda_backend.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::cuda {

/// A copy of host tensor `host` on `backend`'s device.
Tensor to_device(const Tensor& host, CudaBackend& backend);
/// A copy of device tensor `device_tensor` (on `backend`'s device) in pinned
/// host memory; complete after `backend.synchronize()`.
Tensor to_host(const Tensor& device_tensor, CudaBackend& backend);
/// `to_host` followed by `backend.synchronize()`.
Tensor download(const Tensor& device_tensor, CudaBackend& backend);
/// `to_device` (uploads are asynchronous, too).
Tensor upload(const Tensor& host, CudaBackend& backend);
/// The tensor on `device`: itself when already there, else `to_device` or
/// `to_host` (DeviceError for a CUDA device other than the backend's).
Tensor to(const Tensor& t, Device device, CudaBackend& backend);
/// A column-major contiguous copy of a device tensor on the same device
/// (any layout in), on `backend`'s stream.
Tensor duplicate(const Tensor& device_tensor, CudaBackend& backend);

}  // namespace tenferro::cuda
