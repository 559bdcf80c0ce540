// Elementwise kernels: unary, binary and ternary maps over any strides.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "kernels.hpp"
#include "loops.hpp"
#include "scalar_ops.hpp"

namespace tenferro::cpu {
namespace {

// Rank-0 operands of select/clamp broadcast: they get all-zero strides.
const std::int64_t* strides_over(const Tensor& t, const Tensor& out, const Strides& zeros) {
  return (t.ndim() == 0 && out.ndim() > 0) ? zeros.data() : t.strides().data();
}

template <class Out, class A, class F>
void map1(const Tensor& out, const Tensor& a, F f) {
  Loop<2> loop(out.shape(), {out.strides().data(), a.strides().data()});
  Out* o = static_cast<Out*>(out.data_ptr());
  const A* x = static_cast<const A*>(a.data_ptr());
  auto body = [&](const std::array<std::int64_t, 2>& off, std::int64_t n,
                  const std::array<std::int64_t, 2>& st) {
    Out* po = o + off[0];
    const A* pa = x + off[1];
    if (st[0] == 1 && st[1] == 1) {
      for (std::int64_t i = 0; i < n; ++i) po[i] = f(pa[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) po[i * st[0]] = f(pa[i * st[1]]);
    }
  };
  parallel_for(loop.numel, kParallelGrain,
               [&](std::int64_t b, std::int64_t e) { loop.run(b, e, body); });
}

template <class Out, class A, class B, class F>
void map2(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  Loop<3> loop(out.shape(), {out.strides().data(), a.strides().data(), b.strides().data()});
  Out* o = static_cast<Out*>(out.data_ptr());
  const A* x = static_cast<const A*>(a.data_ptr());
  const B* y = static_cast<const B*>(b.data_ptr());
  auto body = [&](const std::array<std::int64_t, 3>& off, std::int64_t n,
                  const std::array<std::int64_t, 3>& st) {
    Out* po = o + off[0];
    const A* pa = x + off[1];
    const B* pb = y + off[2];
    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
      for (std::int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const B v = *pb;
      for (std::int64_t i = 0; i < n; ++i) po[i] = f(pa[i], v);
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const A v = *pa;
      for (std::int64_t i = 0; i < n; ++i) po[i] = f(v, pb[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) po[i * st[0]] = f(pa[i * st[1]], pb[i * st[2]]);
    }
  };
  parallel_for(loop.numel, kParallelGrain,
               [&](std::int64_t b, std::int64_t e) { loop.run(b, e, body); });
}

template <class Out, class A, class B, class C, class F>
void map3(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, F f) {
  Strides zeros(out.shape().size(), 0);
  Loop<4> loop(out.shape(), {out.strides().data(), strides_over(a, out, zeros),
                             strides_over(b, out, zeros), strides_over(c, out, zeros)});
  Out* o = static_cast<Out*>(out.data_ptr());
  const A* x = static_cast<const A*>(a.data_ptr());
  const B* y = static_cast<const B*>(b.data_ptr());
  const C* z = static_cast<const C*>(c.data_ptr());
  auto body = [&](const std::array<std::int64_t, 4>& off, std::int64_t n,
                  const std::array<std::int64_t, 4>& st) {
    Out* po = o + off[0];
    const A* pa = x + off[1];
    const B* pb = y + off[2];
    const C* pc = z + off[3];
    for (std::int64_t i = 0; i < n; ++i) po[i * st[0]] = f(pa[i * st[1]], pb[i * st[2]], pc[i * st[3]]);
  };
  parallel_for(loop.numel, kParallelGrain,
               [&](std::int64_t b, std::int64_t e) { loop.run(b, e, body); });
}

template <DTypeSet S, class Make>
void on_dtype(DType d, OpKind kind, Make&& make) {
  visit_dtype<S>(d, op_name(kind), std::forward<Make>(make));
}

}  // namespace

void elementwise(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  const Tensor& a = in[0];
  DType d = a.dtype();
  switch (kind) {
    case OpKind::add:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { map2<T, T, T>(out, a, in[1], [](T x, T y) { return wrap_add(x, y); }); });
    case OpKind::subtract:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { map2<T, T, T>(out, a, in[1], [](T x, T y) { return wrap_sub(x, y); }); });
    case OpKind::multiply:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { map2<T, T, T>(out, a, in[1], [](T x, T y) { return wrap_mul(x, y); }); });
    case OpKind::divide:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) map2<T, T, T>(out, a, in[1], [](T x, T y) { return int_div(x, y); });
        else map2<T, T, T>(out, a, in[1], [](T x, T y) { return x / y; });
      });
    case OpKind::maximum:
      return on_dtype<kRealDTypes>(d, kind, [&]<class T>() { map2<T, T, T>(out, a, in[1], [](T x, T y) { return max_nan(x, y); }); });
    case OpKind::minimum:
      return on_dtype<kRealDTypes>(d, kind, [&]<class T>() { map2<T, T, T>(out, a, in[1], [](T x, T y) { return min_nan(x, y); }); });
    case OpKind::power:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) map2<T, T, T>(out, a, in[1], [](T x, T y) { return int_pow(x, y); });
        else map2<T, T, T>(out, a, in[1], [](T x, T y) { return T(std::pow(x, y)); });
      });
    case OpKind::complex:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {
        map2<std::complex<T>, T, T>(out, a, in[1], [](T x, T y) { return std::complex<T>(x, y); });
      });
    case OpKind::compare: {
      auto dir = std::get<CompareAttrs>(attrs).direction;
      return on_dtype<kAllDTypes>(d, kind, [&]<class T>() {
        map2<bool, T, T>(out, a, in[1], [dir](T x, T y) { return compare_values(x, y, dir); });
      });
    }
    case OpKind::negate:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return wrap_neg(x); }); });
    case OpKind::conj:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        if constexpr (is_complex_v<T>) map1<T, T>(out, a, [](T x) { return std::conj(x); });
        else map1<T, T>(out, a, [](T x) { return x; });
      });
    case OpKind::abs:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        if constexpr (is_complex_v<T>) map1<real_t<T>, T>(out, a, [](T x) { return std::abs(x); });
        else if constexpr (std::is_integral_v<T>) map1<T, T>(out, a, [](T x) { return x < 0 ? wrap_neg(x) : x; });
        else map1<T, T>(out, a, [](T x) { return std::abs(x); });
      });
    case OpKind::sign:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return sign_of(x); }); });
    case OpKind::exp:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return std::exp(x); }); });
    case OpKind::log:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return std::log(x); }); });
    case OpKind::sin:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return std::sin(x); }); });
    case OpKind::cos:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return std::cos(x); }); });
    case OpKind::tanh:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return std::tanh(x); }); });
    case OpKind::sqrt:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return std::sqrt(x); }); });
    case OpKind::rsqrt:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() {
        map1<T, T>(out, a, [](T x) { return T(1) / std::sqrt(x); });
      });
    case OpKind::expm1:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return expm1_of(x); }); });
    case OpKind::log1p:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { map1<T, T>(out, a, [](T x) { return log1p_of(x); }); });
    case OpKind::real:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() {
        map1<real_t<T>, T>(out, a, [](T x) { return std::real(x); });
      });
    case OpKind::imag:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() {
        map1<real_t<T>, T>(out, a, [](T x) { return static_cast<real_t<T>>(std::imag(x)); });
      });
    case OpKind::is_finite:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() {
        map1<bool, T>(out, a, [](T x) {
          if constexpr (is_complex_v<T>) return std::isfinite(x.real()) && std::isfinite(x.imag());
          else return static_cast<bool>(std::isfinite(x));
        });
      });
    case OpKind::convert:
      return on_dtype<kAllDTypes>(d, kind, [&]<class From>() {
        on_dtype<kAllDTypes>(out.dtype(), kind, [&]<class To>() {
          map1<To, From>(out, a, [](From v) { return convert_value<To>(v); });
        });
      });
    case OpKind::select:
      return on_dtype<kAllDTypes>(in[1].dtype(), kind, [&]<class T>() {
        map3<T, bool, T, T>(out, a, in[1], in[2], [](bool p, T x, T y) { return p ? x : y; });
      });
    case OpKind::clamp:
      return on_dtype<kRealDTypes>(in[1].dtype(), kind, [&]<class T>() {
        map3<T, T, T, T>(out, a, in[1], in[2],
                         [](T lo, T x, T hi) { return min_nan(max_nan(x, lo), hi); });
      });
    default:
      TF_INTERNAL_ASSERT(false, "elementwise: ", op_name(kind), " is not elementwise");
  }
}

}  // namespace tenferro::cpu
