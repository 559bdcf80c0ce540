// Host strided copy; see Note [Strided copy] in tenferro/tensor/strided_copy.hpp.
#include "tenferro/tensor/strided_copy.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "tenferro/tensor/error.hpp"

namespace tenferro::detail {
namespace {

struct Bytes16 {
  std::uint64_t lo, hi;
};

struct Axis {
  std::int64_t n, ds, ss;  // extent, destination stride, source stride
};

template <class E>
void copy_1d(E* dst, const E* src, const Axis& a) {
  if (a.ds == 1 && a.ss == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(a.n) * sizeof(E));
    return;
  }
  for (std::int64_t i = 0; i < a.n; ++i) dst[i * a.ds] = src[i * a.ss];
}

// Blocked copy (Note [Strided copy]). The leaf block is the product of a
// destination group (the destination's fastest axes, about one cache line of
// elements) and a source group (the source's fastest remaining axes, about
// one line), so each leaf reads whole source lines and writes whole
// destination lines, and touches at most a line's worth of lines of one cache
// set on either side (taller tiles thrash 8-way caches when strides are
// powers of two). An axis that is too long for a group is cut into blocks.
// Leaves are visited in destination order, so the destination is written as
// a few sequential streams and each source line is read once.
struct LeafAxis {
  std::int64_t n, ds, ss;  // full extent and strides
  std::int64_t block;      // leaf extent (n when the whole axis is in the leaf)
};

template <class E>
void copy_leaf(E* dst, const E* src, const LeafAxis* leaf, const std::int64_t* len, int nl) {
  if (nl == 2) {  // the common 2-D tile: destination-fastest axis inner
    const LeafAxis& a = leaf[0];
    const LeafAxis& b = leaf[1];
    for (std::int64_t j = 0; j < len[1]; ++j) {
      E* d = dst + j * b.ds;
      const E* s = src + j * b.ss;
      if (a.ds == 1) {
        for (std::int64_t i = 0; i < len[0]; ++i) d[i] = s[i * a.ss];
      } else {
        for (std::int64_t i = 0; i < len[0]; ++i) d[i * a.ds] = s[i * a.ss];
      }
    }
    return;
  }
  std::int64_t idx[64] = {0};
  E* d = dst;
  const E* s = src;
  while (true) {
    for (std::int64_t i = 0; i < len[0]; ++i) d[i * leaf[0].ds] = s[i * leaf[0].ss];
    int k = 1;
    for (; k < nl; ++k) {
      d += leaf[k].ds;
      s += leaf[k].ss;
      if (++idx[k] < len[k]) break;
      d -= leaf[k].ds * len[k];
      s -= leaf[k].ss * len[k];
      idx[k] = 0;
    }
    if (k == nl) return;
  }
}

template <class E>
void copy_blocked(E* dst, const E* src, const Axis* axes, int rank) {
  constexpr std::int64_t kLine = 64 / static_cast<std::int64_t>(sizeof(E));
  constexpr std::int64_t kTile = kLine < 4 ? 4 : kLine > 16 ? 16 : kLine;
  // Choose the leaf: block[i] > 0 marks axis i (in destination order) as in the leaf.
  std::int64_t block[64] = {0};
  auto take_group = [&](const int* order) {
    std::int64_t p = 1;
    for (int j = 0; j < rank && p < kTile; ++j) {
      int i = order[j];
      if (block[i] > 0) continue;
      std::int64_t n = axes[i].n;
      if (p * n <= 2 * kTile) {
        block[i] = n;
        p *= n;
      } else {
        block[i] = (kTile + p - 1) / p;
        p *= block[i];
      }
    }
  };
  int by_dst[64], by_src[64];
  for (int i = 0; i < rank; ++i) by_dst[i] = by_src[i] = i;
  for (int a = 1; a < rank; ++a) {
    int v = by_src[a], b = a;
    for (; b > 0 && std::llabs(axes[by_src[b - 1]].ss) > std::llabs(axes[v].ss); --b) by_src[b] = by_src[b - 1];
    by_src[b] = v;
  }
  take_group(by_dst);
  take_group(by_src);
  LeafAxis leaf[64];
  int leaf_axis[64];
  int nl = 0;
  for (int i = 0; i < rank; ++i)
    if (block[i] > 0) {
      leaf_axis[nl] = i;
      leaf[nl++] = {axes[i].n, axes[i].ds, axes[i].ss, block[i]};
    }
  // Outer loops in destination order: whole axes outside the leaf, and the
  // block loops of leaf axes that were cut.
  struct Outer {
    std::int64_t count, ds, ss;
    int leaf;  // index into `leaf` for block loops, -1 for whole axes
  };
  Outer outer[64];
  int no = 0;
  for (int i = 0, l = 0; i < rank; ++i) {
    if (block[i] == 0) {
      outer[no++] = {axes[i].n, axes[i].ds, axes[i].ss, -1};
    } else {
      if (block[i] < axes[i].n)
        outer[no++] = {(axes[i].n + block[i] - 1) / block[i], axes[i].ds * block[i], axes[i].ss * block[i], l};
      ++l;
    }
  }
  (void)leaf_axis;
  std::int64_t len[64];
  for (int l = 0; l < nl; ++l) len[l] = leaf[l].block;
  std::int64_t idx[64] = {0};
  E* d = dst;
  const E* s = src;
  while (true) {
    copy_leaf(d, s, leaf, len, nl);
    int k = 0;
    for (; k < no; ++k) {
      Outer& o = outer[k];
      d += o.ds;
      s += o.ss;
      ++idx[k];
      if (idx[k] < o.count) {
        if (o.leaf >= 0 && idx[k] == o.count - 1) {
          const LeafAxis& la = leaf[o.leaf];
          len[o.leaf] = la.n - idx[k] * la.block;  // the last, partial block
        }
        break;
      }
      d -= o.ds * o.count;
      s -= o.ss * o.count;
      idx[k] = 0;
      if (o.leaf >= 0) len[o.leaf] = leaf[o.leaf].block;
    }
    if (k == no) return;
  }
}

template <class E>
void copy_typed(E* dst, const E* src, Axis* axes, int rank) {
  if (rank == 0) {
    *dst = *src;
    return;
  }
  // A long run shared by both sides: 1-D runs along it, the rest as an odometer.
  if (axes[0].n >= 64) {
    bool shared = true;
    for (int i = 1; i < rank; ++i) shared = shared && std::llabs(axes[i].ss) > std::llabs(axes[0].ss);
    if (shared && std::llabs(axes[0].ss) <= 1) {
      std::int64_t idx[64] = {0};
      E* d = dst;
      const E* s = src;
      while (true) {
        copy_1d(d, s, axes[0]);
        int i = 1;
        for (; i < rank; ++i) {
          d += axes[i].ds;
          s += axes[i].ss;
          if (++idx[i] < axes[i].n) break;
          d -= axes[i].ds * axes[i].n;
          s -= axes[i].ss * axes[i].n;
          idx[i] = 0;
        }
        if (i == rank) return;
      }
    }
  }
  copy_blocked(dst, src, axes, rank);
}

}  // namespace

