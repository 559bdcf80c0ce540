// EagerRuntime / EagerTensor: the parts that are not differentiation.
#include "tenferro/runtime/eager.hpp"

#include "tenferro/ops/graph.hpp"

namespace tenferro {

EagerTensor EagerRuntime::tensor(const Tensor& value) const {
  return EagerTensor(graph::eager_leaf(value, *backend_, false));
}

EagerTensor::EagerTensor(Value v) : TensorHandle(std::move(v)) {
  TF_CHECK(!value_.defined() || value_.has_value(), ValueError, "EagerTensor",
           "the value is not computed (a traced value cannot be an eager tensor)");
}

EagerTensor EagerTensor::requires_grad() const {
  TF_CHECK(defined(), ValueError, "requires_grad", "undefined tensor");
  TF_CHECK(is_float(dtype()), DTypeError, "requires_grad", "only float tensors have gradients, got ",
           dtype());
  Backend* b = value_.node->eager;
  TF_CHECK(b != nullptr, ValueError, "requires_grad", "the tensor does not belong to an eager runtime");
  return EagerTensor(graph::eager_leaf(value(), *b, true));
}

bool EagerTensor::is_leaf() const {
  return defined() && value_.node->kind == NodeKind::constant;
}

EagerTensor EagerTensor::grad() const {
  TF_CHECK(defined(), ValueError, "grad", "undefined tensor");
  TF_CHECK(value_.node->requires_grad, ValueError, "grad",
           "gradients are accumulated only on leaves created with requires_grad()");
  const Tensor& g = value_.node->grad;
  if (!g.defined()) return EagerTensor();
  return EagerTensor(graph::eager_leaf(g, *value_.node->eager, false));
}

void EagerTensor::zero_grad() const {
  TF_CHECK(defined(), ValueError, "zero_grad", "undefined tensor");
  value_.node->grad = Tensor();
}

EagerTensor EagerTensor::detach() const {
  TF_CHECK(defined(), ValueError, "detach", "undefined tensor");
  Backend* b = value_.node->eager;
  if (b == nullptr) return EagerTensor(graph::constant(value()));
  return EagerTensor(graph::eager_leaf(value(), *b, false));
}

}  // namespace tenferro
