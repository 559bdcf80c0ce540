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

#include <cstdint>
#include <iosfwd>
#include <variant>

#include "tenferro/tensor/dtype.hpp"
#include "tenferro/tensor/shape.hpp"

namespace tenferro {

/// Ops without attributes.
struct NoAttrs {
  bool operator==(const NoAttrs&) const = default;
};

/// Axis lists: reduced axes of reduce_*, reversed axes of reverse.
struct AxesAttrs {
  DimVec dimensions{};
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
struct ReshapeAttrs {
  Shape shape{};
  bool operator==(const ReshapeAttrs&) const = default;
};

/// broadcast_in_dim: operand axis i becomes output axis broadcast_dimensions[i]
/// (strictly increasing is not required); operand extents must be 1 or equal.
struct BroadcastInDimAttrs {
  Shape shape{};
  DimVec broadcast_dimensions{};
  bool operator==(const BroadcastInDimAttrs&) const = default;
};

/// slice: [start, limit) every `strides` (> 0) per axis.
struct SliceAttrs {
  DimVec start_indices{};
  DimVec limit_indices{};
  DimVec strides{};
  bool operator==(const SliceAttrs&) const = default;
};

/// dynamic_slice(operand, starts): `starts` is a 1-D integer tensor with one
/// start per axis, clamped into range as in StableHLO.
struct DynamicSliceAttrs {
  Shape slice_sizes{};
  bool operator==(const DynamicSliceAttrs&) const = default;
};

/// pad(operand, padding_value): negative low/high padding crops.
struct PadAttrs {
  DimVec edge_padding_low{};
  DimVec edge_padding_high{};
  DimVec interior_padding{};
  bool operator==(const PadAttrs&) const = default;
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
/// integer truncates toward zero; to bool tests != 0.
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
struct GatherAttrs {
  DimVec offset_dims{};
  DimVec collapsed_slice_dims{};
  DimVec start_index_map{};
  std::int64_t index_vector_dim = 0;
  Shape slice_sizes{};
  bool operator==(const GatherAttrs&) const = default;
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

using Attrs = std::variant<NoAttrs, AxesAttrs, PermutationAttrs, ReshapeAttrs,
                           BroadcastInDimAttrs, SliceAttrs, DynamicSliceAttrs, PadAttrs,
                           ConcatenateAttrs, CompareAttrs, ConvertAttrs, DotGeneralAttrs,
                           GatherAttrs, ScatterAttrs>;

const char* comparison_name(ComparisonDirection d);
/// Prints the attributes as `key=value` pairs (program text, error messages).
std::ostream& operator<<(std::ostream& os, const Attrs& attrs);

}  // namespace tenferro
