// Reductions (reduce_sum / prod / max / min) over any axis set and strides.
//
// The input is walked in its own memory order (Note [Strided loops]) with the
// output seen through stride 0 on reduced axes. Threads split a kept axis
// (each thread owns distinct outputs); when no kept axis is large enough they
// split a reduced axis into private partial results combined in thread order,
// so results are deterministic for a given thread count.
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "scalar_ops.hpp"

namespace tenferro::cpu {
namespace {

template <class T, OpKind K>
struct Reducer {
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
  // Reduces a contiguous run with four independent accumulators.
  static T reduce_run(const T* p, std::int64_t n) {
    T a0 = identity(), a1 = identity(), a2 = identity(), a3 = identity();
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      a0 = combine(a0, p[i]);
      a1 = combine(a1, p[i + 1]);
      a2 = combine(a2, p[i + 2]);
      a3 = combine(a3, p[i + 3]);
    }
    for (; i < n; ++i) a0 = combine(a0, p[i]);
    return combine(combine(a0, a1), combine(a2, a3));
  }
};

// Accumulates `in` (shape `shape`, strides `ist`, base `x`) into the output
// seen through strides `ost` (0 on reduced axes) at base `o`.
template <class T, OpKind K>
void accumulate(T* o, const std::int64_t* ost, const T* x, const std::int64_t* ist,
                const Shape& shape) {
  using R = Reducer<T, K>;
  Loop<2> loop(shape, {ost, ist}, /*order_by=*/1);
  loop.run(0, loop.numel, [&](const std::array<std::int64_t, 2>& off, std::int64_t n,
                              const std::array<std::int64_t, 2>& st) {
    T* po = o + off[0];
    const T* px = x + off[1];
    if (st[0] == 0) {
      T acc = st[1] == 1 ? R::reduce_run(px, n) : R::identity();
      if (st[1] != 1)
        for (std::int64_t i = 0; i < n; ++i) acc = R::combine(acc, px[i * st[1]]);
      *po = R::combine(*po, acc);
    } else if (st[0] == 1 && st[1] == 1) {
      for (std::int64_t i = 0; i < n; ++i) po[i] = R::combine(po[i], px[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) po[i * st[0]] = R::combine(po[i * st[0]], px[i * st[1]]);
    }
  });
}

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
  const int nt = max_threads();
  if (total == 0) return;
  if (nt <= 1 || total < kParallelGrain || omp_in_parallel()) {
    accumulate<T, K>(o, ost.data(), x, in.strides().data(), in.shape());
    return;
  }
  // Split axis: the outermost (largest input stride) kept axis with enough
  // extent; failing that, the outermost reduced axis.
  auto pick = [&](bool want_reduced) {
    int best = -1;
    for (std::size_t i = 0; i < r; ++i) {
      if (reduced[i] != want_reduced || in.shape()[i] < nt) continue;
      if (best < 0 || std::llabs(in.strides()[i]) > std::llabs(in.strides()[static_cast<std::size_t>(best)]))
        best = static_cast<int>(i);
    }
    return best;
  };
  int axis = pick(false);
  bool private_partials = false;
  if (axis < 0) {
    axis = pick(true);
    private_partials = true;
  }
  if (axis < 0) {
    accumulate<T, K>(o, ost.data(), x, in.strides().data(), in.shape());
    return;
  }
  const std::size_t ax = static_cast<std::size_t>(axis);
  const std::int64_t len = in.shape()[ax];
  std::vector<T> partial(private_partials ? static_cast<std::size_t>(nout) * nt : 0, R::identity());
#pragma omp parallel num_threads(nt)
  {
    std::int64_t t = omp_get_thread_num(), T_ = omp_get_num_threads();
    std::int64_t b = len * t / T_, e = len * (t + 1) / T_;
    if (b < e) {
      Shape sub = in.shape();
      sub[ax] = e - b;
      T* dst = private_partials ? partial.data() + t * nout : o;
      accumulate<T, K>(dst + b * ost[ax], ost.data(), x + b * in.strides()[ax], in.strides().data(), sub);
    }
  }
  if (private_partials) {
    for (int t = 0; t < nt; ++t)
      for (std::int64_t i = 0; i < nout; ++i)
        o[i] = R::combine(o[i], partial[static_cast<std::size_t>(t * nout + i)]);
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
