#pragma once
/// \file
/// User-facing tensor functions: broadcasting arithmetic, matmul, reductions,
/// norms. Each lowers to primitives (tenferro/ops/primitives.hpp) with
/// explicit `broadcast_in_dim` and `convert`; the same functions are
/// available as `Tensor` methods (`a.add(b, backend)`).
///
/// ```cpp
/// using namespace tenferro;
/// CpuBackend cpu;
/// auto x = Tensor::from_vec_col_major<double>({3, 1}, {1, 2, 3});
/// auto y = Tensor::from_vec_col_major<float>({1, 2}, {10, 20});
/// Tensor z = add(x, y, cpu);       // f64 [3, 2]: x broadcast along axis 1, y along 0
/// Tensor m = mean(z, {0}, cpu);    // f64 [2]: 12, 22
/// ```
/// Broadcasting follows NumPy: shapes are aligned at their trailing axes,
/// and an axis of extent 1 (or a missing leading axis) stretches to match.
/// dtypes promote along bool < integers < floats < complex (promote_types).
/// Reduction axes may be negative (counted from the end).

#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/dim.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

/// NumPy broadcast of two shapes; ShapeError naming `op` when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op = "broadcast_shapes");
/// The same over symbolic extents: an axis broadcasts when one side is the
/// constant 1; otherwise both extents must be the same expression.
SymShape broadcast_sym_shapes(const SymShape& a, const SymShape& b, const char* op = "broadcast_shapes");

Tensor add(const Tensor& a, const Tensor& b, Backend& backend);
Tensor sub(const Tensor& a, const Tensor& b, Backend& backend);
Tensor mul(const Tensor& a, const Tensor& b, Backend& backend);
Tensor div(const Tensor& a, const Tensor& b, Backend& backend);
/// Arithmetic with a scalar; the scalar takes the tensor's dtype unless it
/// is complex and the tensor real (then both become complex).
Tensor add(const Tensor& a, Scalar b, Backend& backend);
Tensor mul(const Tensor& a, Scalar b, Backend& backend);
Tensor neg(const Tensor& a, Backend& backend);
Tensor square(const Tensor& a, Backend& backend);
/// select with broadcasting: `cond ? a : b` elementwise (`cond` bool).
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, Backend& backend);

/// Matrix product. 1-D operands are vectors (a [k] . b [k] is a scalar); for
/// rank >= 2, axes (0, 1) are the matrix axes and trailing axes are batch
/// axes, broadcast against each other: [m, k, b...] x [k, n, b...] -> [m, n, b...].
Tensor matmul(const Tensor& a, const Tensor& b, Backend& backend);

Tensor sum(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor sum(const Tensor& a, Backend& backend);
Tensor mean(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor mean(const Tensor& a, Backend& backend);
Tensor max(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor max(const Tensor& a, Backend& backend);
Tensor min(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor min(const Tensor& a, Backend& backend);
Tensor prod(const Tensor& a, const DimVec& axes, Backend& backend);
Tensor prod(const Tensor& a, Backend& backend);

Tensor exp(const Tensor& a, Backend& backend);
Tensor log(const Tensor& a, Backend& backend);
Tensor sqrt(const Tensor& a, Backend& backend);
Tensor abs(const Tensor& a, Backend& backend);
Tensor conj(const Tensor& a, Backend& backend);
/// Real part (real tensors: themselves).
Tensor real(const Tensor& a, Backend& backend);
/// Imaginary part (real tensors: zeros).
Tensor imag(const Tensor& a, Backend& backend);

/// Frobenius norm sqrt(sum |a|^2), a real rank-0 tensor.
Tensor norm(const Tensor& a, Backend& backend);
/// Sum of the diagonal of axes (0, 1); trailing axes are batch axes.
Tensor trace(const Tensor& a, Backend& backend);

}  // namespace tenferro
