// The CUDA kernels of the linalg ops cuSOLVER has (tenferro/cuda/functions.hpp),
// registered by the family as provider "cusolver" for DeviceKind::cuda.
// Each declines a backend on a CUDA device that is not a CudaBackend.
#include "ops.hpp"

#if TENFERRO_LINALG_WITH_CUDA
#include "tenferro/cuda/functions.hpp"
#include "tenferro/ops/primitives.hpp"
#endif

namespace tenferro::linalg::detail {

#if TENFERRO_LINALG_WITH_CUDA
namespace {

using Outputs = std::optional<std::vector<Tensor>>;

const char* qr_mode(QrMode m) {
  switch (m) {
    case QrMode::reduced: return "reduced";
    case QrMode::complete: return "complete";
    case QrMode::r: return "r";
  }
  TF_THROW(ValueError, "linalg.qr", "unknown mode ", static_cast<int>(m));
}

// Adds `kernel(const A&, inputs, CudaBackend&) -> std::vector<Tensor>` for
// the op of row `index`.
template <class A, class Kernel>
void add(const OpFamily& f, KernelRegistry& registry, OpIndex index, Kernel kernel) {
  registry.add(f.ops[static_cast<std::size_t>(index)], DeviceKind::cuda, "cusolver",
               [kernel](const FamilyAttrs& attrs, std::span<const Tensor> in, Backend& backend) -> Outputs {
                 auto* gpu = dynamic_cast<CudaBackend*>(&backend);
                 if (gpu == nullptr) return std::nullopt;
                 return kernel(attrs.as<A>(), in, *gpu);
               });
}

}  // namespace

void register_cuda_kernels(const OpFamily& f, KernelRegistry& r) {
  using V = std::vector<Tensor>;
  using In = std::span<const Tensor>;
  add<SvdAttrs>(f, r, OpIndex::svd, [](const SvdAttrs& a, In in, CudaBackend& be) {
    cuda::SvdResult x = cuda::svd(in[0], a.full_matrices, be);
    return V{x.u, x.s, x.vh};
  });
  add<NoFamilyAttrs>(f, r, OpIndex::svdvals,
                     [](const NoFamilyAttrs&, In in, CudaBackend& be) { return V{cuda::svdvals(in[0], be)}; });
  add<QrMode>(f, r, OpIndex::qr, [](const QrMode& a, In in, CudaBackend& be) {
    cuda::QrResult x = cuda::qr(in[0], qr_mode(a), be);
    return V{x.q, x.r};
  });
  add<LuOptions>(f, r, OpIndex::lu, [](const LuOptions& a, In in, CudaBackend& be) {
    cuda::LuResult x = cuda::lu(in[0], a.permutation_matrix, be);
    return V{x.perm, x.l, x.u, x.p};
  });
  add<NoFamilyAttrs>(f, r, OpIndex::lu_factor, [](const NoFamilyAttrs&, In in, CudaBackend& be) {
    cuda::LuFactorResult x = cuda::lu_factor(in[0], be);
    return V{x.lu, x.pivots};
  });
  add<TriangleOptions>(f, r, OpIndex::cholesky, [](const TriangleOptions& a, In in, CudaBackend& be) {
    return V{cuda::cholesky(in[0], a.lower, be)};
  });
  add<TriangleOptions>(f, r, OpIndex::eigh, [](const TriangleOptions& a, In in, CudaBackend& be) {
    cuda::EighResult x = cuda::eigh(in[0], a.lower, be);
    return V{x.eigenvalues, x.eigenvectors};
  });
  add<NoFamilyAttrs>(f, r, OpIndex::solve,
                     [](const NoFamilyAttrs&, In in, CudaBackend& be) { return V{cuda::solve(in[0], in[1], be)}; });
  // Note [Dual basis] (svd.cpp): a copy of the factor.
  add<NoFamilyAttrs>(f, r, OpIndex::dual_basis, [](const NoFamilyAttrs&, In in, CudaBackend& be) {
    return V{ops::convert(in[0], in[0].dtype(), be)};
  });
  // Note [Solves that keep the factors] (lu.cpp): getrs on given factors is
  // not wrapped for CUDA yet, so this kernel factors a again (right values,
  // without the saving). (a^H)^-1 b = conj((a^T)^-1 conj(b)).
  add<Transpose>(f, r, OpIndex::solve_factored, [](const Transpose& t, In in, CudaBackend& be) {
    const Tensor& a = in[0];
    if (t == Transpose::none) return V{cuda::solve(a, in[3], be)};
    if (t == Transpose::transpose || !is_complex(a.dtype())) return V{cuda::solve(a.transpose(), in[3], be)};
    return V{ops::conj(cuda::solve(a.transpose(), ops::conj(in[3], be), be), be)};
  });
}
#else
void register_cuda_kernels(const OpFamily&, KernelRegistry&) {}
#endif

}  // namespace tenferro::linalg::detail
