#pragma once
/// \file
/// The graph IR: nodes (inputs, constants, primitive and family ops) and the
/// values they produce. Traced tensors, eager tensors that record history,
/// the compiler and the AD transforms all work on this one representation.
///
/// ```cpp
/// using namespace tenferro;
/// Value x = graph::input("x", DType::f64, {Dim("n")});
/// Value y = graph::apply(OpKind::multiply, NoAttrs{}, {x, x});   // f64[n]
/// Value s = graph::apply(OpKind::reduce_sum, AxesAttrs{{0}}, {y}); // f64[]
/// ```
/// Note [Eager evaluation]: a node whose inputs all carry concrete values,
/// at least one of them computed by a backend (`Node::eager`), is evaluated
/// on that backend when it is created; its values are stored in the node.
/// This is how eager tensors with history run the same rules (AD, sugar)
/// as traced ones. Nodes of pure traces carry no values; constants carry
/// values but no backend, so combining only constants traces (the compiler
/// folds them).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/dim.hpp"
#include "tenferro/ops/family.hpp"
#include "tenferro/ops/value.hpp"
#include "tenferro/ops/infer.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

enum class NodeKind : std::uint8_t { input, constant, primitive, family };

struct Node {
  NodeKind kind = NodeKind::constant;
  OpKind op = OpKind::add;          ///< primitive nodes
  SymAttrs attrs;                   ///< primitive nodes
  const FamilyOp* family = nullptr; ///< family nodes (owned by their OpFamily)
  FamilyAttrs family_attrs;         ///< family nodes
  std::vector<Value> inputs;
  std::vector<SymMeta> outputs;
  std::vector<Tensor> values;       ///< concrete outputs when known (Note [Eager evaluation])
  Backend* eager = nullptr;         ///< backend that evaluated this node
  std::string name;                 ///< input nodes
  std::uint64_t id = 0;             ///< creation order, unique in the process
  /// Eager leaves whose gradient is requested (tenferro::ad accumulates it).
  bool requires_grad = false;
  /// Whether this node's history is kept: true for traced nodes, and for
  /// eager nodes that depend on a `requires_grad` leaf while gradient
  /// recording is on. Other eager nodes drop their inputs (no history).
  bool tracks_grad = true;
  /// Accumulated gradient of a `requires_grad` eager leaf (tenferro::ad).
  mutable Tensor grad;
};

namespace graph {

/// A named program input with (possibly symbolic) extents. Extents must be
/// constants or single symbols.
Value input(std::string name, DType dtype, SymShape shape);
/// A constant (host) tensor.
Value constant(Tensor value);
/// An unnamed input with any extents: the tangent stand-ins of reverse mode
/// (tenferro::ad); never part of a compiled program.
Value placeholder(DType dtype, SymShape shape);
/// A value computed eagerly on `backend` (a leaf of eager history).
Value eager_leaf(Tensor value, Backend& backend, bool requires_grad = false);
/// A primitive node; runs symbolic inference (or evaluates eagerly).
Value apply(OpKind kind, SymAttrs attrs, std::vector<Value> inputs);
/// A family-op node; one value per output.
std::vector<Value> apply_family(const FamilyOp& op, FamilyAttrs attrs, std::vector<Value> inputs);

/// Whether eager nodes record history for AD on this thread (default true).
bool grad_recording();
/// Turns eager history recording off for its lifetime (a no-grad scope).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

/// Within its lifetime, nodes whose operands all have values are evaluated on
/// `backend` even when no operand was computed by a backend (e.g. constant
/// subexpressions inside derivative rules during eager backward()).
class EagerScope {
 public:
  explicit EagerScope(Backend& backend);
  ~EagerScope();
  EagerScope(const EagerScope&) = delete;
  EagerScope& operator=(const EagerScope&) = delete;

 private:
  Backend* previous_;
};

/// The nodes reachable from `roots`, inputs before users (a topological order).
std::vector<const Node*> topological_order(std::span<const Value> roots);

}  // namespace graph
}  // namespace tenferro
