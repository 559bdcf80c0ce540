// Eager AD: backward() and the functional vjp/jvp of eager functions, run by
// the same transforms with every node evaluated as it is created.
#include <unordered_set>

#include "tenferro/ad.hpp"
#include "tenferro/ops/primitives.hpp"
#include "tenferro/runtime/eager.hpp"
#include "tenferro/runtime/value_ops.hpp"

namespace tenferro {
namespace {

Backend& backend_of(const Value& v, const char* op) {
  TF_CHECK(v.defined() && v.node->eager != nullptr, ValueError, op, "the tensor does not belong to an eager runtime");
  return *v.node->eager;
}

// The requires_grad leaves that `y` depends on, in discovery order.
std::vector<Value> grad_leaves(const Value& y) {
  std::vector<Value> leaves;
  std::unordered_set<const Node*> seen;
  std::vector<Value> stack{y};
  while (!stack.empty()) {
    Value v = stack.back();
    stack.pop_back();
    if (!seen.insert(v.node.get()).second) continue;
    if (v.node->requires_grad) leaves.push_back(Value{v.node, 0});
    for (const Value& in : v.node->inputs) stack.push_back(in);
  }
  return leaves;
}

}  // namespace

void backward(const EagerTensor& y) {
  TF_CHECK(y.defined(), ValueError, "backward", "undefined tensor");
  TF_CHECK(y.ndim() == 0, ValueError, "backward", "needs a rank-0 output without a seed, got shape ", y.shape(),
           "; pass a seed (cotangent) of the output's shape");
  TF_CHECK(kRealFloatDTypes.contains(y.dtype()), DTypeError, "backward", "needs a real float output, got ",
           y.dtype());
  Backend& b = backend_of(y.graph_value(), "backward");
  backward(y, EagerTensor(graph::eager_leaf(b.from_host(Tensor::full({}, Scalar(1.0), y.dtype())), b, false)));
}

void backward(const EagerTensor& y, const EagerTensor& seed) {
  TF_CHECK(y.defined() && seed.defined(), ValueError, "backward", "undefined tensor");
  const Value& out = y.graph_value();
  Backend& b = backend_of(out, "backward");
  TF_CHECK(out.node->tracks_grad, ValueError, "backward",
           "the tensor does not depend on any tensor that requires grad");
  TF_CHECK(seed.dtype() == y.dtype(), DTypeError, "backward", "seed ", seed.dtype(), seed.concrete_shape(),
           " does not match the dtype of the output ", y.dtype(), y.concrete_shape());
  TF_CHECK(seed.concrete_shape() == y.concrete_shape(), ShapeError, "backward", "seed ", seed.dtype(),
           seed.concrete_shape(), " does not match the shape of the output ", y.dtype(), y.concrete_shape());
  std::vector<Value> leaves = grad_leaves(out);
  graph::EagerScope scope(b);
  graph::NoGradGuard no_history;  // the backward pass itself records nothing
  std::vector<Value> ys{out}, cts{seed.graph_value()};
  std::vector<Value> g = ad::vjp(ys, cts, leaves);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const Node& leaf = *leaves[i].node;
    Tensor gi = g[i].value();
    leaf.grad = leaf.grad.defined() ? ops::add(leaf.grad, gi, b) : gi.contiguous();
  }
}

std::pair<std::vector<EagerTensor>, std::vector<EagerTensor>> vjp(const EagerRuntime& rt, const EagerFunction& f,
                                                                  const std::vector<EagerTensor>& inputs,
                                                                  const std::vector<EagerTensor>& cotangents) {
  std::vector<EagerTensor> leaves;
  for (const auto& x : inputs) leaves.push_back(x.requires_grad());
  std::vector<EagerTensor> outs = f(leaves);
  TF_CHECK(outs.size() == cotangents.size(), ValueError, "vjp", "f returned ", outs.size(), " outputs but ",
           cotangents.size(), " cotangents were given");
  graph::EagerScope scope(rt.backend());
  graph::NoGradGuard no_history;
  std::vector<Value> ys, cts, xs;
  for (const auto& o : outs) ys.push_back(o.graph_value());
  for (const auto& c : cotangents) cts.push_back(c.graph_value());
  for (const auto& l : leaves) xs.push_back(l.graph_value());
  std::vector<Value> g = ad::vjp(ys, cts, xs);
  std::vector<EagerTensor> detached, grads;
  for (const auto& o : outs) detached.push_back(o.detach());
  for (Value& v : g) grads.emplace_back(std::move(v));
  return {detached, grads};
}

std::pair<std::vector<EagerTensor>, std::vector<EagerTensor>> jvp(const EagerRuntime& rt, const EagerFunction& f,
                                                                  const std::vector<EagerTensor>& inputs,
                                                                  const std::vector<EagerTensor>& tangents) {
  std::vector<EagerTensor> leaves;
  for (const auto& x : inputs) leaves.push_back(x.requires_grad());
  std::vector<EagerTensor> outs = f(leaves);
  graph::EagerScope scope(rt.backend());
  graph::NoGradGuard no_history;
  std::vector<Value> ys, xs, ts;
  for (const auto& o : outs) ys.push_back(o.graph_value());
  for (const auto& l : leaves) xs.push_back(l.graph_value());
  for (const auto& t : tangents) ts.push_back(t.graph_value());
  std::vector<Value> d = ad::jvp(ys, xs, ts);
  std::vector<EagerTensor> detached, dirs;
  for (const auto& o : outs) detached.push_back(o.detach());
  for (const Value& v : d) dirs.emplace_back(v);
  return {detached, dirs};
}

}  // namespace tenferro
