// The naive reference interpreter (see reference.hpp). Every op is written
// from its definition with element-by-element loops; nothing here calls a
// kernel, a strided copy or ops::call.
#include "support/reference.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "support/test_support.hpp"

namespace tenferro::testing {
namespace {

using LD = long double;
using CLD = std::complex<long double>;

// One element of any dtype, widened: floats in `z` (imaginary part 0 for
// real dtypes), integers and bool in `i`.
struct Elem {
  CLD z{};
  std::int64_t i = 0;
};

bool contains(const DimVec& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

Elem read(const Tensor& t, const DimVec& idx) {
  return visit_dtype(t.dtype(), "reference", [&]<class T>() {
    Elem e;
    T v = t.at<T>(idx);
    if constexpr (is_complex_v<T>)
      e.z = CLD(v.real(), v.imag());
    else if constexpr (std::is_floating_point_v<T>)
      e.z = CLD(v, 0);
    else
      e.i = static_cast<std::int64_t>(v);
    return e;
  });
}

// Integer arithmetic wraps: compute modulo 2^64, then narrow modulo the
// dtype's width (for i32 the two steps agree with 32-bit wrapping).
std::int64_t wrap_to(std::int64_t v, DType d) {
  if (d == DType::i32) return static_cast<std::int32_t>(v);
  if (d == DType::bool_) return v != 0;
  return v;
}
std::int64_t wadd(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t wsub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t wmul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
std::int64_t int_min(DType d) {
  return d == DType::i32 ? std::numeric_limits<std::int32_t>::min()
                         : std::numeric_limits<std::int64_t>::min();
}
std::int64_t int_max(DType d) {
  return d == DType::i32 ? std::numeric_limits<std::int32_t>::max()
                         : std::numeric_limits<std::int64_t>::max();
}

void write(const Tensor& t, const DimVec& idx, const Elem& e) {
  visit_dtype(t.dtype(), "reference", [&]<class T>() {
    if constexpr (is_complex_v<T>)
      t.set<T>(idx, T(static_cast<real_t<T>>(e.z.real()), static_cast<real_t<T>>(e.z.imag())));
    else if constexpr (std::is_floating_point_v<T>)
      t.set<T>(idx, static_cast<T>(e.z.real()));
    else if constexpr (std::is_same_v<T, bool>)
      t.set<T>(idx, e.i != 0);
    else
      t.set<T>(idx, static_cast<T>(wrap_to(e.i, t.dtype())));
  });
}

void copy_elem(const Tensor& dst, const DimVec& di, const Tensor& src, const DimVec& si) {
  visit_dtype(src.dtype(), "reference", [&]<class T>() { dst.set<T>(di, src.at<T>(si)); });
}

Elem nan_elem() { return Elem{CLD(std::numeric_limits<LD>::quiet_NaN(), 0), 0}; }
Elem float_elem(LD v) { return Elem{CLD(v, 0), 0}; }
Elem complex_elem(CLD v) { return Elem{v, 0}; }
Elem int_elem(std::int64_t v) { return Elem{CLD(0, 0), v}; }

// ---- special functions, from their definitions in long double -----------------------
// Independent of src/ops/special_math.hpp: bisection for the inverses, long
// series and the C++ library's long double functions (erfl, lgammal,
// std::cyl_bessel_i) elsewhere.

constexpr LD kPiL = 3.141592653589793238462643383279502884L;

LD ref_ndtr(LD x) { return LD(0.5) * std::erfc(-x / std::sqrt(LD(2))); }

LD ref_log_ndtr(LD x) {
  if (std::isnan(x)) return x;
  if (x > 0) return std::log1p(-ref_ndtr(-x));
  if (x > -100) return std::log(ref_ndtr(x));
  // Asymptotic series, 30 terms (x <= -100: below 1e-100 relative).
  LD r = 1 / (x * x), term = 1, sum = 1;
  for (int k = 1; k <= 30; ++k) {
    term *= -(2 * k - 1) * r;
    sum += term;
  }
  return -x * x / 2 - std::log(-x) - std::log(2 * kPiL) / 2 + std::log(sum);
}

// The root of the increasing function f on [lo, hi] by 400 bisections.
template <class F>
LD bisect(F f, LD target, LD lo, LD hi) {
  for (int i = 0; i < 400; ++i) {
    LD mid = (lo + hi) / 2;
    if (mid == lo || mid == hi) break;
    (f(mid) < target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

LD ref_erfinv(LD y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<LD>::quiet_NaN();
  if (y == 1 || y == -1) return y * std::numeric_limits<LD>::infinity();
  if (y == 0) return y;
  // Bisect erf for |y| <= 1/2 and erfc (for 1 - |y|) above, on |y|.
  LD a = std::fabs(y), x;
  if (a <= LD(0.5)) x = bisect([](LD t) { return std::erf(t); }, a, 0, 1);
  else x = bisect([](LD t) { return -std::erfc(t); }, -(1 - a), 0, 30);
  return y < 0 ? -x : x;
}

LD ref_ndtri(LD p) {
  if (std::isnan(p) || p < 0 || p > 1) return std::numeric_limits<LD>::quiet_NaN();
  if (p == 0) return -std::numeric_limits<LD>::infinity();
  if (p == 1) return std::numeric_limits<LD>::infinity();
  if (p <= LD(0.5)) return bisect([](LD t) { return ref_ndtr(t); }, p, -60, 0);
  return -bisect([](LD t) { return ref_ndtr(t); }, 1 - p, -60, 0);
}

LD ref_erfcx(LD x) {
  if (std::isnan(x)) return x;
  if (x < 50) return std::exp(x * x) * std::erfc(x);
  // The continued fraction erfcx(x) = 1/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))).
  LD f = x;
  for (int k = 400; k >= 1; --k) f = x + (LD(k) / 2) / f;
  return 1 / (std::sqrt(kPiL) * f);
}

// psi(x): upward recurrence to x >= 40, then the asymptotic series with 10
// Bernoulli terms; reflection for negative x.
LD ref_digamma(LD x) {
  if (std::isnan(x)) return x;
  if (x == 0) return -std::numeric_limits<LD>::infinity();
  if (std::isinf(x)) return x > 0 ? x : std::numeric_limits<LD>::quiet_NaN();
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<LD>::quiet_NaN();
    return ref_digamma(1 - x) - kPiL / std::tan(kPiL * (x - std::round(x)));
  }
  LD acc = 0;
  while (x < 40) {
    acc -= 1 / x;
    x += 1;
  }
  const LD b[] = {LD(1) / 6, LD(-1) / 30, LD(1) / 42, LD(-1) / 30, LD(5) / 66, LD(-691) / 2730, LD(7) / 6, LD(-3617) / 510, LD(43867) / 798, LD(-174611) / 330};
  LD r = 1 / (x * x), p = r, s = 0;
  for (int k = 1; k <= 10; ++k) {
    s += b[k - 1] / (2 * k) * p;
    p *= r;
  }
  return acc + std::log(x) - 1 / (2 * x) - s;
}

// polygamma(n, x) = (-1)^(n+1) n! sum_k (x + k)^-(n+1): 4000 terms, then the
// integral and the first two Euler-Maclaurin corrections of the rest.
LD ref_polygamma(std::int64_t n, LD x) {
  if (n == 0) return ref_digamma(x);
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? LD(0) : std::numeric_limits<LD>::quiet_NaN();
  LD s = LD(n + 1), sum = 0;
  const int K = 4000;
  for (int k = K - 1; k >= 0; --k) sum += std::pow(x + k, -s);
  LD a = x + K;
  sum += std::pow(a, 1 - s) / (s - 1) + std::pow(a, -s) / 2 + s / 12 * std::pow(a, -s - 1);
  LD f = 1;
  for (std::int64_t k = 2; k <= n; ++k) f *= LD(k);
  return (n % 2 == 1 ? f : -f) * sum;
}

LD ref_bessel_i(int nu, LD x, bool scaled) {
  if (std::isnan(x)) return x;
  LD ax = std::fabs(x), sign = (nu == 1 && x < 0) ? -1 : 1;
  if (std::isinf(x)) return scaled ? sign * LD(0) : sign * ax;
  if (scaled && ax >= 1000) {
    // I_nu(x) e^-x = (2 pi x)^-1/2 sum_k (-1)^k a_k / x^k, a_k = a_{k-1} (4 nu^2 - (2k - 1)^2) / (8k):
    // the asymptotic series (Abramowitz & Stegun 9.7.1), where I_nu(x) overflows and e^-x underflows.
    LD term = 1, sum = 1;
    for (int k = 1; k < 30 && std::fabs(term) > LD(1e-30); ++k) {
      term *= -(LD(4 * nu * nu) - LD((2 * k - 1) * (2 * k - 1))) / (LD(8 * k) * ax);
      sum += term;
    }
    return sign * sum / std::sqrt(2 * std::acos(LD(-1)) * ax);
  }
  LD v = std::cyl_bessel_i(LD(nu), ax);
  return sign * (scaled ? v * std::exp(-ax) : v);
}

LD ref_lgamma(LD x) { return std::lgamma(x); }

LD special_value(OpKind kind, std::int64_t order, LD x) {
  switch (kind) {
    case OpKind::erf: return std::erf(x);
    case OpKind::erfc: return std::erfc(x);
    case OpKind::erfinv: return ref_erfinv(x);
    case OpKind::erfcx: return ref_erfcx(x);
    case OpKind::lgamma: return ref_lgamma(x);
    case OpKind::digamma: return ref_digamma(x);
    case OpKind::polygamma: return ref_polygamma(order, x);
    case OpKind::i0: return ref_bessel_i(0, x, false);
    case OpKind::i0e: return ref_bessel_i(0, x, true);
    case OpKind::i1: return ref_bessel_i(1, x, false);
    case OpKind::i1e: return ref_bessel_i(1, x, true);
    case OpKind::ndtr: return ref_ndtr(x);
    case OpKind::ndtri: return ref_ndtri(x);
    case OpKind::log_ndtr: return ref_log_ndtr(x);
    default: throw std::logic_error("reference: not a special function");
  }
}

// ---- elementwise semantics ------------------------------------------------------

Elem unary_value(OpKind kind, DType d, const Elem& x) {
  const bool cplx = is_complex(d), flt = is_float(d);
  const LD re = x.z.real();
  switch (kind) {
    case OpKind::negate:
      return flt ? complex_elem(-x.z) : int_elem(wrap_to(wsub(0, x.i), d));
    case OpKind::conj:
      return flt ? complex_elem(std::conj(x.z)) : x;
    case OpKind::abs:
      if (cplx) return float_elem(std::abs(x.z));
      if (flt) return float_elem(std::fabs(re));
      return int_elem(wrap_to(x.i < 0 ? wsub(0, x.i) : x.i, d));
    case OpKind::sign:
      if (cplx) return x.z == CLD(0, 0) ? complex_elem(CLD(0, 0)) : complex_elem(x.z / std::abs(x.z));
      if (flt) {
        if (std::isnan(re) || re == 0) return x;  // NaN and signed zeros pass through
        return float_elem(re > 0 ? 1 : -1);
      }
      return int_elem(x.i > 0 ? 1 : x.i < 0 ? -1 : 0);
    case OpKind::exp:
      return cplx ? complex_elem(std::exp(x.z)) : float_elem(std::exp(re));
    case OpKind::log:
      return cplx ? complex_elem(std::log(x.z)) : float_elem(std::log(re));
    case OpKind::sin:
      return cplx ? complex_elem(std::sin(x.z)) : float_elem(std::sin(re));
    case OpKind::cos:
      return cplx ? complex_elem(std::cos(x.z)) : float_elem(std::cos(re));
    case OpKind::tanh:
      return cplx ? complex_elem(std::tanh(x.z)) : float_elem(std::tanh(re));
    case OpKind::sqrt:
      return cplx ? complex_elem(std::sqrt(x.z)) : float_elem(std::sqrt(re));
    case OpKind::rsqrt:
      return cplx ? complex_elem(LD(1) / std::sqrt(x.z)) : float_elem(LD(1) / std::sqrt(re));
    case OpKind::expm1:
      return cplx ? complex_elem(std::exp(x.z) - LD(1)) : float_elem(std::expm1(re));
    case OpKind::log1p:
      return cplx ? complex_elem(std::log(LD(1) + x.z)) : float_elem(std::log1p(re));
    case OpKind::real:
      return float_elem(re);
    case OpKind::imag:
      return float_elem(x.z.imag());
    case OpKind::is_finite:
      return int_elem(std::isfinite(x.z.real()) && std::isfinite(x.z.imag()));
    case OpKind::floor:
      return float_elem(std::floor(re));
    case OpKind::ceil:
      return float_elem(std::ceil(re));
    case OpKind::trunc:
      return float_elem(std::trunc(re));
    case OpKind::round_nearest_even: {
      // Ties to even from the definition: the nearer of floor and floor + 1.
      LD lo = std::floor(re), frac = re - lo;
      if (!std::isfinite(re)) return float_elem(re);
      LD r = frac < LD(0.5) ? lo : frac > LD(0.5) ? lo + 1 : (std::fmod(lo, LD(2)) == 0 ? lo : lo + 1);
      return float_elem(std::copysign(r, re));
    }
    case OpKind::frexp_exponent: {
      if (!std::isfinite(re) || re == 0) return int_elem(0);
      // The k with 2^(k-1) <= |x| < 2^k, by halving and doubling.
      LD a = std::fabs(re);
      std::int64_t k = 0;
      while (a >= 1) { a /= 2; ++k; }
      while (a < LD(0.5)) { a *= 2; --k; }
      return int_elem(k);
    }
    default:
      throw std::logic_error("reference: not a unary op");
  }
}

bool compare_elems(DType d, const Elem& a, const Elem& b, ComparisonDirection dir) {
  if (is_complex(d)) {
    if (dir == ComparisonDirection::EQ) return a.z == b.z;
    if (dir == ComparisonDirection::NE) return a.z != b.z;
    throw std::logic_error("reference: ordered comparison of complex numbers");
  }
  auto cmp = [dir](auto x, auto y) {
    switch (dir) {
      case ComparisonDirection::EQ:
        return x == y;
      case ComparisonDirection::NE:
        return x != y;
      case ComparisonDirection::LT:
        return x < y;
      case ComparisonDirection::LE:
        return x <= y;
      case ComparisonDirection::GT:
        return x > y;
      case ComparisonDirection::GE:
        return x >= y;
    }
    return false;
  };
  return is_float(d) ? cmp(a.z.real(), b.z.real()) : cmp(a.i, b.i);
}

// max / min of a real dtype; NaN wins.
Elem extreme(DType d, const Elem& a, const Elem& b, bool want_max) {
  if (is_float(d)) {
    LD x = a.z.real(), y = b.z.real();
    if (std::isnan(x) || std::isnan(y)) return nan_elem();
    return float_elem(want_max ? std::max(x, y) : std::min(x, y));
  }
  return int_elem(want_max ? std::max(a.i, b.i) : std::min(a.i, b.i));
}

std::int64_t int_power(std::int64_t base, std::int64_t e, DType d) {
  if (e < 0) {
    if (base == 1) return 1;
    if (base == -1) return (e % 2 == 0) ? 1 : -1;
    return 0;
  }
  if (e > 100000) throw std::logic_error("reference: integer exponent too large for the naive loop");
  std::int64_t r = 1;
  for (std::int64_t k = 0; k < e; ++k) r = wrap_to(wmul(r, base), d);
  return r;
}

Elem binary_value(OpKind kind, const Attrs& attrs, DType d, const Elem& a, const Elem& b) {
  const bool cplx = is_complex(d), flt = is_float(d);
  const LD x = a.z.real(), y = b.z.real();
  switch (kind) {
    case OpKind::add:
      return flt ? complex_elem(a.z + b.z) : int_elem(wrap_to(wadd(a.i, b.i), d));
    case OpKind::subtract:
      return flt ? complex_elem(a.z - b.z) : int_elem(wrap_to(wsub(a.i, b.i), d));
    case OpKind::fmod:
      return float_elem(std::fmod(x, y));
    case OpKind::remainder: {
      // Python's float %: the sign of the divisor, a zero result signed like it.
      if (std::isnan(x) || std::isnan(y) || std::isinf(x) || y == 0) return nan_elem();
      LD r = std::fmod(x, y);
      if (r == 0) return float_elem(std::copysign(LD(0), y));
      if ((r < 0) != (y < 0)) r += y;
      return float_elem(r);
    }
    case OpKind::ldexp:
      if (std::isfinite(y) && y == std::trunc(y)) return float_elem(std::ldexp(x, static_cast<int>(std::clamp(y, LD(-5000), LD(5000)))));
      return float_elem(x * std::exp2(y));
    case OpKind::multiply:
      if (cplx) return complex_elem(a.z * b.z);
      return flt ? float_elem(x * y) : int_elem(wrap_to(wmul(a.i, b.i), d));
    case OpKind::divide:
      if (cplx) return complex_elem(a.z / b.z);
      if (flt) return float_elem(x / y);
      if (b.i == 0) return int_elem(-1);
      if (b.i == -1) return int_elem(wrap_to(wsub(0, a.i), d));  // MIN / -1 = MIN
      return int_elem(a.i / b.i);                                // truncates toward zero
    case OpKind::maximum:
      return extreme(d, a, b, true);
    case OpKind::minimum:
      return extreme(d, a, b, false);
    case OpKind::power:
      if (cplx) return complex_elem(std::pow(a.z, b.z));
      if (flt) return float_elem(std::pow(x, y));
      return int_elem(int_power(a.i, b.i, d));
    case OpKind::complex:
      return complex_elem(CLD(x, y));
    case OpKind::compare:
      return int_elem(compare_elems(d, a, b, std::get<CompareAttrs>(attrs).direction));
    default:
      throw std::logic_error("reference: not a binary op");
  }
}

Elem convert_elem(DType from, DType to, const Elem& v) {
  if (is_float(from)) {
    LD re = v.z.real(), im = v.z.imag();
    if (to == DType::bool_) return int_elem(re != 0 || im != 0);
    if (is_complex(to)) return complex_elem(CLD(re, im));
    if (is_float(to)) return float_elem(re);  // complex -> real keeps the real part
    // float -> integer: NaN -> 0, saturate, truncate toward zero.
    if (std::isnan(re)) return int_elem(0);
    LD bound = to == DType::i32 ? LD(2147483648.0L) : LD(9223372036854775808.0L);
    if (re >= bound) return int_elem(int_max(to));
    if (re < -bound) return int_elem(int_min(to));
    return int_elem(static_cast<std::int64_t>(std::trunc(re)));
  }
  if (to == DType::bool_) return int_elem(v.i != 0);
  if (is_float(to)) return float_elem(static_cast<LD>(v.i));
  return int_elem(wrap_to(v.i, to));  // integer -> narrower integer wraps
}

// out[idx] = f(operands at idx); rank-0 operands broadcast (select, clamp).
template <class F>
Tensor map_elements(DType out_dtype, const Shape& shape, std::span<const Tensor> in, F f) {
  Tensor out = Tensor::empty(shape, out_dtype);
  std::vector<Elem> args(in.size());
  const DimVec scalar_index{};
  for (const DimVec& idx : all_indices(shape)) {
    for (std::size_t k = 0; k < in.size(); ++k) args[k] = read(in[k], in[k].ndim() == 0 ? scalar_index : idx);
    write(out, idx, f(args));
  }
  return out;
}

Shape elementwise_shape(std::span<const Tensor> in) {
  Shape s;
  for (const Tensor& t : in)
    if (t.ndim() > 0) return t.shape();
  return s;
}

// ---- reductions and contraction ----------------------------------------------------

// Column-major linear position of `idx` in `shape`.
std::int64_t linear(const DimVec& idx, const Shape& shape) {
  std::int64_t pos = 0, stride = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    pos += idx[d] * stride;
    stride *= shape[d];
  }
  return pos;
}

Tensor reduce_ref(OpKind kind, const DimVec& dims, const Tensor& x) {
  const DType d = x.dtype();
  Shape out_shape;
  for (std::int64_t i = 0; i < x.ndim(); ++i)
    if (!contains(dims, i)) out_shape.push_back(x.shape()[static_cast<std::size_t>(i)]);
  Elem init;
  const bool flt = is_float(d);
  const LD inf = std::numeric_limits<LD>::infinity();
  switch (kind) {
    case OpKind::reduce_sum:
      init = flt ? complex_elem(0) : int_elem(0);
      break;
    case OpKind::reduce_prod:
      init = flt ? complex_elem(1) : int_elem(1);
      break;
    case OpKind::reduce_max:
      init = flt ? float_elem(-inf) : int_elem(int_min(d));
      break;
    case OpKind::reduce_min:
      init = flt ? float_elem(inf) : int_elem(int_max(d));
      break;
    default:
      throw std::logic_error("reference: not a reduction");
  }
  std::vector<Elem> acc(static_cast<std::size_t>(shape_numel(out_shape)), init);
  for (const DimVec& idx : all_indices(x.shape())) {
    DimVec oi;
    for (std::int64_t i = 0; i < x.ndim(); ++i)
      if (!contains(dims, i)) oi.push_back(idx[static_cast<std::size_t>(i)]);
    Elem& a = acc[static_cast<std::size_t>(linear(oi, out_shape))];
    Elem v = read(x, idx);
    switch (kind) {
      case OpKind::reduce_sum:
        if (flt)
          a.z += v.z;
        else
          a.i = wadd(a.i, v.i);
        break;
      case OpKind::reduce_prod:
        if (flt)
          a.z *= v.z;
        else
          a.i = wmul(a.i, v.i);
        break;
      case OpKind::reduce_max:
        a = extreme(d, a, v, true);
        break;
      default:
        a = extreme(d, a, v, false);
        break;
    }
  }
  Tensor out = Tensor::empty(out_shape, d);
  std::size_t k = 0;
  for (const DimVec& oi : all_indices(out_shape)) write(out, oi, acc[k++]);
  return out;
}

DimVec free_axes(std::int64_t rank, const DimVec& batch, const DimVec& contract) {
  DimVec out;
  for (std::int64_t i = 0; i < rank; ++i)
    if (!contains(batch, i) && !contains(contract, i)) out.push_back(i);
  return out;
}

Tensor dot_general_ref(const DotGeneralAttrs& a, const Tensor& l, const Tensor& r) {
  const DType d = l.dtype();
  const DimVec lf = free_axes(l.ndim(), a.lhs_batching_dimensions, a.lhs_contracting_dimensions);
  const DimVec rf = free_axes(r.ndim(), a.rhs_batching_dimensions, a.rhs_contracting_dimensions);
  const std::size_t nb = a.lhs_batching_dimensions.size();
  Shape out_shape, cshape;
  for (auto x : a.lhs_batching_dimensions) out_shape.push_back(l.shape()[static_cast<std::size_t>(x)]);
  for (auto x : lf) out_shape.push_back(l.shape()[static_cast<std::size_t>(x)]);
  for (auto x : rf) out_shape.push_back(r.shape()[static_cast<std::size_t>(x)]);
  for (auto x : a.lhs_contracting_dimensions) cshape.push_back(l.shape()[static_cast<std::size_t>(x)]);
  const std::vector<DimVec> cidx = all_indices(cshape);
  Tensor out = Tensor::empty(out_shape, d);
  DimVec li(static_cast<std::size_t>(l.ndim())), ri(static_cast<std::size_t>(r.ndim()));
  for (const DimVec& oi : all_indices(out_shape)) {
    for (std::size_t b = 0; b < nb; ++b) {
      li[static_cast<std::size_t>(a.lhs_batching_dimensions[b])] = oi[b];
      ri[static_cast<std::size_t>(a.rhs_batching_dimensions[b])] = oi[b];
    }
    for (std::size_t f = 0; f < lf.size(); ++f) li[static_cast<std::size_t>(lf[f])] = oi[nb + f];
    for (std::size_t f = 0; f < rf.size(); ++f) ri[static_cast<std::size_t>(rf[f])] = oi[nb + lf.size() + f];
    Elem acc = is_float(d) ? complex_elem(0) : int_elem(0);
    for (const DimVec& c : cidx) {
      for (std::size_t p = 0; p < c.size(); ++p) {
        li[static_cast<std::size_t>(a.lhs_contracting_dimensions[p])] = c[p];
        ri[static_cast<std::size_t>(a.rhs_contracting_dimensions[p])] = c[p];
      }
      Elem x = read(l, li), y = read(r, ri);
      if (is_float(d))
        acc.z += x.z * y.z;
      else
        acc.i = wadd(acc.i, wmul(x.i, y.i));
    }
    write(out, oi, acc);
  }
  return out;
}

// ---- structural ops ------------------------------------------------------------

std::vector<std::int64_t> int_vector(const Tensor& t) {
  std::vector<std::int64_t> v;
  for (const DimVec& idx : all_indices(t.shape())) v.push_back(int_value_at(t, idx));
  return v;
}

std::int64_t clamp_start(std::int64_t s, std::int64_t n, std::int64_t size) {
  return std::min(std::max<std::int64_t>(s, 0), n - size);
}

Tensor transpose_ref(const DimVec& perm, const Tensor& x) {
  Shape s;
  for (auto p : perm) s.push_back(x.shape()[static_cast<std::size_t>(p)]);
  Tensor out = Tensor::empty(s, x.dtype());
  DimVec j(perm.size());
  for (const DimVec& idx : all_indices(s)) {
    for (std::size_t i = 0; i < perm.size(); ++i) j[static_cast<std::size_t>(perm[i])] = idx[i];
    copy_elem(out, idx, x, j);
  }
  return out;
}

Tensor reshape_ref(const Shape& shape, const Tensor& x) {
  // Both enumerations run in column-major order: zip them.
  Tensor out = Tensor::empty(shape, x.dtype());
  std::vector<DimVec> from = all_indices(x.shape());
  std::vector<DimVec> to = all_indices(shape);
  for (std::size_t k = 0; k < to.size(); ++k) copy_elem(out, to[k], x, from[k]);
  return out;
}

Tensor broadcast_in_dim_ref(const BroadcastInDimAttrs& a, const Tensor& x) {
  Tensor out = Tensor::empty(a.shape, x.dtype());
  DimVec j(static_cast<std::size_t>(x.ndim()));
  for (const DimVec& idx : all_indices(a.shape)) {
    for (std::size_t i = 0; i < j.size(); ++i)
      j[i] = x.shape()[i] == 1 ? 0 : idx[static_cast<std::size_t>(a.broadcast_dimensions[i])];
    copy_elem(out, idx, x, j);
  }
  return out;
}

Tensor slice_ref(const SliceAttrs& a, const Tensor& x) {
  Shape s;
  for (std::size_t i = 0; i < x.shape().size(); ++i) {
    std::int64_t n = a.limit_indices[i] - a.start_indices[i];
    s.push_back(n <= 0 ? 0 : (n + a.strides[i] - 1) / a.strides[i]);
  }
  Tensor out = Tensor::empty(s, x.dtype());
  DimVec j(s.size());
  for (const DimVec& idx : all_indices(s)) {
    for (std::size_t i = 0; i < s.size(); ++i) j[i] = a.start_indices[i] + idx[i] * a.strides[i];
    copy_elem(out, idx, x, j);
  }
  return out;
}

Tensor dynamic_slice_ref(const DynamicSliceAttrs& a, const Tensor& x, const Tensor& starts) {
  std::vector<std::int64_t> st = int_vector(starts);
  Tensor out = Tensor::empty(a.slice_sizes, x.dtype());
  DimVec j(a.slice_sizes.size());
  for (const DimVec& idx : all_indices(a.slice_sizes)) {
    for (std::size_t i = 0; i < j.size(); ++i)
      j[i] = clamp_start(st[i], x.shape()[i], a.slice_sizes[i]) + idx[i];
    copy_elem(out, idx, x, j);
  }
  return out;
}

Tensor copy_ref(const Tensor& x) {
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  for (const DimVec& idx : all_indices(x.shape())) copy_elem(out, idx, x, idx);
  return out;
}

Tensor dynamic_update_slice_ref(const Tensor& x, const Tensor& upd, const Tensor& starts) {
  std::vector<std::int64_t> st = int_vector(starts);
  Tensor out = copy_ref(x);
  DimVec j(upd.shape().size());
  for (const DimVec& idx : all_indices(upd.shape())) {
    for (std::size_t i = 0; i < j.size(); ++i)
      j[i] = clamp_start(st[i], x.shape()[i], upd.shape()[i]) + idx[i];
    copy_elem(out, j, upd, idx);
  }
  return out;
}

Tensor pad_ref(const PadAttrs& a, const Tensor& x, const Tensor& value) {
  Shape s;
  for (std::size_t i = 0; i < x.shape().size(); ++i) {
    std::int64_t n = x.shape()[i];
    s.push_back(a.edge_padding_low[i] + a.edge_padding_high[i] + n +
                std::max<std::int64_t>(n - 1, 0) * a.interior_padding[i]);
  }
  Tensor out = Tensor::empty(s, x.dtype());
  for (const DimVec& idx : all_indices(s)) copy_elem(out, idx, value, DimVec{});
  DimVec pos(s.size());
  for (const DimVec& idx : all_indices(x.shape())) {
    bool inside = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
      pos[i] = a.edge_padding_low[i] + idx[i] * (a.interior_padding[i] + 1);
      inside = inside && pos[i] >= 0 && pos[i] < s[i];
    }
    if (inside) copy_elem(out, pos, x, idx);
  }
  return out;
}

Tensor concatenate_ref(std::int64_t dim, std::span<const Tensor> in) {
  const std::size_t d = static_cast<std::size_t>(dim);
  Shape s = in[0].shape();
  s[d] = 0;
  for (const Tensor& t : in) s[d] += t.shape()[d];
  Tensor out = Tensor::empty(s, in[0].dtype());
  std::int64_t at = 0;
  for (const Tensor& t : in) {
    for (const DimVec& idx : all_indices(t.shape())) {
      DimVec o = idx;
      o[d] += at;
      copy_elem(out, o, t, idx);
    }
    at += t.shape()[d];
  }
  return out;
}

Tensor reverse_ref(const DimVec& dims, const Tensor& x) {
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  for (const DimVec& idx : all_indices(x.shape())) {
    DimVec j = idx;
    for (auto dd : dims) {
      std::size_t a = static_cast<std::size_t>(dd);
      j[a] = x.shape()[a] - 1 - idx[a];
    }
    copy_elem(out, idx, x, j);
  }
  return out;
}

// The start vector of batch position `batch_index` (StableHLO: the indices
// element at batch_index with ':' inserted at index_vector_dim).
std::vector<std::int64_t> start_vector(const Tensor& indices, const DimVec& batch_index,
                                       std::int64_t index_vector_dim) {
  const std::int64_t ir = indices.ndim();
  if (index_vector_dim >= ir) return {int_value_at(indices, batch_index)};
  std::vector<std::int64_t> v;
  for (std::int64_t k = 0; k < indices.shape()[static_cast<std::size_t>(index_vector_dim)]; ++k) {
    DimVec ii = batch_index;
    ii.insert(ii.begin() + index_vector_dim, k);
    v.push_back(int_value_at(indices, ii));
  }
  return v;
}

Tensor gather_ref(const GatherAttrs& a, const Tensor& x, const Tensor& indices) {
  const std::int64_t r = x.ndim(), ir = indices.ndim();
  Shape batch_sizes, offset_sizes;
  for (std::int64_t d = 0; d < ir; ++d)
    if (d != a.index_vector_dim) batch_sizes.push_back(indices.shape()[static_cast<std::size_t>(d)]);
  for (std::int64_t d = 0; d < r; ++d)
    if (!contains(a.collapsed_slice_dims, d))
      offset_sizes.push_back(a.slice_sizes[static_cast<std::size_t>(d)]);
  const std::size_t out_rank = batch_sizes.size() + offset_sizes.size();
  Shape s;
  for (std::size_t d = 0, nb = 0, no = 0; d < out_rank; ++d)
    s.push_back(contains(a.offset_dims, std::int64_t(d)) ? offset_sizes[no++] : batch_sizes[nb++]);
  Tensor out = Tensor::empty(s, x.dtype());
  for (const DimVec& oi : all_indices(s)) {
    DimVec batch_index, offset_index;
    for (std::size_t d = 0; d < out_rank; ++d)
      (contains(a.offset_dims, std::int64_t(d)) ? offset_index : batch_index).push_back(oi[d]);
    std::vector<std::int64_t> start = start_vector(indices, batch_index, a.index_vector_dim);
    DimVec operand_index(static_cast<std::size_t>(r), 0);
    for (std::size_t k = 0; k < start.size(); ++k) {
      std::size_t d = static_cast<std::size_t>(a.start_index_map[k]);
      operand_index[d] = clamp_start(start[k], x.shape()[d], a.slice_sizes[d]);
    }
    for (std::int64_t d = 0, k = 0; d < r; ++d)
      if (!contains(a.collapsed_slice_dims, d))
        operand_index[static_cast<std::size_t>(d)] += offset_index[static_cast<std::size_t>(k++)];
    copy_elem(out, oi, x, operand_index);
  }
  return out;
}

Tensor scatter_ref(const ScatterAttrs& a, const Tensor& x, const Tensor& indices, const Tensor& upd) {
  const DType d = x.dtype();
  const std::int64_t r = x.ndim();
  // Values kept wide while updates accumulate, written once at the end.
  std::vector<Elem> acc;
  for (const DimVec& idx : all_indices(x.shape())) acc.push_back(read(x, idx));
  Shape batch_shape, window_shape;
  DimVec batch_dims, window_dims;
  for (std::int64_t k = 0; k < upd.ndim(); ++k) {
    std::int64_t n = upd.shape()[static_cast<std::size_t>(k)];
    if (contains(a.update_window_dims, k)) {
      window_dims.push_back(k);
      window_shape.push_back(n);
    } else {
      batch_dims.push_back(k);
      batch_shape.push_back(n);
    }
  }
  // Operand axis of each window axis (the axes not inserted, in order).
  DimVec window_axis;
  for (std::int64_t dd = 0; dd < r; ++dd)
    if (!contains(a.inserted_window_dims, dd)) window_axis.push_back(dd);
  const std::vector<DimVec> window_indices = all_indices(window_shape);
  for (const DimVec& bi : all_indices(batch_shape)) {
    std::vector<std::int64_t> start = start_vector(indices, bi, a.index_vector_dim);
    DimVec full_start(static_cast<std::size_t>(r), 0);
    for (std::size_t k = 0; k < start.size(); ++k)
      full_start[static_cast<std::size_t>(a.scatter_dims_to_operand_dims[k])] = start[k];
    // The whole window must lie inside the operand, or it is skipped.
    bool inside = true;
    for (std::int64_t dd = 0; dd < r; ++dd) {
      std::int64_t extent = 1;
      for (std::size_t w = 0; w < window_axis.size(); ++w)
        if (window_axis[w] == dd) extent = window_shape[w];
      std::int64_t s0 = full_start[static_cast<std::size_t>(dd)];
      inside = inside && s0 >= 0 && s0 + extent <= x.shape()[static_cast<std::size_t>(dd)];
    }
    if (!inside) continue;
    for (const DimVec& wi : window_indices) {
      DimVec ui(static_cast<std::size_t>(upd.ndim()));
      for (std::size_t k = 0; k < batch_dims.size(); ++k) ui[static_cast<std::size_t>(batch_dims[k])] = bi[k];
      for (std::size_t k = 0; k < window_dims.size(); ++k)
        ui[static_cast<std::size_t>(window_dims[k])] = wi[k];
      DimVec target = full_start;
      for (std::size_t w = 0; w < window_axis.size(); ++w)
        target[static_cast<std::size_t>(window_axis[w])] += wi[w];
      Elem& o = acc[static_cast<std::size_t>(linear(target, x.shape()))];
      Elem u = read(upd, ui);
      if (a.mode == ScatterMode::replace)
        o = u;
      else if (is_float(d))
        o.z += u.z;
      else
        o.i = wadd(o.i, u.i);
    }
  }
  Tensor out = Tensor::empty(x.shape(), d);
  std::size_t k = 0;
  for (const DimVec& idx : all_indices(x.shape())) write(out, idx, acc[k++]);
  return out;
}

// Largest finite |value| of a tensor (at least 1), for error bounds.
double magnitude(const Tensor& t) {
  double m = 1.0;
  if (!is_float(t.dtype())) return m;
  for (const DimVec& idx : all_indices(t.shape())) {
    double v = std::abs(value_at(t, idx));
    if (std::isfinite(v)) m = std::max(m, v);
  }
  return m;
}

}  // namespace

// A new row in ops.def must get a reference here: no default case.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch-enum"

Tensor reference_eval(OpKind kind, const Attrs& attrs, std::span<const Tensor> in) {
  switch (kind) {
    case OpKind::erf:
    case OpKind::erfc:
    case OpKind::erfinv:
    case OpKind::erfcx:
    case OpKind::lgamma:
    case OpKind::digamma:
    case OpKind::i0:
    case OpKind::i0e:
    case OpKind::i1:
    case OpKind::i1e:
    case OpKind::ndtr:
    case OpKind::ndtri:
    case OpKind::log_ndtr:
    case OpKind::polygamma:
    {
      const DType d = in[0].dtype();
      const std::int64_t order = kind == OpKind::polygamma ? std::get<PolygammaAttrs>(attrs).n : 0;
      return map_elements(d, in[0].shape(), in, [&](const std::vector<Elem>& v) {
        return float_elem(special_value(kind, order, v[0].z.real()));
      });
    }
    case OpKind::negate:
    case OpKind::conj:
    case OpKind::abs:
    case OpKind::sign:
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::tanh:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::expm1:
    case OpKind::log1p:
    case OpKind::real:
    case OpKind::imag:
    case OpKind::is_finite:
    case OpKind::floor:
    case OpKind::ceil:
    case OpKind::trunc:
    case OpKind::round_nearest_even:
    case OpKind::frexp_exponent: {
      const DType d = in[0].dtype();
      DType out = d;
      if (kind == OpKind::abs || kind == OpKind::real || kind == OpKind::imag) out = real_dtype(d);
      if (kind == OpKind::is_finite) out = DType::bool_;
      if (kind == OpKind::frexp_exponent) out = DType::i32;
      return map_elements(out, in[0].shape(), in,
                          [&](const std::vector<Elem>& v) { return unary_value(kind, d, v[0]); });
    }
    case OpKind::convert: {
      const DType from = in[0].dtype(), to = std::get<ConvertAttrs>(attrs).dtype;
      return map_elements(to, in[0].shape(), in,
                          [&](const std::vector<Elem>& v) { return convert_elem(from, to, v[0]); });
    }
    case OpKind::add:
    case OpKind::subtract:
    case OpKind::multiply:
    case OpKind::divide:
    case OpKind::maximum:
    case OpKind::minimum:
    case OpKind::power:
    case OpKind::complex:
    case OpKind::compare:
    case OpKind::fmod:
    case OpKind::remainder:
    case OpKind::ldexp: {
      const DType d = in[0].dtype();
      DType out = d;
      if (kind == OpKind::compare) out = DType::bool_;
      if (kind == OpKind::complex) out = d == DType::f32 ? DType::c64 : DType::c128;
      return map_elements(out, in[0].shape(), in, [&](const std::vector<Elem>& v) {
        return binary_value(kind, attrs, d, v[0], v[1]);
      });
    }
    case OpKind::select:
      return map_elements(in[1].dtype(), elementwise_shape(in), in,
                          [](const std::vector<Elem>& v) { return v[0].i != 0 ? v[1] : v[2]; });
    case OpKind::clamp: {
      const DType d = in[1].dtype();
      return map_elements(d, elementwise_shape(in), in, [&](const std::vector<Elem>& v) {
        return extreme(d, extreme(d, v[1], v[0], true), v[2], false);
      });
    }
    case OpKind::reduce_sum:
    case OpKind::reduce_prod:
    case OpKind::reduce_max:
    case OpKind::reduce_min:
      return reduce_ref(kind, std::get<AxesAttrs>(attrs).dimensions, in[0]);
    case OpKind::dot_general:
      return dot_general_ref(std::get<DotGeneralAttrs>(attrs), in[0], in[1]);
    case OpKind::transpose:
      return transpose_ref(std::get<PermutationAttrs>(attrs).permutation, in[0]);
    case OpKind::reshape:
      return reshape_ref(std::get<ReshapeAttrs>(attrs).shape, in[0]);
    case OpKind::broadcast_in_dim:
      return broadcast_in_dim_ref(std::get<BroadcastInDimAttrs>(attrs), in[0]);
    case OpKind::gather:
      return gather_ref(std::get<GatherAttrs>(attrs), in[0], in[1]);
    case OpKind::scatter:
      return scatter_ref(std::get<ScatterAttrs>(attrs), in[0], in[1], in[2]);
    case OpKind::slice:
      return slice_ref(std::get<SliceAttrs>(attrs), in[0]);
    case OpKind::dynamic_slice:
      return dynamic_slice_ref(std::get<DynamicSliceAttrs>(attrs), in[0], in[1]);
    case OpKind::dynamic_update_slice:
      return dynamic_update_slice_ref(in[0], in[1], in[2]);
    case OpKind::pad:
      return pad_ref(std::get<PadAttrs>(attrs), in[0], in[1]);
    case OpKind::concatenate:
      return concatenate_ref(std::get<ConcatenateAttrs>(attrs).dimension, in);
    case OpKind::reverse:
      return reverse_ref(std::get<AxesAttrs>(attrs).dimensions, in[0]);
  }
  throw std::logic_error("reference_eval: unknown op");
}

Tolerance reference_tolerance(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, DType out_dtype) {
  if (!is_float(out_dtype)) return {};
  const double eps = dtype_eps(out_dtype);
  const bool cplx = !in.empty() && is_complex(in[0].dtype());
  switch (kind) {
    // Elements are only moved, selected or converted exactly.
    case OpKind::transpose:
    case OpKind::reshape:
    case OpKind::broadcast_in_dim:
    case OpKind::gather:
    case OpKind::slice:
    case OpKind::dynamic_slice:
    case OpKind::dynamic_update_slice:
    case OpKind::pad:
    case OpKind::concatenate:
    case OpKind::reverse:
    case OpKind::select:
    case OpKind::clamp:
    case OpKind::maximum:
    case OpKind::minimum:
    case OpKind::reduce_max:
    case OpKind::reduce_min:
    case OpKind::negate:
    case OpKind::conj:
    case OpKind::real:
    case OpKind::imag:
    case OpKind::complex:
    case OpKind::convert:
    case OpKind::compare:
    case OpKind::is_finite:
    // Exact functions (fmod's result is representable; remainder adds y once, rounded once).
    case OpKind::floor:
    case OpKind::ceil:
    case OpKind::trunc:
    case OpKind::round_nearest_even:
    case OpKind::frexp_exponent:
    case OpKind::fmod:
    case OpKind::remainder:
      return {};
    // Special functions: a few ulps (docs/special_functions.md has the
    // measured maxima); the absolute part covers results near the zeros
    // of digamma, lgamma and polygamma, where only absolute accuracy is
    // meaningful.
    case OpKind::erf:
    case OpKind::erfc:
    case OpKind::erfinv:
    case OpKind::erfcx:
    case OpKind::lgamma:
    case OpKind::digamma:
    case OpKind::i0:
    case OpKind::i0e:
    case OpKind::i1:
    case OpKind::i1e:
    case OpKind::ndtr:
    case OpKind::ndtri:
    case OpKind::log_ndtr:
      return {64 * eps, 64 * eps};
    case OpKind::polygamma: {
      // x < 0 sums terms (x + k)^-(n+1) of both signs: the absolute error is
      // eps n! times the largest term, 1 / dist(x, nearest integer)^(n+1).
      const std::int64_t n = std::get<PolygammaAttrs>(attrs).n;
      double big = 1;
      for (const DimVec& idx : all_indices(in[0].shape())) {
        double x = value_at(in[0], idx).real();
        if (!(x < 0) || !std::isfinite(x)) continue;
        double dist = std::fabs(x - std::round(x));
        if (dist > 0) big = std::max(big, std::pow(dist, -double(n + 1)) * std::tgamma(double(n + 1)));
      }
      return {64 * eps, 64 * eps * big};
    }
    // Exact for integral exponents; exp2 (a few ulps) otherwise.
    case OpKind::ldexp:
      return {4 * eps, 0};
    // Correctly rounded in one step for reals; a few ulps for complex.
    case OpKind::add:
    case OpKind::subtract:
      return {2 * eps, 0};
    case OpKind::multiply:
      return {(cplx ? 4 : 1) * eps, 0};
    case OpKind::divide:
      return {(cplx ? 8 : 1) * eps, 0};
    case OpKind::abs:
    case OpKind::sign:
      return {(cplx ? 4 : 0) * eps, 0};
    case OpKind::power:
      return cplx ? Tolerance{64 * eps, 64 * eps} : Tolerance{4 * eps, 0};
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::tanh:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::expm1:
    case OpKind::log1p:
      return cplx ? Tolerance{16 * eps, 16 * eps} : Tolerance{4 * eps, 4 * eps};
    // Accumulations: error grows with the number of terms.
    case OpKind::reduce_sum: {
      double n = 1;
      for (auto a : std::get<AxesAttrs>(attrs).dimensions)
        n *= double(in[0].shape()[static_cast<std::size_t>(a)]);
      return {4 * eps, 2 * (n + 1) * eps * magnitude(in[0])};
    }
    case OpKind::reduce_prod: {
      double n = 1;
      for (auto a : std::get<AxesAttrs>(attrs).dimensions)
        n *= double(in[0].shape()[static_cast<std::size_t>(a)]);
      return {(cplx ? 8 : 2) * (n + 1) * eps, 0};
    }
    case OpKind::dot_general: {
      double k = 1;
      for (auto a : std::get<DotGeneralAttrs>(attrs).lhs_contracting_dimensions)
        k *= double(in[0].shape()[static_cast<std::size_t>(a)]);
      return {4 * eps, 4 * (k + 1) * eps * magnitude(in[0]) * magnitude(in[1])};
    }
    case OpKind::scatter: {
      if (std::get<ScatterAttrs>(attrs).mode == ScatterMode::replace) return {};
      double terms = 1;
      for (auto n : in[2].shape()) terms *= double(n);
      return {2 * eps, 2 * (terms + 1) * eps * std::max(magnitude(in[0]), magnitude(in[2]))};
    }
  }
  throw std::logic_error("reference_tolerance: unknown op");
}

#pragma GCC diagnostic pop

}  // namespace tenferro::testing
