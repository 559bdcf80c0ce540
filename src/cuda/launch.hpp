#pragma once
// The interface between the host code of the CUDA backend (.cpp, compiled by
// the C++ compiler) and its kernels (.cu, compiled by nvcc): plain structs
// passed by value as kernel parameters, and one launcher per kernel family.
// Nothing here includes a CUDA header, so the host files stay ordinary C++.
//
// Note [Kernel layouts]: a strided operand is described by its element
// strides over a shared shape (signed; 0 for a broadcast axis) and a pointer
// to its element (0, ..., 0). The host side first drops extent-1 axes and
// merges axes that are contiguous in every operand (`coalesce`), so a
// contiguous tensor reaches a kernel as rank 1 and the kernels take their
// fast path; the remaining rank is at most kMaxDims (a tensor's maximum
// rank), which keeps each parameter block under CUDA's 4 KiB limit.
#include <cstddef>
#include <cstdint>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/dtype.hpp"

namespace tenferro::cuda::detail {

/// The CUDA stream as an opaque handle (a cudaStream_t).
using StreamHandle = void*;

inline constexpr int kMaxDims = 64;
inline constexpr int kMaxOperands = 4;

/// Up to kMaxOperands operands over one shape; operand 0 is the output.
struct StridedArgs {
  std::int64_t n = 0;  ///< number of elements
  int rank = 0;        ///< after coalescing; 0 or 1 means offsets are i * strides[k][0]
  int num = 0;         ///< operands including the output
  std::int64_t shape[kMaxDims];
  std::int64_t strides[kMaxOperands][kMaxDims];
  void* data[kMaxOperands];
};

// ---- elementwise (elementwise.cu) ------------------------------------------------
/// Runs one elementwise primitive: `in` are the operand dtypes (in order),
/// `out` the result dtype; args.data[0] is the output, data[1..] the operands.
void launch_elementwise(OpKind kind, const Attrs& attrs, const DType* in, DType out,
                        const StridedArgs& args, StreamHandle stream);

// ---- reductions (reduce.cu) --------------------------------------------------------
/// out[o] = combine over r of in[in_offset(o) + red_offset(r)].
struct ReduceArgs {
  std::int64_t nout = 0, nred = 0;
  int kept_rank = 0, red_rank = 0;
  std::int64_t kept_shape[kMaxDims];
  std::int64_t kept_in[kMaxDims];   ///< input strides of the kept axes
  std::int64_t kept_out[kMaxDims];  ///< output strides of the kept axes
  std::int64_t red_shape[kMaxDims];
  std::int64_t red_in[kMaxDims];
  const void* in = nullptr;
  void* out = nullptr;
};
/// Strategy: one thread per output (`per_thread`), or `splits` blocks per
/// output that each reduce a slice of the reduced range. With splits > 1 the
/// output is a scratch buffer of [nout, splits] partials (output offset
/// o + s * nout; kept_out is ignored) to be reduced again.
void launch_reduce(OpKind kind, DType dtype, const ReduceArgs& args, bool per_thread, int splits,
                   StreamHandle stream);

// ---- copies (copy.cu) --------------------------------------------------------------
/// dst = src over one shape (strides of both after coalescing), elements of
/// `elem_size` bytes. Optional device int64 element offsets added to the
/// source / destination (dynamic_slice and dynamic_update_slice starts).
struct CopyArgs {
  std::int64_t n = 0;
  int rank = 0;
  std::int64_t shape[kMaxDims];
  std::int64_t dst_strides[kMaxDims];
  std::int64_t src_strides[kMaxDims];
  void* dst = nullptr;
  const void* src = nullptr;
  const std::int64_t* src_delta = nullptr;
  const std::int64_t* dst_delta = nullptr;
};
/// Elementwise strided copy (one thread per element, dst order).
void launch_copy(const CopyArgs& args, std::size_t elem_size, StreamHandle stream);

/// A tiled transpose: the axes split into a group A (fast in dst), a group B
/// (fast in src) and the batch axes. Each block moves tiles of
/// kTile x kTile elements through shared memory, reading rows along B and
/// writing rows along A, so both sides are coalesced.
inline constexpr int kTile = 32;
inline constexpr int kMaxGroup = 8;  ///< axes in group A or B
struct TileArgs {
  int rank_a = 0, rank_b = 0, rank_batch = 0;
  std::int64_t na = 1, nb = 1, nbatch = 1;
  std::int64_t shape_a[kMaxGroup], src_a[kMaxGroup], dst_a[kMaxGroup];
  std::int64_t shape_b[kMaxGroup], src_b[kMaxGroup], dst_b[kMaxGroup];
  std::int64_t shape_c[kMaxDims], src_c[kMaxDims], dst_c[kMaxDims];
  void* dst = nullptr;
  const void* src = nullptr;
  const std::int64_t* src_delta = nullptr;
  const std::int64_t* dst_delta = nullptr;
};
void launch_tiled_copy(const TileArgs& args, std::size_t elem_size, StreamHandle stream);

/// *out = sum_d clamp(starts[d * starts_stride], 0, max_start[d]) * stride[d]
/// (the element offset of a dynamic slice; starts are i32 or i64).
struct DeltaArgs {
  int rank = 0;
  const void* starts = nullptr;
  bool starts_i64 = true;
  std::int64_t starts_stride = 1;
  std::int64_t max_start[kMaxDims];
  std::int64_t stride[kMaxDims];
  std::int64_t* out = nullptr;
};
void launch_dynamic_delta(const DeltaArgs& args, StreamHandle stream);

/// gather: one thread per output element. Output axis d is an offset axis
/// (operand stride x_stride[d], idx_stride[d] = 0) or a batch axis
/// (x_stride[d] = 0, idx_stride[d] = the index tensor's stride).
struct GatherArgs {
  std::int64_t n = 0;
  int rank = 0;  ///< output rank
  std::int64_t shape[kMaxDims];
  std::int64_t out_stride[kMaxDims];
  std::int64_t x_stride[kMaxDims];
  std::int64_t idx_stride[kMaxDims];
  int nvec = 0;                         ///< index vector length
  std::int64_t vstride = 0;             ///< stride of the index vector axis
  std::int64_t map_stride[kMaxDims];    ///< operand stride of start_index_map[k]
  std::int64_t map_max[kMaxDims];       ///< operand extent - slice size of that axis
  bool idx_i64 = true;
  const void* x = nullptr;
  const void* idx = nullptr;
  void* out = nullptr;
};
void launch_gather(const GatherArgs& args, std::size_t elem_size, StreamHandle stream);

/// scatter: one thread per update element. Update axis d is a window axis
/// (out_stride[d] = the output stride of its operand axis, idx_stride 0) or
/// a batch axis (out_stride 0, idx_stride the index stride, batch_mul[d]
/// its weight in the column-major batch number).
struct ScatterArgs {
  std::int64_t n = 0;
  int rank = 0;  ///< update rank
  std::int64_t shape[kMaxDims];
  std::int64_t upd_stride[kMaxDims];
  std::int64_t out_stride[kMaxDims];
  std::int64_t idx_stride[kMaxDims];
  std::int64_t batch_mul[kMaxDims];
  int nvec = 0;
  std::int64_t vstride = 0;
  std::int64_t map_out_stride[kMaxDims];  ///< output stride of scatter_dims_to_operand_dims[k]
  std::int64_t map_limit[kMaxDims];       ///< operand extent - window extent of that axis
  bool idx_i64 = true;
  const void* upd = nullptr;
  const void* idx = nullptr;
  void* out = nullptr;
  /// Replace mode: per output element (offset from `out`, which is dense),
  /// the largest batch number writing it; null in add mode.
  long long* winner = nullptr;
};
/// Add mode (`winner` null): atomic adds of the numeric dtype `dtype`.
/// Replace mode: pass 1 records the last writer, pass 2 writes its values,
/// so duplicates resolve as a sequential loop over the batch would.
void launch_scatter(const ScatterArgs& args, DType dtype, StreamHandle stream);

// ---- dense helpers (misc.cu) -----------------------------------------------------------
/// C[i, j] = sum_p A[i, p] B[p, j] for integer dtypes (wrapping), per batch
/// element b with element offsets b * batch stride; any strides.
struct IntGemmArgs {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::int64_t a_rs = 0, a_cs = 0, a_bs = 0;
  std::int64_t b_rs = 0, b_cs = 0, b_bs = 0;
  std::int64_t c_rs = 0, c_cs = 0, c_bs = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
};
void launch_int_gemm(DType dtype, const IntGemmArgs& args, StreamHandle stream);

/// Matrix batch helpers over column-major [rows, cols, batch] buffers.
enum class MatrixPart : std::uint8_t {
  lower,       ///< keep i >= j (zeros elsewhere)
  upper,       ///< keep i <= j
  unit_lower,  ///< i > j kept, ones on the diagonal, zeros above
};
/// dst[rows_d, cols_d, b] = part of src[.., .., b] (ld_src, stride_src per
/// matrix) restricted to the destination extents.
void launch_extract(DType dtype, MatrixPart part, std::int64_t rows, std::int64_t cols,
                    std::int64_t batch, const void* src, std::int64_t ld_src,
                    std::int64_t src_batch_stride, void* dst, StreamHandle stream);
/// LU pivots (1-based, int64 [k, batch] as cuSOLVER returns them) to the
/// permutation perm[m, batch] (i64) and optionally the matrix P[m, m, batch]
/// with P[i, perm[i]] = 1, of `dtype`; also writes 0-based pivots if
/// `pivots0` is not null.
void launch_pivots_to_perm(const std::int64_t* pivots, std::int64_t m, std::int64_t k,
                           std::int64_t batch, std::int64_t* perm, void* p_matrix, DType dtype,
                           std::int64_t* pivots0, StreamHandle stream);
/// x[i] *= scale over n contiguous elements of a float dtype.
void launch_scale(DType dtype, void* x, std::int64_t n, double scale, StreamHandle stream);
/// out[b] = 1 if an element of matrix b of the column-major [rows, cols,
/// batch] buffer `x` within `region` is not finite, else 0 (int32 [batch]).
enum class Region : std::uint8_t { all, lower, upper };
void launch_nonfinite_flags(DType dtype, const void* x, std::int64_t rows, std::int64_t cols,
                            std::int64_t batch, Region region, int* out, StreamHandle stream);
/// Identity matrices [n, n, batch] of `dtype`.
void launch_identity(DType dtype, std::int64_t n, std::int64_t batch, void* out, StreamHandle stream);

}  // namespace tenferro::cuda::detail
