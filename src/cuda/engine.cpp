// cuda_engine: the traced runtime's entry point for CUDA backends.
#include "tenferro/cuda/engine.hpp"

namespace tenferro {

std::shared_ptr<Engine> cuda_engine(Backend& backend) {
  TF_CHECK(backend.device().kind == DeviceKind::cuda, DeviceError, "cuda_engine", "backend '",
           backend.name(), "' runs on ", backend.device(), ", not on a CUDA device");
  return std::make_shared<Engine>(backend, std::string(backend.name()));
}

}  // namespace tenferro
