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

#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/fused.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

class FamilyAttrs;

class Backend {
 public:
  virtual ~Backend() = default;
  /// Human-readable name ("cpu", "cuda:0").
  virtual std::string_view name() const = 0;
  /// The device whose tensors this backend reads and writes.
  virtual Device device() const = 0;
  /// `nbytes` of uninitialised device memory.
  virtual std::shared_ptr<Storage> allocate_storage(std::size_t nbytes) = 0;
  /// Runs primitive `kind` (inputs already validated by `infer`).
  virtual void execute(OpKind kind, const Attrs& attrs, std::span<const Tensor> inputs,
                       const Tensor& output) = 0;
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
  /// A kernel this backend provides for family op `op_name` (e.g. cuSOLVER
  /// for "linalg.svd"), used when the family itself has none for the
  /// backend's device; empty by default. Keeps op families independent of
  /// device backends.
  virtual std::function<std::vector<Tensor>(const FamilyAttrs&, std::span<const Tensor>, Backend&)>
  family_kernel(std::string_view op_name) const;

  /// Uninitialised column-major tensor on this backend's device.
  Tensor empty(DType dtype, const Shape& shape);
  /// Uninitialised tensor with the given dense layout (a permutation of a
  /// column-major layout); throws ValueError for other strides.
  Tensor empty_strided(DType dtype, const Shape& shape, const Strides& strides);
};

}  // namespace tenferro
