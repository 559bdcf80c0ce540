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

TEST(CudaNoDevice, FamiliesRegisterTheirCudaKernels) {
  // Registering the fft family puts cuFFT on cuda and the host provider on
  // cpu; linalg puts cuSOLVER on cuda for the ops it has, LAPACK on cpu.
  KernelRegistry r;
  const OpFamily& ff = fft::family();
  const FamilyOp& op = ff.op("fft.fft");
  r.register_family(ff);
  r.register_family(ff);  // idempotent
  EXPECT_EQ(r.provider_names(op, DeviceKind::cuda), std::vector<std::string>{"cufft"});
  EXPECT_EQ(r.provider_names(op, DeviceKind::cpu), std::vector<std::string>{"fft"});
  r.register_family(linalg::family());
  EXPECT_EQ(r.provider_names(linalg::family().op("linalg.svd"), DeviceKind::cuda),
            std::vector<std::string>{"cusolver"});
  EXPECT_EQ(r.provider_names(linalg::family().op("linalg.svd"), DeviceKind::cpu), std::vector<std::string>{"lapack"});
  EXPECT_TRUE(r.provider_names(linalg::family().op("linalg.lstsq"), DeviceKind::cuda).empty());
  // The cuFFT kernel declines a backend that is not a CudaBackend, leaving
  // the call to the next provider (none here).
  CpuBackend cpu;
  Tensor x = Tensor::zeros({4}, DType::c128);
  fft::TransformAttrs t{.type = fft::FftType::FFT, .axes = {0}, .lengths = {4}};
  EXPECT_FALSE(r.providers(op, DeviceKind::cuda)->front().kernel(FamilyAttrs::of(t), {{x}}, cpu).has_value());
}
