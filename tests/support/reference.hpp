#pragma once
// An independent, naive interpreter of every primitive in ops.def.
//
// It is written from the documented semantics (tenferro/ops/attrs.hpp,
// tenferro/ops/primitives.hpp, the scalar rules in Note [Integer
// arithmetic] and the StableHLO specification), never from the kernels in
// src/cpu: each op is one loop over output (or input) multi-indices that
// reads and writes single elements through Tensor::at / Tensor::set.
// Floating-point arithmetic runs in long double (complex<long double>), so
// the reference is more accurate than any kernel; integer arithmetic runs in
// int64 and wraps to the operand's width. Results are fresh column-major
// host tensors; output shapes are computed here too (not by `infer`), so a
// comparison also checks inference.
//
// The documented tenferro deviations from StableHLO are followed: reshape
// uses column-major element order; dot_general's output axes are (batch,
// lhs free, rhs free); integer x / 0 = -1 and MIN / -1 = MIN; integer power
// with a negative exponent is 0 unless the base is +-1; maximum / minimum
// propagate NaN; convert saturates float -> integer (NaN -> 0), takes the
// real part of complex -> real and wraps integer -> narrower integer;
// gather and dynamic_slice clamp their starts; scatter skips every window
// that is not entirely inside the operand; pad accepts negative low/high.
#include <span>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::testing {

/// The value of primitive `kind` on `inputs` (host tensors, any layout).
/// Inputs are assumed valid (the reference does not re-implement the error
/// checks; feed it only inputs that `infer` accepts).
Tensor reference_eval(OpKind kind, const Attrs& attrs, std::span<const Tensor> inputs);

/// Allowed distance of a kernel's result from `reference_eval`:
/// |got - ref| <= atol + rtol |ref| elementwise (complex: in modulus).
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

/// Tolerance for `kind` on these inputs: exact for integer and bool
/// results and for ops that only move or select elements; a few ulps of the
/// result dtype for elementwise float arithmetic; for sums, products and
/// contractions an error bound that grows with the reduction length and
/// the operands' magnitudes.
Tolerance reference_tolerance(OpKind kind, const Attrs& attrs, std::span<const Tensor> inputs,
                              DType out_dtype);

}  // namespace tenferro::testing
