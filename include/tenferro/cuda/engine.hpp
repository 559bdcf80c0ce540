#pragma once
/// \file
/// `cuda_engine`: runs compiled (traced) programs on a CudaBackend.
///
/// ```cpp
/// using namespace tenferro;
/// CudaBackend gpu;
/// Runtime rt = Runtime::builder().register_engine(cuda_engine(gpu)).build();
/// auto out = rt.run_compiled(program, {{"x", cuda::to_device(x, gpu)}});
/// Tensor y = cuda::download(out[0], gpu);
/// ```
/// A run picks the engine of its inputs' device, so one runtime may hold a
/// CPU and a CUDA engine. Inputs must already be on the device; constants
/// baked into a program are host tensors and the runtime rejects them on a
/// CUDA engine (see docs/cuda.md, "Known gaps").

#include <memory>

#include "tenferro/runtime/runtime.hpp"

namespace tenferro {

/// An engine over a CUDA backend (DeviceError for a backend on another device kind).
std::shared_ptr<Engine> cuda_engine(Backend& backend);

}  // namespace tenferro
