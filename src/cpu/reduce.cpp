// Reductions (reduce_sum / prod / max / min) over any axis set and strides.
//
// The input is walked in its own memory order (Note [Strided loops]) with the
// output seen through stride 0 on reduced axes. Threads split a kept axis
// (each thread owns distinct outputs).
//
// Note [Pairwise reductions]: a floating sum or product is formed along a
// fixed binary tree over the reduced index space, so its rounding error grows
// with the logarithm of the reduced extent, not linearly, and the result does
// not depend on the thread count. The tree halves the outermost (largest
// input stride) reduced axis until each output receives at most kLeafSteps
// innermost runs; a run along a reduced axis is itself summed in blocks of at
// most kRunBlock with kLanes accumulators, combined pairwise (reduce_run). When no kept axis
// gives every thread its own outputs, the threads take the subtrees below the
// top levels of the same tree, so one thread and many compute the same
// operations in the same order. Integer sums wrap and max/min are exact, so
// they accumulate in memory order.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "scalar_ops.hpp"

namespace tenferro::cpu {
namespace {

// Each output receives at most this many innermost runs in a tree leaf.
constexpr std::int64_t kLeafSteps = 32;
// Runs are reduced in blocks of up to kRunBlock elements with kLanes
// accumulators (kRunBlock / kLanes sequential steps each), the blocks'
// accumulators combined pairwise.
constexpr std::int64_t kRunBlock = 512;
constexpr int kLanes = 16;

template <class T, OpKind K>
struct Reducer {
  static constexpr bool kPairwise =
      (K == OpKind::reduce_sum || K == OpKind::reduce_prod) &&
      (std::is_floating_point_v<T> || is_complex_v<T>);

