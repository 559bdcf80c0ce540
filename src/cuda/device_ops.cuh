#pragma once
// Device scalar semantics of the elementwise primitives and reductions: the
// same rules as the CPU backend (src/cpu/scalar_ops.hpp, Note [Integer
// arithmetic]), written for nvcc. Complex values are ::cuda::std::complex,
// which has the layout of std::complex.
#include <cuda/std/complex>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include <complex>
#include <cstdint>

#include "../ops/special_math.hpp"
#include "launch.hpp"

namespace tenferro::cuda::detail {

/// The device type of a host element type.
template <class T>
struct DevTypeOf {
  using type = T;
};
template <class R>
struct DevTypeOf<std::complex<R>> {
  using type = ::cuda::std::complex<R>;
};
template <class T>
using Dev = typename DevTypeOf<T>::type;

template <class T>
struct IsDevComplex : ::cuda::std::false_type {};
template <class R>
struct IsDevComplex<::cuda::std::complex<R>> : ::cuda::std::true_type {};
template <class T>
inline constexpr bool kIsComplex = IsDevComplex<T>::value;

template <class T>
struct RealOfDev {
  using type = T;
};
template <class R>
struct RealOfDev<::cuda::std::complex<R>> {
  using type = R;
};
template <class T>
using RealOf = typename RealOfDev<T>::type;

template <class T>
inline constexpr bool kIsInt = ::cuda::std::is_integral_v<T> && !::cuda::std::is_same_v<T, bool>;
template <class T>
inline constexpr bool kIsReal = ::cuda::std::is_floating_point_v<T>;

template <class T>
__device__ inline T wrap_add(T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = ::cuda::std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class T>
__device__ inline T wrap_sub(T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = ::cuda::std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <class T>
__device__ inline T wrap_mul(T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = ::cuda::std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <class T>
__device__ inline T wrap_neg(T a) {
  if constexpr (kIsInt<T>) {
    using U = ::cuda::std::make_unsigned_t<T>;
    return static_cast<T>(U{0} - static_cast<U>(a));
  } else {
    return -a;
  }
}
template <class T>
__device__ inline T int_div(T a, T b) {
  if (b == 0) return T(-1);
  if (b == T(-1) && a == ::cuda::std::numeric_limits<T>::min()) return a;
  return a / b;
}
template <class T>
__device__ inline T int_pow(T base, T e) {
  if (e < 0) return base == 1 ? T(1) : base == -1 ? ((e & 1) ? T(-1) : T(1)) : T(0);
  T r = 1;
  while (e > 0) {
    if (e & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return r;
}
template <class T>
__device__ inline T max_nan(T a, T b) {
  if constexpr (kIsReal<T>) {
    if (isnan(a) || isnan(b)) return ::cuda::std::numeric_limits<T>::quiet_NaN();
  }
  return a < b ? b : a;
}
template <class T>
__device__ inline T min_nan(T a, T b) {
  if constexpr (kIsReal<T>) {
    if (isnan(a) || isnan(b)) return ::cuda::std::numeric_limits<T>::quiet_NaN();
  }
  return b < a ? b : a;
}

// ---- elementwise functors (one per primitive; the dispatch picks the types) ------
struct AddF {
  template <class T>
  __device__ T operator()(T x, T y) const { return wrap_add(x, y); }
};
struct SubF {
  template <class T>
  __device__ T operator()(T x, T y) const { return wrap_sub(x, y); }
};
struct MulF {
  template <class T>
  __device__ T operator()(T x, T y) const { return wrap_mul(x, y); }
};
struct DivF {
  template <class T>
  __device__ T operator()(T x, T y) const {
    if constexpr (kIsInt<T>) return int_div(x, y);
    else return x / y;
  }
};
struct MaxF {
  template <class T>
  __device__ T operator()(T x, T y) const { return max_nan(x, y); }
};
struct MinF {
  template <class T>
  __device__ T operator()(T x, T y) const { return min_nan(x, y); }
};
struct PowF {
  template <class T>
  __device__ T operator()(T x, T y) const {
    if constexpr (kIsInt<T>) return int_pow(x, y);
    else if constexpr (kIsComplex<T>) return ::cuda::std::pow(x, y);
    else return pow(x, y);
  }
};
struct ComplexF {
  template <class T>
  __device__ ::cuda::std::complex<T> operator()(T x, T y) const { return ::cuda::std::complex<T>(x, y); }
};
struct CompareF {
  ComparisonDirection dir;
  template <class T>
  __device__ bool operator()(T a, T b) const {
    switch (dir) {
      case ComparisonDirection::EQ: return a == b;
      case ComparisonDirection::NE: return a != b;
      default: break;
    }
    if constexpr (kIsComplex<T>) {
      return false;  // rejected by infer
    } else {
      switch (dir) {
        case ComparisonDirection::LT: return a < b;
        case ComparisonDirection::LE: return a <= b;
        case ComparisonDirection::GT: return a > b;
        case ComparisonDirection::GE: return a >= b;
        default: return false;
      }
    }
  }
};
struct NegF {
  template <class T>
  __device__ T operator()(T x) const { return wrap_neg(x); }
};
struct ConjF {
  template <class T>
  __device__ T operator()(T x) const {
    if constexpr (kIsComplex<T>) return ::cuda::std::conj(x);
    else return x;
  }
};
struct AbsF {
  template <class T>
  __device__ RealOf<T> operator()(T x) const {
    if constexpr (kIsComplex<T>) return ::cuda::std::abs(x);
    else if constexpr (kIsInt<T>) return x < 0 ? wrap_neg(x) : x;
    else return fabs(x);
  }
};
struct SignF {
  template <class T>
  __device__ T operator()(T x) const {
    if constexpr (kIsComplex<T>) {
      auto m = ::cuda::std::abs(x);
      return m == 0 ? T(0) : x / m;
    } else if constexpr (kIsReal<T>) {
      if (isnan(x) || x == 0) return x;  // NaN and signed zeros pass through
      return x > 0 ? T(1) : T(-1);
    } else {
      return static_cast<T>((x > 0) - (x < 0));
    }
  }
};
struct ExpF {
  template <class T>
  __device__ T operator()(T x) const {
    if constexpr (kIsComplex<T>) return ::cuda::std::exp(x);
    else return exp(x);
  }
};
struct LogF {
  template <class T>
  __device__ T operator()(T x) const {
    if constexpr (kIsComplex<T>) return ::cuda::std::log(x);
    else return log(x);
  }
};
struct SinF {
  template <class T>
  __device__ T operator()(T x) const {
    if constexpr (kIsComplex<T>) return ::cuda::std::sin(x);
    else return sin(x);
  }
};
struct CosF {
  template <class T>
  __device__ T operator()(T x) const {
    if constexpr (kIsComplex<T>) return ::cuda::std::cos(x);
    else return cos(x);
  }
};
struct TanhF {
  template <class T>
  __device__ T operator()(T x) const {
    if constexpr (kIsComplex<T>) return ::cuda::std::tanh(x);
    else return tanh(x);
  }
};
struct SqrtF {
  template <class T>
  __device__ T operator()(T x) const {
    if constexpr (kIsComplex<T>) return ::cuda::std::sqrt(x);
    else return sqrt(x);
  }
};
struct RsqrtF {
  template <class T>
  __device__ T operator()(T x) const { return T(1) / SqrtF{}(x); }
};
struct Expm1F {
  template <class T>
  __device__ T operator()(T z) const {
    if constexpr (kIsComplex<T>) {
      // exp(x + iy) - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i exp(x) sin y
      auto x = z.real(), y = z.imag();
      auto s = sin(y / 2);
      return T(expm1(x) * cos(y) - 2 * s * s, exp(x) * sin(y));
    } else {
      return expm1(z);
    }
  }
};
struct Log1pF {
  template <class T>
  __device__ T operator()(T z) const {
    if constexpr (kIsComplex<T>) {
      // log(1 + z): |1 + z|^2 = 1 + (2x + x^2 + y^2)
      auto x = z.real(), y = z.imag();
      return T(log1p(x * (2 + x) + y * y) / 2, atan2(y, 1 + x));
    } else {
      return log1p(z);
    }
  }
};
struct RealF {
  template <class T>
  __device__ RealOf<T> operator()(T x) const {
    if constexpr (kIsComplex<T>) return x.real();
    else return x;
  }
};
struct ImagF {
  template <class T>
  __device__ RealOf<T> operator()(T x) const {
    if constexpr (kIsComplex<T>) return x.imag();
    else return RealOf<T>(0);
  }
};
struct IsFiniteF {
  template <class T>
  __device__ bool operator()(T x) const {
    if constexpr (kIsComplex<T>) return isfinite(x.real()) && isfinite(x.imag());
    else return isfinite(x);
  }
};
/// Saturating, UB-free conversion (Note [Convert] of the CPU backend).
template <class To>
struct ConvertF {
  template <class From>
  __device__ To operator()(From v) const {
    if constexpr (::cuda::std::is_same_v<To, bool>) {
      if constexpr (kIsComplex<From>) return v.real() != 0 || v.imag() != 0;
      else return v != From(0);
    } else if constexpr (kIsComplex<To>) {
      using R = RealOf<To>;
      if constexpr (kIsComplex<From>) return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
      else return To(static_cast<R>(v), R(0));
    } else if constexpr (kIsComplex<From>) {
      return ConvertF<To>{}(v.real());
    } else if constexpr (kIsInt<To> && kIsReal<From>) {
      if (isnan(v)) return 0;
      if (v <= static_cast<From>(::cuda::std::numeric_limits<To>::min())) return ::cuda::std::numeric_limits<To>::min();
      if (v >= static_cast<From>(::cuda::std::numeric_limits<To>::max())) return ::cuda::std::numeric_limits<To>::max();
      return static_cast<To>(v);
    } else {
      return static_cast<To>(v);
    }
  }
};
// ---- rounding, remainders, binary exponents (Note [One scalar definition]) ---------
struct FloorF {
  template <class T>
  __device__ T operator()(T x) const { return floor(x); }
};
struct CeilF {
  template <class T>
  __device__ T operator()(T x) const { return ceil(x); }
};
struct TruncF {
  template <class T>
  __device__ T operator()(T x) const { return trunc(x); }
};
struct RoundEvenF {
  template <class T>
  __device__ T operator()(T x) const { return rint(x); }  // the device's default mode: nearest, ties to even
};
struct FrexpExponentF {
  template <class T>
  __device__ std::int32_t operator()(T x) const { return math::frexp_exponent_of(x); }
};
struct FmodF {
  template <class T>
  __device__ T operator()(T x, T y) const { return fmod(x, y); }
};
struct RemainderF {
  template <class T>
  __device__ T operator()(T x, T y) const { return math::remainder_floor(x, y); }
};
struct LdexpF {
  template <class T>
  __device__ T operator()(T x, T y) const { return math::ldexp_of(x, y); }
};
// ---- special functions (Note [One scalar definition]) ------------------------------
#define TF_SPECIAL_FUNCTOR(Name, fn)                                      \
  struct Name {                                                           \
    template <class T>                                                    \
    __device__ T operator()(T x) const { return math::fn##_of(x); }      \
  };
TF_SPECIAL_FUNCTOR(Special_erf, erf)
TF_SPECIAL_FUNCTOR(Special_erfc, erfc)
TF_SPECIAL_FUNCTOR(Special_erfinv, erfinv)
TF_SPECIAL_FUNCTOR(Special_erfcx, erfcx)
TF_SPECIAL_FUNCTOR(Special_lgamma, lgamma)
TF_SPECIAL_FUNCTOR(Special_digamma, digamma)
TF_SPECIAL_FUNCTOR(Special_i0, i0)
TF_SPECIAL_FUNCTOR(Special_i0e, i0e)
TF_SPECIAL_FUNCTOR(Special_i1, i1)
TF_SPECIAL_FUNCTOR(Special_i1e, i1e)
TF_SPECIAL_FUNCTOR(Special_ndtr, ndtr)
TF_SPECIAL_FUNCTOR(Special_ndtri, ndtri)
TF_SPECIAL_FUNCTOR(Special_log_ndtr, log_ndtr)
#undef TF_SPECIAL_FUNCTOR
struct PolygammaF {
  std::int64_t n;
  template <class T>
  __device__ T operator()(T x) const { return math::polygamma_of(n, x); }
};
struct SelectF {
  template <class T>
  __device__ T operator()(bool p, T x, T y) const { return p ? x : y; }
};
struct ClampF {
  template <class T>
  __device__ T operator()(T lo, T x, T hi) const { return min_nan(max_nan(x, lo), hi); }
};

// ---- reductions --------------------------------------------------------------------
template <class T, OpKind K>
struct Reducer {
  __device__ static T identity() {
    if constexpr (K == OpKind::reduce_sum) {
      return T(0);
    } else if constexpr (K == OpKind::reduce_prod) {
      return T(1);
    } else if constexpr (K == OpKind::reduce_max) {
      if constexpr (kIsReal<T>) return -::cuda::std::numeric_limits<T>::infinity();
      else return ::cuda::std::numeric_limits<T>::lowest();
    } else {
      if constexpr (kIsReal<T>) return ::cuda::std::numeric_limits<T>::infinity();
      else return ::cuda::std::numeric_limits<T>::max();
    }
  }
  __device__ static T combine(T a, T b) {
    if constexpr (K == OpKind::reduce_sum) return wrap_add(a, b);
    else if constexpr (K == OpKind::reduce_prod) return wrap_mul(a, b);
    else if constexpr (K == OpKind::reduce_max) return max_nan(a, b);
    else return min_nan(a, b);
  }
};

/// Grid size for a grid-stride loop over `n` items with `threads` per block.
inline unsigned grid_for(std::int64_t n, int threads) {
  std::int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  if (b > (1 << 20)) b = 1 << 20;
  return static_cast<unsigned>(b);
}

}  // namespace tenferro::cuda::detail
