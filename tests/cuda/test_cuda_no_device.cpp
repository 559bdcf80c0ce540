// What holds on every machine, with or without a GPU: the CUDA library links
// and answers, constructing a backend for a missing device is a DeviceError
// carrying the CUDA runtime's reason, the engine rejects other backends, and
// the family kernel table serves the documented ops.
#include <algorithm>

#include "support/test_support.hpp"
#include "tenferro/cuda.hpp"
#include "tenferro/fft.hpp"
#include "tenferro/linalg.hpp"

using namespace tenferro;
using namespace tenferro::testing;

TEST(CudaNoDevice, DeviceCountAndReasonAgree) {
  const int n = cuda::device_count();
  EXPECT_GE(n, 0);
  const std::string reason = cuda::unavailable_reason();
  if (n == 0) EXPECT_FALSE(reason.empty());
  else EXPECT_TRUE(reason.empty()) << reason;
}

TEST(CudaNoDevice, MissingDeviceIsADeviceErrorWithTheCudaReason) {
  const int n = cuda::device_count();
  // Device n never exists: without a GPU that is device 0.
  try {
    CudaBackend backend(n);
    FAIL() << "constructing CudaBackend(" << n << ") did not throw";
  } catch (const DeviceError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("CudaBackend"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no CUDA device " + std::to_string(n)), std::string::npos) << msg;
    if (n == 0) EXPECT_NE(msg.find(cuda::unavailable_reason()), std::string::npos) << msg;
    else EXPECT_NE(msg.find("invalid device ordinal"), std::string::npos) << msg;
  }
  EXPECT_TRUE(throws_with<DeviceError>([] { CudaBackend b(-1); }, {"CudaBackend", "-1"}));
}

TEST(CudaNoDevice, EngineRejectsNonCudaBackends) {
  CpuBackend cpu;
  EXPECT_TRUE(throws_with<DeviceError>([&] { cuda_engine(cpu); }, {"cuda_engine", "cpu"}));
}

TEST(CudaNoDevice, FamilyKernelTableCoversTheSolversAndFft) {
  std::vector<std::string> names = cuda::family_kernel_names();
  for (const char* want : {"linalg.svd", "linalg.svdvals", "linalg.qr", "linalg.lu", "linalg.lu_factor",
                           "linalg.cholesky", "linalg.eigh", "linalg.solve", "fft.fft"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  EXPECT_FALSE(static_cast<bool>(cuda::family_kernel("linalg.no_such_op")));
  // Every name is an op of its family, so installing fills exactly those.
  OpFamily la = linalg::family(), ff = fft::family();
  const int filled = cuda::install_family_kernels(la) + cuda::install_family_kernels(ff);
  EXPECT_EQ(filled, static_cast<int>(names.size()));
  EXPECT_TRUE(static_cast<bool>(la.op("linalg.svd").cuda_kernel));
  EXPECT_FALSE(static_cast<bool>(la.op("linalg.eig").cuda_kernel));
  // A CUDA kernel refuses a CPU backend, naming the op.
  CpuBackend cpu;
  Tensor a = Tensor::eye(3);
  EXPECT_TRUE(throws_with<DeviceError>([&] { la.op("linalg.qr").cuda_kernel({}, {{a}}, cpu); },
                                       {"linalg.qr", "CudaBackend", "cpu"}));
}
