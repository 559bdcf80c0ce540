#pragma once
// Internal pieces shared by family.cpp, kernels.cpp and einsum.cpp.
#include <cstdint>
#include <vector>

#include <tenferro/tensor/tensor.hpp>

#include "tropical/tropical.hpp"

namespace tropical::detail {

inline constexpr const char* kDotOp = "tropical.dot_general";
inline constexpr const char* kTangentOp = "tropical.winner_tangent";
inline constexpr const char* kCotangentOp = "tropical.winner_cotangent";

/// The dtypes of the contraction and of its derivative ops.
inline constexpr tenferro::DTypeSet kTropicalDTypes = tenferro::kRealDTypes;   // f32 f64 i32 i64
inline constexpr tenferro::DTypeSet kDerivativeDTypes = tenferro::kRealFloatDTypes;

/// The free axes of an operand of rank `rank` (not batch, not contracted), in order.
tenferro::DimVec free_axes(std::int64_t rank, const tenferro::DimVec& batch, const tenferro::DimVec& contracting);

/// Element offsets of `t` over the multi-indices of `axes` (first axis
/// fastest), in elements from `t.data_ptr()`.
std::vector<std::int64_t> offsets(const tenferro::Tensor& t, const tenferro::DimVec& axes);

// Kernels (kernels.cpp); operands already checked by the family's inference.
tenferro::Tensor run_dot(const DotAttrs& attrs, const tenferro::Tensor& a, const tenferro::Tensor& b,
                         tenferro::Backend& backend);
tenferro::Tensor run_winner_tangent(const WinnerAttrs& attrs, const tenferro::Tensor& t, const tenferro::Tensor& a,
                                    const tenferro::Tensor& b, const tenferro::Tensor& c, tenferro::Backend& backend);
tenferro::Tensor run_winner_cotangent(const WinnerAttrs& attrs, const tenferro::Tensor& ct, const tenferro::Tensor& a,
                                      const tenferro::Tensor& b, const tenferro::Tensor& c,
                                      tenferro::Backend& backend);

}  // namespace tropical::detail
