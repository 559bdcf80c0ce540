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

// Tiled 2-D copy over axes (a, b): `a` is fastest in the destination, `b` in
// the source. Tiles keep both the written and the read cache lines in L1.
template <class E>
void copy_2d_tiled(E* dst, const E* src, const Axis& a, const Axis& b) {
  constexpr std::int64_t kTile = sizeof(E) >= 16 ? 16 : sizeof(E) >= 8 ? 32 : 64;
  for (std::int64_t b0 = 0; b0 < b.n; b0 += kTile) {
    std::int64_t b1 = std::min(b.n, b0 + kTile);
    for (std::int64_t a0 = 0; a0 < a.n; a0 += kTile) {
      std::int64_t a1 = std::min(a.n, a0 + kTile);
      for (std::int64_t j = b0; j < b1; ++j) {
        E* d = dst + j * b.ds;
        const E* s = src + j * b.ss;
        if (a.ds == 1) {
          for (std::int64_t i = a0; i < a1; ++i) d[i] = s[i * a.ss];
        } else {
          for (std::int64_t i = a0; i < a1; ++i) d[i * a.ds] = s[i * a.ss];
        }
      }
    }
  }
}

template <class E>
void copy_typed(E* dst, const E* src, Axis* axes, int rank) {
  if (rank == 0) {
    *dst = *src;
    return;
  }
  // axes[0] is the destination's fastest axis; find the source's fastest.
  int k = 0;
  for (int i = 1; i < rank; ++i)
    if (std::llabs(axes[i].ss) < std::llabs(axes[k].ss)) k = i;
  bool tiled = k != 0 && std::llabs(axes[0].ss) > 1 && axes[0].n > 1;
  // Outer axes: all but 0 (and k when tiled), iterated as an odometer.
  Axis outer[64];
  int n_outer = 0;
  for (int i = 1; i < rank; ++i)
    if (!(tiled && i == k)) outer[n_outer++] = axes[i];
  std::int64_t idx[64] = {0};
  E* d = dst;
  const E* s = src;
  while (true) {
    if (tiled) copy_2d_tiled(d, s, axes[0], axes[k]);
    else copy_1d(d, s, axes[0]);
    int i = 0;
    for (; i < n_outer; ++i) {
      d += outer[i].ds;
      s += outer[i].ss;
      if (++idx[i] < outer[i].n) break;
      d -= outer[i].ds * outer[i].n;
      s -= outer[i].ss * outer[i].n;
      idx[i] = 0;
    }
    if (i == n_outer) return;
  }
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
  std::stable_sort(axes, axes + rank, [](const Axis& x, const Axis& y) {
    return std::llabs(x.ds) < std::llabs(y.ds);
  });
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
