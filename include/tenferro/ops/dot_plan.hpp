#pragma once
/// \file
/// `DotGeneralPlan`: how one `dot_general` maps onto GEMM, computed from
/// metadata only (attributes, shapes, strides), with no data touched. The
/// CPU and CUDA kernels execute it, the einsum planner asks it what the
/// kernels will copy, and the compiler passes ask it what a transpose
/// feeding a `dot_general` may be folded into.
///
/// Note [GEMM mapping]: per batch element, dot_general is C[m, n] = A[m, k]
/// B[k, n] where m groups the lhs free axes, n the rhs free axes and k the
/// contracting pairs. A group of axes is one matrix index when its strides
/// are regular (each axis's stride is the previous one's times its extent;
/// axes of extent 1 do not count). BLAS reads a matrix through one unit
/// stride and one leading dimension: a column-major operand goes in as 'N',
/// a row-major one as 'T', and an output whose rows are contiguous is
/// computed as C^T = B^T A^T. dot_general has no conjugation, so no operand
/// is ever passed as 'C'. The contracting pairs may be taken in any order
/// common to both operands, so two orders are tried (sorted by lhs strides,
/// then by rhs strides) and the one under which more operands are readable
/// as they are wins (ties: the lhs order). So an operand that is readable
/// in place under its own order (its contracting axes sorted by its strides)
/// is copied only when the other operand is readable too, in a different
/// order: then the rhs is copied. Otherwise only an operand readable under
/// neither order is copied, into the column-major layout [m axes, k axes, batch]
/// (lhs) or [k axes, n axes, batch] (rhs); an output that is not writable
/// is computed in a scratch tensor laid out as Note [dot_general layout]
/// (tenferro/ops/primitives.hpp) says and copied once. Without BLAS (small
/// products, integer dtypes) any regular groups are fine. A strided-batched
/// GEMM (`DotPlanOptions::strided_batch`) also needs each operand's batch
/// axes to form one regular group.
///
/// Note [Free axes as loops]: an operand copied only because its free axes
/// do not form one group (lhs [i, c, n] with i and n free, c contracted)
/// need not be copied (`DotPlanOptions::free_loops`). Its free axes of
/// largest stride become loop axes instead, batch axes along which the
/// other operand has stride 0, when
/// - what is left is readable as it is, and the output too;
/// - each product keeps at least 1024 multiply-adds and 4 rows (columns);
/// - the other operand's matrix has at most 32 Ki elements, since every
///   product reads it again (12 products each reading a 15 MB rhs took 2.4x
///   the copy and one GEMM);
/// - every loop axis has a larger stride than the axes each product reads,
///   so that each reads one block (products gathering from all over an
///   8 MB operand took 5x the copy).
/// The CPU backend does so for operands of 64 Ki elements or more: in
/// lm_batch_likelihood_brackets_4_4d the 4 MB copy of such an lhs took
/// longer than its GEMM (one product 1.4 ms; 0.55 ms as 1996 loops).
///
/// ```cpp
/// using namespace tenferro;
/// using namespace tenferro::ops;
/// // C[i, j] = sum_k A[k, i] B[k, j] with A, B column-major [4, 2] and [4, 3]:
/// DotGeneralAttrs d{.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {0}};
/// DotGeneralPlan p = plan_dot_general(d, {4, 2}, {1, 4}, {4, 3}, {1, 4}, {1, 2});
/// // p.m == 2, p.n == 3, p.k == 4; nothing copied;
/// // p.lhs.op == GemmOp::T, p.lhs.ld == 4 (A^T read in place), p.rhs.op == GemmOp::N;
/// GemmCall g = p.gemm();   // dgemm('T', 'N', 2, 3, 4, A, 4, B, 4, C, 2)
/// ```

#include <cstdint>
#include <optional>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/tensor/shape.hpp"

