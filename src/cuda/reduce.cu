// Reduction kernels (reduce_sum / prod / max / min): one thread per output
// when the reduced range is short or the outputs are adjacent in memory, else
// blocks that each reduce (a slice of) one output through shared memory.
#include <cuda_runtime.h>

#include "device_ops.cuh"

namespace tenferro::cuda::detail {
namespace {

constexpr int kThreads = 256;

__device__ inline void kept_offsets(const ReduceArgs& a, std::int64_t o, std::int64_t& in,
                                    std::int64_t& out) {
  in = 0;
  out = 0;
  for (int d = 0; d < a.kept_rank; ++d) {
    const std::int64_t c = o % a.kept_shape[d];
    o /= a.kept_shape[d];
    in += c * a.kept_in[d];
    out += c * a.kept_out[d];
  }
}

__device__ inline std::int64_t red_offset(const ReduceArgs& a, std::int64_t r) {
  if (a.red_rank == 1) return r * a.red_in[0];
  std::int64_t off = 0;
  for (int d = 0; d < a.red_rank; ++d) {
    const std::int64_t c = r % a.red_shape[d];
    r /= a.red_shape[d];
    off += c * a.red_in[d];
  }
  return off;
}

template <class T, OpKind K>
__global__ void reduce_per_thread(ReduceArgs a) {
  using R = Reducer<T, K>;
  const T* x = static_cast<const T*>(a.in);
  T* y = static_cast<T*>(a.out);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < a.nout;
       o += step) {
    std::int64_t in, out;
    kept_offsets(a, o, in, out);
    T acc = R::identity();
    if (a.red_rank <= 1) {
      const std::int64_t s = a.red_rank == 1 ? a.red_in[0] : 0;
      for (std::int64_t r = 0; r < a.nred; ++r) acc = R::combine(acc, x[in + r * s]);
    } else {
      for (std::int64_t r = 0; r < a.nred; ++r) acc = R::combine(acc, x[in + red_offset(a, r)]);
    }
    y[out] = acc;
  }
}

template <class T, OpKind K>
__global__ void reduce_per_block(ReduceArgs a, int splits) {
  using R = Reducer<T, K>;
  // Raw storage: complex element types have constructors, which __shared__ forbids.
  __shared__ alignas(16) unsigned char raw[kThreads * sizeof(T)];
  T* buf = reinterpret_cast<T*>(raw);
  const T* x = static_cast<const T*>(a.in);
  T* y = static_cast<T*>(a.out);
  const std::int64_t jobs = a.nout * splits;
  for (std::int64_t job = blockIdx.x; job < jobs; job += gridDim.x) {
    const std::int64_t o = job % a.nout, s = job / a.nout;
    const std::int64_t r0 = a.nred * s / splits, r1 = a.nred * (s + 1) / splits;
    std::int64_t in, out;
    kept_offsets(a, o, in, out);
    T acc = R::identity();
    for (std::int64_t r = r0 + threadIdx.x; r < r1; r += blockDim.x)
      acc = R::combine(acc, x[in + red_offset(a, r)]);
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w /= 2) {
      if (static_cast<int>(threadIdx.x) < w) buf[threadIdx.x] = R::combine(buf[threadIdx.x], buf[threadIdx.x + w]);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      if (splits == 1) y[out] = buf[0];
      else y[o + s * a.nout] = buf[0];
    }
    __syncthreads();
  }
}

template <OpKind K, DTypeSet S>
void run(DType d, const ReduceArgs& a, bool per_thread, int splits, cudaStream_t stream) {
  visit_dtype<S>(d, op_name(K), [&]<class T>() {
    using D = Dev<T>;
    if (per_thread) {
      reduce_per_thread<D, K><<<grid_for(a.nout, kThreads), kThreads, 0, stream>>>(a);
    } else {
      std::int64_t jobs = a.nout * splits;
      unsigned blocks = static_cast<unsigned>(jobs < (1 << 20) ? jobs : (1 << 20));
      reduce_per_block<D, K><<<blocks, kThreads, 0, stream>>>(a, splits);
    }
  });
}

}  // namespace

void launch_reduce(OpKind kind, DType dtype, const ReduceArgs& args, bool per_thread, int splits,
                   StreamHandle stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (kind) {
    case OpKind::reduce_sum:
      return run<OpKind::reduce_sum, kNumericDTypes>(dtype, args, per_thread, splits, s);
    case OpKind::reduce_prod:
      return run<OpKind::reduce_prod, kNumericDTypes>(dtype, args, per_thread, splits, s);
    case OpKind::reduce_max:
      return run<OpKind::reduce_max, kRealDTypes>(dtype, args, per_thread, splits, s);
    case OpKind::reduce_min:
      return run<OpKind::reduce_min, kRealDTypes>(dtype, args, per_thread, splits, s);
    default:
      TF_INTERNAL_ASSERT(false, "cuda reduce: ", op_name(kind), " is not a reduction");
  }
}

}  // namespace tenferro::cuda::detail