  static T identity() {
    if constexpr (K == OpKind::reduce_sum) return T(0);
    else if constexpr (K == OpKind::reduce_prod) return T(1);
    else if constexpr (K == OpKind::reduce_max) {
      if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
      else return std::numeric_limits<T>::lowest();
    } else {
      if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
      else return std::numeric_limits<T>::max();
    }
  }
  static T combine(T a, T b) {
    if constexpr (K == OpKind::reduce_sum) return wrap_add(a, b);
    else if constexpr (K == OpKind::reduce_prod) return wrap_mul(a, b);
    else if constexpr (K == OpKind::reduce_max) return max_nan(a, b);
    else return min_nan(a, b);
  }
  // Reduces n elements at stride s into kLanes partial results: lane k takes
  // elements k, k + kLanes, ... of blocks of at most kRunBlock elements, and
  // longer runs are split in halves whose lanes are combined (pairwise).
  static void reduce_lanes(const T* p, std::int64_t n, std::int64_t s, T (&a)[kLanes]) {
    if (n > kRunBlock) {
      const std::int64_t h = (n / 2 + kLanes - 1) / kLanes * kLanes;
      T b[kLanes];
      reduce_lanes(p, h, s, a);
      reduce_lanes(p + h * s, n - h, s, b);
      for (int k = 0; k < kLanes; ++k) a[k] = combine(a[k], b[k]);
      return;
    }
    T acc[kLanes];
    for (auto& v : acc) v = identity();
    std::int64_t i = 0;
    if (s == 1) {
      for (; i + kLanes <= n; i += kLanes)
        for (int k = 0; k < kLanes; ++k) acc[k] = combine(acc[k], p[i + k]);
    } else {
      for (; i + kLanes <= n; i += kLanes)
        for (int k = 0; k < kLanes; ++k) acc[k] = combine(acc[k], p[(i + k) * s]);
    }
    for (; i < n; ++i) acc[0] = combine(acc[0], p[i * s]);
    for (int k = 0; k < kLanes; ++k) a[k] = acc[k];
  }
  static T reduce_run(const T* p, std::int64_t n, std::int64_t s) {
    T a[kLanes];
    reduce_lanes(p, n, s, a);
    for (int w = kLanes / 2; w > 0; w /= 2)
      for (int k = 0; k < w; ++k) a[k] = combine(a[k], a[k + w]);
    return a[0];
  }
};

// Accumulates `in` (shape `shape`, strides `ist`, base `x`) into the output
// seen through strides `ost` (0 on reduced axes) at base `o`.
template <class T, OpKind K>
void accumulate(T* o, const std::int64_t* ost, const T* x, const std::int64_t* ist,
                const Shape& shape) {
  using R = Reducer<T, K>;
  // One reduced axis, shorter than kLanes and innermost in memory (a tensor
  // [7, m, ...] summed over its first axis): reduce_run would sum each run
  // of it from the identity in sequence, one call per output. The same sums,
  // in the same order, for up to 64 outputs at a time.
  int red = -1;
  bool single = true;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (ost[i] == 0 && shape[i] > 1) {
      single = single && red < 0;
      red = static_cast<int>(i);
    }
  if (single && red >= 0 && shape[static_cast<std::size_t>(red)] < kLanes) {
    const std::size_t ur = static_cast<std::size_t>(red);
    bool innermost = true;
    for (std::size_t i = 0; i < shape.size(); ++i)
      innermost = innermost && (i == ur || shape[i] < 2 || std::llabs(ist[i]) >= std::llabs(ist[ur]));
    if (innermost) {
      const std::int64_t nr = shape[ur], sr = ist[ur];
      Shape kept = shape;
      kept[ur] = 1;
      Loop<2> loop(kept, {ost, ist}, /*order_by=*/1);
      loop.run(0, loop.numel, [&](const std::array<std::int64_t, 2>& off, std::int64_t n,
                                  const std::array<std::int64_t, 2>& st) {
        T* po = o + off[0];
        const T* px = x + off[1];
        for (std::int64_t i0 = 0; i0 < n; i0 += 64) {
          const std::int64_t c = std::min<std::int64_t>(64, n - i0);
          T acc[64];
          for (std::int64_t i = 0; i < c; ++i) acc[i] = R::identity();
          for (std::int64_t r = 0; r < nr; ++r)
            for (std::int64_t i = 0; i < c; ++i) acc[i] = R::combine(acc[i], px[(i0 + i) * st[1] + r * sr]);
          for (std::int64_t i = 0; i < c; ++i) po[(i0 + i) * st[0]] = R::combine(po[(i0 + i) * st[0]], acc[i]);
        }
      });
      return;
    }
  }
  Loop<2> loop(shape, {ost, ist}, /*order_by=*/1);
  loop.run(0, loop.numel, [&](const std::array<std::int64_t, 2>& off, std::int64_t n,
                              const std::array<std::int64_t, 2>& st) {
    T* po = o + off[0];
    const T* px = x + off[1];
    if (st[0] == 0) {
      *po = R::combine(*po, R::reduce_run(px, n, st[1]));
    } else if (st[0] == 1 && st[1] == 1) {
      for (std::int64_t i = 0; i < n; ++i) po[i] = R::combine(po[i], px[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) po[i * st[0]] = R::combine(po[i * st[0]], px[i * st[1]]);
    }
  });
}

// The tree of Note [Pairwise reductions] over one input region. Output
// buffers (the output itself, or scratch of the output's size) are addressed
// through `ost` from a common base; a region's outputs hold the identity on
// entry to `compute` and its reduction on exit.
template <class T, OpKind K>
struct Tree {
  using R = Reducer<T, K>;
  const std::int64_t* ost;
  const std::int64_t* ist;
  const std::vector<bool>& reduced;
  std::int64_t nout;
  std::vector<std::vector<T>> scratch;  // one output-sized buffer per tree level

  // The reduced axis to halve, or -1 when `shape` is a leaf.
  int split_axis(const Shape& shape) const {
    Loop<2> loop(shape, {ost, ist}, /*order_by=*/1);
    std::int64_t steps = 1;
    for (std::size_t i = 0; i < shape.size(); ++i)
      if (reduced[i]) steps *= shape[i];
    if (loop.rank > 0 && loop.stride[0][0] == 0) steps /= loop.extent[0];
    if (steps <= kLeafSteps) return -1;
    int best = -1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (!reduced[i] || shape[i] < 2) continue;
      if (best < 0 || std::llabs(ist[i]) > std::llabs(ist[static_cast<std::size_t>(best)]))
        best = static_cast<int>(i);
    }
    return best;
  }

  // dst[k] = combine(dst[k], src[k]) and src[k] = identity over the outputs
  // of `shape`.
  void fold(T* dst, T* src, const Shape& shape) const {
    Shape kept = shape;
    for (std::size_t i = 0; i < kept.size(); ++i)
      if (reduced[i]) kept[i] = 1;
    Loop<1> loop(kept, {ost});
    loop.run(0, loop.numel, [&](const std::array<std::int64_t, 1>& off, std::int64_t n,
                                const std::array<std::int64_t, 1>& st) {
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t k = off[0] + i * st[0];
        dst[k] = R::combine(dst[k], src[k]);
        src[k] = R::identity();
      }
    });
  }

