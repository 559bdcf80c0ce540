#pragma once
/// \file
/// Einsum on graph handles: `TracedTensor` (recorded into a program) and
/// `EagerTensor` (run at once, with history for `backward()`). The same
/// plan as the `Tensor` form (spec.hpp, path.hpp, plan.hpp) is lowered to
/// graph primitives (`dot_general`, `transpose`, `reshape`,
/// `broadcast_in_dim`, `reduce_sum`, `multiply`, `gather`/`pad`/`slice` for
/// diagonals), so the result is compiled, optimised and differentiated like
/// any other traced code.
///
/// ```cpp
/// using namespace tenferro;
/// auto a = TracedTensor::input("a", DType::f64, {Dim("n"), Dim(8)});
/// auto b = TracedTensor::input("b", DType::f64, {Dim(8), Dim("m")});
/// TracedTensor c = einsum("ij,jk->ik", {a, b});             // f64[n, m]
/// TracedTensor d = einsum({{0, 1}, {1, 2}}, {0, 2}, {a, b});  // the same, integer labels
/// TracedTensor t = einsum("ii->", {einsum("ij,kj->ik", {a, a})});  // trace of a a^T
/// TracedTensor loss = (c * c).sum();
/// TracedTensor ga = grad(loss, a);                           // d loss / d a
/// Program p = GraphCompiler().compile({c, ga});
/// CpuBackend cpu;
/// auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
/// auto out = rt.run_compiled(p, {{"a", Tensor::ones({3, 8})}, {"b", Tensor::ones({8, 2})}});
///
/// EagerRuntime eager(cpu);
/// auto x = eager.tensor(Tensor::ones({2, 3})).requires_grad();
/// auto y = einsum("ij,ij->", {x, x});   // 6, and backward(y) fills x.grad()
/// ```
///
/// Note [Einsum symbolic extents]: path search and the plan need numbers,
/// but an operand's extents may be symbolic (`Dim("n")`, or a rank that a
/// truncated SVD produces when the program runs). Each label takes the
/// extent of its first occurrence that is a constant other than 1, else of
/// its first symbolic occurrence, else 1. For planning, a symbolic label
/// extent is evaluated with `SymbolicExtents::hints` for the symbols it
/// names, `default_extent` for the others, and raised to at least 2 (so a
/// symbol is never taken for a broadcast axis). The program is planned once,
/// at trace time, for these sizes and then runs for every binding: the path
/// is the same for all bindings (it is optimal only for the hinted sizes),
/// while every extent in the program stays symbolic. Rules:
/// - A constant extent 1 broadcasts against any other extent of its label,
///   a symbolic extent never does (a symbol bound to 1 at run time meets
///   a longer extent of its label as a shape error when the program runs).
/// - Occurrences of one label that are different symbols (`n` and `m`) are
///   accepted at trace time; the run checks that their bindings agree.
/// - Slicing under `PathOptions::memory_limit` may only slice labels of
///   constant extent (ValueError otherwise).
/// - A repeated label of symbolic extent (`"ii->"` on `[n, n]`) takes its
///   diagonal by `pad`/`reshape`/`slice`, constant ones by `gather`.
/// Operands of the traced form carry no layout: the plan models them as
/// dense in axis order (Note [Einsum layouts]); the compiler's transpose
/// folding removes the permutations that `dot_general` can absorb.

#include <cstdint>
#include <string_view>
#include <vector>

#include "tenferro/einsum/path.hpp"
#include "tenferro/einsum/plan.hpp"
#include "tenferro/einsum/spec.hpp"
#include "tenferro/ops/dim.hpp"
#include "tenferro/ops/value.hpp"
#include "tenferro/runtime/eager.hpp"
#include "tenferro/runtime/traced_tensor.hpp"

