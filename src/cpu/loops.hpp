#pragma once
// Strided loop nests and the thread pool helpers shared by the CPU kernels.
//
// Note [Strided loops]: a kernel over N operands of one shape describes each
// operand by its element strides (0 for a broadcast axis). `Loop<N>` drops
// extent-1 axes, orders the axes by the |stride| of one chosen operand
// (innermost first), and merges neighbours that are contiguous for every
// operand. `run` then calls the body once per innermost run with the base
// offsets and the inner strides, so the body's inner loop is a plain 1-D
// loop the compiler can vectorise when all inner strides are 1.

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "tenferro/ops/backend.hpp"
#include "tenferro/tensor/error.hpp"
#include "tenferro/tensor/shape.hpp"

namespace tenferro::cpu {

inline constexpr int kMaxLoopRank = 64;

/// Work (in elements) below which a kernel stays on one thread.
inline constexpr std::int64_t kParallelGrain = 1 << 15;

inline int max_threads() { return get_num_threads(); }

/// Splits [0, n) into one contiguous range per thread and calls f(begin, end)
/// for each (serially when n < grain or one thread is configured).
template <class F>
void parallel_for(std::int64_t n, std::int64_t grain, F&& f) {
  int nt = max_threads();
  if (nt <= 1 || n < grain || omp_in_parallel()) {
    if (n > 0) f(std::int64_t{0}, n);
    return;
  }
  std::int64_t chunks = std::min<std::int64_t>(nt, (n + grain - 1) / grain);
  chunks = std::max<std::int64_t>(chunks, 2);
#pragma omp parallel num_threads(static_cast<int>(chunks))
  {
    std::int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
    std::int64_t b = n * t / T, e = n * (t + 1) / T;
    if (b < e) f(b, e);
  }
}

template <int N>
struct Loop {
  int rank = 0;
  std::int64_t numel = 1;
  std::int64_t extent[kMaxLoopRank];
  std::int64_t stride[N][kMaxLoopRank];

  /// `strides[k]` are operand k's strides over `shape`; axes are ordered by
  /// operand `order_by`.
  Loop(const Shape& shape, const std::array<const std::int64_t*, N>& strides, int order_by = 0) {
    int idx[kMaxLoopRank];
    int r = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      numel *= shape[i];
      if (shape[i] != 1) idx[r++] = static_cast<int>(i);
    }
    if (numel == 0) {
      rank = 0;
      return;
    }
    const std::int64_t* key = strides[static_cast<std::size_t>(order_by)];
    // Stable insertion sort by |stride| (ranks are small; no allocation).
    for (int a = 1; a < r; ++a) {
      int v = idx[a], b = a;
      for (; b > 0 && std::llabs(key[idx[b - 1]]) > std::llabs(key[v]); --b) idx[b] = idx[b - 1];
      idx[b] = v;
    }
    for (int j = 0; j < r; ++j) {
      std::int64_t n = shape[static_cast<std::size_t>(idx[j])];
      bool merge = rank > 0;
      for (int k = 0; merge && k < N; ++k)
        merge = strides[k][idx[j]] == stride[k][rank - 1] * extent[rank - 1];
      if (merge) {
        extent[rank - 1] *= n;
        continue;
      }
      extent[rank] = n;
      for (int k = 0; k < N; ++k) stride[k][rank] = strides[k][idx[j]];
      ++rank;
    }
  }