  T* level(std::size_t d) {
    while (scratch.size() <= d) scratch.emplace_back(static_cast<std::size_t>(nout), R::identity());
    return scratch[d].data();
  }

  // Reduces the region (`x`, `shape`) into `dst`; `base` is the region's
  // output offset (the same in every buffer).
  void compute(T* dst, std::int64_t base, const T* x, const Shape& shape, std::size_t depth = 0) {
    const int a = split_axis(shape);
    if (a < 0) {
      accumulate<T, K>(dst + base, ost, x, ist, shape);
      return;
    }
    const std::size_t ax = static_cast<std::size_t>(a);
    Shape half = shape;
    half[ax] = shape[ax] / 2;
    compute(dst, base, x, half, depth + 1);
    Shape rest = shape;
    rest[ax] = shape[ax] - half[ax];
    T* tmp = level(depth);
    compute(tmp, base, x + half[ax] * ist[ax], rest, depth + 1);
    fold(dst + base, tmp + base, rest);
  }
};

template <class T, OpKind K>
void reduce_typed(const DimVec& axes, const Tensor& in, const Tensor& out) {
  using R = Reducer<T, K>;
  const std::size_t r = in.shape().size();
  Strides ost(r, 0);
  std::vector<bool> reduced(r, false);
  for (auto a : axes) reduced[static_cast<std::size_t>(a)] = true;
  for (std::size_t i = 0, j = 0; i < r; ++i)
    if (!reduced[i]) ost[i] = out.strides()[j++];
  T* o = static_cast<T*>(out.data_ptr());
  const T* x = static_cast<const T*>(in.data_ptr());
  const std::int64_t nout = out.numel();
  for (std::int64_t i = 0; i < nout; ++i) o[i] = R::identity();  // dense output
  const std::int64_t total = in.numel();
  if (total == 0) return;
  // Reduces the region (`px`, `shape`) into the outputs at offset `base`.
  auto region = [&](T* dst, std::int64_t base, const T* px, const Shape& shape) {
    if constexpr (R::kPairwise) {
      Tree<T, K> tree{ost.data(), in.strides().data(), reduced, nout, {}};
      tree.compute(dst, base, px, shape);
    } else {
      accumulate<T, K>(dst + base, ost.data(), px, in.strides().data(), shape);
    }
  };
  const int nt = max_threads();
  if (nt <= 1 || total < kParallelGrain || omp_in_parallel()) return region(o, 0, x, in.shape());
  // The reduced (or kept) axis of largest input stride with at least
  // `min_extent` elements, or -1.
  auto outermost = [&](bool want_reduced, std::int64_t min_extent) {
    int best = -1;
    for (std::size_t i = 0; i < r; ++i) {
      if (reduced[i] != want_reduced || in.shape()[i] < min_extent) continue;
      if (best < 0 || std::llabs(in.strides()[i]) > std::llabs(in.strides()[static_cast<std::size_t>(best)]))
        best = static_cast<int>(i);
    }
    return best;
  };
  // Calls body(t, begin, sub) on each thread t with its slice [begin, begin +
  // sub[ax]) of axis `ax`.
  auto split = [&](int axis, auto&& body) {
    const std::size_t ax = static_cast<std::size_t>(axis);
    const std::int64_t len = in.shape()[ax];
#pragma omp parallel num_threads(nt)
    {
      std::int64_t t = omp_get_thread_num(), T_ = omp_get_num_threads();
      std::int64_t b = len * t / T_, e = len * (t + 1) / T_;
      if (b < e) {
        Shape sub = in.shape();
        sub[ax] = e - b;
        body(t, b, sub);
      }
    }
  };
  // Threads own outputs: split the outermost kept axis with at least two
  // elements per thread (a thread's slice of extent 1 would drop the axis
  // from its loop nest and change the order in which its outputs are formed).
  if (const int axis = outermost(false, 2 * nt); axis >= 0) {
    const std::size_t ax = static_cast<std::size_t>(axis);
    split(axis, [&](std::int64_t, std::int64_t b, const Shape& sub) {
      region(o, b * ost[ax], x + b * in.strides()[ax], sub);
    });
    return;
  }
  if constexpr (!R::kPairwise) {
    // Exact reductions: threads take slices of the outermost reduced axis
    // into private outputs, combined afterwards.
    const int raxis = outermost(true, nt);
    if (raxis < 0) return region(o, 0, x, in.shape());
    const std::int64_t stride = in.strides()[static_cast<std::size_t>(raxis)];
    std::vector<T> partial(static_cast<std::size_t>(nout) * nt, R::identity());
    split(raxis, [&](std::int64_t t, std::int64_t b, const Shape& sub) {
      region(partial.data() + t * nout, 0, x + b * stride, sub);
    });
    for (int t = 0; t < nt; ++t)
      for (std::int64_t i = 0; i < nout; ++i)
        o[i] = R::combine(o[i], partial[static_cast<std::size_t>(t * nout + i)]);
  } else {
    // Threads take the subtrees below the top levels of the tree, each into
    // its own output-sized buffer; the top levels are then folded in the
    // tree's order (Note [Pairwise reductions]).
    Tree<T, K> top{ost.data(), in.strides().data(), reduced, nout, {}};
    struct Node {
      Shape shape;
      const T* x;
      int left = -1, right = -1;  // children; -1 for a subtree a thread computes
      int slot = -1;              // its buffer
    };
    std::vector<Node> nodes;
    int slots = 0;
    auto build = [&](auto& self, const T* px, const Shape& shape, int levels) -> int {
      const int a = levels > 0 ? top.split_axis(shape) : -1;
      const int id = static_cast<int>(nodes.size());
      nodes.push_back(Node{shape, px});
      if (a < 0) {
        nodes[static_cast<std::size_t>(id)].slot = slots++;
        return id;
      }
      const std::size_t ax = static_cast<std::size_t>(a);
      Shape half = shape, rest = shape;
      half[ax] = shape[ax] / 2;
      rest[ax] = shape[ax] - half[ax];
      const int l = self(self, px, half, levels - 1);
      const int rr = self(self, px + half[ax] * in.strides()[ax], rest, levels - 1);
      nodes[static_cast<std::size_t>(id)].left = l;
      nodes[static_cast<std::size_t>(id)].right = rr;
      return id;
    };
    int levels = 0;
    while ((1 << levels) < nt) ++levels;
    build(build, x, in.shape(), levels);
    std::vector<int> work;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].slot >= 0) work.push_back(static_cast<int>(i));
    std::vector<T> buf(static_cast<std::size_t>(nout) * static_cast<std::size_t>(slots), R::identity());
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (std::size_t w = 0; w < work.size(); ++w) {
      const Node& n = nodes[static_cast<std::size_t>(work[w])];
      region(buf.data() + static_cast<std::size_t>(n.slot) * nout, 0, n.x, n.shape);
    }
    // Post-order fold: an inner node's result lands in its left child's slot.
    auto fold = [&](auto& self, int id) -> int {
      Node& n = nodes[static_cast<std::size_t>(id)];
      if (n.slot >= 0) return n.slot;
      const int ls = self(self, n.left), rs = self(self, n.right);
      top.fold(buf.data() + static_cast<std::size_t>(ls) * nout, buf.data() + static_cast<std::size_t>(rs) * nout,
               nodes[static_cast<std::size_t>(n.right)].shape);
      return n.slot = ls;
    };
    const int root = fold(fold, 0);
    const T* res = buf.data() + static_cast<std::size_t>(root) * nout;
    for (std::int64_t i = 0; i < nout; ++i) o[i] = res[i];
  }
}

}  // namespace

void reduce(OpKind kind, const DimVec& axes, const Tensor& in, const Tensor& out) {
  auto run = [&]<OpKind K, DTypeSet S>() {
    visit_dtype<S>(in.dtype(), op_name(kind), [&]<class T>() { reduce_typed<T, K>(axes, in, out); });
  };
  switch (kind) {
    case OpKind::reduce_sum:
      return run.template operator()<OpKind::reduce_sum, kNumericDTypes>();
    case OpKind::reduce_prod:
      return run.template operator()<OpKind::reduce_prod, kNumericDTypes>();
    case OpKind::reduce_max:
      return run.template operator()<OpKind::reduce_max, kRealDTypes>();
    case OpKind::reduce_min:
      return run.template operator()<OpKind::reduce_min, kRealDTypes>();
    default:
      TF_INTERNAL_ASSERT(false, "reduce: ", op_name(kind), " is not a reduction");
  }
}

}  // namespace tenferro::cpu
