// Data movement kernels: strided copies (elementwise and tiled through shared
// memory), dynamic-slice offsets, gather and scatter. Elements are moved as
// opaque words of their size, so one instantiation serves every dtype of
// that size.
#include <cuda_runtime.h>

#include "device_ops.cuh"

namespace tenferro::cuda::detail {
namespace {

constexpr int kThreads = 256;

struct alignas(16) Word16 {
  unsigned long long lo, hi;
};

template <std::size_t N>
struct WordOf;
template <>
struct WordOf<1> {
  using type = unsigned char;
};
template <>
struct WordOf<2> {
  using type = unsigned short;
};
template <>
struct WordOf<4> {
  using type = unsigned int;
};
template <>
struct WordOf<8> {
  using type = unsigned long long;
};
template <>
struct WordOf<16> {
  using type = Word16;
};

/// Calls f.template operator()<Word>() for an element size of 1, 2, 4, 8 or 16 bytes.
template <class F>
void on_size(std::size_t es, F&& f) {
  switch (es) {
    case 1: return f.template operator()<WordOf<1>::type>();
    case 2: return f.template operator()<WordOf<2>::type>();
    case 4: return f.template operator()<WordOf<4>::type>();
    case 8: return f.template operator()<WordOf<8>::type>();
    case 16: return f.template operator()<WordOf<16>::type>();
    default: TF_INTERNAL_ASSERT(false, "cuda copy: element size ", es);
  }
}

template <class E, class I>
__global__ void copy_kernel(CopyArgs a) {
  E* dst = static_cast<E*>(a.dst);
  const E* src = static_cast<const E*>(a.src);
  if (a.src_delta) src += *a.src_delta;
  if (a.dst_delta) dst += *a.dst_delta;
  const I n = static_cast<I>(a.n);
  const I step = static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
  for (I i = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x); i < n;
       i += step) {
    I so = 0, dof = 0;
    if (a.rank <= 1) {
      so = i * static_cast<I>(a.src_strides[0]);
      dof = i * static_cast<I>(a.dst_strides[0]);
    } else {
      I r = i;
      for (int d = 0; d < a.rank; ++d) {
        const I e = static_cast<I>(a.shape[d]);
        const I c = r % e;
        r /= e;
        so += c * static_cast<I>(a.src_strides[d]);
        dof += c * static_cast<I>(a.dst_strides[d]);
      }
    }
    dst[dof] = src[so];
  }
}

__device__ inline void group_offsets(std::int64_t pos, int rank, const std::int64_t* shape,
                                     const std::int64_t* src, const std::int64_t* dst,
                                     std::int64_t& so, std::int64_t& dof) {
  so = 0;
  dof = 0;
  for (int d = 0; d < rank; ++d) {
    const std::int64_t c = pos % shape[d];
    pos /= shape[d];
    so += c * src[d];
    dof += c * dst[d];
  }
}

template <class E>
__global__ void tiled_copy_kernel(TileArgs a) {
  __shared__ alignas(16) unsigned char raw[kTile * (kTile + 1) * sizeof(E)];
  E* tile = reinterpret_cast<E*>(raw);
  __shared__ std::int64_t a_src[kTile], a_dst[kTile], b_src[kTile], b_dst[kTile];
  __shared__ std::int64_t base_src, base_dst;
  E* dst = static_cast<E*>(a.dst);
  const E* src = static_cast<const E*>(a.src);
  const std::int64_t tiles_a = (a.na + kTile - 1) / kTile, tiles_b = (a.nb + kTile - 1) / kTile;
  const std::int64_t total = tiles_a * tiles_b * a.nbatch;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTile + tx;
  for (std::int64_t t = blockIdx.x; t < total; t += gridDim.x) {
    const std::int64_t ta = t % tiles_a, rest = t / tiles_a;
    const std::int64_t tb = rest % tiles_b, bt = rest / tiles_b;
    if (tid < kTile) {
      const std::int64_t p = ta * kTile + tid;
      if (p < a.na) group_offsets(p, a.rank_a, a.shape_a, a.src_a, a.dst_a, a_src[tid], a_dst[tid]);
    } else if (tid < 2 * kTile) {
      const std::int64_t p = tb * kTile + (tid - kTile);
      if (p < a.nb)
        group_offsets(p, a.rank_b, a.shape_b, a.src_b, a.dst_b, b_src[tid - kTile], b_dst[tid - kTile]);
    } else if (tid == 2 * kTile) {
      std::int64_t so, dof;
      group_offsets(bt, a.rank_batch, a.shape_c, a.src_c, a.dst_c, so, dof);
      base_src = so + (a.src_delta ? *a.src_delta : 0);
      base_dst = dof + (a.dst_delta ? *a.dst_delta : 0);
    }
    __syncthreads();
    const int la = static_cast<int>(a.na - ta * kTile < kTile ? a.na - ta * kTile : kTile);
    const int lb = static_cast<int>(a.nb - tb * kTile < kTile ? a.nb - tb * kTile : kTile);
    // Read along B (fast in the source), write along A (fast in the destination).
    if (tx < lb)
      for (int j = ty; j < la; j += blockDim.y) tile[j * (kTile + 1) + tx] = src[base_src + a_src[j] + b_src[tx]];
    __syncthreads();
    if (tx < la)
      for (int j = ty; j < lb; j += blockDim.y) dst[base_dst + a_dst[tx] + b_dst[j]] = tile[tx * (kTile + 1) + j];
    __syncthreads();
  }
}

__global__ void delta_kernel(DeltaArgs a) {
  std::int64_t off = 0;
  for (int d = 0; d < a.rank; ++d) {
    std::int64_t s = a.starts_i64 ? static_cast<const std::int64_t*>(a.starts)[d * a.starts_stride]
                                  : static_cast<const std::int32_t*>(a.starts)[d * a.starts_stride];
    s = s < 0 ? 0 : s > a.max_start[d] ? a.max_start[d] : s;
    off += s * a.stride[d];
  }
  *a.out = off;
}

template <class E, class I>
__global__ void gather_kernel(GatherArgs a) {
  const E* x = static_cast<const E*>(a.x);
  const I* idx = static_cast<const I*>(a.idx);
  E* out = static_cast<E*>(a.out);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += step) {
    std::int64_t r = i, oo = 0, xo = 0, io = 0;
    for (int d = 0; d < a.rank; ++d) {
      const std::int64_t c = r % a.shape[d];
      r /= a.shape[d];
      oo += c * a.out_stride[d];
      xo += c * a.x_stride[d];
      io += c * a.idx_stride[d];
    }
    for (int k = 0; k < a.nvec; ++k) {
      std::int64_t s = static_cast<std::int64_t>(idx[io + k * a.vstride]);
      s = s < 0 ? 0 : s > a.map_max[k] ? a.map_max[k] : s;
      xo += s * a.map_stride[k];
    }
    out[oo] = x[xo];
  }
}

