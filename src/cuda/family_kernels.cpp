// The CUDA kernels of family ops: adapters from FamilyAttrs to the cuSOLVER
// and cuFFT functions of this module, by op name.
#include "tenferro/cuda/family_kernels.hpp"

#include <cmath>

#include "tenferro/linalg/attrs.hpp"
#include <utility>

namespace tenferro::cuda {
namespace {

CudaBackend& cuda_backend(const char* op, Backend& be) {
  auto* cb = dynamic_cast<CudaBackend*>(&be);
  TF_CHECK(cb != nullptr, DeviceError, op, "the CUDA kernel needs a CudaBackend, got backend '", be.name(),
           "' on ", be.device());
  return *cb;
}

using Kernel = std::vector<Tensor> (*)(const FamilyAttrs&, std::span<const Tensor>, CudaBackend&);

double fft_scale(const std::string& type, const std::string& norm, const DimVec& lengths) {
  double n = 1;
  for (std::int64_t len : lengths) n *= static_cast<double>(len);
  const bool inverse = type == "IFFT" || type == "IRFFT";
  if (norm == "backward") return inverse ? 1.0 / n : 1.0;
  if (norm == "ortho") return 1.0 / std::sqrt(n);
  if (norm == "forward") return inverse ? 1.0 : 1.0 / n;
  TF_THROW(ValueError, "fft.fft", "norm must be \"backward\", \"ortho\" or \"forward\", got \"", norm, "\"");
}

FftKind fft_kind(const std::string& type) {
  if (type == "FFT") return FftKind::FFT;
  if (type == "IFFT") return FftKind::IFFT;
  if (type == "RFFT") return FftKind::RFFT;
  if (type == "IRFFT") return FftKind::IRFFT;
  TF_THROW(ValueError, "fft.fft", "fft_type must be FFT, IFFT, RFFT or IRFFT, got \"", type, "\"");
}

// The cuSOLVER mode string of a typed QR mode.
const char* qr_mode(linalg::QrMode m) {
  switch (m) {
    case linalg::QrMode::reduced: return "reduced";
    case linalg::QrMode::complete: return "complete";
    case linalg::QrMode::r: return "r";
  }
  TF_THROW(ValueError, "linalg.qr", "unknown mode ", static_cast<int>(m));
}

const std::vector<std::pair<std::string, Kernel>>& table() {
  static const std::vector<std::pair<std::string, Kernel>> t{
      {"linalg.svd",
       [](const FamilyAttrs& a, std::span<const Tensor> in, CudaBackend& be) {
         SvdResult r = svd(in[0], a.as<linalg::SvdAttrs>().full_matrices, be);
         return std::vector<Tensor>{r.u, r.s, r.vh};
       }},
      {"linalg.svdvals",
       [](const FamilyAttrs&, std::span<const Tensor> in, CudaBackend& be) {
         return std::vector<Tensor>{svdvals(in[0], be)};
       }},
      {"linalg.qr",
       [](const FamilyAttrs& a, std::span<const Tensor> in, CudaBackend& be) {
         QrResult r = qr(in[0], qr_mode(a.as<linalg::QrMode>()), be);
         return std::vector<Tensor>{r.q, r.r};
       }},
      {"linalg.lu",
       [](const FamilyAttrs& a, std::span<const Tensor> in, CudaBackend& be) {
         LuResult r = lu(in[0], a.as<linalg::LuOptions>().permutation_matrix, be);
         return std::vector<Tensor>{r.perm, r.l, r.u, r.p};
       }},
      {"linalg.lu_factor",
       [](const FamilyAttrs&, std::span<const Tensor> in, CudaBackend& be) {
         LuFactorResult r = lu_factor(in[0], be);
         return std::vector<Tensor>{r.lu, r.pivots};
       }},
      {"linalg.cholesky",
       [](const FamilyAttrs& a, std::span<const Tensor> in, CudaBackend& be) {
         return std::vector<Tensor>{cholesky(in[0], a.as<linalg::TriangleOptions>().lower, be)};
       }},
      {"linalg.eigh",
       [](const FamilyAttrs& a, std::span<const Tensor> in, CudaBackend& be) {
         EighResult r = eigh(in[0], a.as<linalg::TriangleOptions>().lower, be);
         return std::vector<Tensor>{r.eigenvalues, r.eigenvectors};
       }},
      {"linalg.solve",
       [](const FamilyAttrs&, std::span<const Tensor> in, CudaBackend& be) {
         return std::vector<Tensor>{solve(in[0], in[1], be)};
       }},
      {"fft.fft",
       [](const FamilyAttrs& a, std::span<const Tensor> in, CudaBackend& be) {
         const std::string type = a.get<std::string>("fft_type");
         const DimVec& lengths = a.get<DimVec>("fft_length");
         const double scale = fft_scale(type, a.get_or<std::string>("norm", "backward"), lengths);
         return std::vector<Tensor>{fft(in[0], fft_kind(type), a.get<DimVec>("axes"), lengths, scale, be)};
       }},
  };
  return t;
}

}  // namespace

FamilyOp::KernelFn family_kernel(std::string_view op_name) {
  for (const auto& [name, k] : table()) {
    if (name != op_name) continue;
    return [kernel = k, op = name](const FamilyAttrs& attrs, std::span<const Tensor> in, Backend& be) {
      return kernel(attrs, in, cuda_backend(op.c_str(), be));
    };
  }
  return {};
}

std::vector<std::string> family_kernel_names() {
  std::vector<std::string> names;
  for (const auto& [name, k] : table()) names.push_back(name);
  return names;
}

int install_family_kernels(OpFamily& family) {
  int filled = 0;
  for (FamilyOp& op : family.ops)
    if (auto k = family_kernel(op.name)) {
      op.cuda_kernel = std::move(k);
      ++filled;
    }
  return filled;
}

}  // namespace tenferro::cuda