namespace tenferro::ops {

/// How BLAS reads a matrix: as stored column-major ('N') or transposed ('T').
enum class GemmOp : char { N = 'N', T = 'T' };

/// The axes of one dot_general operand by role (free axes in operand order).
struct DotAxes {
  DimVec batch, contracting, free;
};

/// Splits both operands' axes by role; the contracting pairs keep the
/// attributes' order.
struct DotRoles {
  DotAxes lhs, rhs;
};
DotRoles dot_roles(const DotGeneralAttrs& attrs, std::int64_t lhs_rank, std::int64_t rhs_rank);

/// Reorders the contracting pairs stably by `key(by[i])`, moving `other[i]`
/// along (`by`, `other`: the lhs and rhs contracting axes, either way
/// round). The compiler's dimension sorting keys on the lhs axis itself,
/// the plan on an operand's strides.
template <class Key>
void sort_contracting_pairs(DimVec& by, DimVec& other, Key key);

/// Several axes read as one index (Note [GEMM mapping]).
struct AxisGroup {
  std::int64_t extent = 1;   ///< product of the extents
  std::int64_t stride = 1;   ///< stride of the first axis of extent != 1
  bool regular = true;       ///< one stride reaches every element
};
AxisGroup merge_axes(const Shape& shape, const Strides& strides, const DimVec& axes);

/// How BLAS reads a rows x cols matrix in place.
struct GemmLayout {
  GemmOp op = GemmOp::N;
  std::int64_t ld = 1;  ///< leading dimension
};
/// The in-place BLAS layout of the matrix with these row and column groups,
/// or nullopt when it needs a copy.
std::optional<GemmLayout> gemm_layout(const AxisGroup& rows, const AxisGroup& cols);

/// What a kernel can do.
struct DotPlanOptions {
  bool blas = true;                    ///< a BLAS GEMM is available (float dtypes)
  std::int64_t min_blas_work = 0;      ///< ... and used only when m n k >= this; else a strided loop
  bool strided_batch = false;          ///< the batch loop is a strided-batched GEMM
  /// Free axes may become loop axes instead of a copy (Note [Free axes as
  /// loops]) ...
  bool free_loops = false;
  /// ... of an operand of at least this many elements.
  std::int64_t free_loops_min_copy = 0;
};

/// One operand's (or the output's) part of the plan. All strides are in
/// elements and describe the tensor the kernel reads or writes, i.e. the
/// copy or scratch when there is one.
struct GemmOperandPlan {
  /// Operand: copied first, column-major with its axes in `copy_order`.
  /// Output: computed into a scratch of `scratch_strides`, then copied.
  bool copy = false;
  DimVec copy_order;           ///< operands only
  Strides scratch_strides;     ///< output only
  std::int64_t copied_elements = 0;
  std::int64_t row_stride = 1, col_stride = 1;  ///< strides of the matrix row and column index
  GemmOp op = GemmOp::N;       ///< BLAS only
  std::int64_t ld = 1;         ///< BLAS only
  Strides batch_strides;       ///< one per batch axis (`DotGeneralPlan::batch_shape` order)
  std::int64_t batch_stride = 0;  ///< the one batch stride, when `DotGeneralPlan::strided_batch`
};

/// The BLAS call per batch element: C = op(X) op(Y) (`swapped` false,
/// X = lhs, Y = rhs) or C^T = op(X) op(Y) (`swapped` true, X = rhs, Y = lhs).
struct GemmCall {
  bool swapped = false;
  GemmOp op_x = GemmOp::N, op_y = GemmOp::N;
  std::int64_t m = 0, n = 0, k = 0, ldx = 1, ldy = 1, ldc = 1;
  /// Largest of the extents and leading dimensions (for 32-bit interfaces).
  std::int64_t max_extent() const;
};

/// The mapping of one dot_general onto (batched) GEMM.
struct DotGeneralPlan {
  DotRoles axes;                ///< the operands' axes (not their copies'), pairs in the order read
  DimVec out_batch, out_m, out_n;  ///< output axes of the batch, m and n indices
  std::int64_t m = 1, n = 1, k = 1;
  Shape batch_shape;            ///< extents of the batch axes
  std::int64_t batch_count = 1;
  bool blas = false;            ///< BLAS layouts (else any regular strides)
  bool strided_batch = false;   ///< every batch group is one stride (`batch_stride`)
  GemmOperandPlan lhs, rhs, out;

  /// The BLAS call (needs `blas`).
  GemmCall gemm() const;
  /// Element offsets of batch element `b` (axis 0 fastest) in lhs, rhs, out.
  void batch_offsets(std::int64_t b, std::int64_t& lhs_off, std::int64_t& rhs_off, std::int64_t& out_off) const;
  /// Elements copied (operands and scratch output).
  std::int64_t copied_elements() const { return lhs.copied_elements + rhs.copied_elements + out.copied_elements; }
};

/// Plans `dot_general(attrs)` of operands with the given shapes and strides
/// into an output with `out_strides` (its shape follows from `attrs`).
/// Checks nothing that `infer` checks; call it on validated operands.
DotGeneralPlan plan_dot_general(const DotGeneralAttrs& attrs, const Shape& lhs_shape, const Strides& lhs_strides,
                                const Shape& rhs_shape, const Strides& rhs_strides, const Strides& out_strides,
                                const DotPlanOptions& options = {});

/// Output axes in memory order (fastest first) under Note [dot_general
/// layout]: the free axes, then the batch axes.
DimVec dot_output_memory_order(const DotGeneralAttrs& attrs, std::int64_t out_rank);

/// The attributes under which `dot_general` reads operand `side` (0: lhs,
/// 1: rhs) directly from the operand of `transpose(x, permutation)`, or
/// nullopt when the fold would reorder the output's free axes.
std::optional<DotGeneralAttrs> fold_transpose_into_dot(const DotGeneralAttrs& attrs, int side,
                                                       const DimVec& permutation);

/// The attributes with the contracting pairs sorted by lhs axis (a
/// canonical form; the plan reorders pairs by strides anyway).
DotGeneralAttrs sort_dot_dimensions(DotGeneralAttrs attrs);

// ---- implementation ------------------------------------------------------------

template <class Key>
void sort_contracting_pairs(DimVec& by, DimVec& other, Key key) {
  // Stable insertion sort: a handful of pairs.
  for (std::size_t i = 1; i < by.size(); ++i) {
    const std::int64_t b = by[i], o = other[i];
    const auto kb = key(b);
    std::size_t j = i;
    for (; j > 0 && kb < key(by[j - 1]); --j) {
      by[j] = by[j - 1];
      other[j] = other[j - 1];
    }
    by[j] = b;
    other[j] = o;
  }
}

}  // namespace tenferro::ops
