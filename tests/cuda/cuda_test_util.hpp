#pragma once
// Helpers of the CUDA tests: the shared backend, the skip without a device,
// layout-preserving uploads and comparisons against the CPU backend.
#include "support/test_support.hpp"
#include "tenferro/cuda.hpp"

namespace tenferro::testing {

/// True when a CUDA device is visible.
bool has_cuda_device();
/// The backend on device 0 shared by the tests (never destroyed).
CudaBackend& gpu();

/// Fixture base: skips with "no CUDA device" when there is none.
class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

/// A device tensor with the same shape, strides and offset as host tensor
/// `t` (its whole storage is uploaded), so kernels see the same layouts.
Tensor upload_same_layout(const Tensor& t);
/// The values of a device tensor, on the host (synchronized).
Tensor fetch(const Tensor& device_tensor);

}  // namespace tenferro::testing

#define TF_SKIP_WITHOUT_CUDA()                                                           \
  do {                                                                                   \
    if (!::tenferro::testing::has_cuda_device())                                         \
      GTEST_SKIP() << "no CUDA device (" << ::tenferro::cuda::unavailable_reason() << ")"; \
  } while (0)
