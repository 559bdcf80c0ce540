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
/// contiguous in both layouts are merged, a short run at the front shared by
/// both layouts moves as one element of up to 64 bytes, the loop nest follows the
/// destination's stride order, and when the fastest source axis differs from
/// the fastest destination axis the copy goes through cache-sized 2-D tiles:
/// in-register transpositions (AVX-512 or AVX2, chosen at run time) when both
/// sides have a contiguous run of at least a cache line of elements; large
/// outputs are written with streaming (non-temporal) stores of whole cache
/// lines, a short destination run before the source's unit axis is
/// interleaved in registers (Note [Transpose tiles] in
/// src/tensor/strided_copy.cpp), and a short source unit axis behind other
/// destination axes is read with gathers (Note [Gathered rows]).

#include <cstddef>
#include <cstdint>

#include "tenferro/tensor/shape.hpp"

namespace tenferro::detail {

/// Instruction sets the tiled transposition may use; the CPU's support is
/// checked at run time, and a cap lowers the choice (tests use it to run the
/// AVX2 and scalar kernels on an AVX-512 machine).
enum class CopyIsa { scalar, avx2, avx512 };

/// Sets the cap (process-wide) and returns the previous one.
///
/// ```cpp
/// auto old = tenferro::detail::set_copy_isa_cap(tenferro::detail::CopyIsa::avx2);
/// // ... copies use at most AVX2 ...
/// tenferro::detail::set_copy_isa_cap(old);
/// ```
CopyIsa set_copy_isa_cap(CopyIsa cap);

/// Sets the output size (bytes, process-wide) from which transposing copies
/// are written with streaming stores (Note [Transpose tiles]; 8 MiB by
/// default) and returns the previous one. Tests lower it to run those paths
/// on small copies.
///
/// ```cpp
/// auto old = tenferro::detail::set_copy_stream_bytes(0);
/// // ... every transposing copy is streamed ...
/// tenferro::detail::set_copy_stream_bytes(old);
/// ```
std::int64_t set_copy_stream_bytes(std::int64_t bytes);

/// Copies `shape` elements of `elem_size` bytes (1, 2, 4, 8 or 16) from `src`
/// (element strides `src_strides`) to `dst` (`dst_strides`). The two regions
/// must not overlap. Single-threaded. A call that copies one piece of a
/// larger copy (a thread's share) passes the whole copy's size in bytes as
/// `whole_bytes`: the choice of streaming stores follows the whole.
void copy_strided(void* dst, const Strides& dst_strides, const void* src,
                  const Strides& src_strides, const Shape& shape, std::size_t elem_size,
                  std::int64_t whole_bytes = 0);

}  // namespace tenferro::detail
