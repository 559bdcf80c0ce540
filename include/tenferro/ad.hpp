#pragma once
/// \file
/// Automatic differentiation: one set of rules for traced and eager tensors.
///
/// ```cpp
/// using namespace tenferro;
/// auto x = TracedTensor::from_vec_col_major({3}, std::vector<double>{1.0, 2.0, 3.0});
/// auto y = (x * x).reduce_sum({0});
/// auto g = y.grad(x);                                   // 2x = [2, 4, 6]
/// auto t = TracedTensor::from_vec_col_major({3}, std::vector<double>{0.1, 1.0, -2.0});
/// auto d = y.jvp(x, t);                                 // <2x, t> = -7.8
/// auto h = hvp(y, x, t);                                // 2t
/// ```
///
/// Every primitive has a forward-mode (JVP) rule written in primitives, so
/// rules are themselves differentiable and higher orders come for free
/// (`hvp` is `jvp` of `grad`). Linear primitives also have a transpose
/// rule; reverse mode is linearize-then-transpose, as in JAX. Family ops
/// (linalg, fft) bring their rules in their `FamilyOp` (`jvp`, `transpose`).
/// Eager tensors record the same graph (Note [Eager evaluation] in
/// ops/graph.hpp), so `EagerTensor::backward()` runs these transforms with
/// every node evaluated as it is created.
///
/// Note [Complex gradients]: transposes are adjoints for the real inner
/// product Re<u, v> = Re(sum conj(u) v). For a real scalar y of a complex
/// x, `grad` is therefore dy/dRe(x) + i dy/dIm(x) = 2 dy/d(conj x), the
/// conjugate Wirtinger derivative that PyTorch stores in `x.grad` (the
/// conjugate of what `jax.grad` returns). `vjp` with cotangent c returns
/// J^H c in the same sense; `jvp` is the ordinary (R-linear) directional
/// derivative.
///
/// Derivatives with respect to a tensor the output does not depend on are
/// zeros. Differentiating integer or bool values, or `grad` of a non-scalar
/// or complex output, is a ValueError/DTypeError.

#include <span>
#include <vector>

#include "tenferro/ops/graph.hpp"
#include "tenferro/runtime/traced_tensor.hpp"

namespace tenferro {
namespace ad {

/// Output tangents of `outputs` when `wrt[i]` moves along `tangents[i]`.
std::vector<Value> jvp(std::span<const Value> outputs, std::span<const Value> wrt,
                       std::span<const Value> tangents);
/// Cotangents of `wrt` for output cotangents `cotangents` (one per output).
std::vector<Value> vjp(std::span<const Value> outputs, std::span<const Value> cotangents,
                       std::span<const Value> wrt);
/// Whether primitive `kind` has a JVP rule (all of them) and a transpose
/// rule (the linear ones), for the AD table test.
bool has_jvp_rule(OpKind kind);
bool has_transpose_rule(OpKind kind);

}  // namespace ad

/// Gradients of the real rank-0 `y` with respect to several tensors.
std::vector<TracedTensor> grad(const TracedTensor& y, const std::vector<TracedTensor>& wrt);
/// Hessian-vector product: the derivative of grad(y, x) in direction v.
TracedTensor hvp(const TracedTensor& y, const TracedTensor& x, const TracedTensor& v);

}  // namespace tenferro