void copy_strided(void* dst, const Strides& dst_strides, const void* src,
                  const Strides& src_strides, const Shape& shape, std::size_t elem_size) {
  TF_INTERNAL_ASSERT(dst_strides.size() == shape.size() && src_strides.size() == shape.size());
  TF_INTERNAL_ASSERT(shape.size() <= 64, "rank above 64");
  Axis axes[64];
  int rank = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return;
    if (shape[i] == 1) continue;
    axes[rank++] = {shape[i], dst_strides[i], src_strides[i]};
  }
  // Stable insertion sort by |destination stride| (no allocation).
  for (int a = 1; a < rank; ++a) {
    Axis v = axes[a];
    int b = a;
    for (; b > 0 && std::llabs(axes[b - 1].ds) > std::llabs(v.ds); --b) axes[b] = axes[b - 1];
    axes[b] = v;
  }
  // Merge axes that are contiguous with their predecessor in both layouts.
  int merged = 0;
  for (int i = 0; i < rank; ++i) {
    if (merged > 0) {
      Axis& p = axes[merged - 1];
      if (axes[i].ds == p.ds * p.n && axes[i].ss == p.ss * p.n) {
        p.n *= axes[i].n;
        continue;
      }
    }
    axes[merged++] = axes[i];
  }
  switch (elem_size) {
    case 1:
      return copy_typed(static_cast<std::uint8_t*>(dst), static_cast<const std::uint8_t*>(src),
                        axes, merged);
    case 2:
      return copy_typed(static_cast<std::uint16_t*>(dst),
                        static_cast<const std::uint16_t*>(src), axes, merged);
    case 4:
      return copy_typed(static_cast<std::uint32_t*>(dst),
                        static_cast<const std::uint32_t*>(src), axes, merged);
    case 8:
      return copy_typed(static_cast<std::uint64_t*>(dst),
                        static_cast<const std::uint64_t*>(src), axes, merged);
    case 16:
      return copy_typed(static_cast<Bytes16*>(dst), static_cast<const Bytes16*>(src), axes,
                        merged);
    default:
      TF_INTERNAL_ASSERT(false, "copy_strided: element size ", elem_size);
  }
}

}  // namespace tenferro::detail
