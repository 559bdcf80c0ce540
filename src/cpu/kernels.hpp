#pragma once
// The CPU kernels, one function per kernel family (dispatched by CpuBackend::execute).
#include <span>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/fused.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::cpu {

/// Unary, binary and ternary elementwise primitives.
void elementwise(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out);
/// One elementwise primitive over contiguous arrays of `n` elements: args[k]
/// points at operand k, read with stride strides[k] (1, or 0 for a scalar).
void elementwise_arrays(OpKind kind, const Attrs& attrs, const DType* in_dtypes, DType out_dtype,
                        const void* const* args, const std::int64_t* strides, void* out, std::int64_t n);
/// A fused chain of elementwise primitives in one pass over the data.
void fused_elementwise(const FusedElementwise& k, std::span<const Tensor> in, const Tensor& out);
/// reduce_sum / reduce_prod / reduce_max / reduce_min over `axes`.
void reduce(OpKind kind, const DimVec& axes, const Tensor& in, const Tensor& out);
/// dot_general through BLAS GEMM (or the small-matrix loop). Scratch copies
/// (operands and output in GEMM layouts) come from `scratch`, the calling
/// backend, whose buffer cache hands back warm memory (Note [Buffer cache]).
void dot_general(const DotGeneralAttrs& attrs, const Tensor& lhs, const Tensor& rhs,
                 const Tensor& out, Backend& scratch);
/// Copies `src` into `dst` (same shape and dtype, any layouts), split across threads.
void parallel_copy(const Tensor& dst, const Tensor& src);
/// Structural primitives (transpose, reshape, broadcast_in_dim, slice, ...).
void structural(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out);

}  // namespace tenferro::cpu
