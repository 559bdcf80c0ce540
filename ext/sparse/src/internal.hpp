#pragma once
// Internal pieces shared by family.cpp and kernels.cpp.
#include <cstdint>

#include <tenferro/ops/backend.hpp>
#include <tenferro/tensor/dtype.hpp>
#include <tenferro/tensor/tensor.hpp>

#include "sparse/sparse.hpp"

namespace sparse::detail {

inline constexpr const char* kCooOp = "sparse.coo_matmul";
inline constexpr const char* kSddmmOp = "sparse.sddmm";

/// The dtypes of values and dense operands.
inline constexpr tenferro::DTypeSet kValueDTypes = tenferro::kFloatDTypes;   // f32 f64 c64 c128

// Kernels (kernels.cpp); operands already checked by the family's shape rules,
// index ranges checked here (IndexError).
tenferro::Tensor run_coo_matmul(const tenferro::Tensor& values, const tenferro::Tensor& rows,
                                const tenferro::Tensor& cols, const tenferro::Tensor& dense, std::int64_t m,
                                tenferro::Backend& backend);
tenferro::Tensor run_sddmm(const tenferro::Tensor& a, const tenferro::Tensor& b, const tenferro::Tensor& rows,
                           const tenferro::Tensor& cols, tenferro::Backend& backend);

}  // namespace sparse::detail
