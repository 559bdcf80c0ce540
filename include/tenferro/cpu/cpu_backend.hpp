#pragma once
/// \file
/// `CpuBackend`: kernels for every primitive on host memory.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// tenferro::CpuBackend cpu;          // uses the current thread setting
/// tenferro::set_num_threads(2);      // our kernels and BLAS, process-wide
/// auto c = tenferro::matmul(a, b, cpu);
/// ```
/// Elementwise kernels walk any strides (coalescing axes that are
/// contiguous for every operand), reductions split work so that no two
/// threads write one output, `transpose` is the cache-blocked strided copy
/// split across threads, and `dot_general` maps onto BLAS GEMM through
/// leading dimensions and transpose flags without copying whenever the
/// operands' axes are already grouped (Note [GEMM mapping] in
/// src/cpu/dot_general.cpp). The kernels are the provider "cpu" in the
/// backend's `kernels()` registry (tenferro/ops/kernels.hpp): providers
/// added later (e.g. BLIS for dot_general) run first and may decline.
///
/// **Threads.** One `CpuBackend` may run ops from several threads at once
/// (its buffer cache is locked; kernels keep no state). Add kernel
/// providers (`kernels().add`) before that: the registry's per-op lookup
/// takes no lock. `set_num_threads` is one process-wide value that every
/// thread sees (Note [One thread setting], tenferro/ops/backend.hpp); the
/// parallel kernels of concurrent calls each use that many threads.

#include <string>

#include "tenferro/ops/backend.hpp"

namespace tenferro {

/// Sets the thread count of tenferro's CPU kernels and of the BLAS library
/// (process-wide, seen by every thread; read it with `get_num_threads`,
/// tenferro/ops/backend.hpp). `n` >= 1.
void set_num_threads(int n);

/// The BLAS/LAPACK library that tenferro's CPU kernels and linalg call, in
/// one line: the library's own description where it has one (OpenBLAS:
/// version, build options and the core type it runs), then the file it was
/// loaded from. Which library that is was settled when tenferro was
/// configured (`TENFERRO_BLA_VENDOR`, README); OpenBLAS reports the core
/// type it chose for this CPU, or the one `OPENBLAS_CORETYPE` forces.
///
/// ```cpp
/// std::cout << tenferro::blas_info() << "\n";
/// // OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY USE_OPENMP Cooperlake
/// //   MAX_THREADS=64, core Cooperlake, /lib/x86_64-linux-gnu/libopenblas.so.0
/// ```
std::string blas_info();

namespace cpu {
class BufferCache;
}

/// Adds this module's kernel for every primitive on `DeviceKind::cpu`
/// (provider "cpu") to `registry`; a `CpuBackend` does this for its own
/// registry when it is constructed.
void register_cpu_kernels(KernelRegistry& registry);

/// Large buffers released by a backend's tensors are kept for reuse by the
/// same backend (Note [Buffer cache] in src/cpu/buffer_cache.hpp: up to
/// TENFERRO_CPU_CACHE_MB, default 1024); copies of a backend share the cache.
/// A request takes a kept buffer of its size, else the smallest kept one of
/// up to 1.5 times its size.
///
/// ```cpp
/// tenferro::CpuBackend cpu;
/// {
///   auto t = tenferro::add(x, x, cpu);  // a buffer from the cache, or fresh
/// }                                     // released: kept for the next request that fits
/// std::size_t held = cpu.cached_bytes();
/// cpu.empty_cache();                    // gives the kept buffers back to the system
/// ```
class CpuBackend final : public Backend {
 public:
  CpuBackend();
  /// Also sets the process-wide thread count (see `set_num_threads`).
  explicit CpuBackend(int num_threads);

  std::string_view name() const override { return "cpu"; }
  Device device() const override { return Device::cpu(); }
  std::shared_ptr<Storage> allocate_storage(std::size_t nbytes) override;
  void execute_fused(const FusedElementwise& kernel, std::span<const Tensor> inputs,
                     const Tensor& output) override;
  /// Bytes of released buffers the backend keeps for reuse.
  std::size_t cached_bytes() const;
  /// Gives the kept buffers back to the system.
  void empty_cache();

 private:
  std::shared_ptr<cpu::BufferCache> cache_;
};

}  // namespace tenferro