  /// Calls body(off, n, inner) for the runs covering linear positions
  /// [begin, end): `off[k]` is operand k's element offset of the run start,
  /// `inner[k]` its stride along the run, `n` the run length.
  template <class Body>
  void run(std::int64_t begin, std::int64_t end, Body&& body) const {
    std::array<std::int64_t, N> off{};
    std::array<std::int64_t, N> inner{};
    if (begin >= end) return;
    if (rank == 0) {
      if (begin < end) body(off, std::int64_t{1}, inner);
      return;
    }
    std::int64_t idx[kMaxLoopRank];
    std::int64_t rem = begin;
    for (int d = 0; d < rank; ++d) {
      idx[d] = rem % extent[d];
      rem /= extent[d];
      for (int k = 0; k < N; ++k) off[k] += idx[d] * stride[k][d];
    }
    for (int k = 0; k < N; ++k) inner[k] = stride[k][0];
    std::int64_t pos = begin;
    while (true) {
      std::int64_t n = std::min(extent[0] - idx[0], end - pos);
      body(off, n, inner);
      pos += n;
      if (pos >= end) return;
      // The run reached the end of axis 0: rewind it and carry into the outer axes.
      for (int k = 0; k < N; ++k) off[k] -= idx[0] * stride[k][0];
      idx[0] = 0;
      for (int d = 1; d < rank; ++d) {
        for (int k = 0; k < N; ++k) off[k] += stride[k][d];
        if (++idx[d] < extent[d]) break;
        for (int k = 0; k < N; ++k) off[k] -= stride[k][d] * extent[d];
        idx[d] = 0;
      }
    }
  }
};

/// Note [Short runs]: with extents of 2 or 3 (graphical models, lattice
/// models) the axes of a permuted or broadcast operand rarely merge, and
/// `Loop::run` calls its body once per 2 or 3 elements, the carry into the
/// outer axes costing more than the work. A kernel may then split the
/// innermost axes off into a block of up to `max_block` elements whose
/// offsets it tabulates once per operand (`InnerBlock`), and run the outer
/// axes with `Loop::run`, one block per outer position. The binary
/// elementwise kernels do so for runs of at most 8 elements (blocks of up to
/// 256): in gm_queen5_5_3 along opt_size, a product of 43 M elements by a
/// factor of 9 values broadcast along 14 of its 16 axes (runs of 3) took
/// 153-167 ms and takes 61-66 (one pinned core; blocks of up to 1024 or
/// 4096 elements: 70-73 ms). bench_peer's einsum suite, one core, old and
/// new alternating: that case 858-884 -> 739-790 ms a call,
/// lm_batch_likelihood_sentence_4_4d along opt_flops 16.0-17.7 -> 12.3-12.4
/// ms, geometric mean over the 57 cases 1.04 times faster.
template <int N>
struct InnerBlock {
  std::int64_t size = 1;
  /// offsets[k][p]: operand k's element offset of block element p.
  std::array<std::vector<std::int64_t>, N> offsets;
  /// Whether operand k's block is contiguous (offsets[k][p] == p).
  std::array<bool, N> dense{};
};

/// Moves `loop`'s innermost axes, as many as keep their extents' product at
/// most `max_block`, into the returned block; `loop` keeps the others.
template <int N>
InnerBlock<N> split_inner_block(Loop<N>& loop, std::int64_t max_block) {
  InnerBlock<N> blk;
  int k = 0;
  while (k < loop.rank && blk.size * loop.extent[k] <= max_block) blk.size *= loop.extent[k++];
  for (int op = 0; op < N; ++op) {
    std::vector<std::int64_t>& t = blk.offsets[static_cast<std::size_t>(op)];
    t.assign(1, 0);
    for (int d = 0; d < k; ++d) {  // axis d varies slower than the axes before it
      const std::size_t m = t.size();
      for (std::int64_t i = 1; i < loop.extent[d]; ++i)
        for (std::size_t j = 0; j < m; ++j) t.push_back(t[j] + i * loop.stride[op][d]);
    }
    bool dense = true;
    for (std::size_t p = 0; p < t.size() && dense; ++p)
      dense = t[p] == static_cast<std::int64_t>(p);
    blk.dense[static_cast<std::size_t>(op)] = dense;
  }
  for (int d = k; d < loop.rank; ++d) {
    loop.extent[d - k] = loop.extent[d];
    for (int op = 0; op < N; ++op) loop.stride[op][d - k] = loop.stride[op][d];
  }
  loop.rank -= k;
  loop.numel /= blk.size;
  return blk;
}

}  // namespace tenferro::cpu