namespace tenferro {

/// Sizes that planning assumes for symbolic extents (Note [Einsum symbolic extents]).
///
/// ```cpp
/// auto c = einsum("ab,bc,cd->ad", {x, y, z}, {}, {.hints = {{"chi", 32}}, .default_extent = 4});
/// ```
struct SymbolicExtents {
  /// Planning value of individual symbols.
  DimBindings hints{};
  /// Planning value of symbols not in `hints`.
  std::int64_t default_extent = 64;
};

/// Traced einsum, string form (Note [Einsum notation]); the result has the
/// promoted dtype and (symbolic) extents of the output labels. Throws the
/// errors of the `Tensor` form at trace time: ValueError for malformed
/// subscripts, wrong operand counts or ranks, ShapeError for constant
/// extents that disagree, DTypeError for bool operands. `cache` (optional)
/// serves repeated traces of one contraction without planning again.
/// The result declares its input operands (`TracedTensor::declared_inputs`):
/// an einsum with an empty operand is zeros and reads none of them, but the
/// program compiled from it still takes them.
TracedTensor einsum(std::string_view subscripts, const std::vector<TracedTensor>& operands,
                    const PathOptions& options = {}, const SymbolicExtents& extents = {},
                    EinsumCache* cache = nullptr);
/// Traced einsum, integer-label form: `inputs[k]` labels operand k's axes.
TracedTensor einsum(const std::vector<std::vector<std::int64_t>>& inputs,
                    const std::vector<std::int64_t>& output, const std::vector<TracedTensor>& operands,
                    const PathOptions& options = {}, const SymbolicExtents& extents = {},
                    EinsumCache* cache = nullptr);
/// Traced einsum of a parsed spec.
TracedTensor einsum(const EinsumSpec& spec, const std::vector<TracedTensor>& operands,
                    const PathOptions& options = {}, const SymbolicExtents& extents = {},
                    EinsumCache* cache = nullptr);

/// Eager-handle einsum: runs at once on the operands' backend and records
/// history for `backward()` when an operand requires a gradient.
EagerTensor einsum(std::string_view subscripts, const std::vector<EagerTensor>& operands,
                   const PathOptions& options = {}, const SymbolicExtents& extents = {},
                   EinsumCache* cache = nullptr);
EagerTensor einsum(const std::vector<std::vector<std::int64_t>>& inputs,
                   const std::vector<std::int64_t>& output, const std::vector<EagerTensor>& operands,
                   const PathOptions& options = {}, const SymbolicExtents& extents = {},
                   EinsumCache* cache = nullptr);
EagerTensor einsum(const EinsumSpec& spec, const std::vector<EagerTensor>& operands,
                   const PathOptions& options = {}, const SymbolicExtents& extents = {},
                   EinsumCache* cache = nullptr);

/// The same on raw graph values (what the handle forms and AD rules use).
///
/// ```cpp
/// Value c = einsum_value("ij,jk->ik", {graph::input("a", DType::f64, {Dim(2), Dim(3)}),
///                                      graph::input("b", DType::f64, {Dim(3), Dim(4)})});
/// ```
Value einsum_value(std::string_view subscripts, const std::vector<Value>& operands,
                   const PathOptions& options = {}, const SymbolicExtents& extents = {},
                   EinsumCache* cache = nullptr);
Value einsum_value(const EinsumSpec& spec, const std::vector<Value>& operands, const PathOptions& options = {},
                   const SymbolicExtents& extents = {}, EinsumCache* cache = nullptr);

/// The concrete operand shapes that planning uses for operands of (possibly
/// symbolic) `shapes` (Note [Einsum symbolic extents]); constant shapes come
/// back unchanged.
///
/// ```cpp
/// EinsumSpec s = parse_einsum("ij,jk->ik", {2, 2});
/// auto p = einsum_planning_shapes(s, {{Dim("n"), Dim(3)}, {Dim(3), Dim("n")}});   // {{64, 3}, {3, 64}}
/// ```
std::vector<Shape> einsum_planning_shapes(const EinsumSpec& spec, const std::vector<SymShape>& shapes,
                                          const SymbolicExtents& extents = {});

/// The extent of every label of an einsum on operands of (possibly
/// symbolic) `shapes`, and the concrete operand shapes that planning uses
/// for them (Note [Einsum symbolic extents]).
struct EinsumLabelExtents {
  /// Extent of each label id (EinsumSpec): constant or symbolic.
  std::vector<Dim> dims;
  /// The operand shapes with symbolic extents replaced by planning values.
  std::vector<Shape> planning_shapes;
};
/// Label extents of `spec` on operands of `shapes`; ValueError when the
/// operand count or a rank does not match the subscripts.
///
/// ```cpp
/// EinsumSpec s = parse_einsum("ij,jk->ik", {2, 2});
/// EinsumLabelExtents e = einsum_label_extents(s, {{Dim("n"), Dim(3)}, {Dim(3), Dim(5)}});
/// // e.dims == {n, 3, 5}, e.planning_shapes == {{64, 3}, {3, 5}}
/// ```
EinsumLabelExtents einsum_label_extents(const EinsumSpec& spec, const std::vector<SymShape>& shapes,
                                        const SymbolicExtents& extents = {});

/// The emitter (see `run_plan`, tenferro/einsum/plan.hpp) that turns an
/// `EinsumPlan` into graph values, as `einsum_value` does: primitives
/// through `vops::`, with the extents of `label_dims` (from
/// `einsum_label_extents`) in place of the plan's planning extents. A
/// contraction over another semiring reuses the plan by deriving from it
/// and replacing the four members that carry the (+, x) algebra:
/// `dot_general`, `reduce_sum`, `multiply` and `add` (the slice sum); the
/// structural members (reshape, diagonal, slice, broadcast, transposes) are
/// the same in any semiring. `run_plan` calls the members of the emitter
/// type it is given, so the derived ones hide the base ones statically.
///
/// ```cpp
/// struct MaxPlusEmitter : EinsumValueEmitter {   // reduce by max instead of sum
///   Value reduce_sum(const Value& a, const DimVec& axes) { return vops::reduce_max(a, axes); }
///   Value multiply(const Value& a, const Value& b) { return vops::add(a, b); }
///   Value add(const Value& a, const Value& b) { return vops::maximum(a, b); }
///   Value dot_general(const Value& a, const Value& b, const DotGeneralAttrs& d);  // a max-plus kernel
/// };
/// EinsumLabelExtents e = einsum_label_extents(spec, {a.shape(), b.shape()});
/// EinsumPlan plan = EinsumPlan::build(spec, e.planning_shapes, {a.dtype(), b.dtype()},
///                                     einsum_path(spec, e.planning_shapes));
/// MaxPlusEmitter emit{{e.dims}};
/// std::vector<Value> in{a, b};
/// Value c = run_plan(plan, std::span<const Value>(in), emit);
/// ```
struct EinsumValueEmitter {
  using Value = ::tenferro::Value;
  /// Extent of each label id; must outlive the emitter.
  const std::vector<Dim>& label_dims;

  /// The extents of `in.shape_labels`.
  SymShape shape_of(const EinsumInstr& in) const;
  Value convert(const Value& a, DType d);
  Value reshape(const Value& a, const SymShape& s);
  /// A gather for a constant extent; pad/reshape/slice for a symbolic one.
  Value diagonal(const Value& a, std::int64_t i, std::int64_t j);
  Value reduce_sum(const Value& a, const DimVec& axes);
  Value slice(const Value& a, const SymShape& starts, const SymShape& limits, const DimVec& strides);
  Value dot_general(const Value& a, const Value& b, const DotGeneralAttrs& dims);
  Value broadcast_in_dim(const Value& a, const SymShape& s, const DimVec& dims);
  Value multiply(const Value& a, const Value& b);
  Value add(const Value& a, const Value& b);
  /// A transpose (graph values have no views); composes with a transpose
  /// that produced `a`, so chains of permutations become one.
  Value permute_view(const Value& a, const DimVec& perm);
  Value transpose(const Value& a, const DimVec& perm);
};

}  // namespace tenferro
