// Elementwise kernels: every unary, binary and ternary primitive over any
// strides (Note [Kernel layouts] in launch.hpp), one kernel instantiation per
// (primitive, dtypes). The dispatch mirrors the CPU backend's table of
// elementwise semantics, with the device functors of device_ops.cuh.
#include <cuda_runtime.h>

#include "device_ops.cuh"

namespace tenferro::cuda::detail {
namespace {

constexpr int kThreads = 256;

template <int N, class F>
__global__ void strided_map(StridedArgs a, F f) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
       i += step) {
    std::int64_t off[N];
    if (a.rank <= 1) {
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] = i * a.strides[k][0];
    } else {
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] = 0;
      std::int64_t r = i;
      for (int d = 0; d < a.rank; ++d) {
        const std::int64_t c = r % a.shape[d];
        r /= a.shape[d];
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] += c * a.strides[k][d];
      }
    }
    f(a.data, off);
  }
}

template <class Out, class A, class Fn>
struct Unary {
  Fn fn;
  __device__ void operator()(void* const* p, const std::int64_t* o) const {
    static_cast<Out*>(p[0])[o[0]] = static_cast<Out>(fn(static_cast<const A*>(p[1])[o[1]]));
  }
};
template <class Out, class A, class B, class Fn>
struct Binary {
  Fn fn;
  __device__ void operator()(void* const* p, const std::int64_t* o) const {
    static_cast<Out*>(p[0])[o[0]] =
        static_cast<Out>(fn(static_cast<const A*>(p[1])[o[1]], static_cast<const B*>(p[2])[o[2]]));
  }
};
template <class Out, class A, class B, class C, class Fn>
struct Ternary {
  Fn fn;
  __device__ void operator()(void* const* p, const std::int64_t* o) const {
    static_cast<Out*>(p[0])[o[0]] =
        static_cast<Out>(fn(static_cast<const A*>(p[1])[o[1]], static_cast<const B*>(p[2])[o[2]],
                            static_cast<const C*>(p[3])[o[3]]));
  }
};

struct Launcher {
  const StridedArgs& args;
  cudaStream_t stream;
  template <class Out, class A, class Fn>
  void unary(Fn fn) {
    strided_map<2><<<grid_for(args.n, kThreads), kThreads, 0, stream>>>(
        args, Unary<Dev<Out>, Dev<A>, Fn>{fn});
  }
  template <class Out, class A, class B, class Fn>
  void binary(Fn fn) {
    strided_map<3><<<grid_for(args.n, kThreads), kThreads, 0, stream>>>(
        args, Binary<Dev<Out>, Dev<A>, Dev<B>, Fn>{fn});
  }
  template <class Out, class A, class B, class C, class Fn>
  void ternary(Fn fn) {
    strided_map<4><<<grid_for(args.n, kThreads), kThreads, 0, stream>>>(
        args, Ternary<Dev<Out>, Dev<A>, Dev<B>, Dev<C>, Fn>{fn});
  }
};

template <DTypeSet S, class F>
void on_dtype(DType d, OpKind kind, F&& f) {
  visit_dtype<S>(d, op_name(kind), static_cast<F&&>(f));
}

}  // namespace

void launch_elementwise(OpKind kind, const Attrs& attrs, const DType* in, DType out,
                        const StridedArgs& args, StreamHandle stream) {
  Launcher v{args, static_cast<cudaStream_t>(stream)};
  const DType d = in[0];
  switch (kind) {
    case OpKind::add:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(AddF{}); });
    case OpKind::subtract:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(SubF{}); });
    case OpKind::multiply:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(MulF{}); });
    case OpKind::divide:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(DivF{}); });
    case OpKind::maximum:
      return on_dtype<kRealDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(MaxF{}); });
    case OpKind::minimum:
      return on_dtype<kRealDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(MinF{}); });
    case OpKind::power:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(PowF{}); });
    case OpKind::complex:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {
        v.binary<std::complex<T>, T, T>(ComplexF{});
      });
    case OpKind::compare: {
      CompareF f{std::get<CompareAttrs>(attrs).direction};
      return on_dtype<kAllDTypes>(d, kind, [&]<class T>() { v.binary<bool, T, T>(f); });
    }
    case OpKind::negate:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(NegF{}); });
    case OpKind::conj:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(ConjF{}); });
    case OpKind::abs:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.unary<real_t<T>, T>(AbsF{}); });
    case OpKind::sign:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(SignF{}); });
    case OpKind::exp:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(ExpF{}); });
    case OpKind::log:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(LogF{}); });
    case OpKind::sin:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(SinF{}); });
    case OpKind::cos:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(CosF{}); });
    case OpKind::tanh:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(TanhF{}); });
    case OpKind::sqrt:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(SqrtF{}); });
    case OpKind::rsqrt:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(RsqrtF{}); });
    case OpKind::expm1:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Expm1F{}); });
    case OpKind::log1p:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Log1pF{}); });
    case OpKind::real:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<real_t<T>, T>(RealF{}); });
    case OpKind::imag:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<real_t<T>, T>(ImagF{}); });
    case OpKind::is_finite:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.unary<bool, T>(IsFiniteF{}); });
    case OpKind::floor:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(FloorF{}); });
    case OpKind::ceil:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(CeilF{}); });
    case OpKind::trunc:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(TruncF{}); });
    case OpKind::round_nearest_even:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(RoundEvenF{}); });
    case OpKind::frexp_exponent:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<std::int32_t, T>(FrexpExponentF{}); });
    case OpKind::fmod:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(FmodF{}); });
    case OpKind::remainder:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(RemainderF{}); });
    case OpKind::ldexp:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.binary<T, T, T>(LdexpF{}); });
    case OpKind::erf:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_erf{}); });
    case OpKind::erfc:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_erfc{}); });
    case OpKind::erfinv:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_erfinv{}); });
    case OpKind::erfcx:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_erfcx{}); });
    case OpKind::lgamma:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_lgamma{}); });
    case OpKind::digamma:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_digamma{}); });
    case OpKind::i0:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_i0{}); });
    case OpKind::i0e:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_i0e{}); });
    case OpKind::i1:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_i1{}); });
    case OpKind::i1e:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_i1e{}); });
    case OpKind::ndtr:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_ndtr{}); });
    case OpKind::ndtri:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_ndtri{}); });
    case OpKind::log_ndtr:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(Special_log_ndtr{}); });
    case OpKind::polygamma: {
      PolygammaF f{std::get<PolygammaAttrs>(attrs).n};
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.unary<T, T>(f); });
    }
    case OpKind::convert:
      return on_dtype<kAllDTypes>(d, kind, [&]<class From>() {
        on_dtype<kAllDTypes>(out, kind, [&]<class To>() { v.unary<To, From>(ConvertF<Dev<To>>{}); });
      });
    case OpKind::select:
      return on_dtype<kAllDTypes>(in[1], kind, [&]<class T>() { v.ternary<T, bool, T, T>(SelectF{}); });
    case OpKind::clamp:
      return on_dtype<kRealDTypes>(in[1], kind, [&]<class T>() { v.ternary<T, T, T, T>(ClampF{}); });
    default:
      TF_INTERNAL_ASSERT(false, "cuda elementwise: ", op_name(kind), " is not elementwise");
  }
}

}  // namespace tenferro::cuda::detail
