#pragma once
/// \file
/// The host strided copy: the one routine that moves elements between two
/// layouts of the same shape (used by `contiguous()`, `duplicate()`, and the
/// CPU backend's `transpose` kernel, which splits the work across threads).
///
/// ```cpp
/// // copy a 2x3 row-major block into column-major memory
/// tenferro::detail::copy_strided(dst, {1, 2}, src, {3, 1}, {2, 3}, sizeof(double));
/// ```
/// Note [Strided copy]: axes of extent 1 are dropped, adjacent axes that are
/// contiguous in both layouts are merged, the loop nest follows the
/// destination's stride order, and when the fastest source axis differs from
/// the fastest destination axis the copy goes through cache-sized 2-D tiles.

#include <cstddef>
#include <cstdint>

#include "tenferro/tensor/shape.hpp"

namespace tenferro::detail {

/// Copies `shape` elements of `elem_size` bytes (1, 2, 4, 8 or 16) from `src`
/// (element strides `src_strides`) to `dst` (`dst_strides`). The two regions
/// must not overlap. Single-threaded.
void copy_strided(void* dst, const Strides& dst_strides, const void* src,
                  const Strides& src_strides, const Shape& shape, std::size_t elem_size);

}  // namespace tenferro::detail
