#pragma once
/// \file
/// The CUDA backend: `CudaBackend`, explicit transfers, and cuSOLVER /
/// cuFFT implementations of the linalg and fft family ops (traced programs
/// run on it through `backend_engine(gpu)`, tenferro/runtime/runtime.hpp). Available when tenferro is built with CUDA
/// (`-DTENFERRO_WITH_CUDA=AUTO|ON`, target `tenferro::cuda`); like
/// tenferro/cpu.hpp it also brings in the ops (tenferro/ops.hpp).
///
/// ```cpp
/// #include <tenferro/cuda.hpp>
/// using namespace tenferro;
/// CudaBackend gpu;                                   // DeviceError without a GPU
/// Tensor a = cuda::to_device(Tensor::normal({64, 64}, DType::c128, 1), gpu);
/// Tensor b = ops::exp(matmul(a, a, gpu), gpu);      // same API as on the CPU
/// Tensor h = cuda::download(b, gpu);                 // explicit, then synchronized
/// ```

#include "tenferro/cuda/cuda_backend.hpp"
#include "tenferro/cuda/functions.hpp"
#include "tenferro/cuda/transfer.hpp"
#include "tenferro/ops.hpp"
