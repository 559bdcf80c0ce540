#pragma once
/// \file
/// `Backend`: what executes primitives on one device.
///
/// ```cpp
/// tenferro::CpuBackend cpu;                   // tenferro/cpu.hpp
/// tenferro::Backend& b = cpu;
/// tenferro::Tensor out = b.empty(tenferro::DType::f64, {2, 2});
/// b.execute(tenferro::OpKind::add, tenferro::NoAttrs{}, {{x, y}}, out);   // out = x + y
/// ```
/// Kernels write into a preallocated output whose shape and dtype come from
/// `infer`; the output may have any dense layout (any permutation of
/// column-major strides) and must not overlap the inputs, except that an
/// elementwise op may write into an input of identical layout (in-place).
/// Inputs may have any strides, including 0 (broadcast) and negative.
///
/// Kernels live in the backend's `KernelRegistry` (tenferro/ops/kernels.hpp),
/// keyed by (op, device kind): a backend registers its primitive kernels when
/// it is constructed, and `execute` runs the first provider that accepts.

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/fused.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

/// The thread count of tenferro's CPU kernels and of BLAS/LAPACK: one
/// process-wide setting (`set_num_threads`, tenferro/cpu/cpu_backend.hpp)
/// that every thread sees, std::thread workers and Python threads included.
/// Until it is set: OpenMP's default (OMP_NUM_THREADS, else the CPUs this
/// process may run on).
///
/// ```cpp
/// tenferro::set_num_threads(1);
/// std::thread([] { assert(tenferro::get_num_threads() == 1); }).join();
/// ```
int get_num_threads();

namespace detail {
/// Stores the setting (`set_num_threads` checks it and also tells BLAS).
void store_num_threads(int n);
/// Note [One thread setting]: OpenMP keeps its pool size per thread, so a
/// value set on one thread is not seen by a thread started later (nor by
/// OpenMP-built BLAS running there). Kernel dispatch calls this first: it
/// gives the calling thread the process-wide setting (a thread-local
/// compare when nothing changed).
void apply_num_threads();
}  // namespace detail

class KernelRegistry;

class Backend {
 public:
  /// A backend with a fresh, empty kernel registry.
  Backend();
  virtual ~Backend();
  /// Human-readable name ("cpu", "cuda:0").
  virtual std::string_view name() const = 0;
  /// The device whose tensors this backend reads and writes.
  virtual Device device() const = 0;
  /// `nbytes` of uninitialised device memory.
  virtual std::shared_ptr<Storage> allocate_storage(std::size_t nbytes) = 0;
  /// Runs primitive `kind` (inputs already validated by `infer`): the
  /// first provider in `kernels()` for (kind, this device's kind) that
  /// accepts; UnimplementedError naming op and device when none does.
  /// Wrapping backends may override it to forward to the wrapped one.
  virtual void execute(OpKind kind, const Attrs& attrs, std::span<const Tensor> inputs,
                       const Tensor& output);
  /// Runs a fused elementwise chain (tenferro/ops/fused.hpp) into `output`.
  /// The default evaluates the steps one by one with `execute`; backends
  /// override it with a single pass over the data.
  virtual void execute_fused(const FusedElementwise& kernel, std::span<const Tensor> inputs,
                             const Tensor& output);

  /// A copy on this backend's device of the host tensor `host`, for the
  /// constants the library itself creates (scalar literals, AD seeds,
  /// program constants). Default: `host` itself on a CPU backend, else
  /// UnimplementedError.
  virtual Tensor from_host(const Tensor& host);
  /// The kernels this backend runs, for primitives and family ops
  /// (shared by copies of the backend).
  KernelRegistry& kernels() const { return *kernels_; }

  /// Uninitialised column-major tensor on this backend's device.
  Tensor empty(DType dtype, const Shape& shape);
  /// Uninitialised tensor with the given dense layout (a permutation of a
  /// column-major layout); throws ValueError for other strides.
  Tensor empty_strided(DType dtype, const Shape& shape, const Strides& strides);

 protected:
  /// A backend that runs the kernels of `wrapped` (a wrapper, such as a
  /// pooling allocator): both use one registry, so a provider added to
  /// either is seen by both.
  struct SharingKernelsOf {
    const Backend& wrapped;
  };
  explicit Backend(SharingKernelsOf wrapper);

 private:
  std::shared_ptr<KernelRegistry> kernels_;
};

}  // namespace tenferro
