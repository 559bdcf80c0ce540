#pragma once
/// \file
/// Automatic differentiation: one set of rules for traced and eager tensors.
///
/// ```cpp
/// using namespace tenferro;
/// auto x = TracedTensor::from_vec_col_major({3}, std::vector<double>{1.0, 2.0, 3.0});
/// auto y = (x * x).reduce_sum({0});
/// auto g = grad(y, x);                                  // 2x = [2, 4, 6]
/// auto t = TracedTensor::from_vec_col_major({3}, std::vector<double>{0.1, 1.0, -2.0});
/// auto d = jvp(y, x, t);                                // <2x, t> = -7.8
/// auto h = hvp(y, x, t);                                // 2t
///
/// CpuBackend backend;
/// EagerRuntime rt(backend);
/// auto e = rt.tensor(Tensor::from_vec_col_major<double>({3}, {1, 2, 3})).requires_grad();
/// backward((e * e).sum());                              // e.grad() = [2, 4, 6]
/// ```
///
/// Differentiation is a set of free functions of this layer (tenferro::ad,
/// above the runtime): `grad`, `vjp`, `jvp`, `hvp` on `TracedTensor`s,
/// `backward` and the functional `vjp` / `jvp` on `EagerTensor`s. They are
/// not methods of the tensor classes, because those live in the runtime
/// layer, which the AD layer builds on (docs/architecture.md). The
/// accumulated gradient of an eager leaf is read with `EagerTensor::grad()`.
///
/// Every primitive has a forward-mode (JVP) rule written in primitives, so
/// rules are themselves differentiable and higher orders come for free
/// (`hvp` is `jvp` of `grad`). Linear primitives also have a transpose
/// rule; reverse mode is linearize-then-transpose, as in JAX. Family ops
/// (linalg, fft) bring their rules in their `FamilyOp` (`jvp`, `transpose`).
/// Eager tensors record the same graph (Note [Eager evaluation] in
/// ops/graph.hpp), so `backward(loss)` runs these transforms with every
/// node evaluated as it is created.
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
/// or complex output, is a ValueError/DTypeError. A tangent or cotangent
/// must have the dtype (else DTypeError) and the shape (else ShapeError) of
/// the value it belongs to, checked when the derivative is traced: symbolic
/// extents must be the same expressions (a cotangent `[m]` for an output
/// `[n]` is rejected even though m might equal n when the program runs).
///
/// A traced derivative declares the inputs of the function it
/// differentiates (`TracedTensor::declared_inputs`): the program compiled
/// from `grad((x * 3).sum(), x)` takes `x` although it reads only its
/// extents.

#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "tenferro/ops/graph.hpp"
#include "tenferro/runtime/eager.hpp"
#include "tenferro/runtime/traced_tensor.hpp"

