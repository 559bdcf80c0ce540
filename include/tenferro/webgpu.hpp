#pragma once
/// \file
/// The WebGPU backend (experimental): `WebGpuBackend` on wgpu-native, explicit
/// transfers, and the coverage of its WGSL kernels. Available when tenferro is
/// built with wgpu-native (`-DTENFERRO_WITH_WEBGPU=AUTO|ON`, target
/// `tenferro::webgpu`; scripts/setup_webgpu.sh installs it and Mesa's
/// lavapipe, a software Vulkan device). Traced programs run on it through
/// `backend_engine(gpu)` (tenferro/runtime/runtime.hpp). Like
/// tenferro/cpu.hpp it also brings in the ops (tenferro/ops.hpp).
///
/// ```cpp
/// #include <tenferro/webgpu.hpp>
/// using namespace tenferro;
/// WebGpuBackend gpu;                                  // DeviceError without an adapter
/// Tensor a = webgpu::to_device(Tensor::normal({64, 64}, DType::f32, 1), gpu);
/// Tensor b = ops::exp(matmul(a, a, gpu), gpu);       // WGSL kernels, same API as on the CPU
/// Tensor h = webgpu::to_host(b, gpu);                 // explicit; waits for the queue
/// ```

#include "tenferro/ops.hpp"
#include "tenferro/webgpu/webgpu_backend.hpp"
