#include "cuda_test_util.hpp"

namespace tenferro::testing {

bool has_cuda_device() {
  static const bool present = cuda::device_count() > 0;
  return present;
}

CudaBackend& gpu() {
  // Leaked on purpose: destroying it after the CUDA runtime shut down at exit would fail.
  static CudaBackend* backend = new CudaBackend(0);
  return *backend;
}

void CudaTest::SetUp() { TF_SKIP_WITHOUT_CUDA(); }

Tensor upload_same_layout(const Tensor& t) {
  const std::int64_t capacity =
      static_cast<std::int64_t>(t.storage()->nbytes() / dtype_size(t.dtype()));
  Tensor whole(t.storage(), t.dtype(), {capacity}, {1}, 0);
  Tensor d = cuda::to_device(whole, gpu());
  return Tensor(d.storage(), t.dtype(), t.shape(), t.strides(), t.offset());
}

Tensor fetch(const Tensor& device_tensor) { return cuda::download(device_tensor, gpu()); }

}  // namespace tenferro::testing
