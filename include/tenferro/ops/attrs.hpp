#pragma once
/// \file
/// Attributes of the primitives: one struct per attribute shape, collected in
/// the `Attrs` variant. Field names follow StableHLO.
///
/// ```cpp
/// using namespace tenferro;
/// // C[i, j] = sum_k A[i, k] B[k, j]
/// DotGeneralAttrs mm{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
/// Attrs a = mm;
/// std::cout << a;   // "lhs_batch=[] rhs_batch=[] lhs_contract=[1] rhs_contract=[0]"
/// ```
/// Note [Symbolic attributes]: the structs whose fields are extents
/// (reshape and broadcast shapes, slice bounds, dynamic-slice and gather
/// slice sizes, edge padding) are templates over the extent type: `Attrs`
/// uses `std::int64_t` (what kernels see), `SymAttrs` uses `Dim` (what traced
/// programs store, so that `reshape(x, {n * m})` survives until run time).
/// Axis lists, strides and interior padding are always concrete.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "tenferro/ops/dim.hpp"
#include "tenferro/tensor/dtype.hpp"
#include "tenferro/tensor/shape.hpp"

namespace tenferro {

/// An extent list in attributes: concrete for `D = std::int64_t`, symbolic for `D = Dim`.
template <class D>
using ExtentList = std::conditional_t<std::is_same_v<D, std::int64_t>, SmallVec<std::int64_t>, std::vector<Dim>>;

/// Ops without attributes.
struct NoAttrs {
  bool operator==(const NoAttrs&) const = default;
};

/// Axis lists: reduced axes of reduce_*, reversed axes of reverse.
///
/// An empty reduced axis gives the reduction's identity (0, 1, and for
/// reduce_max / reduce_min -inf / +inf, or the integer type's lowest /
/// highest value), as in XLA, unless `nonempty` is set: then reduce_max /
/// reduce_min refuse it with a ValueError, eagerly and when a compiled
/// program runs with a symbolic extent bound to 0. The user-facing `max` /
/// `min` set it (NumPy and PyTorch refuse an empty max too).
struct AxesAttrs {
  DimVec dimensions{};
  bool nonempty = false;
  bool operator==(const AxesAttrs&) const = default;
};

/// transpose: out.shape[i] = operand.shape[permutation[i]].
struct PermutationAttrs {
  DimVec permutation{};
  bool operator==(const PermutationAttrs&) const = default;
};

/// reshape to `shape`.
/// Note [Reshape order]: tenferro reshapes in column-major element order
/// (first axis fastest, as Julia and Fortran do), so a column-major tensor
/// reshapes without moving data. StableHLO's reshape is row-major; the
/// StableHLO lowering reverses the axes around it.
template <class D>
struct BasicReshapeAttrs {
  ExtentList<D> shape{};
  bool operator==(const BasicReshapeAttrs&) const = default;
};

/// broadcast_in_dim: operand axis i becomes output axis broadcast_dimensions[i]
/// (strictly increasing is not required); operand extents must be 1 or equal.
template <class D>
struct BasicBroadcastInDimAttrs {
  ExtentList<D> shape{};
  DimVec broadcast_dimensions{};
  bool operator==(const BasicBroadcastInDimAttrs&) const = default;
};

/// slice: [start, limit) every `strides` (> 0) per axis.
template <class D>
struct BasicSliceAttrs {
  ExtentList<D> start_indices{};
  ExtentList<D> limit_indices{};
  DimVec strides{};
  bool operator==(const BasicSliceAttrs&) const = default;
};

/// dynamic_slice(operand, starts): `starts` is a 1-D integer tensor with one
/// start per axis, clamped into range as in StableHLO.
template <class D>
struct BasicDynamicSliceAttrs {
  ExtentList<D> slice_sizes{};
  bool operator==(const BasicDynamicSliceAttrs&) const = default;
};

/// pad(operand, padding_value): negative low/high padding crops.
template <class D>
struct BasicPadAttrs {
  ExtentList<D> edge_padding_low{};
  ExtentList<D> edge_padding_high{};
  DimVec interior_padding{};
  bool operator==(const BasicPadAttrs&) const = default;
};

struct ConcatenateAttrs {
  std::int64_t dimension = 0;
  bool operator==(const ConcatenateAttrs&) const = default;
};

enum class ComparisonDirection : std::uint8_t { EQ, NE, LT, LE, GT, GE };

struct CompareAttrs {
  ComparisonDirection direction = ComparisonDirection::EQ;
  bool operator==(const CompareAttrs&) const = default;
};

/// convert to `dtype`. Complex to real keeps the real part; float to
/// integer truncates toward zero and saturates (NaN gives 0); integer to a
/// narrower integer wraps modulo 2^bits; to bool tests != 0.
struct ConvertAttrs {
  DType dtype = DType::f64;
  bool operator==(const ConvertAttrs&) const = default;
};

/// dot_general: output axes are (batch..., lhs free..., rhs free...), free axes
/// in operand order.
struct DotGeneralAttrs {
  DimVec lhs_batching_dimensions{};
  DimVec rhs_batching_dimensions{};
  DimVec lhs_contracting_dimensions{};
  DimVec rhs_contracting_dimensions{};
  bool operator==(const DotGeneralAttrs&) const = default;
};

/// gather(operand, start_indices), StableHLO semantics (without operand
/// batching dims). Starts are clamped so every slice lies inside the operand.
template <class D>
struct BasicGatherAttrs {
  DimVec offset_dims{};
  DimVec collapsed_slice_dims{};
  DimVec start_index_map{};
  std::int64_t index_vector_dim = 0;
  ExtentList<D> slice_sizes{};
  bool operator==(const BasicGatherAttrs&) const = default;
};

/// How scatter combines an update with the operand element.
enum class ScatterMode : std::uint8_t { replace, add };

/// scatter(operand, scatter_indices, updates), StableHLO semantics (without
/// batching dims); updates that fall outside the operand are skipped.
struct ScatterAttrs {
  DimVec update_window_dims{};
  DimVec inserted_window_dims{};
  DimVec scatter_dims_to_operand_dims{};
  std::int64_t index_vector_dim = 0;
  ScatterMode mode = ScatterMode::add;
  bool operator==(const ScatterAttrs&) const = default;
};

/// polygamma: the order n >= 0 of the derivative of digamma.
struct PolygammaAttrs {
  std::int64_t n = 1;
  bool operator==(const PolygammaAttrs&) const = default;
};

using ReshapeAttrs = BasicReshapeAttrs<std::int64_t>;
using BroadcastInDimAttrs = BasicBroadcastInDimAttrs<std::int64_t>;
using SliceAttrs = BasicSliceAttrs<std::int64_t>;
using DynamicSliceAttrs = BasicDynamicSliceAttrs<std::int64_t>;
using PadAttrs = BasicPadAttrs<std::int64_t>;
using GatherAttrs = BasicGatherAttrs<std::int64_t>;

/// The attributes of a primitive, over extent type `D` (Note [Symbolic attributes]).
template <class D>
using BasicAttrs = std::variant<NoAttrs, AxesAttrs, PermutationAttrs, BasicReshapeAttrs<D>,
                                BasicBroadcastInDimAttrs<D>, BasicSliceAttrs<D>,
                                BasicDynamicSliceAttrs<D>, BasicPadAttrs<D>, ConcatenateAttrs,
                                CompareAttrs, ConvertAttrs, DotGeneralAttrs, BasicGatherAttrs<D>,
                                ScatterAttrs, PolygammaAttrs>;
/// Concrete attributes (what kernels see).
using Attrs = BasicAttrs<std::int64_t>;
/// Attributes whose extents may be symbolic (what traced programs store).
using SymAttrs = BasicAttrs<Dim>;

/// Concrete attributes as symbolic ones (constant extents).
SymAttrs to_symbolic(const Attrs& attrs);
/// Evaluates the symbolic extents under `env` (ValueError for unbound symbols).
Attrs evaluate_attrs(const SymAttrs& attrs, const DimBindings& env);
/// True when `env` binds every symbol the attributes mention.
bool attrs_bound(const SymAttrs& attrs, const DimBindings& env);
/// The attributes with symbols renamed (see `Dim::renamed`).
SymAttrs rename_symbols(const SymAttrs& attrs, const std::map<std::string, std::string, std::less<>>& renames);
/// The concrete attributes when every extent is constant, else nullopt.
std::optional<Attrs> try_constant_attrs(const SymAttrs& attrs);

const char* comparison_name(ComparisonDirection d);
/// Prints the attributes as `key=value` pairs (program text, error messages).
std::ostream& operator<<(std::ostream& os, const Attrs& attrs);
std::ostream& operator<<(std::ostream& os, const SymAttrs& attrs);

}  // namespace tenferro
