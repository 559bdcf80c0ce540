// DotGeneralPlan (tenferro/ops/dot_plan.hpp): plans computed by hand for
// column-major, permuted, broadcast (stride 0), reversed (negative
// strides), batched and degenerate operands; then, for every float dtype,
// a naive interpreter of the plan (its copies, strides, BLAS layouts and
// batch offsets, read element by element) and the CPU kernel that executes
// it, both against the independent reference loop.
#include <algorithm>
#include <array>

#include "support/reference.hpp"
#include "support/test_support.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/ops/dot_plan.hpp"
#include "tenferro/ops/primitives.hpp"

using namespace tenferro;
using namespace tenferro::ops;
using namespace tenferro::testing;

namespace {

DotGeneralAttrs matmul() { return {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}; }

// ---- hand-computed plans ---------------------------------------------------------

TEST(DotPlan, ColumnMajorMatmul) {
  // A [2, 3], B [3, 4], C [2, 4], all column-major.
  const DotGeneralPlan p = plan_dot_general(matmul(), {2, 3}, {1, 2}, {3, 4}, {1, 3}, {1, 2});
  EXPECT_EQ(p.m, 2);
  EXPECT_EQ(p.n, 4);
  EXPECT_EQ(p.k, 3);
  EXPECT_EQ(p.batch_count, 1);
  EXPECT_TRUE(p.batch_shape.empty());
  EXPECT_TRUE(p.blas);
  EXPECT_FALSE(p.lhs.copy || p.rhs.copy || p.out.copy);
  EXPECT_EQ(p.copied_elements(), 0);
  EXPECT_EQ(p.lhs.op, GemmOp::N);
  EXPECT_EQ(p.lhs.ld, 2);
  EXPECT_EQ(p.rhs.op, GemmOp::N);
  EXPECT_EQ(p.rhs.ld, 3);
  EXPECT_EQ(p.out.op, GemmOp::N);
  EXPECT_EQ(p.out.ld, 2);
  const GemmCall g = p.gemm();
  EXPECT_FALSE(g.swapped);
  EXPECT_EQ(g.op_x, GemmOp::N);
  EXPECT_EQ(g.op_y, GemmOp::N);
  EXPECT_EQ((std::array<std::int64_t, 6>{g.m, g.n, g.k, g.ldx, g.ldy, g.ldc}),
            (std::array<std::int64_t, 6>{2, 4, 3, 2, 3, 2}));
  EXPECT_EQ(p.out_m, DimVec({0}));
  EXPECT_EQ(p.out_n, DimVec({1}));
}

TEST(DotPlan, HeaderExample) {
  // C[i, j] = sum_k A[k, i] B[k, j]: A read as A^T in place.
  DotGeneralAttrs d{.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {0}};
  const DotGeneralPlan p = plan_dot_general(d, {4, 2}, {1, 4}, {4, 3}, {1, 4}, {1, 2});
  EXPECT_EQ(p.m, 2);
  EXPECT_EQ(p.n, 3);
  EXPECT_EQ(p.k, 4);
  EXPECT_EQ(p.copied_elements(), 0);
  EXPECT_EQ(p.lhs.op, GemmOp::T);
  EXPECT_EQ(p.lhs.ld, 4);
  EXPECT_EQ(p.rhs.op, GemmOp::N);
  const GemmCall g = p.gemm();
  EXPECT_EQ((std::array<std::int64_t, 6>{g.m, g.n, g.k, g.ldx, g.ldy, g.ldc}),
            (std::array<std::int64_t, 6>{2, 3, 4, 4, 4, 2}));
  EXPECT_EQ(g.op_x, GemmOp::T);
}

TEST(DotPlan, RowMajorOperandsAndOutput) {
  // Row-major A [2, 3] (strides [3, 1]) is read as 'T' with ld 3; a
  // row-major C [2, 4] (strides [4, 1]) is computed as C^T = B^T A^T.
  const DotGeneralPlan p = plan_dot_general(matmul(), {2, 3}, {3, 1}, {3, 4}, {1, 3}, {4, 1});
  EXPECT_EQ(p.copied_elements(), 0);
  EXPECT_EQ(p.lhs.op, GemmOp::T);
  EXPECT_EQ(p.lhs.ld, 3);
  EXPECT_EQ(p.lhs.row_stride, 3);
  EXPECT_EQ(p.lhs.col_stride, 1);
  EXPECT_EQ(p.rhs.op, GemmOp::N);
  EXPECT_EQ(p.out.op, GemmOp::T);
  EXPECT_EQ(p.out.ld, 4);
  const GemmCall g = p.gemm();
  EXPECT_TRUE(g.swapped);
  EXPECT_EQ(g.op_x, GemmOp::T);  // B (stored 'N') read transposed
  EXPECT_EQ(g.op_y, GemmOp::N);  // A (stored 'T') read as it is
  EXPECT_EQ((std::array<std::int64_t, 6>{g.m, g.n, g.k, g.ldx, g.ldy, g.ldc}),
            (std::array<std::int64_t, 6>{4, 2, 3, 3, 3, 4}));
}

TEST(DotPlan, BroadcastOperand) {
  // A [2, 3] broadcast along its rows (stride 0): no BLAS layout, so BLAS
  // copies it column-major; the strided loop reads it in place.
  const DotGeneralPlan b = plan_dot_general(matmul(), {2, 3}, {0, 1}, {3, 4}, {1, 3}, {1, 2});
  EXPECT_TRUE(b.lhs.copy);
  EXPECT_EQ(b.lhs.copy_order, DimVec({0, 1}));
  EXPECT_EQ(b.lhs.copied_elements, 6);
  EXPECT_EQ(b.lhs.op, GemmOp::N);
  EXPECT_EQ(b.lhs.ld, 2);
  EXPECT_FALSE(b.rhs.copy);
  const DotGeneralPlan s =
      plan_dot_general(matmul(), {2, 3}, {0, 1}, {3, 4}, {1, 3}, {1, 2}, {.blas = false});
  EXPECT_FALSE(s.blas);
  EXPECT_EQ(s.copied_elements(), 0);
  EXPECT_EQ(s.lhs.row_stride, 0);
  EXPECT_EQ(s.lhs.col_stride, 1);
}

TEST(DotPlan, NegativeStrides) {
  // A [2, 3] with both axes reversed (strides [-1, -2]): regular, no unit stride.
  const DotGeneralPlan b = plan_dot_general(matmul(), {2, 3}, {-1, -2}, {3, 4}, {1, 3}, {1, 2});
  EXPECT_TRUE(b.lhs.copy);
  EXPECT_EQ(b.lhs.copied_elements, 6);
  const DotGeneralPlan s =
      plan_dot_general(matmul(), {2, 3}, {-1, -2}, {3, 4}, {1, 3}, {1, 2}, {.blas = false});
  EXPECT_FALSE(s.lhs.copy);
  EXPECT_EQ(s.lhs.row_stride, -1);
  EXPECT_EQ(s.lhs.col_stride, -2);
  // Irregular for both: free axes [0, 2] of a [2, 3, 2] tensor, not adjacent in memory.
  DotGeneralAttrs d{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
  const DotGeneralPlan i =
      plan_dot_general(d, {2, 3, 2}, {1, 2, 6}, {3, 4}, {1, 3}, {1, 2, 4}, {.blas = false});
  EXPECT_TRUE(i.lhs.copy);
  EXPECT_EQ(i.lhs.copy_order, DimVec({0, 2, 1}));
  EXPECT_EQ(i.m, 4);
  EXPECT_EQ(i.lhs.row_stride, 1);
  EXPECT_EQ(i.lhs.col_stride, 4);
}

TEST(DotPlan, BatchAxes) {
  // lhs [b=5, m=2, k=3] column-major: neither matrix index has unit stride,
  // so BLAS copies it to [m, k, b]; rhs [k=3, n=4, b=5] is read in place;
  // the output [5, 2, 4] has Note [dot_general layout] strides [8, 1, 2].
  DotGeneralAttrs d{.lhs_batching_dimensions = {0},
                    .rhs_batching_dimensions = {2},
                    .lhs_contracting_dimensions = {2},
                    .rhs_contracting_dimensions = {0}};
  const Strides ost = preferred_strides(OpKind::dot_general, d, {5, 2, 4});
  EXPECT_EQ(ost, Strides({8, 1, 2}));
  const DotGeneralPlan p = plan_dot_general(d, {5, 2, 3}, {1, 5, 10}, {3, 4, 5}, {1, 3, 12}, ost,
                                            {.strided_batch = true});
  EXPECT_EQ(p.batch_shape, Shape({5}));
  EXPECT_EQ(p.batch_count, 5);
  EXPECT_TRUE(p.lhs.copy);
  EXPECT_EQ(p.lhs.copy_order, DimVec({1, 2, 0}));
  EXPECT_EQ(p.lhs.ld, 2);
  EXPECT_EQ(p.lhs.batch_strides, Strides({6}));
  EXPECT_EQ(p.lhs.batch_stride, 6);
  EXPECT_FALSE(p.rhs.copy);
  EXPECT_EQ(p.rhs.ld, 3);
  EXPECT_EQ(p.rhs.batch_stride, 12);
  EXPECT_FALSE(p.out.copy);
  EXPECT_EQ(p.out.batch_stride, 8);
  EXPECT_TRUE(p.strided_batch);
  std::int64_t lo = 0, ro = 0, oo = 0;
  p.batch_offsets(3, lo, ro, oo);
  EXPECT_EQ((std::array<std::int64_t, 3>{lo, ro, oo}), (std::array<std::int64_t, 3>{18, 36, 24}));
}

TEST(DotPlan, TwoBatchAxesGeneralLoopOrStridedCopy) {
  // lhs [m=2, k=3, b1=2, b2=3] whose batch axes are swapped in memory
  // (strides [1, 2, 18, 6]): no single batch stride. The general loop reads
  // it in place; a strided-batched GEMM needs a copy.
  DotGeneralAttrs d{.lhs_batching_dimensions = {2, 3},
                    .rhs_batching_dimensions = {2, 3},
                    .lhs_contracting_dimensions = {1},
                    .rhs_contracting_dimensions = {0}};
  const Shape ls{2, 3, 2, 3}, rs{3, 4, 2, 3};
  const Strides lst{1, 2, 18, 6}, rst = col_major_strides(rs);
  const Strides ost = preferred_strides(OpKind::dot_general, d, {2, 3, 2, 4});
  const DotGeneralPlan g = plan_dot_general(d, ls, lst, rs, rst, ost);
  EXPECT_FALSE(g.lhs.copy);
  EXPECT_FALSE(g.strided_batch);
  EXPECT_EQ(g.batch_shape, Shape({2, 3}));
  EXPECT_EQ(g.lhs.batch_strides, Strides({18, 6}));
  std::int64_t lo = 0, ro = 0, oo = 0;
  g.batch_offsets(5, lo, ro, oo);  // (b1, b2) = (1, 2)
  EXPECT_EQ(lo, 18 + 12);
  EXPECT_EQ(ro, 12 + 2 * 24);
  EXPECT_EQ(oo, 8 + 2 * 16);
  const DotGeneralPlan s = plan_dot_general(d, ls, lst, rs, rst, ost, {.strided_batch = true});
  EXPECT_TRUE(s.lhs.copy);
  EXPECT_EQ(s.lhs.copy_order, DimVec({0, 1, 2, 3}));
  EXPECT_FALSE(s.rhs.copy);
  EXPECT_TRUE(s.strided_batch);
  EXPECT_EQ(s.lhs.batch_stride, 6);
}

TEST(DotPlan, ContractingOrderTieKeepsLhsOrder) {
  // lhs [m=2, k1=3, k2=4], rhs [k2=4, k1=3, n=5], both column-major: the
  // pair orders disagree, one operand must be copied, the lhs order wins.
  DotGeneralAttrs d{.lhs_contracting_dimensions = {1, 2}, .rhs_contracting_dimensions = {1, 0}};
  const DotGeneralPlan p = plan_dot_general(d, {2, 3, 4}, {1, 2, 6}, {4, 3, 5}, {1, 4, 12}, {1, 2});
  EXPECT_EQ(p.axes.lhs.contracting, DimVec({1, 2}));
  EXPECT_EQ(p.axes.rhs.contracting, DimVec({1, 0}));
  EXPECT_FALSE(p.lhs.copy);
  EXPECT_TRUE(p.rhs.copy);
  EXPECT_EQ(p.rhs.copy_order, DimVec({1, 0, 2}));
  EXPECT_EQ(p.rhs.copied_elements, 60);
  EXPECT_EQ(p.k, 12);
  EXPECT_EQ(p.rhs.ld, 12);
}

TEST(DotPlan, ContractingOrderOfTheRhsWhenItReadsMore) {
  // lhs [m1=2, k1=3, m2=2, k2=4]: its free axes are not adjacent, so it is
  // copied whatever the order; the rhs order then reads the rhs in place.
  DotGeneralAttrs d{.lhs_contracting_dimensions = {1, 3}, .rhs_contracting_dimensions = {1, 0}};
  const Shape ls{2, 3, 2, 4}, rs{4, 3, 5};
  const DotGeneralPlan p =
      plan_dot_general(d, ls, col_major_strides(ls), rs, col_major_strides(rs), {1, 2, 4});
  EXPECT_EQ(p.axes.lhs.contracting, DimVec({3, 1}));
  EXPECT_EQ(p.axes.rhs.contracting, DimVec({0, 1}));
  EXPECT_TRUE(p.lhs.copy);
  EXPECT_EQ(p.lhs.copy_order, DimVec({0, 2, 3, 1}));
  EXPECT_FALSE(p.rhs.copy);
  EXPECT_EQ(p.copied_elements(), 48);
}

TEST(DotPlan, DegenerateExtents) {
  // Extent-1 axes do not count in a group, whatever their stride.
  DotGeneralAttrs d{.lhs_contracting_dimensions = {1, 2}, .rhs_contracting_dimensions = {0, 1}};
  const DotGeneralPlan p = plan_dot_general(d, {2, 1, 3}, {1, 999, 2}, {1, 3, 4}, {-7, 1, 3}, {1, 2});
  EXPECT_EQ(p.copied_elements(), 0);
  EXPECT_EQ(p.k, 3);
  EXPECT_EQ(p.lhs.col_stride, 2);
  // k = 0 and an empty m: the plan is still well formed.
  const DotGeneralPlan z = plan_dot_general(matmul(), {2, 0}, {1, 2}, {0, 3}, {1, 1}, {1, 2});
  EXPECT_EQ(z.k, 0);
  EXPECT_EQ(z.m * z.n, 6);
  const DotGeneralPlan e = plan_dot_general(matmul(), {0, 3}, {1, 1}, {3, 4}, {1, 3}, {1, 1});
  EXPECT_EQ(e.m, 0);
  EXPECT_EQ(e.copied_elements(), 0);
  // A matrix-vector product: n = 1, any output stride.
  const DotGeneralPlan v = plan_dot_general(matmul(), {2, 3}, {1, 2}, {3, 1}, {1, 3}, {1, 5});
  EXPECT_EQ(v.n, 1);
  EXPECT_EQ(v.copied_elements(), 0);
  EXPECT_EQ(v.out.ld, 2);
  // Work below `min_blas_work` takes the strided loop.
  EXPECT_FALSE(plan_dot_general(matmul(), {2, 3}, {1, 2}, {3, 4}, {1, 3}, {1, 2}, {.min_blas_work = 25}).blas);
  EXPECT_TRUE(plan_dot_general(matmul(), {2, 3}, {1, 2}, {3, 4}, {1, 3}, {1, 2}, {.min_blas_work = 24}).blas);
}

TEST(DotPlan, FreeAxesAsLoops) {
  // C[i, n, j] = sum_c A[i, c, n] B[c, j], A [4, 8, 5] column-major: i and n
  // are no group (strides 1 and 32), so without loops A is copied.
  DotGeneralAttrs d{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
  const Shape a{4, 8, 5}, b{8, 32};
  const Strides as{1, 4, 32}, bs{1, 8}, cs{1, 4, 20};
  const DotGeneralPlan copied = plan_dot_general(d, a, as, b, bs, cs);
  EXPECT_TRUE(copied.lhs.copy);
  EXPECT_EQ(copied.m, 20);
  const DotGeneralPlan p = plan_dot_general(d, a, as, b, bs, cs, {.free_loops = true});
  EXPECT_EQ(p.copied_elements(), 0);
  EXPECT_EQ(p.m, 4);
  EXPECT_EQ(p.n, 32);
  EXPECT_EQ(p.k, 8);
  EXPECT_EQ(p.batch_count, 5);
  EXPECT_EQ(p.batch_shape, Shape({5}));
  EXPECT_EQ(p.out_m, DimVec({0}));
  EXPECT_EQ(p.out_batch, DimVec({1}));
  EXPECT_EQ(p.lhs.batch_strides, Strides({32}));
  EXPECT_EQ(p.rhs.batch_strides, Strides({0}));
  EXPECT_EQ(p.out.batch_strides, Strides({4}));
  EXPECT_FALSE(p.strided_batch);
  EXPECT_EQ(p.lhs.op, GemmOp::N);
  EXPECT_EQ(p.lhs.ld, 4);
  EXPECT_EQ(p.out.ld, 20);
  // Below the copy threshold, or where a product would keep too little work
  // (a 2-row group), the copy stays.
  EXPECT_TRUE(plan_dot_general(d, a, as, b, bs, cs, {.free_loops = true, .free_loops_min_copy = 161}).lhs.copy);
  EXPECT_TRUE(plan_dot_general(d, {2, 8, 5}, {1, 2, 16}, b, bs, {1, 2, 10}, {.free_loops = true}).lhs.copy);
  // A loop axis inside the contracted one (n stride 8, c stride 40): each
  // product would gather from the whole operand, so the copy stays.
  EXPECT_TRUE(plan_dot_general(d, a, {1, 40, 8}, b, bs, cs, {.free_loops = true}).lhs.copy);
  // Every product would read an rhs of 8 x 5000 elements again: the copy stays.
  EXPECT_TRUE(plan_dot_general(d, a, as, {8, 5000}, {1, 8}, {1, 4, 20}, {.free_loops = true}).lhs.copy);
}

TEST(DotPlan, UnwritableOutputUsesScratch) {
  // An output [2, 4] with strides [2, 8] (every other element of a larger
  // buffer): no unit stride for BLAS, so a scratch in the preferred layout.
  const DotGeneralPlan p = plan_dot_general(matmul(), {2, 3}, {1, 2}, {3, 4}, {1, 3}, {2, 8});
  EXPECT_TRUE(p.out.copy);
  EXPECT_EQ(p.out.scratch_strides, Strides({1, 2}));
  EXPECT_EQ(p.out.copied_elements, 8);
  EXPECT_EQ(p.out.ld, 2);
  // Without BLAS any regular strides are writable.
  EXPECT_FALSE(plan_dot_general(matmul(), {2, 3}, {1, 2}, {3, 4}, {1, 3}, {2, 8}, {.blas = false}).out.copy);
}

TEST(DotPlan, CompilerHelpers) {
  DotGeneralAttrs d{.lhs_batching_dimensions = {0},
                    .rhs_batching_dimensions = {0},
                    .lhs_contracting_dimensions = {3, 1},
                    .rhs_contracting_dimensions = {1, 2}};
  const DotGeneralAttrs s = sort_dot_dimensions(d);
  EXPECT_EQ(s.lhs_contracting_dimensions, DimVec({1, 3}));
  EXPECT_EQ(s.rhs_contracting_dimensions, DimVec({2, 1}));
  EXPECT_EQ(dot_output_memory_order(d, 4), DimVec({1, 2, 3, 0}));
  // lhs = transpose(x, [2, 0, 1, 3]): free axis 2 of lhs is x axis 1.
  const auto f = fold_transpose_into_dot(d, 0, {2, 0, 1, 3});
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->lhs_batching_dimensions, DimVec({2}));
  EXPECT_EQ(f->lhs_contracting_dimensions, DimVec({3, 0}));
  EXPECT_EQ(f->rhs_contracting_dimensions, d.rhs_contracting_dimensions);
  // Two free axes whose order the transpose swaps cannot fold.
  DotGeneralAttrs mm = matmul();
  EXPECT_FALSE(fold_transpose_into_dot({.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {0}}, 0,
                                       {0, 2, 1})
                   .has_value());
  EXPECT_TRUE(fold_transpose_into_dot(mm, 1, {1, 0}).has_value());
  EXPECT_EQ(fold_transpose_into_dot(mm, 1, {1, 0})->rhs_contracting_dimensions, DimVec({1}));
}

// ---- executing the plan ----------------------------------------------------------

// A copy of `t` in column-major order with axes `order`.
Tensor copied(const Tensor& t, const DimVec& order) { return t.permute(order).duplicate(); }

// Runs the plan element by element: A(i, p) and B(p, j) through the BLAS
// layouts (or the matrix strides without BLAS), the batch through
// `batch_offsets`; returns the tensor written (`out` or the scratch).
template <class T>
Tensor interpret(const DotGeneralPlan& p, const Tensor& lhs, const Tensor& rhs, const Tensor& out) {
  const Tensor L = p.lhs.copy ? copied(lhs, p.lhs.copy_order) : lhs;
  const Tensor R = p.rhs.copy ? copied(rhs, p.rhs.copy_order) : rhs;
  Tensor C = out;
  if (p.out.copy) {
    CpuBackend cpu;
    C = cpu.empty_strided(out.dtype(), out.shape(), p.out.scratch_strides);
  }
  auto elem = [](GemmOp op, std::int64_t ld, std::int64_t r, std::int64_t c) {
    return op == GemmOp::N ? r + c * ld : c + r * ld;
  };
  const GemmCall g = p.blas ? p.gemm() : GemmCall{};
  for (std::int64_t b = 0; b < p.batch_count; ++b) {
    std::int64_t lo = 0, ro = 0, oo = 0;
    p.batch_offsets(b, lo, ro, oo);
    if (p.strided_batch) {
      EXPECT_EQ(lo, b * p.lhs.batch_stride);
      EXPECT_EQ(ro, b * p.rhs.batch_stride);
      EXPECT_EQ(oo, b * p.out.batch_stride);
    }
    const T* a = L.data<T>() + lo;
    const T* bb = R.data<T>() + ro;
    T* c = C.data<T>() + oo;
    if (p.blas) {
      const T* x = g.swapped ? bb : a;
      const T* y = g.swapped ? a : bb;
      for (std::int64_t i = 0; i < g.m; ++i)
        for (std::int64_t j = 0; j < g.n; ++j) {
          T acc(0);
          for (std::int64_t q = 0; q < g.k; ++q)
            acc += x[elem(g.op_x, g.ldx, i, q)] * y[elem(g.op_y, g.ldy, q, j)];
          c[i + j * g.ldc] = acc;
        }
    } else {
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j) {
          T acc(0);
          for (std::int64_t q = 0; q < p.k; ++q)
            acc += a[i * p.lhs.row_stride + q * p.lhs.col_stride] * bb[q * p.rhs.row_stride + j * p.rhs.col_stride];
          c[i * p.out.row_stride + j * p.out.col_stride] = acc;
        }
    }
  }
  return C;
}

struct Case {
  const char* name;
  DotGeneralAttrs attrs;
  Shape lhs, rhs;
};

std::vector<Case> cases() {
  return {
      {"matmul", matmul(), {5, 7}, {7, 6}},
      {"big matmul", matmul(), {20, 17}, {17, 19}},
      {"contract first axes", {.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {0}}, {7, 5}, {7, 6}},
      {"two pairs", {.lhs_contracting_dimensions = {1, 2}, .rhs_contracting_dimensions = {1, 0}}, {4, 3, 5}, {5, 3, 6}},
      {"batched",
       {.lhs_batching_dimensions = {2},
        .rhs_batching_dimensions = {0},
        .lhs_contracting_dimensions = {1},
        .rhs_contracting_dimensions = {2}},
       {6, 5, 3},
       {3, 4, 5}},
      {"two batch axes",
       {.lhs_batching_dimensions = {0, 3},
        .rhs_batching_dimensions = {3, 0},
        .lhs_contracting_dimensions = {2},
        .rhs_contracting_dimensions = {1}},
       {2, 4, 3, 3},
       {3, 3, 5, 2}},
      {"outer", {}, {4, 3}, {5}},
      {"inner", {.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {0}}, {9}, {9}},
      {"extent 1", matmul(), {1, 7}, {7, 1}},
      {"empty k", matmul(), {3, 0}, {0, 2}},
      // Free axes on both sides of the contracting one (Note [Free axes as loops]).
      {"lhs free loops", {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}, {4, 8, 5}, {8, 32}},
      {"rhs free loops", {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {1}}, {32, 8}, {5, 8, 6}},
  };
}

TEST(DotPlan, ExecutionMatchesNaiveLoopForAllFloatDtypes) {
  CpuBackend cpu;
  int checked = 0;
  for (DType dt : float_dtypes())
    for (const Case& c : cases())
      for (int layout = 0; layout < kNumLayouts; ++layout)
        for (int out_layout = 0; out_layout < 3; ++out_layout)
          for (bool blas : {true, false})
            for (int mode = 0; mode < 3; ++mode) {  // plain, strided batch, free loops
              const bool strided = mode == 1, loops = mode == 2;
              SCOPED_TRACE(::testing::Message() << c.name << " " << dt << " layout " << layout << " out "
                                                << out_layout << " blas " << blas << " mode " << mode);
              const std::uint64_t seed = static_cast<std::uint64_t>(100 * layout + checked);
              const Tensor lhs = with_random_layout(random_tensor(c.lhs, dt, seed), seed, layout);
              const Tensor rhs = with_random_layout(random_tensor(c.rhs, dt, seed + 1), seed + 7, (layout + 3) % kNumLayouts);
              const Tensor in[] = {lhs, rhs};
              const Tensor ref = reference_eval(OpKind::dot_general, c.attrs, in);
              const Tolerance tol = reference_tolerance(OpKind::dot_general, c.attrs, in, dt);
              // Output: the preferred layout, row-major, or a random dense permutation.
              DimVec order;
              for (std::int64_t i = 0; i < static_cast<std::int64_t>(ref.ndim()); ++i) order.push_back(i);
              if (out_layout == 1) std::reverse(order.begin(), order.end());
              if (out_layout == 2) std::rotate(order.begin(), order.begin() + (order.empty() ? 0 : 1), order.end());
              Tensor out = out_layout == 0
                               ? cpu.empty_strided(dt, ref.shape(),
                                                   preferred_strides(OpKind::dot_general, c.attrs, ref.shape()))
                               : empty_dense_permuted(ref.shape(), dt, order);
              const DotGeneralPlan p =
                  plan_dot_general(c.attrs, lhs.shape(), lhs.strides(), rhs.shape(), rhs.strides(), out.strides(),
                                   {.blas = blas, .strided_batch = strided, .free_loops = loops});
              if (strided) {
                EXPECT_TRUE(p.strided_batch);
              }
              const Tensor got = visit_dtype<kFloatDTypes>(
                  dt, "test", [&]<class T>() { return interpret<T>(p, lhs, rhs, out); });
              EXPECT_TRUE(tensors_close(got, ref, tol.rtol, tol.atol));
              if (!blas && !strided) {
                // The CPU kernel, which executes the same kind of plan.
                cpu.execute(OpKind::dot_general, c.attrs, in, out);
                EXPECT_TRUE(tensors_close(out, ref, tol.rtol, tol.atol));
              }
              ++checked;
            }
  EXPECT_EQ(checked, 4 * 12 * kNumLayouts * 3 * 6);
}

}  // namespace
