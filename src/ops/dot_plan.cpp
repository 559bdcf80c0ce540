// DotGeneralPlan: Note [GEMM mapping] in tenferro/ops/dot_plan.hpp.
#include "tenferro/ops/dot_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "tenferro/ops/primitives.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro::ops {

namespace {

// Note [Free axes as loops] (dot_plan.hpp).
constexpr std::int64_t kMinLoopWork = 1024;
constexpr std::int64_t kMinLoopRows = 4;
constexpr std::int64_t kMaxLoopOther = std::int64_t{1} << 15;  // elements of the other operand's matrix

bool contains(const DimVec& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

DimVec free_axes(std::int64_t rank, const DimVec& batch, const DimVec& contracting) {
  DimVec out;
  for (std::int64_t i = 0; i < rank; ++i)
    if (!contains(batch, i) && !contains(contracting, i)) out.push_back(i);
  return out;
}

GemmOp flip(GemmOp op) { return op == GemmOp::N ? GemmOp::T : GemmOp::N; }

// An operand as the plan sees it: a view of the caller's metadata and
// axes, or of its own after the plan copies it (axes renumbered).
struct Operand {
  const Shape* shape;
  const Strides* strides;
  const DotAxes* axes;
  Shape copy_shape;
  Strides copy_strides;
  DotAxes copy_axes;
};

// Copies `x` (in the plan only) column-major with its axes in the order
// first..., second..., batch...; returns that order in original axes.
DimVec copy_operand(Operand& x, DimVec DotAxes::*first, DimVec DotAxes::*second) {
  DimVec order;
  for (auto a : x.axes->*first) order.push_back(a);
  for (auto a : x.axes->*second) order.push_back(a);
  for (auto a : x.axes->batch) order.push_back(a);
  for (auto a : order) x.copy_shape.push_back((*x.shape)[static_cast<std::size_t>(a)]);
  x.copy_strides = col_major_strides(x.copy_shape);
  std::int64_t next = 0;
  for (std::size_t i = 0; i < (x.axes->*first).size(); ++i) (x.copy_axes.*first).push_back(next++);
  for (std::size_t i = 0; i < (x.axes->*second).size(); ++i) (x.copy_axes.*second).push_back(next++);
  for (std::size_t i = 0; i < x.axes->batch.size(); ++i) x.copy_axes.batch.push_back(next++);
  x.shape = &x.copy_shape;
  x.strides = &x.copy_strides;
  x.axes = &x.copy_axes;
  return order;
}

std::int64_t product(const Shape& shape, const DimVec& axes) {
  std::int64_t p = 1;
  for (auto a : axes) p *= shape[static_cast<std::size_t>(a)];
  return p;
}

// Whether a rows x cols matrix is read (or written) as it is: through a BLAS
// layout, or, for the strided loop, any regular groups.
bool in_place(const AxisGroup& rows, const AxisGroup& cols, bool blas) {
  return blas ? gemm_layout(rows, cols).has_value() : rows.regular && cols.regular;
}

// Fills the matrix strides (and, for BLAS, the layout) of a rows x cols view.
void set_matrix(GemmOperandPlan& p, const AxisGroup& rows, const AxisGroup& cols, bool blas) {
  p.row_stride = rows.stride;
  p.col_stride = cols.stride;
  if (!blas) return;
  const auto lay = gemm_layout(rows, cols);
  TF_INTERNAL_ASSERT(lay.has_value(), "dot_general plan: no BLAS layout after copying");
  p.op = lay->op;
  p.ld = lay->ld;
}

// Fills the batch strides; returns whether the batch axes form one regular group.
bool set_batch(GemmOperandPlan& p, const Shape& shape, const Strides& strides, const DimVec& batch) {
  if (batch.empty()) return true;  // one product: batch_stride stays 0
  for (auto a : batch) p.batch_strides.push_back(strides[static_cast<std::size_t>(a)]);
  const AxisGroup g = merge_axes(shape, strides, batch);
  p.batch_stride = g.extent <= 1 ? 0 : g.stride;
  return g.regular;
}

}  // namespace

DotRoles dot_roles(const DotGeneralAttrs& attrs, std::int64_t lhs_rank, std::int64_t rhs_rank) {
  DotRoles r;
  r.lhs.batch = attrs.lhs_batching_dimensions;
  r.rhs.batch = attrs.rhs_batching_dimensions;
  r.lhs.contracting = attrs.lhs_contracting_dimensions;
  r.rhs.contracting = attrs.rhs_contracting_dimensions;
  r.lhs.free = free_axes(lhs_rank, r.lhs.batch, r.lhs.contracting);
  r.rhs.free = free_axes(rhs_rank, r.rhs.batch, r.rhs.contracting);
  return r;
}

AxisGroup merge_axes(const Shape& shape, const Strides& strides, const DimVec& axes) {
  AxisGroup g;
  bool first = true;
  std::int64_t expect = 0;
  for (auto a : axes) {
    const std::int64_t n = shape[static_cast<std::size_t>(a)];
    const std::int64_t s = strides[static_cast<std::size_t>(a)];
    g.extent *= n;
    if (n == 1) continue;
    if (first) {
      g.stride = s;
      expect = s * n;
      first = false;
    } else if (s != expect) {
      g.regular = false;
    } else {
      expect *= n;
    }
  }
  return g;
}

std::optional<GemmLayout> gemm_layout(const AxisGroup& r, const AxisGroup& c) {
  if (!r.regular || !c.regular) return std::nullopt;
  const std::int64_t rows = std::max<std::int64_t>(r.extent, 1), cols = std::max<std::int64_t>(c.extent, 1);
  if (r.extent <= 1 || r.stride == 1) {
    const std::int64_t ld = c.extent <= 1 ? rows : c.stride;
    if (ld >= rows) return GemmLayout{GemmOp::N, ld};
  }
  if (c.extent <= 1 || c.stride == 1) {
    const std::int64_t ld = r.extent <= 1 ? cols : r.stride;
    if (ld >= cols) return GemmLayout{GemmOp::T, ld};
  }
  return std::nullopt;
}

std::int64_t GemmCall::max_extent() const { return std::max({m, n, k, ldx, ldy, ldc}); }

GemmCall DotGeneralPlan::gemm() const {
  if (out.op == GemmOp::N) return {false, lhs.op, rhs.op, m, n, k, lhs.ld, rhs.ld, out.ld};
  // C^T (n x m) = op(B)^T op(A)^T: each operand's flag flips.
  return {true, flip(rhs.op), flip(lhs.op), n, m, k, rhs.ld, lhs.ld, out.ld};
}

void DotGeneralPlan::batch_offsets(std::int64_t b, std::int64_t& lhs_off, std::int64_t& rhs_off,
                                   std::int64_t& out_off) const {
  lhs_off = rhs_off = out_off = 0;
  for (std::size_t i = 0; i < batch_shape.size(); ++i) {
    const std::int64_t idx = b % batch_shape[i];
    b /= batch_shape[i];
    lhs_off += idx * lhs.batch_strides[i];
    rhs_off += idx * rhs.batch_strides[i];
    out_off += idx * out.batch_strides[i];
  }
}

DotGeneralPlan plan_dot_general(const DotGeneralAttrs& attrs, const Shape& lhs_shape, const Strides& lhs_strides,
                                const Shape& rhs_shape, const Strides& rhs_strides, const Strides& out_strides,
                                const DotPlanOptions& options) {
  DotGeneralPlan p;
  p.axes = dot_roles(attrs, static_cast<std::int64_t>(lhs_shape.size()), static_cast<std::int64_t>(rhs_shape.size()));
  DotAxes &la = p.axes.lhs, &ra = p.axes.rhs;
  Operand L{&lhs_shape, &lhs_strides, &la, {}, {}, {}}, R{&rhs_shape, &rhs_strides, &ra, {}, {}, {}};
  const std::size_t nb = la.batch.size();
  Shape out_shape;
  for (std::size_t i = 0; i < nb; ++i) {
    p.out_batch.push_back(static_cast<std::int64_t>(i));
    p.batch_shape.push_back(lhs_shape[static_cast<std::size_t>(la.batch[i])]);
    out_shape.push_back(p.batch_shape.back());
  }
  for (auto a : la.free) {
    p.out_m.push_back(static_cast<std::int64_t>(out_shape.size()));
    out_shape.push_back(lhs_shape[static_cast<std::size_t>(a)]);
  }
  for (auto a : ra.free) {
    p.out_n.push_back(static_cast<std::int64_t>(out_shape.size()));
    out_shape.push_back(rhs_shape[static_cast<std::size_t>(a)]);
  }
  AxisGroup M = merge_axes(lhs_shape, lhs_strides, la.free), N = merge_axes(rhs_shape, rhs_strides, ra.free);
  p.m = M.extent;
  p.n = N.extent;
  p.k = product(lhs_shape, la.contracting);
  p.batch_count = product(lhs_shape, la.batch);
  p.blas = options.blas && p.m * p.n * p.k >= options.min_blas_work;

  // Whether an operand is readable as it is under the contracting order `k`.
  auto readable = [&](const Operand& x, const DimVec& k, bool is_lhs) {
    if (options.strided_batch && !merge_axes(*x.shape, *x.strides, x.axes->batch).regular) return false;
    const AxisGroup K = merge_axes(*x.shape, *x.strides, k);
    return is_lhs ? in_place(M, K, p.blas) : in_place(K, N, p.blas);
  };
  // Contracting order: by lhs strides, unless the rhs order reads more operands as they are.
  if (la.contracting.size() > 1) {
    // Ties (stride-0 broadcast axes, extent-1 axes) go by axis number, so
    // the order, and with it the order of summation, depends only on the
    // set of pairs, never on the order the attributes list them in: the
    // compiler's dimension sorting leaves results bit-for-bit unchanged.
    auto by_stride = [](const Strides& st) {
      return [&st](std::int64_t a) { return std::pair(std::llabs(st[static_cast<std::size_t>(a)]), a); };
    };
    DimVec lc2 = la.contracting, rc2 = ra.contracting;
    sort_contracting_pairs(la.contracting, ra.contracting, by_stride(lhs_strides));
    const int score_l = int(readable(L, la.contracting, true)) + int(readable(R, ra.contracting, false));
    if (score_l < 2) {
      sort_contracting_pairs(rc2, lc2, by_stride(rhs_strides));
      if (int(readable(L, lc2, true)) + int(readable(R, rc2, false)) > score_l) {
        la.contracting = lc2;
        ra.contracting = rc2;
      }
    }
  }
  // Note [Free axes as loops]: loop axes (output axis, extent, lhs and rhs strides).
  struct LoopAxis {
    std::int64_t out_axis, extent, lhs_stride, rhs_stride;
  };
  std::vector<LoopAxis> loops;
  auto peel = [&](Operand& x, DotAxes& ax, bool is_lhs) {
    if (!options.free_loops || options.strided_batch || readable(x, ax.contracting, is_lhs)) return;
    if (shape_numel(*x.shape) < options.free_loops_min_copy) return;
    DimVec keep = ax.free;
    const DimVec& out_axes = is_lhs ? p.out_m : p.out_n;
    std::vector<std::size_t> dropped;  // positions in ax.free
    while (keep.size() > 1) {
      // Drop the kept axis of largest stride.
      std::size_t w = 0;
      for (std::size_t i = 1; i < keep.size(); ++i)
        if (std::llabs((*x.strides)[static_cast<std::size_t>(keep[i])]) >
            std::llabs((*x.strides)[static_cast<std::size_t>(keep[w])]))
          w = i;
      const auto at = std::find(ax.free.begin(), ax.free.end(), keep[w]);
      dropped.push_back(static_cast<std::size_t>(at - ax.free.begin()));
      keep.erase(keep.begin() + static_cast<std::ptrdiff_t>(w));
      const AxisGroup G = merge_axes(*x.shape, *x.strides, keep);
      const std::int64_t rows = G.extent, other = is_lhs ? p.n : p.m;
      if (rows < kMinLoopRows || rows * other * p.k < kMinLoopWork || other * p.k > kMaxLoopOther) return;
      const AxisGroup K = merge_axes(*x.shape, *x.strides, ax.contracting);
      const bool blas = options.blas && rows * other * p.k >= options.min_blas_work;
      // The output keeps its matrix in place too (a scratch would be laid
      // out for the product without loops).
      DimVec out_keep;
      for (std::size_t i = 0; i < ax.free.size(); ++i)
        if (std::find(dropped.begin(), dropped.end(), i) == dropped.end()) out_keep.push_back(out_axes[i]);
      const AxisGroup O = merge_axes(out_shape, out_strides, out_keep);
      const AxisGroup P = merge_axes(out_shape, out_strides, is_lhs ? p.out_n : p.out_m);
      if (!(is_lhs ? in_place(G, K, blas) && in_place(O, P, blas) : in_place(K, G, blas) && in_place(P, O, blas)))
        continue;
      // Each product reads one block of the operand: every loop axis is
      // outside the kept and contracting axes (else the products gather
      // from all over it, slower than the copy).
      std::int64_t inner = 0, outer = -1;
      for (const DimVec* group : {&keep, &ax.contracting})
        for (auto a : *group)
          if ((*x.shape)[static_cast<std::size_t>(a)] > 1)
            inner = std::max<std::int64_t>(inner, std::llabs((*x.strides)[static_cast<std::size_t>(a)]));
      for (std::size_t d : dropped) {
        const auto a = static_cast<std::size_t>(ax.free[d]);
        if ((*x.shape)[a] > 1) {
          const std::int64_t st = std::llabs((*x.strides)[a]);
          outer = outer < 0 ? st : std::min(outer, st);
        }
      }
      if (outer >= 0 && outer <= inner) return;
      for (std::size_t d : dropped) {
        const std::int64_t a = ax.free[d];
        const std::int64_t st = (*x.strides)[static_cast<std::size_t>(a)];
        loops.push_back({out_axes[d], (*x.shape)[static_cast<std::size_t>(a)], is_lhs ? st : 0, is_lhs ? 0 : st});
      }
      (is_lhs ? p.out_m : p.out_n) = out_keep;
      ax.free = keep;
      (is_lhs ? p.m : p.n) = rows;
      (is_lhs ? M : N) = G;
      p.blas = blas;
      return;
    }
  };
  peel(L, la, true);
  peel(R, ra, false);
  for (const LoopAxis& l : loops) {
    p.out_batch.push_back(l.out_axis);
    p.batch_shape.push_back(l.extent);
    p.batch_count *= l.extent;
  }
  if (!readable(L, la.contracting, true)) {
    p.lhs.copy = true;
    p.lhs.copy_order = copy_operand(L, &DotAxes::free, &DotAxes::contracting);
    p.lhs.copied_elements = product(lhs_shape, p.lhs.copy_order);
    M = merge_axes(*L.shape, *L.strides, L.axes->free);
  }
  if (!readable(R, ra.contracting, false)) {
    p.rhs.copy = true;
    p.rhs.copy_order = copy_operand(R, &DotAxes::contracting, &DotAxes::free);
    p.rhs.copied_elements = product(rhs_shape, p.rhs.copy_order);
    N = merge_axes(*R.shape, *R.strides, R.axes->free);
  }
  set_matrix(p.lhs, M, merge_axes(*L.shape, *L.strides, L.axes->contracting), p.blas);
  set_matrix(p.rhs, merge_axes(*R.shape, *R.strides, R.axes->contracting), N, p.blas);
  const bool lhs_strided = set_batch(p.lhs, *L.shape, *L.strides, L.axes->batch);
  const bool rhs_strided = set_batch(p.rhs, *R.shape, *R.strides, R.axes->batch);
  for (const LoopAxis& l : loops) {
    p.lhs.batch_strides.push_back(l.lhs_stride);
    p.rhs.batch_strides.push_back(l.rhs_stride);
  }

  // Output: written in place when its groups allow, else through a scratch.
  const Strides* ost = &out_strides;
  AxisGroup Mo = merge_axes(out_shape, *ost, p.out_m), No = merge_axes(out_shape, *ost, p.out_n);
  const bool out_ok = (!options.strided_batch || merge_axes(out_shape, *ost, p.out_batch).regular) &&
                      in_place(Mo, No, p.blas);
  if (!out_ok) {
    p.out.copy = true;
    p.out.scratch_strides = preferred_strides(OpKind::dot_general, attrs, out_shape);
    p.out.copied_elements = product(out_shape, p.out_batch) * p.m * p.n;
    ost = &p.out.scratch_strides;
    Mo = merge_axes(out_shape, *ost, p.out_m);
    No = merge_axes(out_shape, *ost, p.out_n);
  }
  set_matrix(p.out, Mo, No, p.blas);
  const bool out_strided = set_batch(p.out, out_shape, *ost, p.out_batch);
  p.strided_batch = lhs_strided && rhs_strided && out_strided && loops.empty();
  return p;
}

DimVec dot_output_memory_order(const DotGeneralAttrs& attrs, std::int64_t out_rank) {
  const auto nb = static_cast<std::int64_t>(attrs.lhs_batching_dimensions.size());
  DimVec order;
  for (std::int64_t i = nb; i < out_rank; ++i) order.push_back(i);
  for (std::int64_t i = 0; i < nb; ++i) order.push_back(i);
  return order;
}

std::optional<DotGeneralAttrs> fold_transpose_into_dot(const DotGeneralAttrs& attrs, int side,
                                                       const DimVec& permutation) {
  DotGeneralAttrs out = attrs;
  DimVec& batch = side == 0 ? out.lhs_batching_dimensions : out.rhs_batching_dimensions;
  DimVec& contracting = side == 0 ? out.lhs_contracting_dimensions : out.rhs_contracting_dimensions;
  // The free axes keep their order in the output only if the permutation
  // maps them to increasing axes of the transpose's operand.
  std::int64_t last = -1;
  for (auto a : free_axes(static_cast<std::int64_t>(permutation.size()), batch, contracting)) {
    if (permutation[static_cast<std::size_t>(a)] <= last) return std::nullopt;
    last = permutation[static_cast<std::size_t>(a)];
  }
  for (auto& d : batch) d = permutation[static_cast<std::size_t>(d)];
  for (auto& d : contracting) d = permutation[static_cast<std::size_t>(d)];
  return out;
}

DotGeneralAttrs sort_dot_dimensions(DotGeneralAttrs attrs) {
  sort_contracting_pairs(attrs.lhs_contracting_dimensions, attrs.rhs_contracting_dimensions,
                         [](std::int64_t a) { return a; });
  return attrs;
}

}  // namespace tenferro::ops
