// Explicit host <-> device transfers on the backend's stream.
#include "tenferro/cuda/transfer.hpp"

#include "state.hpp"

namespace tenferro::cuda {
namespace {

void free_pinned(void* p, std::size_t, void*) {
  if (p != nullptr) cudaFreeHost(p);
}

void no_free(void*, std::size_t, void*) {}

// Page-locked host memory (so device-to-host copies really are asynchronous).
std::shared_ptr<Storage> allocate_pinned(std::size_t nbytes) {
  if (nbytes == 0) return std::make_shared<Storage>(nullptr, 0, Device::cpu(), &no_free, nullptr);
  void* p = nullptr;
  detail::check_cuda(cudaMallocHost(&p, nbytes), "to_host", "cudaMallocHost");
  return std::make_shared<Storage>(p, nbytes, Device::cpu(), &free_pinned, nullptr);
}

bool is_pinned(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace

Tensor to_device(const Tensor& host, CudaBackend& backend) {
  TF_CHECK(host.defined(), ValueError, "to_device", "tensor is undefined");
  TF_CHECK(host.device().is_cpu(), DeviceError, "to_device", "tensor is on ", host.device(),
           ", not on the host (backend '", backend.name(), "')");
  detail::DeviceGuard guard(backend.ordinal());
  Tensor src = host.contiguous();
  const std::size_t bytes = static_cast<std::size_t>(src.numel()) * dtype_size(src.dtype());
  std::shared_ptr<Storage> storage = backend.allocate_storage(bytes);
  if (bytes > 0) {
    detail::check_cuda(cudaMemcpyAsync(storage->data(), src.data_ptr(), bytes, cudaMemcpyHostToDevice,
                                       static_cast<cudaStream_t>(backend.stream())),
                       "to_device", "cudaMemcpyAsync");
    // From pageable memory the copy has consumed the source when it returns;
    // from pinned memory it may still be reading: wait for it.
    if (is_pinned(src.data_ptr())) backend.synchronize();
  }
  return Tensor(std::move(storage), src.dtype(), src.shape(), col_major_strides(src.shape()), 0);
}

Tensor upload(const Tensor& host, CudaBackend& backend) { return to_device(host, backend); }

Tensor to_host(const Tensor& device_tensor, CudaBackend& backend) {
  TF_CHECK(device_tensor.defined(), ValueError, "to_host", "tensor is undefined");
  TF_CHECK(device_tensor.device() == backend.device(), DeviceError, "to_host", "tensor is on ",
           device_tensor.device(), " but backend '", backend.name(), "' runs on ", backend.device());
  detail::DeviceGuard guard(backend.ordinal());
  Tensor src = detail::contiguous(backend, device_tensor);
  const std::size_t bytes = static_cast<std::size_t>(src.numel()) * dtype_size(src.dtype());
  std::shared_ptr<Storage> storage = allocate_pinned(bytes);
  if (bytes > 0)
    detail::check_cuda(cudaMemcpyAsync(storage->data(), src.data_ptr(), bytes, cudaMemcpyDeviceToHost,
                                       static_cast<cudaStream_t>(backend.stream())),
                       "to_host", "cudaMemcpyAsync");
  return Tensor(std::move(storage), src.dtype(), src.shape(), col_major_strides(src.shape()), 0);
}

Tensor download(const Tensor& device_tensor, CudaBackend& backend) {
  Tensor t = to_host(device_tensor, backend);
  backend.synchronize();
  return t;
}

Tensor to(const Tensor& t, Device device, CudaBackend& backend) {
  TF_CHECK(t.defined(), ValueError, "to", "tensor is undefined");
  if (t.device() == device) return t;
  if (device.is_cpu()) return to_host(t, backend);
  TF_CHECK(device == backend.device(), DeviceError, "to", "target ", device, " is not the device of backend '",
           backend.name(), "'");
  return to_device(t, backend);
}

Tensor duplicate(const Tensor& device_tensor, CudaBackend& backend) {
  TF_CHECK(device_tensor.defined(), ValueError, "duplicate", "tensor is undefined");
  TF_CHECK(device_tensor.device() == backend.device(), DeviceError, "duplicate", "tensor is on ",
           device_tensor.device(), " but backend '", backend.name(), "' runs on ", backend.device());
  detail::DeviceGuard guard(backend.ordinal());
  Tensor out = backend.empty(device_tensor.dtype(), device_tensor.shape());
  detail::copy(backend, out, device_tensor);
  return out;
}

}  // namespace tenferro::cuda