/// Offsets of update element i: update, output (with the starts added) and
/// batch number; false when its window leaves the operand.
template <class I>
__device__ inline bool scatter_target(const ScatterArgs& a, std::int64_t i, std::int64_t& uo,
                                      std::int64_t& oo, long long& bn) {
  const I* idx = static_cast<const I*>(a.idx);
  std::int64_t r = i, io = 0;
  uo = 0;
  oo = 0;
  bn = 0;
  for (int d = 0; d < a.rank; ++d) {
    const std::int64_t c = r % a.shape[d];
    r /= a.shape[d];
    uo += c * a.upd_stride[d];
    oo += c * a.out_stride[d];
    io += c * a.idx_stride[d];
    bn += c * a.batch_mul[d];
  }
  bool inside = true;
  for (int k = 0; k < a.nvec; ++k) {
    const std::int64_t s = static_cast<std::int64_t>(idx[io + k * a.vstride]);
    inside = inside && s >= 0 && s <= a.map_limit[k];
    oo += s * a.map_out_stride[k];
  }
  return inside;
}

template <class T>
__device__ inline void atomic_add(T* p, T v) {
  if constexpr (kIsComplex<T>) {
    using R = RealOf<T>;
    atomicAdd(reinterpret_cast<R*>(p), v.real());
    atomicAdd(reinterpret_cast<R*>(p) + 1, v.imag());
  } else if constexpr (::cuda::std::is_same_v<T, std::int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    atomicAdd(p, v);
  }
}

