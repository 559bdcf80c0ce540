#pragma once
/// \file
/// Eager mode: `EagerRuntime` owns the backend choice; `EagerTensor`s run
/// each operation at once and, when they depend on a leaf that requires a
/// gradient, record the history that `backward(loss)` (tenferro/ad.hpp)
/// differentiates.
///
/// ```cpp
/// using namespace tenferro;
/// CpuBackend backend;
/// EagerRuntime rt(backend);
/// auto x = rt.tensor(Tensor::from_vec_col_major<double>({3}, {1, 2, 3})).requires_grad();
/// auto loss = (x * x).sum();
/// backward(loss);                  // tenferro/ad.hpp
/// Tensor g = x.grad().value();     // [2, 4, 6]
/// ```
/// The same rules as traced programs run here (Note [Eager evaluation] in
/// ops/graph.hpp): each operation creates a graph node that is evaluated
/// on the runtime's backend at once.

#include <vector>

#include "tenferro/ops/backend.hpp"
#include "tenferro/runtime/tensor_handle.hpp"

namespace tenferro {

class EagerTensor;

class EagerRuntime {
 public:
  explicit EagerRuntime(Backend& backend) : backend_(&backend) {}
  Backend& backend() const { return *backend_; }

  /// A leaf holding `value` (on the backend's device; no copy).
  EagerTensor tensor(const Tensor& value) const;

  // The functional vjp(rt, f, ...) and jvp(rt, f, ...) are in tenferro/ad.hpp.

 private:
  Backend* backend_;
};

class EagerTensor : public TensorHandle<EagerTensor> {
 public:
  EagerTensor() = default;
  explicit EagerTensor(Value v);

  /// The computed tensor.
  const Tensor& value() const { return value_.value(); }
  /// The concrete shape.
  const Shape& concrete_shape() const { return value().shape(); }

  // ---- gradient bookkeeping (backward(loss) is in tenferro/ad.hpp) -------------
  /// A new leaf with the same value whose gradient is accumulated by backward().
  EagerTensor requires_grad() const;
  bool is_leaf() const;
  /// The accumulated gradient of a leaf (undefined before the first backward).
  EagerTensor grad() const;
  /// Resets the accumulated gradient.
  void zero_grad() const;
  /// The same value without history.
  EagerTensor detach() const;
};

}  // namespace tenferro
