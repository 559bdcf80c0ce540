// CpuBackend: storage, threads, and the registration of its kernels (one per OpKind).
#include "tenferro/cpu/cpu_backend.hpp"

#include "tenferro/ops/kernels.hpp"

#include <dlfcn.h>
#include <omp.h>

#include "blas.hpp"
#include "buffer_cache.hpp"
#include "kernels.hpp"

// A new row in ops.def must get a kernel here: no default case.
#pragma GCC diagnostic push  // popped at the end: a unity build includes the next file after this one
#pragma GCC diagnostic error "-Wswitch-enum"

namespace tenferro {

void set_num_threads(int n) {
  TF_CHECK(n >= 1, ValueError, "set_num_threads", "thread count must be >= 1, got ", n);
  detail::store_num_threads(n);
  if (cpu::blas::openblas_set_num_threads != nullptr) cpu::blas::openblas_set_num_threads(n);
}

std::string blas_info() {
  std::string info;
  if (cpu::blas::openblas_get_config != nullptr) info = cpu::blas::openblas_get_config();
  if (cpu::blas::openblas_get_corename != nullptr)
    info += std::string(", core ") + cpu::blas::openblas_get_corename();
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(&cpu::blas::dgemm_), &where) != 0 &&
      where.dli_fname != nullptr)
    info += (info.empty() ? "" : ", ") + std::string(where.dli_fname);
  return info.empty() ? "unknown BLAS" : info;
}

namespace {

// The kernels of this backend, by category; each always accepts.
bool run_elementwise(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out, Backend&) {
  cpu::elementwise(kind, attrs, in, out);
  return true;
}
bool run_reduce(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out, Backend&) {
  cpu::reduce(kind, std::get<AxesAttrs>(attrs).dimensions, in[0], out);
  return true;
}
bool run_dot_general(OpKind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out, Backend& backend) {
  cpu::dot_general(std::get<DotGeneralAttrs>(attrs), in[0], in[1], out, backend);
  return true;
}
bool run_structural(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out, Backend&) {
  cpu::structural(kind, attrs, in, out);
  return true;
}

using KernelPtr = bool (*)(OpKind, const Attrs&, std::span<const Tensor>, const Tensor&, Backend&);

KernelPtr kernel_for(OpKind kind) {
  // By the op table's category: every primitive has a kernel.
  switch (op_info(kind).category) {
    case OpCategory::unary:
    case OpCategory::binary:
    case OpCategory::ternary: return run_elementwise;
    case OpCategory::reduction: return run_reduce;
    case OpCategory::contraction: return run_dot_general;
    case OpCategory::structural: return run_structural;
  }
  TF_INTERNAL_ASSERT(false, "CpuBackend: unknown op category");
}

}  // namespace

void register_cpu_kernels(KernelRegistry& registry) {
  for (int k = 0; k < kNumOps; ++k) {
    const OpKind kind = static_cast<OpKind>(k);
    registry.add(kind, DeviceKind::cpu, "cpu", kernel_for(kind));
  }
}

CpuBackend::CpuBackend() : cache_(std::make_shared<cpu::BufferCache>(cpu::default_cache_limit())) {
  register_cpu_kernels(kernels());
}

CpuBackend::CpuBackend(int num_threads) : CpuBackend() { set_num_threads(num_threads); }

std::shared_ptr<Storage> CpuBackend::allocate_storage(std::size_t nbytes) { return cache_->allocate(nbytes); }
std::size_t CpuBackend::cached_bytes() const { return cache_->cached_bytes(); }
void CpuBackend::empty_cache() { cache_->clear(); }

void CpuBackend::execute_fused(const FusedElementwise& kernel, std::span<const Tensor> inputs,
                               const Tensor& output) {
  cpu::fused_elementwise(kernel, inputs, output);
}

}  // namespace tenferro

#pragma GCC diagnostic pop
