#pragma once
// Scalar semantics shared by the CPU kernels (elementwise ops and reductions).
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/tensor/dtype.hpp"

namespace tenferro::cpu {

// ---- scalar semantics (StableHLO / XLA conventions) ----------------------------
// Note [Integer arithmetic]: integer add/subtract/multiply/negate wrap modulo
// 2^bits (no undefined behaviour); x / 0 = -1 and MIN / -1 = MIN, as XLA
// defines them; integer power with a negative exponent is 0 unless the base
// is 1 or -1.

template <class T>
using UnsignedOf = std::make_unsigned_t<T>;

template <class T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<UnsignedOf<T>>(a) + static_cast<UnsignedOf<T>>(b));
  else return a + b;
}
template <class T>
T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<UnsignedOf<T>>(a) - static_cast<UnsignedOf<T>>(b));
  else return a - b;
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<UnsignedOf<T>>(a) * static_cast<UnsignedOf<T>>(b));
  else return a * b;
}
template <class T>
T wrap_neg(T a) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(UnsignedOf<T>{0} - static_cast<UnsignedOf<T>>(a));
  else return -a;
}
template <class T>
T int_div(T a, T b) {
  if (b == 0) return T(-1);
  if (b == T(-1) && a == std::numeric_limits<T>::min()) return a;
  return a / b;
}
template <class T>
T int_pow(T base, T e) {
  if (e < 0) return base == 1 ? T(1) : base == -1 ? ((e & 1) ? T(-1) : T(1)) : T(0);
  T r = 1;
  while (e > 0) {
    if (e & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return r;
}

// NaN-propagating max/min for floats (StableHLO maximum/minimum).
template <class T>
T max_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return a < b ? b : a;
}
template <class T>
T min_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return b < a ? b : a;
}

template <class T>
T sign_of(T x) {
  if constexpr (is_complex_v<T>) {
    auto m = std::abs(x);
    return m == 0 ? T(0) : x / m;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x) || x == 0) return x;  // NaN and signed zeros pass through
    return x > 0 ? T(1) : T(-1);
  } else {
    return static_cast<T>((x > 0) - (x < 0));
  }
}

template <class T>
T expm1_of(T z) {
  if constexpr (is_complex_v<T>) {
    // exp(x + iy) - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i exp(x) sin y
    auto x = z.real(), y = z.imag();
    auto s = std::sin(y / 2);
    return T(std::expm1(x) * std::cos(y) - 2 * s * s, std::exp(x) * std::sin(y));
  } else {
    return std::expm1(z);
  }
}

template <class T>
T log1p_of(T z) {
  if constexpr (is_complex_v<T>) {
    // log(1 + z): |1 + z|^2 = 1 + (2x + x^2 + y^2)
    auto x = z.real(), y = z.imag();
    return T(std::log1p(x * (2 + x) + y * y) / 2, std::atan2(y, 1 + x));
  } else {
    return std::log1p(z);
  }
}

// Saturating, UB-free conversion (Note [Convert]): complex -> real keeps the
// real part; NaN -> integer is 0; out-of-range floats clamp; -> bool is != 0.
template <class To, class From>
To convert_value(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_complex_v<To>) {
    if constexpr (is_complex_v<From>) return To(static_cast<real_t<To>>(v.real()), static_cast<real_t<To>>(v.imag()));
    else return To(static_cast<real_t<To>>(v), 0);
  } else if constexpr (is_complex_v<From>) {
    return convert_value<To>(v.real());
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<From>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

template <class T>
bool compare_values(T a, T b, ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::EQ: return a == b;
    case ComparisonDirection::NE: return a != b;
    default: break;
  }
  if constexpr (is_complex_v<T>) {
    return false;  // rejected by infer
  } else {
    switch (d) {
      case ComparisonDirection::LT: return a < b;
      case ComparisonDirection::LE: return a <= b;
      case ComparisonDirection::GT: return a > b;
      case ComparisonDirection::GE: return a >= b;
      default: return false;
    }
  }
}

}  // namespace tenferro::cpu
