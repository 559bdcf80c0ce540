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

}  // namespace tenferro