namespace tenferro {
namespace ad {

/// Output tangents of `outputs` when `wrt[i]` moves along `tangents[i]`
/// (zeros for an output that does not depend on `wrt`).
std::vector<Value> jvp(std::span<const Value> outputs, std::span<const Value> wrt,
                       std::span<const Value> tangents);
/// Cotangents of `wrt` for output cotangents `cotangents` (one per output;
/// zeros for an input the outputs do not depend on).
std::vector<Value> vjp(std::span<const Value> outputs, std::span<const Value> cotangents,
                       std::span<const Value> wrt);
/// Whether primitive `kind` has a JVP rule: true for the differentiable
/// ones, false for the piecewise constant ones (`sign`, `compare`,
/// `is_finite`), whose tangent is zero. The AD table test checks it
/// against each op's AdKind in ops.def.
bool has_jvp_rule(OpKind kind);
/// Whether primitive `kind` has a transpose rule (it may appear in a tangent
/// graph): every linear op, and `multiply`, `divide`, `dot_general`,
/// `select`, which are linear in one operand when the others are fixed.
bool has_transpose_rule(OpKind kind);

}  // namespace ad

// ---- traced tensors ----------------------------------------------------------------
// Complex convention (Note [Complex gradients]): for a real output y of a
// complex x, the gradient is 2 dy/d(conj x) = dy/dRe(x) + i dy/dIm(x).

/// Gradient of the real rank-0 `y` with respect to `wrt`.
///
/// ```cpp
/// auto y = (x * x).sum();
/// TracedTensor g = grad(y, x);          // 2x
/// ```
TracedTensor grad(const TracedTensor& y, const TracedTensor& wrt);
/// Gradients of the real rank-0 `y` with respect to several tensors.
std::vector<TracedTensor> grad(const TracedTensor& y, const std::vector<TracedTensor>& wrt);
/// Vector-Jacobian product: the adjoint of dy/d(wrt) applied to `cotangent`
/// (which has the shape of `y`); the result has the shape of `wrt`.
///
/// ```cpp
/// TracedTensor ct = vjp(x * 3.0, x, ones);   // 3 * ones
/// ```
TracedTensor vjp(const TracedTensor& y, const TracedTensor& wrt, const TracedTensor& cotangent);
/// Jacobian-vector product: the derivative of `y` when `wrt` moves along
/// `tangent`; the result has the shape of `y`.
///
/// ```cpp
/// TracedTensor d = jvp((x * x).sum(), x, t);   // <2x, t>
/// ```
TracedTensor jvp(const TracedTensor& y, const TracedTensor& wrt, const TracedTensor& tangent);
/// Hessian-vector product: the derivative of grad(y, x) in direction v.
TracedTensor hvp(const TracedTensor& y, const TracedTensor& x, const TracedTensor& v);

/// A function of traced tensors, for `checkpoint`.
using TracedFunction = std::function<std::vector<TracedTensor>(const std::vector<TracedTensor>&)>;

/// Checkpointing (rematerialisation): `f(inputs)`, marked so that reverse
/// mode (`grad`, `vjp`, and `hvp` through them) keeps none of the values
/// computed inside `f` for the backward pass, but recomputes them from
/// `inputs` (and whatever `f` captured) when the backward pass reaches the
/// call. Forward values, `jvp` and gradients are those of `f(inputs)`;
/// the compiled gradient program holds fewer values at once, at the price
/// of a second forward pass of `f` (Note [Checkpointing] in
/// src/ad/checkpoint.cpp; docs/ad.md).
///
/// ```cpp
/// auto step = [&](const TracedTensor& h) { return tanh(matmul(w, h)); };
/// TracedTensor h = x;
/// for (int s = 0; s < 8; ++s)                  // 8 checkpoints of 8 steps each
///   h = checkpoint([&](const TracedTensor& v) {
///     TracedTensor u = v;
///     for (int k = 0; k < 8; ++k) u = step(u);
///     return u;
///   }, h);
/// TracedTensor g = grad(h.sum(), x);           // keeps ~8 + 8 activations, not 64
/// ```
/// A value computed inside `f` must leave it as a result: using it outside
/// otherwise (e.g. through a captured reference) is a ValueError when
/// differentiated. A checkpoint inside a checkpointed function is
/// recomputed as part of the outer one.
std::vector<TracedTensor> checkpoint(const TracedFunction& f,
                                     const std::vector<TracedTensor>& inputs);
/// The same for a function of one tensor.
TracedTensor checkpoint(const std::function<TracedTensor(const TracedTensor&)>& f,
                        const TracedTensor& x);

// ---- eager tensors -----------------------------------------------------------------

/// Accumulates d(y)/d(leaf) into every `requires_grad()` leaf `y` depends
/// on (read it with `leaf.grad()`, reset it with `leaf.zero_grad()`); `y`
/// must be a real rank-0 tensor (else ValueError: use the seeded form).
///
/// ```cpp
/// auto x = rt.tensor(Tensor::from_vec_col_major<double>({3}, {1, 2, 3})).requires_grad();
/// backward((x * x).sum());
/// Tensor g = x.grad().value();     // [2, 4, 6]
/// ```
///
/// Threads: history recording (`graph::grad_recording`, `NoGradGuard`) is
/// per thread. `backward` adds into the leaves' `grad` without a lock, so
/// two threads must not run `backward` into a shared leaf at the same time;
/// separate graphs (or traced `grad`, which writes nothing) are fine.
void backward(const EagerTensor& y);
/// The same with an explicit cotangent `seed` of `y`'s dtype and shape.
void backward(const EagerTensor& y, const EagerTensor& seed);

/// A function of eager tensors, for the functional `vjp` and `jvp`.
using EagerFunction = std::function<std::vector<EagerTensor>(const std::vector<EagerTensor>&)>;
/// Vector-Jacobian product of `f` at `inputs`, run on `rt`'s backend:
/// returns (outputs, cotangents of the inputs) for the given output
/// cotangents (one per output).
///
/// ```cpp
/// auto f = [](const std::vector<EagerTensor>& v) { return std::vector<EagerTensor>{v[0] * v[1]}; };
/// auto [outs, cts] = vjp(rt, f, {a, b}, {ones});   // cts = {b, a}
/// ```
std::pair<std::vector<EagerTensor>, std::vector<EagerTensor>> vjp(const EagerRuntime& rt, const EagerFunction& f,
                                                                  const std::vector<EagerTensor>& inputs,
                                                                  const std::vector<EagerTensor>& cotangents);
/// Jacobian-vector product of `f` at `inputs` in direction `tangents`:
/// returns (outputs, output tangents).
std::pair<std::vector<EagerTensor>, std::vector<EagerTensor>> jvp(const EagerRuntime& rt, const EagerFunction& f,
                                                                  const std::vector<EagerTensor>& inputs,
                                                                  const std::vector<EagerTensor>& tangents);

}  // namespace tenferro