template <class T, class I>
__global__ void scatter_add_kernel(ScatterArgs a) {
  const T* upd = static_cast<const T*>(a.upd);
  T* out = static_cast<T*>(a.out);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += step) {
    std::int64_t uo, oo;
    long long bn;
    if (scatter_target<I>(a, i, uo, oo, bn)) atomic_add(out + oo, upd[uo]);
  }
}

template <class I>
__global__ void scatter_winner_kernel(ScatterArgs a) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += step) {
    std::int64_t uo, oo;
    long long bn;
    if (scatter_target<I>(a, i, uo, oo, bn)) atomicMax(a.winner + oo, bn);
  }
}

template <class E, class I>
__global__ void scatter_replace_kernel(ScatterArgs a) {
  const E* upd = static_cast<const E*>(a.upd);
  E* out = static_cast<E*>(a.out);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += step) {
    std::int64_t uo, oo;
    long long bn;
    if (scatter_target<I>(a, i, uo, oo, bn) && a.winner[oo] == bn) out[oo] = upd[uo];
  }
}

bool fits_int32(const CopyArgs& a) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 30;
  if (a.n >= kLimit) return false;
  std::int64_t s = 0, d = 0;
  for (int i = 0; i < a.rank; ++i) {
    s += (a.shape[i] - 1) * (a.src_strides[i] < 0 ? -a.src_strides[i] : a.src_strides[i]);
    d += (a.shape[i] - 1) * (a.dst_strides[i] < 0 ? -a.dst_strides[i] : a.dst_strides[i]);
  }
  return s < kLimit && d < kLimit;
}

}  // namespace

void launch_copy(const CopyArgs& args, std::size_t elem_size, StreamHandle stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const bool small = fits_int32(args);
  on_size(elem_size, [&]<class E>() {
    if (small) copy_kernel<E, std::int32_t><<<grid_for(args.n, kThreads), kThreads, 0, s>>>(args);
    else copy_kernel<E, std::int64_t><<<grid_for(args.n, kThreads), kThreads, 0, s>>>(args);
  });
}

void launch_tiled_copy(const TileArgs& args, std::size_t elem_size, StreamHandle stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const std::int64_t tiles = ((args.na + kTile - 1) / kTile) * ((args.nb + kTile - 1) / kTile) * args.nbatch;
  const unsigned blocks = static_cast<unsigned>(tiles < (1 << 20) ? tiles : (1 << 20));
  on_size(elem_size, [&]<class E>() { tiled_copy_kernel<E><<<blocks, dim3(kTile, 8), 0, s>>>(args); });
}

void launch_dynamic_delta(const DeltaArgs& args, StreamHandle stream) {
  delta_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(args);
}

void launch_gather(const GatherArgs& args, std::size_t elem_size, StreamHandle stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  on_size(elem_size, [&]<class E>() {
    if (args.idx_i64) gather_kernel<E, std::int64_t><<<grid_for(args.n, kThreads), kThreads, 0, s>>>(args);
    else gather_kernel<E, std::int32_t><<<grid_for(args.n, kThreads), kThreads, 0, s>>>(args);
  });
}

void launch_scatter(const ScatterArgs& args, DType dtype, StreamHandle stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const unsigned grid = grid_for(args.n, kThreads);
  auto with_index = [&](auto&& f) {
    if (args.idx_i64) f.template operator()<std::int64_t>();
    else f.template operator()<std::int32_t>();
  };
  if (args.winner == nullptr) {
    visit_dtype<kNumericDTypes>(dtype, "scatter", [&]<class T>() {
      with_index([&]<class I>() { scatter_add_kernel<Dev<T>, I><<<grid, kThreads, 0, s>>>(args); });
    });
    return;
  }
  with_index([&]<class I>() { scatter_winner_kernel<I><<<grid, kThreads, 0, s>>>(args); });
  on_size(dtype_size(dtype), [&]<class E>() {
    with_index([&]<class I>() { scatter_replace_kernel<E, I><<<grid, kThreads, 0, s>>>(args); });
  });
}

}  // namespace tenferro::cuda::detail
